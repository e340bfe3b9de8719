/**
 * Turning recorded exchanges into a config file (`stubtool record`, `stubtool import har`):
 * one stub per distinct request; a request answered differently over time becomes a
 * `sequence`. Requests to one method + path + query that differ by JSON or form body get a
 * stub each with a `request: json|form` condition, as do requests that differ by a request
 * header asked for. JSON bodies become YAML values (when written back compactly they are
 * the same bytes; otherwise the exact bytes go to a body file), text bodies strings with
 * their content type, binary bodies `body_base64`. An event stream (`text/event-stream`)
 * becomes a `stream:` of its events, each with the time it took to arrive as `delay_ms` when
 * delays are kept. Response headers kept: `content-type` and those asked for; the recorded
 * latency becomes `delay` when asked for.
 * @module
 */

import { displaySegment } from "./path.ts";
import { isJsonMediaType } from "../util/media.ts";
import { parseSseEvents, type SseParsed } from "../util/sse.ts";
import { MAX_STREAM_EVENT_BYTES, MAX_STREAM_EVENTS } from "./stream_field.ts";

/** One exchange as the proxy saw it. */
export interface Exchange {
  method: string;
  /** Path and query as sent. */
  target: string;
  status: number;
  /** Response headers, names lower-cased (several values of one name as a list). */
  headers: Record<string, string | string[]>;
  /** The whole response body (empty for none). */
  body: Uint8Array;
  /** What was sent, when known: headers (names lower-cased) and the whole body (empty for none). */
  request?: { headers: Record<string, string>; body: Uint8Array };
  /** Milliseconds from sending the request to the answer's head, when known. */
  latency?: number;
  /**
   * When each part of the body came, when known: after `end` bytes had arrived, `ms`
   * milliseconds after the head (oldest first). An event stream's events get their delays from it.
   */
  arrivals?: { end: number; ms: number }[];
}

/** How {@link recordedConfig} writes stubs. */
export interface RecordingOptions {
  /** Response headers to keep besides `content-type`. */
  keep?: readonly string[];
  /** The folder (relative to the config) body files go to. Default `bodies`. */
  bodies?: string;
  /**
   * Request headers that tell requests apart: where one request to a method + path + query
   * carried the header, each of its stubs requires the value seen (or its absence).
   */
  keepRequestHeaders?: readonly string[];
  /** Do not tell requests apart by their JSON or form body (one stub per method + path + query). */
  ignoreBody?: boolean;
  /** Write each answer's recorded latency as its `delay` (a stub's several equal answers: their median). */
  keepDelay?: boolean;
}

/** What {@link recordedConfig} makes. */
export interface RecordedConfig {
  /** The config document: `{ routes: [...] }`. */
  config: { routes: Record<string, unknown>[] };
  /** Files to write beside the config (path relative to it → bytes), for bodies kept byte for byte. */
  files: Map<string, Uint8Array>;
  /** What could not be written as asked: where (`GET /events`) and what. */
  warnings: { place: string; message: string }[];
}

const TEXT_TYPE = /^\s*(text\/|application\/(xml|javascript|x-www-form-urlencoded)|[^;]*\+xml)/i;
const utf8 = new TextDecoder("utf-8", { fatal: true });

/** The path of a stub that matches exactly this request path (no placeholders, nothing misread). */
export function literalPath(pathname: string): string {
  const segments = pathname.slice(1).split("/").map((raw) => {
    let value: string;
    try {
      value = decodeURIComponent(raw);
    } catch {
      value = raw;
    }
    const shown = displaySegment(value);
    // `:id` and `*` read as mistaken placeholders: write their first character encoded.
    if (shown.startsWith(":")) return "%3A" + shown.slice(1);
    if (shown === "*" || shown.endsWith("*")) return shown.replaceAll("*", "%2A");
    return shown;
  });
  return "/" + segments.join("/");
}

/**
 * The query of a request as required literal values (the first value of a repeated name); a
 * value holding `{name}` (a client's unfilled URL template) is data, written as a regex that
 * matches exactly it, never a capture (P23.7).
 */
