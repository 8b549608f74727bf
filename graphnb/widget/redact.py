"""Keep a saver URL's password on the kernel's side.

Whatever a synced trait holds reaches the browser, and the notebook's saved widget state
keeps it for anyone the notebook is shared with. So the builder shows and syncs a saver's
URL with its password masked (:func:`mask_url`), and scrubs the secrets out of every text
it shows (:func:`scrub`): a notice echoing a URL, a driver's error.

Masking never raises, whatever the text: a malformed URL is still masked (a URL a driver
cannot parse can still hold a password someone typed).

Example:
    >>> mask_url("postgresql://app:s3cret@db.example:5432/runs")
    'postgresql://app:***@db.example:5432/runs'
    >>> mask_url("postgresql://db.example/runs?user=app&password=s3cret")
    'postgresql://db.example/runs?user=app&password=***'
    >>> scrub("no saver for 'x://u:s3cret@h'", secrets_in("x://u:s3cret@h"))
    "no saver for 'x://u:***@h'"
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from urllib.parse import unquote

__all__ = ["MASK", "mask_url", "scrub", "secrets_in"]

MASK = "***"
"""What a password is shown as."""

_SECRET_PARAMETER = re.compile(
    r"(?i)(?P<key>\b(?:password|passwd|pwd|secret|token|api_?key|access_token)\s*=\s*)"
    r"(?P<value>[^&;\s#]*)"
)


def _masked(url: str) -> tuple[str, list[str]]:
    found: list[str] = []
    scheme, sep, rest = url.partition("://")
    if sep and "@" in rest and not rest.startswith("/"):
        # A password typed without percent-encoding may hold "@", "/" or "?": take the
        # last "@" before the query, and rather mask too much (a path holding "@") than
        # show a piece of a password.
        first = rest.index("@")
        ends = [i for i in (rest.find(c, first) for c in "?#") if i != -1]
        at = rest.rfind("@", 0, min(ends) if ends else len(rest))
        user, colon, password = rest[:at].partition(":")
        if colon:
            found.append(password)
            rest = f"{user}:{MASK}{rest[at:]}"
        url = f"{scheme}{sep}{rest}"

    def hide(match: re.Match[str]) -> str:
        if not match["value"] or match["value"] == MASK:
            return match[0]
        found.append(match["value"])
        return f"{match['key']}{MASK}"

    url = _SECRET_PARAMETER.sub(hide, url)
    return url, found


def mask_url(url: str) -> str:
    """``url`` with its password (and any ``password=`` parameter) shown as ``***``."""
    return _masked(url)[0]


def secrets_in(url: str) -> list[str]:
    """The secrets ``url`` holds, as typed and percent-decoded, longest first."""
    secrets = set()
    for secret in _masked(url)[1]:
        if secret and secret != MASK:
            secrets.update({secret, unquote(secret)})
    return sorted(secrets, key=len, reverse=True)


def scrub(text: str, secrets: Iterable[str]) -> str:
    """``text`` with every secret (also as ``repr`` escapes it) replaced by ``***``."""
    for secret in sorted(secrets, key=len, reverse=True):
        if not secret:
            continue
        for form in {secret, repr(secret)[1:-1]}:
            text = text.replace(form, MASK)
    return text
