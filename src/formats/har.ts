/**
 * HAR recordings (HTTP Archive 1.2, as browsers and proxies export them) as the exchanges
 * `stubtool record` writes a config from (src/stubs/recording.ts): a pure translator, so
 * `import har` and its tests share it. What a HAR cannot replay exactly — an entry without
 * a response, a WebSocket, a request that is not http(s), a body the HAR leaves out — is a
 * warning naming the entry, never a guess.
 * @module
 */

import type { Exchange } from "../stubs/recording.ts";
import { isObject } from "../util/json_shape.ts";

/** Something an entry held that could not be converted; `place` is `FILE entries[i]`. */
export interface HarWarning {
  place: string;
  message: string;
}

/** What {@link harExchanges} makes. */
export interface HarExchanges {
  /** The converted entries, oldest first (by `startedDateTime`). */
  exchanges: Exchange[];
  /** One per entry left out or converted with less than it held, in file order. */
  warnings: HarWarning[];
  /** How many entries there were, and how many were skipped as another origin's. */
  entries: number;
  otherOrigin: number;
  /** The origins of the converted entries, first seen first. */
  origins: string[];
  /** The origins of the entries skipped as another origin's, first seen first. */
  otherOrigins: string[];
}

/** `{name, value}` lists as HAR writes headers. */
type NameValue = { name?: unknown; value?: unknown };

const utf8 = new TextEncoder();

/** A HAR header list as lower-cased names; HTTP/2 pseudo-headers (`:path`) are not headers. */
function headerList(list: unknown): [string, string][] {
  if (!Array.isArray(list)) return [];
  const out: [string, string][] = [];
  for (const item of list as NameValue[]) {
    if (!isObject(item) || typeof item.name !== "string" || typeof item.value !== "string") continue;
    if (item.name.startsWith(":")) continue;
    out.push([item.name.toLowerCase(), item.value]);
  }
  return out;
}

/** Bytes of standard base64, or undefined when it is not base64. */
function fromBase64(text: string): Uint8Array | undefined {
  try {
    const binary = atob(text.replace(/\s+/g, ""));
    return Uint8Array.from(binary, (c) => c.charCodeAt(0));
  } catch {
    return undefined;
  }
}

/** The bytes of a HAR text with an optional `encoding` (only `base64` is defined), or why not. */
function textBytes(text: string, encoding: unknown, field: string): Uint8Array | string {
  if (encoding === undefined || encoding === "") return utf8.encode(text);
  if (encoding !== "base64") return `${field}.encoding ${JSON.stringify(encoding)} is not supported (only base64)`;
  return fromBase64(text) ?? `${field}.text is not valid base64 (${field}.encoding is base64)`;
}

/** The response's status, headers and body, or why the entry cannot be replayed. */
function response(
  raw: unknown,
  method: string,
): { status: number; headers: Exchange["headers"]; body: Uint8Array } | string {
  if (!isObject(raw)) return "has no response: nothing to replay";
  const status = raw.status;
  if (status === 0 || status === -1) {
    return "has no response (status 0: the request failed, was blocked or cancelled): nothing to replay";
  }
  if (typeof status !== "number" || !Number.isInteger(status) || status < 100 || status > 599) {
    return `response.status must be an HTTP status from 100 to 599, got ${JSON.stringify(status)}`;
  }
  if (status === 101) return "is a protocol switch (status 101, a WebSocket): stubtool stubs HTTP answers only";
  const headers: Exchange["headers"] = {};
  for (const [name, value] of headerList(raw.headers)) {
    const had = headers[name];
    headers[name] = had === undefined ? value : Array.isArray(had) ? [...had, value] : [had, value];
  }
  const content = isObject(raw.content) ? raw.content : {};
  const mimeType = typeof content.mimeType === "string" ? content.mimeType : "";
  if (headers["content-type"] === undefined && mimeType !== "" && mimeType !== "x-unknown") {
    headers["content-type"] = mimeType;
  }
  const empty = method === "HEAD" || status === 204 || status === 304;
  if (typeof content.text === "string") {
    const body = textBytes(content.text, content.encoding, "response.content");
    if (typeof body === "string") return body;
    return { status, headers, body: empty ? new Uint8Array() : body };
  }
  const size = typeof content.size === "number" ? content.size : 0;
  const bodySize = typeof raw.bodySize === "number" ? raw.bodySize : 0;
  if (!empty && (size > 0 || bodySize > 0)) {
    return `the HAR leaves out the response body (content.size ${Math.max(size, bodySize)}, no content.text): ` +
      "export the HAR with content (Chrome: Save all as HAR with content)";
  }
  return { status, headers, body: new Uint8Array() };
}

