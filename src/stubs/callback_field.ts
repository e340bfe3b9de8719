/**
 * A stub's `callbacks:` field (webhooks sent after its answer): checking it, and the rule
 * that keeps a request from steering the server at another host: the scheme, host and port
 * of a callback URL are written out, so a `{name}` capture or a `{{…}}` template can fill
 * only the path and query.
 * @module
 */

import { type CallbackSpec, type Method, METHODS } from "./model.ts";
import { checkHeaders, checkJsonValue, checkMethod, describe } from "./checks.ts";
import { unknownField } from "../util/hint.ts";
import { isObject } from "../util/json_shape.ts";

export type { CallbackSpec } from "./model.ts";

/** A problem of a `callbacks:` value: where (`callbacks`, `callbacks[1]`) and what, with the fix. */
export interface CallbackProblem {
  place: string;
  message: string;
}

const CALLBACK_FIELDS = ["method", "url", "headers", "body", "delay_ms"] as const;
const MAX_DELAY_MS = 2_147_483_647; // the largest setTimeout delay
const SCHEME = /^https?:\/\//i;
// deno-lint-ignore no-control-regex -- control characters are what must be caught
const CONTROL = /[\x00-\x1f\x7f]/;
/** `{{…}}` templates, then `{name}` placeholders. */
const FILLED = /\{\{[\s\S]*?\}\}|\{[^{}]*\}/g;

/**
 * Checks a callback URL: http or https, with the scheme, host and port written out (no
 * `{name}` or `{{…}}` before the path starts), and a valid URL once its placeholders are
 * filled. Returns a one-line problem with the fix, or undefined.
 *
 * @example
 * ```ts
 * import { checkCallbackUrl } from "./callback_field.ts";
 * console.log(checkCallbackUrl("http://hooks.example:8080/orders/{id}")); // undefined
 * console.log(checkCallbackUrl("http://{host}/orders"));
 * // "url must write the scheme, host and port out (a {name} or {{…}} may fill only the path and query), got \"http://{host}/orders\""
 * ```
 */
export function checkCallbackUrl(url: string): string | undefined {
  const scheme = SCHEME.exec(url)?.[0];
  if (!scheme) {
    return `url must start with http:// or https:// followed by the host, got ${describe(url)}`;
  }
  if (CONTROL.test(url)) return `url must not contain control characters (tab, CR, LF…), got ${describe(url)}`;
  const rest = url.slice(scheme.length);
  // Where the authority ends: the URL parser also reads `\` as `/` in http and https URLs.
  const end = rest.search(/[/?#\\]/);
  const authority = end === -1 ? rest : rest.slice(0, end);
  const literal =
    `url must write the scheme, host and port out (a {name} or {{…}} may fill only the path and query), got ${
      describe(url)
    }`;
  if (authority.includes("{")) return literal;
  if (authority === "") return `url must name a host after ${scheme}, got ${describe(url)}`;
  let origin: string;
  let filled: URL;
  try {
    origin = new URL(scheme + authority).origin;
    filled = new URL(url.replace(FILLED, "x"));
  } catch {
    return `url is not a valid URL, got ${describe(url)}`;
  }
  // The literal part alone must fix the origin (a leftover brace in the host is caught above).
  if (filled.origin !== origin) return literal;
  return undefined;
}

/**
 * Checks a stub's `callbacks:` value: a non-empty list of `{method, url, headers?, body?,
 * delay_ms?}`. Returns the callbacks that are sound and a problem for every fault, placed
 * at `callbacks` or `callbacks[i]`; the message names the field within the entry.
 *
 * @example
 * ```ts
 * import { validateCallbacks } from "./callback_field.ts";
 * const { problems } = validateCallbacks([{ method: "POST", urll: "http://hooks.example/x" }]);
 * console.log(problems);
 * // [
 * //   { place: "callbacks[0]", message: "unknown field 'urll' (did you mean 'url'?)" },
 * //   { place: "callbacks[0]", message: "url is required: the http:// or https:// address to call" },
 * // ]
 * ```
 */
export function validateCallbacks(value: unknown): { callbacks: CallbackSpec[]; problems: CallbackProblem[] } {
  const callbacks: CallbackSpec[] = [];
  const problems: CallbackProblem[] = [];
  if (!Array.isArray(value) || value.length === 0) {
    problems.push({
      place: "callbacks",
      message: `must be a non-empty list of callbacks ({method, url, headers, body, delay_ms}), got ${describe(value)}`,
    });
    return { callbacks, problems };
  }
  value.forEach((entry, i) => {
    const place = `callbacks[${i}]`;
    const errors: string[] = [];
    const callback = checkCallback(entry, errors);
    for (const message of errors) problems.push({ place, message });
    if (callback && errors.length === 0) callbacks.push(callback);
  });
  return { callbacks, problems };
}

function checkCallback(entry: unknown, errors: string[]): CallbackSpec | undefined {
  if (!isObject(entry)) {
    errors.push(`must be a mapping like {method: POST, url: http://hooks.example/x}, got ${describe(entry)}`);
    return undefined;
  }
  for (const key of Object.keys(entry)) {
    if (!(CALLBACK_FIELDS as readonly string[]).includes(key)) errors.push(unknownField("field", key, CALLBACK_FIELDS));
  }
  const { method } = checkMethod(entry.method);
  if (method === undefined || method === "ANY") {
    errors.push(
      `method ${
        entry.method === undefined ? "is required" : `must be a method, got ${describe(entry.method)}`
      } (allowed: ${METHODS.join(", ")})`,
    );
  }
  const url = entry.url;
  if (url === undefined) errors.push("url is required: the http:// or https:// address to call");
  else if (typeof url !== "string") errors.push(`url must be a string, got ${describe(url)}`);
  else {
    const problem = checkCallbackUrl(url);
    if (problem) errors.push(problem);
  }
  const headers = entry.headers === undefined ? undefined : checkHeaders(entry.headers, "headers", errors);
  if (entry.body !== undefined) {
    const problem = checkJsonValue(entry.body, "body");
    if (problem) errors.push(problem);
  }
  const delay = entry.delay_ms;
  if (
    delay !== undefined &&
    (typeof delay !== "number" || !Number.isInteger(delay) || delay < 0 || delay > MAX_DELAY_MS)
  ) {
    errors.push(`delay_ms must be whole milliseconds from 0 to ${MAX_DELAY_MS}, got ${describe(delay)}`);
  }
  if (errors.length) return undefined;
  const callback: CallbackSpec = { method: method as Method, url: url as string };
  if (headers !== undefined) callback.headers = headers;
  if (entry.body !== undefined) callback.body = entry.body;
  if (delay !== undefined && delay !== 0) callback.delayMs = delay as number;
  return callback;
}