function literalQuery(rawQuery: string): Record<string, string | { regex: string }> | undefined {
  if (rawQuery === "") return undefined;
  const out: Record<string, string | { regex: string }> = {};
  for (const [name, value] of new URLSearchParams(rawQuery)) {
    if (!Object.hasOwn(out, name)) out[name] = literalValue(value);
  }
  return Object.keys(out).length ? out : undefined;
}

function headerValue(headers: Exchange["headers"], name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** Standard base64 of bytes. */
function base64(bytes: Uint8Array): string {
  let binary = "";
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
}

/** Is this content type `text/event-stream` (any parameters)? */
export function isEventStream(contentType: string): boolean {
  return /^\s*text\/event-stream\s*(;|$)/i.test(contentType);
}

/** JSON data written compactly stays a YAML value (sent back as the same bytes); other data stays text. */
function eventData(data: string): unknown {
  if (!data.startsWith("{") && !data.startsWith("[")) return data;
  try {
    const value = JSON.parse(data);
    return JSON.stringify(value) === data ? value : data;
  } catch {
    return data;
  }
}

/**
 * The `stream:` events of an event-stream body, each with the milliseconds between the
 * previous event's arrival (the head's, for the first) and its own last byte's as `delay_ms`
 * when `keepDelay`; undefined when the body cannot be replayed event by event exactly.
 */
function streamEvents(text: string, exchange: Exchange, keepDelay: boolean): Record<string, unknown>[] | undefined {
  const parsed = parseSseEvents(text);
  if (!parsed || parsed.length > MAX_STREAM_EVENTS) return undefined;
  let start = 0;
  let before = 0;
  const arrivals = exchange.arrivals ?? [];
  let a = 0;
  const events: Record<string, unknown>[] = [];
  for (const event of parsed as SseParsed[]) {
    if (event.end - start > MAX_STREAM_EVENT_BYTES) return undefined;
    start = event.end;
    const out: Record<string, unknown> = {};
    if (event.event !== undefined) out.event = event.event;
    if (event.id !== undefined) out.id = event.id;
    if (event.retry !== undefined) out.retry = event.retry;
    out.data = eventData(event.data);
    while (a < arrivals.length && arrivals[a].end < event.end) a++;
    if (keepDelay && a < arrivals.length) {
      const delay = Math.max(0, Math.round(arrivals[a].ms - before));
      before = arrivals[a].ms;
      if (delay > 0) out.delay_ms = delay;
    }
    events.push(out);
  }
  return events;
}

/** The answer fields of one exchange: status, the kept headers, and the body in the most readable exact form. */
function answer(
  exchange: Exchange,
  keep: readonly string[],
  file: (extension: string, bytes: Uint8Array) => string,
  keepDelay: boolean,
  warn: (place: string, message: string) => void,
): Record<string, unknown> {
  const out: Record<string, unknown> = { status: exchange.status };
  const headers: Record<string, string | string[]> = {};
  for (const name of ["content-type", ...keep.map((k) => k.toLowerCase())]) {
    const value = exchange.headers[name];
    if (value !== undefined) headers[name] = value;
  }
  if (Object.keys(headers).length) out.headers = headers;
  const bytes = exchange.body;
  if (bytes.byteLength === 0 || exchange.status === 204 || exchange.status === 304) return out;
  const type = headerValue(exchange.headers, "content-type") ?? "";
  let text: string | undefined;
  try {
    text = utf8.decode(bytes);
  } catch {
    text = undefined;
  }
  if (text !== undefined && isJsonMediaType(type)) {
    try {
      const value = JSON.parse(text);
      if (JSON.stringify(value) === text) out.body = value;
      else out.body_file = file("json", bytes); // pretty-printed or escaped JSON: kept as sent
      return out;
    } catch { /* not JSON after all: kept as bytes below */ }
  }
  if (text !== undefined && isEventStream(type)) {
    const stream = streamEvents(text, exchange, keepDelay);
    if (stream) {
      out.stream = stream;
      return out;
    }
    warn(
      `${exchange.method} ${exchange.target}`,
      `the event stream is not written the way a stream: stub sends events ` +
        `(comments, CRLF line ends, "data:" without a space, an event over ${MAX_STREAM_EVENT_BYTES} bytes…); ` +
        `recorded as a text body, byte for byte, without each event's timing`,
    );
  }
  if (text !== undefined && type !== "" && TEXT_TYPE.test(type) && !isJsonMediaType(type)) {
    out.body = text;
    return out;
  }
  out.body_base64 = base64(bytes);
  return out;
}

/** `{name}` in text: a value pattern would read it as a capture. */
const PLACEHOLDER = /\{[A-Za-z0-9_]+\}/;

/** A value pattern that matches exactly `value`: the text itself, or a regex when it holds `{name}`. */
function literalValue(value: string): string | { regex: string } {
  return PLACEHOLDER.test(value) ? { regex: value.replace(/[\\^$.*+?()[\]{}|/]/g, "\\$&") } : value;
}

/**
 * A `json:` pattern that the recorded body matches exactly, leaf for leaf. A string holding
 * `{name}` cannot be written literally in a JSON pattern: its object key is left out (other
 * keys still tell bodies apart), and a list holding one cannot be written at all (undefined).
 */
function literalJson(value: unknown): unknown {
  if (typeof value === "string") return PLACEHOLDER.test(value) ? undefined : value;
  if (Array.isArray(value)) {
    const items = value.map(literalJson);
    return items.includes(undefined) ? undefined : items;
  }
  if (typeof value === "object" && value !== null) {
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) {
      const literal = literalJson(item);
      if (literal !== undefined) out[key] = literal;
    }
    return out;
  }
  return value;
}

