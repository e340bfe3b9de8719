/**
 * What a `proxy:` stub changes on the way (WireMock's `proxyUrlPrefixToRemove`,
 * `additionalProxyRequestHeaders`, `removeProxyRequestHeaders`, and a proxy mapping's own
 * `headers`): `proxy_request: {strip_prefix, add_headers, remove_headers}` on the request
 * passed on, and `headers` added to the upstream's answer.
 * @module
 */

import { isObject } from "../util/json_shape.ts";

/** How a proxy stub changes the request it passes on, and the headers it adds to the answer. */
export interface ProxyAdjust {
  /** Taken off the start of the request's path before it is appended to the upstream URL. */
  stripPrefix?: string;
  /** Header lines added to the request (beside the client's lines of the same name). */
  addHeaders?: [name: string, value: string][];
  /** Header names (lower case) of the client's request not passed on. */
  removeHeaders?: string[];
  /** Header lines added to the upstream's answer. */
  responseHeaders?: [name: string, value: string][];
}

const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
// deno-lint-ignore no-control-regex -- a header value may not hold control characters
const VALUE = /^[^\x00-\x08\x0a-\x1f\x7f]*$/;

/** name → text (or a list of text) as header lines; a problem is pushed with `field`. */
function headerLines(spec: unknown, field: string, errors: string[]): [string, string][] | undefined {
  if (!isObject(spec)) {
    errors.push(`${field} must be a mapping of header name → text`);
    return undefined;
  }
  const out: [string, string][] = [];
  for (const [name, value] of Object.entries(spec)) {
    const values = Array.isArray(value) ? value : [value];
    if (!TOKEN.test(name)) errors.push(`${field}: ${JSON.stringify(name)} is not a header name`);
    else if (values.length === 0 || values.some((v) => typeof v !== "string" || !VALUE.test(v))) {
      errors.push(`${field}.${name} must be text or a list of text without control characters`);
    } else for (const v of values as string[]) out.push([name, v]);
  }
  return out;
}

/**
 * Checks `proxy_request` and a proxy stub's `headers`. Returns the adjustments, or undefined
 * when there are none; problems are pushed to `errors`.
 */
export function checkProxyAdjust(raw: Record<string, unknown>, errors: string[]): ProxyAdjust | undefined {
  const adjust: ProxyAdjust = {};
  if (raw.headers !== undefined) {
    const lines = headerLines(raw.headers, "headers", errors);
    if (lines?.length) adjust.responseHeaders = lines;
  }
  const spec = raw.proxy_request;
  if (spec !== undefined) {
    if (!isObject(spec)) errors.push("proxy_request must be a mapping {strip_prefix, add_headers, remove_headers}");
    else {
      for (const key of Object.keys(spec)) {
        if (!["strip_prefix", "add_headers", "remove_headers"].includes(key)) {
          errors.push(`proxy_request.${key} is not a field: use strip_prefix, add_headers or remove_headers`);
        }
      }
      if (spec.strip_prefix !== undefined) {
        if (typeof spec.strip_prefix !== "string" || !spec.strip_prefix.startsWith("/")) {
          errors.push("proxy_request.strip_prefix must be a path starting with /");
        } else adjust.stripPrefix = spec.strip_prefix;
      }
      if (spec.add_headers !== undefined) {
        const lines = headerLines(spec.add_headers, "proxy_request.add_headers", errors);
        if (lines?.length) adjust.addHeaders = lines;
      }
      if (spec.remove_headers !== undefined) {
        const list = spec.remove_headers;
        if (!Array.isArray(list) || list.some((n) => typeof n !== "string" || !TOKEN.test(n))) {
          errors.push("proxy_request.remove_headers must be a list of header names");
        } else if (list.length) adjust.removeHeaders = list.map((n) => (n as string).toLowerCase());
      }
    }
  }
  return Object.keys(adjust).length ? adjust : undefined;
}
