// A saver URL with its password masked, the way graphnb/widget/redact.py masks it: what
// the saver box shows while it is not being edited, so a password typed into it is not
// left on screen. (Python never sends a password: the synced URL is masked already.)

export const MASK = "***";

const SECRET_PARAMETER = /(\b(?:password|passwd|pwd|secret|token|api_?key|access_token)\s*=\s*)([^&;\s#]*)/gi;

export function maskUrl(url: string): string {
  const sep = url.indexOf("://");
  let masked = url;
  if (sep !== -1) {
    const scheme = url.slice(0, sep + 3);
    let rest = url.slice(sep + 3);
    const first = rest.indexOf("@");
    if (first !== -1 && !rest.startsWith("/")) {
      // A password typed unencoded may hold "@", "/" or "?": the last "@" before the query.
      const ends = ["?", "#"].map((c) => rest.indexOf(c, first)).filter((i) => i !== -1);
      const at = rest.lastIndexOf("@", (ends.length ? Math.min(...ends) : rest.length) - 1);
      const userinfo = rest.slice(0, at);
      const colon = userinfo.indexOf(":");
      if (colon !== -1) rest = `${userinfo.slice(0, colon)}:${MASK}${rest.slice(at)}`;
    }
    masked = scheme + rest;
  }
  return masked.replace(SECRET_PARAMETER, (whole, key: string, value: string) => (value && value !== MASK ? key + MASK : whole));
}