const FORM_TYPE = /^\s*application\/x-www-form-urlencoded\s*(;|$)/i;

/** The `request:` body condition a request's JSON or form body makes, if it has one. */
function bodyCondition(request: Exchange["request"]): Record<string, unknown> | undefined {
  if (!request || request.body.byteLength === 0) return undefined;
  const type = request.headers["content-type"] ?? "";
  let text: string;
  try {
    text = utf8.decode(request.body);
  } catch {
    return undefined;
  }
  if (isJsonMediaType(type)) {
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      return undefined;
    }
    const json = literalJson(value);
    return json === undefined ? undefined : { json };
  }
  if (FORM_TYPE.test(type)) {
    const form: Record<string, unknown> = {};
    for (const [name, value] of new URLSearchParams(text)) {
      if (!Object.hasOwn(form, name)) form[name] = literalValue(value);
    }
    return Object.keys(form).length ? { form } : undefined;
  }
  return undefined;
}

/** The middle value (the lower of the two middle ones), so the delay written is one that was seen. */
function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor((sorted.length - 1) / 2)];
}

/** The events of equal stream answers, each with the median of its delays over them. */
function medianEventDelays(answers: Record<string, unknown>[]): Record<string, unknown>[] {
  const streams = answers.map((a) => a.stream as Record<string, unknown>[]);
  return streams[0].map((event, i) => {
    const { delay_ms: _, ...rest } = event;
    const delay = median(streams.map((s) => (s[i].delay_ms as number | undefined) ?? 0));
    return delay > 0 ? { ...rest, delay_ms: delay } : rest;
  });
}

/** Exchanges of one method + target that the written stub tells apart from the others, with their conditions. */
interface Variant {
  headers: Record<string, unknown>;
  body: Record<string, unknown> | undefined;
  exchanges: Exchange[];
}

/**
 * Splits the exchanges of one method + target by the conditions that tell them apart: a
 * kept request header that one of them carried (its value, or `{absent: true}`), and the
 * JSON or form body when they carried more than one.
 */
