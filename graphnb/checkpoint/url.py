"""Pick a saver from a URL, or accept a saver as it is."""

from __future__ import annotations

from typing import Any

from ..checkpoint_errors import SaverSetupError
from .base import BaseSaver

__all__ = ["as_saver", "saver_from_url"]


def saver_from_url(url: str, **options: Any) -> BaseSaver:
    """Make the saver a URL names.

    - ``memory://``: :class:`~graphnb.checkpoint.MemorySaver`.
    - ``sqlite:///relative/path.db``, ``sqlite:////absolute/path.db``,
      ``sqlite:///:memory:``: :class:`~graphnb.checkpoint.SqliteSaver`.
    - ``postgresql://user@host:5432/db`` (or ``postgres://``):
      :class:`~graphnb.checkpoint.PostgresSaver`.
    - ``mysql://user:password@host:3306/db`` (or ``mariadb://``):
      :class:`~graphnb.checkpoint.MySQLSaver`.

    Args:
        url: where the checkpoints live.
        **options: passed to the saver (``table_prefix=``, ``synchronous=`` ...).

    Raises:
        SaverSetupError: the URL's scheme is not one of the above.

    Example:
        >>> saver_from_url("sqlite:///:memory:")
        SqliteSaver(':memory:')
    """
    scheme, sep, rest = url.partition("://")
    base = scheme.split("+")[0].lower()
    if not sep:
        base = ""
    if base == "memory":
        from .memory import MemorySaver

        return MemorySaver(**options)
    if base == "sqlite":
        from .sqlite import SqliteSaver

        path = rest[1:] if rest.startswith("/") else rest
        if not path:
            raise SaverSetupError(f"{url!r} names no file; write sqlite:///path/to/file.db")
        return SqliteSaver(path, **options)
    if base in ("postgresql", "postgres"):
        from .postgres import PostgresSaver

        return PostgresSaver(f"postgresql://{rest}", **options)
    if base in ("mysql", "mariadb"):
        from .mysql import MySQLSaver

        return MySQLSaver(url, **options)
    raise SaverSetupError(
        f"no saver for {url!r}; use memory://, sqlite:///file.db, postgresql://... or mysql://..."
    )


def as_saver(saver: BaseSaver | str) -> BaseSaver:
    """``saver`` itself, or the saver its URL names."""
    if isinstance(saver, BaseSaver):
        return saver
    if isinstance(saver, str):
        return saver_from_url(saver)
    raise SaverSetupError(
        f"a checkpointer is a saver (MemorySaver(), SqliteSaver(...) ...) or its URL, got {saver!r}"
    )