/** The request body and what was warned about it (a body the HAR leaves out makes no body condition). */
function requestBody(raw: Record<string, unknown>, warn: (message: string) => void): Uint8Array {
  const postData = raw.postData;
  if (isObject(postData)) {
    if (typeof postData.text === "string") {
      const body = textBytes(postData.text, postData.encoding, "request.postData");
      if (typeof body !== "string") return body;
      warn(`${body}; written without a body condition`);
      return new Uint8Array();
    }
    warn("request.postData has no text (params alone do not give the bytes sent); written without a body condition");
    return new Uint8Array();
  }
  if (typeof raw.bodySize === "number" && raw.bodySize > 0) {
    warn(`the HAR leaves out the request body (bodySize ${raw.bodySize}); written without a body condition`);
  }
  return new Uint8Array();
}

/** The entry's URL when it is an http(s) one that is not a WebSocket; undefined after a warning otherwise. */
function entryUrl(entry: Record<string, unknown>, raw: unknown, warn: (message: string) => void): URL | undefined {
  let url: URL;
  try {
    url = new URL(String(raw));
  } catch {
    warn(`request.url must be an absolute URL, got ${JSON.stringify(raw)}`);
    return undefined;
  }
  if (url.protocol === "ws:" || url.protocol === "wss:" || entry._resourceType === "websocket") {
    warn(`is a WebSocket (${url.protocol}//${url.host}${url.pathname}): stubtool stubs HTTP answers only`);
    return undefined;
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    warn(`'${url.protocol}' requests are not supported: only http:// and https:// requests become stubs`);
    return undefined;
  }
  return url;
}

/** The request headers, repeated ones joined; the content type from `postData.mimeType` when none was sent. */
function requestHeaders(request: Record<string, unknown>): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of headerList(request.headers)) {
    headers[name] = headers[name] === undefined ? value : `${headers[name]}, ${value}`;
  }
  const postData = isObject(request.postData) ? request.postData : {};
  if (headers["content-type"] === undefined && typeof postData.mimeType === "string" && postData.mimeType) {
    headers["content-type"] = postData.mimeType;
  }
  return headers;
}

/**
 * Converts a parsed HAR document. `file` names it in warnings; `origin` (`https://host`)
 * keeps only the entries sent there. Throws a TypeError naming the fix when the document
 * is not a HAR (no `log.entries` list).
 *
 * @example
 * ```ts
 * import { harExchanges } from "./har.ts";
 * const har = {
 *   log: {
 *     entries: [{
 *       startedDateTime: "2026-01-01T00:00:00.000Z",
 *       request: { method: "GET", url: "https://api.example.com/users/1", headers: [] },
 *       response: { status: 200, headers: [], content: { mimeType: "application/json", text: '{"id":1}' } },
 *       timings: { wait: 42 },
 *     }],
 *   },
 * };
 * const { exchanges } = harExchanges(har, "session.har");
 * console.log(exchanges[0].target, exchanges[0].status, exchanges[0].latency); // /users/1 200 42
 * ```
 */
export function harExchanges(doc: unknown, file: string, options: { origin?: string } = {}): HarExchanges {
  const entries = isObject(doc) && isObject(doc.log) ? doc.log.entries : undefined;
  if (!Array.isArray(entries)) {
    throw new TypeError(
      "is not a HAR recording: it needs log.entries, a list (export one from the browser's network tab)",
    );
  }
  const warnings: HarWarning[] = [];
  const kept: { exchange: Exchange; started: number }[] = [];
  const origins: string[] = [];
  let otherOrigin = 0;
  const otherOrigins: string[] = [];
  entries.forEach((entry: unknown, i: number) => {
    const place = `${file} entries[${i}]`;
    const warn = (message: string) => warnings.push({ place, message });
    if (!isObject(entry) || !isObject(entry.request)) return warn("has no request: nothing to convert");
    const request = entry.request;
    if (typeof request.method !== "string" || !/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(request.method)) {
      return warn(`request.method must be an HTTP method, got ${JSON.stringify(request.method)}`);
    }
    const url = entryUrl(entry, request.url, warn);
    if (!url) return;
    if (options.origin !== undefined && url.origin !== options.origin) {
      otherOrigin++;
      if (!otherOrigins.includes(url.origin)) otherOrigins.push(url.origin);
      return;
    }
    const method = request.method.toUpperCase();
    const answer = response(entry.response, method);
    if (typeof answer === "string") return warn(answer);
    const headers = requestHeaders(request);
    const body = requestBody(request, warn);
    const timings = isObject(entry.timings) ? entry.timings : {};
    const wait = typeof timings.wait === "number" && timings.wait >= 0 ? timings.wait : undefined;
    const started = Date.parse(String(entry.startedDateTime));
    if (!origins.includes(url.origin)) origins.push(url.origin);
    kept.push({
      exchange: {
        method,
        target: url.pathname + url.search,
        ...answer,
        request: { headers, body },
        ...(wait === undefined ? {} : { latency: wait }),
      },
      started,
    });
  });
  // Oldest first, so repeated requests become sequences in the order they were answered.
  if (kept.every((k) => !Number.isNaN(k.started))) kept.sort((a, b) => a.started - b.started);
  return {
    exchanges: kept.map((k) => k.exchange),
    warnings,
    entries: entries.length,
    otherOrigin,
    origins,
    otherOrigins,
  };
}