function variants(list: readonly Exchange[], options: RecordingOptions): Variant[] {
  const headerNames = (options.keepRequestHeaders ?? []).map((name) => name.toLowerCase())
    .filter((name) => list.some((exchange) => exchange.request?.headers[name] !== undefined));
  const bodies = list.map((exchange) => options.ignoreBody ? undefined : bodyCondition(exchange.request));
  const bodyMatters = new Set(bodies.map((body) => JSON.stringify(body ?? null))).size > 1;
  const out = new Map<string, Variant>();
  list.forEach((exchange, i) => {
    const headers: Record<string, unknown> = {};
    for (const name of headerNames) {
      const value = exchange.request?.headers[name];
      headers[name] = value === undefined ? { absent: true } : literalValue(value);
    }
    const body = bodyMatters ? bodies[i] : undefined;
    const key = JSON.stringify([headers, body ?? null]);
    const found = out.get(key);
    if (found) found.exchanges.push(exchange);
    else out.set(key, { headers, body, exchanges: [exchange] });
  });
  return [...out.values()];
}

/**
 * The config for a list of exchanges, oldest first (see {@link RecordingOptions}).
 *
 * @example
 * ```ts
 * import { recordedConfig } from "./recording.ts";
 * const body = new TextEncoder().encode('{"id":1}');
 * const { config } = recordedConfig([
 *   { method: "GET", target: "/users/1", status: 200, headers: { "content-type": "application/json" }, body },
 * ]);
 * console.log(config.routes[0].body); // { id: 1 }
 * ```
 */
export function recordedConfig(exchanges: readonly Exchange[], options: RecordingOptions = {}): RecordedConfig {
  const keep = options.keep ?? [];
  const folder = options.bodies ?? "bodies";
  const files = new Map<string, Uint8Array>();
  const warnings: RecordedConfig["warnings"] = [];
  const named = new Map<string, string>();
  // The same bytes answered twice are one file (so equal answers stay equal, not a sequence).
  const file = (extension: string, bytes: Uint8Array) => {
    const key = base64(bytes);
    let name = named.get(key);
    if (name === undefined) {
      name = `${folder}/${String(files.size + 1).padStart(4, "0")}.${extension}`;
      files.set(name, bytes);
      named.set(key, name);
    }
    return name;
  };
  const byRequest = new Map<string, Exchange[]>();
  for (const exchange of exchanges) {
    const key = `${exchange.method} ${exchange.target}`;
    const list = byRequest.get(key);
    if (list) list.push(exchange);
    else byRequest.set(key, [exchange]);
  }
  const routes: Record<string, unknown>[] = [];
  for (const sameRequest of byRequest.values()) {
    for (const { headers, body, exchanges: list } of variants(sameRequest, options)) {
      const [first] = list;
      const q = first.target.indexOf("?");
      const stub: Record<string, unknown> = {
        method: first.method,
        path: literalPath(q === -1 ? first.target : first.target.slice(0, q)),
      };
      const query = literalQuery(q === -1 ? "" : first.target.slice(q + 1));
      if (query) stub.query_params = query;
      if (Object.keys(headers).length || body) {
        stub.request = { ...(Object.keys(headers).length ? { headers } : {}), ...body };
      }
      const keepDelay = options.keepDelay === true;
      const answers = list.map((exchange) =>
        answer(exchange, keep, file, keepDelay, (place, message) => warnings.push({ place, message }))
      );
      const delays = list.map((exchange) => Math.max(0, Math.round(exchange.latency ?? 0)));
      // Answers that differ only in their events' timing are one answer.
      const distinct = new Set(answers.map((a) => JSON.stringify(a, (k, v) => k === "delay_ms" ? undefined : v)));
      if (distinct.size === 1) {
        Object.assign(stub, answers[0]);
        if (keepDelay && Array.isArray(stub.stream)) stub.stream = medianEventDelays(answers);
        const delay = median(delays);
        if (options.keepDelay && delay > 0) stub.delay = delay;
      } else {
        if (options.keepDelay) answers.forEach((a, i) => delays[i] > 0 && (a.delay = delays[i]));
        stub.sequence = answers;
      }
      routes.push(stub);
    }
  }
  return { config: { routes }, files, warnings };
}
