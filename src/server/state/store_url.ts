/**
 * The `--state` URL: `redis://[USER:PASSWORD@]HOST:PORT[/DB]` (`rediss://` for TLS). Its
 * password never reaches a log, a banner, health or an error: every place that shows the
 * URL shows {@link redactStoreUrl}'s form.
 * @module
 */

/** The URL checked, or a one-line error naming the fix (the password never in it). */
export function checkStoreUrl(text: string): { url: URL } | { error: string } {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return { error: "must be a URL like redis://HOST:PORT[/DB], got text that is not one" };
  }
  const shown = redactStoreUrl(url);
  if (url.protocol !== "redis:" && url.protocol !== "rediss:") {
    return { error: `must start with redis:// or rediss://, got ${shown}` };
  }
  if (url.hostname === "") return { error: `must name a host (redis://HOST:PORT[/DB]), got ${shown}` };
  const db = url.pathname.replace(/^\//, "");
  if (db !== "" && !/^\d{1,5}$/.test(db)) {
    return { error: `the database after the host must be a number, got ${shown}` };
  }
  return { url };
}

/** `url` with its password (and user) replaced by `***`, for anything a person may read. */
export function redactStoreUrl(url: URL | string): string {
  let parsed: URL;
  try {
    parsed = typeof url === "string" ? new URL(url) : new URL(url.href);
  } catch {
    return "(not a URL)";
  }
  if (parsed.password !== "") parsed.password = "***";
  if (parsed.username !== "") parsed.username = "***";
  return parsed.href;
}
