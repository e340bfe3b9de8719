/**
 * The validated stub model: what config files, inline stubs and builders all turn into.
 * @module
 */

import type { ProxyAdjust } from "./proxy_field.ts";
import type { Segment } from "./path.ts";
import type { JsonPattern, ValuePattern, ValuePatternSpec } from "./patterns.ts";
import type { XmlEquals } from "./xml_equal.ts";
import type { XPathExpression } from "../templating/xpath.ts";

/** HTTP methods a stub may use, sorted as the validator lists them. */
export const METHODS = ["DELETE", "GET", "HEAD", "OPTIONS", "PATCH", "POST", "PUT"] as const;

/** One of {@link METHODS}. */
export type Method = typeof METHODS[number];

/** A stub's method: one of {@link METHODS}, or `ANY`, which matches every method. */
export type StubMethod = Method | "ANY";

/** Where a stub came from (`source`). */
export type StubSource = "config" | "inline" | "api" | "admin" | "wiremock";

/** A stub's request conditions, compiled; each list keeps the order written. */
export interface RequestMatch {
  /** Required query parameters. */
  query?: [name: string, pattern: ValuePattern][];
  /** Required headers, names lower-cased. */
  headers?: [name: string, pattern: ValuePattern][];
  /** Required cookies (from the Cookie header), names as written (case-sensitive). */
  cookies?: [name: string, pattern: ValuePattern][];
  /** A pattern the JSON body must contain. */
  json?: JsonPattern;
  /** The names {@link RequestMatch.json} captures, in walk order. */
  jsonNames?: string[];
  /** Form fields of an `application/x-www-form-urlencoded` body. */
  form?: [name: string, pattern: ValuePattern][];
  /** Text the body must contain. */
  bodyContains?: string;
  /** The body's bytes must be exactly these (`body_base64`). */
  bodyBytes?: Uint8Array<ArrayBuffer>;
  /** A value pattern the whole body text must match (`{absent: true}`: an empty body). */
  body?: ValuePattern;
  /** The query string as sent (without `?`) must be exactly this; `""`: no query (a bare `?` too). */
  queryString?: string;
  /** A regex the whole path as sent (percent-encoded, without the query) must match. */
  pathRegex?: ValuePattern;
  /** A regex the whole path and query as sent (`/a/b?x=1`; no `?` without a query) must match. */
  urlRegex?: ValuePattern;
  /** A JSON document the body must equal (its leaves may be `JsonPlaceholder`s, with `json_placeholders`). */
  jsonEquals?: { value: unknown; ignore: readonly JsonIgnore[] };
  /**
   * Value patterns on the path's `{name}` / `{name*}` captures, each tested against the
   * segment(s) as sent (percent-escapes kept): the segment's place in the path, its name, and
   * whether it is a catch-all (the rest of the path).
   */
  pathParams?: [segment: number, name: string, rest: boolean, pattern: ValuePattern][];
  /** JSONPath expressions the body must satisfy: a value pattern, or `present` (found and not null). */
  jsonPath?: [path: string, pattern: ValuePattern | "present" | JsonPathEquals][];
  /** An XML document the body must equal (WireMock's `equalToXml`). */
  xmlEquals?: XmlEquals;
  /** XPath expressions the body (as XML) must satisfy. */
  xpath?: [expression: XPathExpression, check: XPathCheck][];
  /** Patterns on the form fields of a `multipart/*` body (its parts named by `Content-Disposition: form-data`): each must hold. */
  multipart?: MultipartMatch[];
}

/** One `request.multipart` entry: what one part (`any`) or every part (`all`) of a multipart body must meet. */
export interface MultipartMatch {
  /** True for `match: all` (every part meets it); false for `any` (at least one part does). */
  every: boolean;
  /** The part's own conditions (its headers and body; nothing captured), as a request's. */
  match: RequestMatch;
}

/** What an `xpath` entry asks of what it finds: something, a value pattern on one of the values, or an XML document. */
export type XPathCheck = "present" | ValuePattern | { xmlEquals: XmlEquals };

/** A `json_path` entry `{json_equals, json_ignore?, json_placeholders?}`: the one value found equals the document. */
export interface JsonPathEquals {
  jsonEquals: { value: unknown; ignore: readonly JsonIgnore[] };
}

/** What `json_ignore` relaxes in `json_equals`. */
export type JsonIgnore = "array_order" | "extra_fields" | "extra_items";

/**
 * A fixed delay in milliseconds, a range drawn uniformly per request, or a lognormal draw
 * per request: `median` milliseconds times `e` to the power of `sigma` times a standard
 * normal draw (WireMock's `lognormal` delay distribution).
 */
export type Delay = number | { min: number; max: number } | LognormalDelay;

/**
 * A lognormal delay (WireMock's `lognormal`): `median · e^(sigma · z)`; with `max`, a draw
 * above it is drawn again (ten times at most) and then capped at `max` (WireMock 3's
 * `maxValue`); `plus` milliseconds are added to the draw (WireMock's fixed delay beside it).
 */
export interface LognormalDelay {
  /** The median of the draw, in milliseconds. */
  median: number;
  /** The spread: the standard deviation of the draw's logarithm. */
  sigma: number;
  /** A draw above this is drawn again (ten times at most), then capped here. */
  max?: number;
  /** Milliseconds added to the draw. */
  plus?: number;
}

/** The faults a stub can answer with (`fault:`); see `src/server/answers/faults.ts` for the bytes of each. */
export const FAULTS: readonly Fault[] = [
  "disconnect",
  "truncate",
  "reset",
  "empty",
  "malformed_chunk",
  "random_then_close",
];

/** How a stub breaks its answer on purpose (`fault:`): one of {@link FAULTS}. */
export type Fault = "disconnect" | "truncate" | "reset" | "empty" | "malformed_chunk" | "random_then_close";

/** `dribble`: the body sent in `chunks` pieces, `ms / chunks` milliseconds apart (the first after one interval). */
export interface Dribble {
  /** How many pieces the body is sent in. */
  chunks: number;
  /** Milliseconds over which the pieces are spread. */
  ms: number;
}

/** What happens after the last entry of a sequence. */
export type SequenceMode = "repeat-last" | "cycle";

/**
 * A response header map: name → value, or a list of values for a header sent several
 * times (`set-cookie`). Values may hold `{name}` placeholders.
 */
export type HeaderMap = Record<string, string | string[]>;

/** One canned response: a stub's plain response or one `sequence` entry. */
export interface ResponseSpec {
  /** Response status; 200 unless one was given. */
  status: number;
  /** A template stub's status written as a template (`"{{request.query.code}}"`), rendered per request. */
  statusTemplate?: string;
  /** The reason phrase of the status line (`status_message`); absent: the standard one. */
  statusMessage?: string;
  /** Response headers; absent when the response sets none. */
  headers?: HeaderMap;
  /** A template stub's `template_parameters`, read by its templates as `parameters.NAME`. */
  templateParameters?: Readonly<Record<string, unknown>>;
  /** Absent (`hasBody: false`) means an empty response body. */
  body?: unknown;
  /** Whether there is a body: `null` is one (JSON `null`), a missing `body` is not. */
  hasBody: boolean;
  /** A body of bytes (`body_file`, `body_base64`): sent as is, no substitution. */
  bytes?: Uint8Array<ArrayBuffer>;
  /** The `body_file` path as written (for the stub's config form and `--watch`). */
  file?: string;
  /** Where `file` was read from, made absolute. */
  filePath?: string;
  /** Wait before answering; for a sequence entry without its own, the stub's. Absent: no wait. */
  delay?: Delay;
  /**
   * `headers: {content-type: null}`: the answer carries no content type (none is added for a
   * JSON body or a file), and a string body is sent as written.
   */
  noContentType?: boolean;
  /** Server-sent events (`stream:`): the answer is `text/event-stream`, each event sent after its delay. */
  stream?: StreamEvent[];
}

/** One server-sent event of a `stream:` answer. */
export interface StreamEvent {
  /** An object or list goes out as compact JSON, text as written (one `data:` line per line). */
  data: unknown;
  /** `event:`, the event type. */
  event?: string;
  /** `id:`, the last event id. */
  id?: string;
  /** `retry:`, the client's reconnection time in milliseconds. */
  retry?: number;
  /** Milliseconds to wait before this event goes out. */
  delayMs?: number;
}

/** A message a WebSocket stub sends: text as written, or `{json}` sent as compact JSON text. */
export type WebSocketSend = { text: string } | { json: unknown };

/** What a WebSocket rule's incoming message must be: a text value pattern, or a JSON sub-document. */
export type WebSocketMatch =
  | { kind: "text"; spec: unknown; pattern: ValuePattern }
  | { kind: "json"; spec: unknown; pattern: JsonPattern };

/** One `on_message` rule of a `websocket:` stub: the first whose `match` holds answers with its `send`. */
export interface WebSocketRule {
  /** What the incoming message must be. */
  match: WebSocketMatch;
  /** The messages sent back, in order. */
  send: WebSocketSend[];
}

/** A `websocket:` answer: messages sent on connect, rules answering messages, and an optional close. */
export interface WebSocketSpec {
  /** Sent once the connection is open, each after its delay (counted from the one before). */
  onConnect: { send: WebSocketSend[]; delayMs?: number }[];
  /** Tried in order against each incoming message; a message none matches gets no reply. */
  onMessage: WebSocketRule[];
  /** The server closes the connection with `code` this long after it opened. */
  close?: { code: number; afterMs: number };
}

/** What a response function receives. */
export interface ResponseFuncArgs<P = Record<string, string>> {
  /**
   * Parsed JSON request body; `null` when there is none or it is not JSON. Parsed on first
   * access; a body nested deeper than 1,000 levels throws (read {@link ResponseFuncArgs.body}).
   */
  payload: unknown;
  /** The request body as UTF-8 text (`""` when there is none): forms, plain text, anything. */
  body: string;
  /** Request headers, names lower-cased. */
  headers: Record<string, string>;
  /** Captured values: path placeholders (typed from the path), then query, header, body and form captures. */
  params: P;
  /** Query parameters, every value a list. */
  queryParams: Record<string, string[]>;
}

/** `[status, body]` or `[status, body, headers]`. */
export type ResponseFuncResult =
  | [status: number, body: unknown]
  | [status: number, body: unknown, headers: HeaderMap];

/** A function that computes a stub's response per request. */
// deno-lint-ignore no-explicit-any
export type ResponseFunc<P = any> = (
  args: ResponseFuncArgs<P>,
) => ResponseFuncResult | Promise<ResponseFuncResult>;

/** A checked callback of a stub. */
export interface CallbackSpec {
  /** The method of the callback request. */
  method: Method;
  /** As written; `{name}` placeholders or `{{…}}` templates only in the path and query. */
  url: string;
  /** Headers of the callback request; values may hold placeholders or templates. */
  headers?: HeaderMap;
  /** Text as written, or a JSON value (a mapping, list, number…) to send as JSON. */
  body?: unknown;
  /** Milliseconds to wait after the answer before sending. */
  delayMs?: number;
}

/**
 * A validated stub: what it matches and how it answers. Make one with a builder's
 * `toStub()` (or load a config); the server refuses a `Stub` written by hand.
 */
export interface Stub {
  /** The id given (`id:`, `.id()`); the server makes one up when there is none. */
  id?: string;
  /**
   * Where it was declared, for near-miss explanations: `routes[1] of stubs.yaml`, `--stub[0]`.
   * Absent for stubs added with `routes()` or over HTTP (their source says enough).
   */
  place?: string;
  /**
   * The 1-based line of its config file where its `routes:` entry starts (the entry's `-` in a
   * YAML list, its `{` in JSON): with `place` `routes[1] of stubs.yaml`, line 7 is
   * `stubs.yaml:7`, as the dashboard shows it. Set for stubs of config files only.
   */
  line?: number;
  /** A display name for the report (a WireMock mapping's `name`, or its file and index). */
  name?: string;
  /** Answer only requests that carry `x-stubtool-scope: <scope>`. */
  scope?: string;
  /** Higher wins over path specificity; default 0. */
  priority?: number;
  /**
   * The method, upper-case, or `ANY`. A `GET` stub also answers `HEAD` requests that no
   * `HEAD` stub matches.
   */
  method: StubMethod;
  /** `false`: a `GET` stub does not answer `HEAD` (as in WireMock). */
  head?: false;
  /** Path template without the query part, percent-decoded. */
  path: string;
  /** Required query parameters as written: name → value pattern (literal, `{name}`, `{regex}`, `{absent: true}`). */
  query?: Record<string, ValuePatternSpec>;
  /** The `request:` conditions as written (headers, json, form, body_contains), for the stub's config form. */
  request?: Record<string, unknown>;
  /** One entry for a plain response, several for a sequence; empty with a response function. */
  responses: ResponseSpec[];
  /** True when `responses` came from `sequence`. */
  isSequence: boolean;
  /** What follows the last sequence entry; `repeat-last` for a stub without a sequence. */
  sequenceMode: SequenceMode;
  /** Computes the response per request (set by `.responseFunc()`; config files have none). */
  responseFunc?: ResponseFunc;
  /** Passes the request on to this URL (plus the request's path and query) and its answer back. */
  proxy?: string;
  /** What a proxy stub changes on the way: the path prefix, request headers, headers added to the answer. */
  proxyAdjust?: ProxyAdjust;
  /** The answer breaks on purpose (a reset, a close before or in the middle of it, bytes that are not HTTP). */
  fault?: Fault;
  /** The body goes out in pieces spread over a time. */
  dribble?: Dribble;
  /** The body goes out at this many bytes per second. */
  throttle?: number;
  /** Delay before a response function runs (plain and sequence delays live in `responses`). */
  delay?: Delay;
  /** The scenario (a named state machine) the stub takes part in. */
  scenario?: string;
  /** The stub answers only while its scenario is in this state (every scenario starts in `Started`). */
  whenState?: string;
  /** The scenario moves to this state when the stub is chosen to answer. */
  setState?: string;
  /**
   * Body strings, header values, a `body_file`'s text and a string `status` are Handlebars
   * templates, rendered per request (`{{request.path}}`, `{{params.id}}`, `{{now}}`).
   */
  template?: boolean;
  /** A template stub's `template_parameters`: data its templates read as `parameters.NAME` (WireMock's `transformerParameters`). */
  templateParameters?: Readonly<Record<string, unknown>>;
  /** Requests the server sends after the stub's answer (webhooks). */
  callbacks?: CallbackSpec[];
  /**
   * Checks a request this stub matched before it answers (an OpenAPI operation's parameters,
   * body and security, `serve --openapi SPEC --mock`): an answer of its own when it fails, or
   * when the request asks for another of the operation's responses (Prism's `Prefer`).
   */
  requestCheck?: RequestCheck;
}

/**
 * A stub as the validator leaves it: the {@link Stub} plus the parts compiled from what it
 * says, which the router and the handler read. Internal: the public entries export only
 * `Stub`, whose values the validator makes (a `Stub` written by hand is refused).
 */
export interface CompiledStub extends Stub {
  /** The path split into segments (parsed once, at validation). */
  segments: readonly Segment[];
  /** Every request condition compiled (query included); absent for a stub with none (or whose query is not compiled yet). */
  match?: RequestMatch;
  /** A WebSocket answer (`websocket:` on a GET stub), compiled: the request is upgraded and the session follows these rules. */
  websocket?: WebSocketSpec;
}

/** Did the validator make `stub` (it carries the compiled parts), or was it written by hand? */
export function isCompiledStub(stub: Stub): stub is CompiledStub {
  return Array.isArray((stub as Partial<CompiledStub>).segments);
}

/** How a query value pattern shows in a label: the text, `/regex/`, or `(absent)`. */
/** One query value pattern as a label shows it: `{term}`, `/[0-9]+/`, `(absent)`. */
export function patternText(spec: unknown): string {
  if (typeof spec === "string") return spec;
  if (typeof spec === "object" && spec !== null && "regex" in spec) return `/${(spec as { regex: unknown }).regex}/`;
  if (typeof spec === "object" && spec !== null && "absent" in spec) return "(absent)";
  if (typeof spec === "object" && spec !== null) {
    // `{contains: x}` and the other operators as `(contains x)`.
    const [key, value] = Object.entries(spec)[0] ?? [];
    if (key !== undefined) return `(${key} ${String(value)})`;
  }
  return String(spec);
}

/**
 * `q={term}&sort=asc`: required query parameters as a label shows them (a regex as
 * `/…/`, an absent one as `(absent)`).
 *
 * @example
 * ```ts
 * import { queryLabel } from "./model.ts";
 * console.log(queryLabel({ q: "{term}", v: { regex: "[0-9]+" } })); // "q={term}&v=/[0-9]+/"
 * ```
 */
export function queryLabel(query: Readonly<Record<string, unknown>>): string {
  return Object.entries(query).map(([k, v]) => `${k}=${patternText(v)}`).join("&");
}

/** `GET /users/{id}`, with `?query` when the stub requires one. */
export function stubLabel(stub: Pick<Stub, "method" | "path" | "query">): string {
  if (!stub.query) return `${stub.method} ${stub.path}`;
  return `${stub.method} ${stub.path}?${queryLabel(stub.query)}`;
}

/** A matched request as a {@link RequestCheck} reads it. */
export interface CheckedRequest {
  /** The stub's path captures by name, decoded. */
  params: Readonly<Record<string, string>>;
  /** Every decoded value of a query parameter; undefined when absent. */
  query(name: string): readonly string[] | undefined;
  /** One header by lower-case name (several values joined by `, `), or null. */
  header(name: string): string | null;
  /** The body read whole, when the check {@link RequestCheck.readsBody}: its text and JSON (null: none or invalid). */
  body?: { text: string; json: { value: unknown } | null };
}

/** What a failed {@link RequestCheck} answers. */
export interface CheckAnswer {
  /** The status: `422`, `400`, `401`. */
  status: number;
  /** Its headers (`content-type`, `www-authenticate`). */
  headers: Record<string, string>;
  /** Its body (a problem document, a preferred response's example), or null for none. */
  body: string | null;
  /** What the request broke, for the report (each `violations` entry): absent when it broke nothing. */
  violations?: readonly CheckViolation[];
}

/** One way a request broke the spec its stub checks it against. */
export interface CheckViolation {
  /** The operation: `POST /pets`. */
  operation: string;
  /** Where in the request: `["body", "name"]`, `["security"]`. */
  location: readonly string[];
  /** What is wrong: `must have required property 'name'`. */
  message: string;
}

/** A stub's check of the requests it matched, compiled at load. */
export interface RequestCheck {
  /** Whether it reads the body (the handler reads it whole first). */
  readsBody: boolean;
  /** Whether it checks requests against a spec (then the report has a `violations` key). */
  validates?: boolean;
  /** The answer for a request that fails the check; undefined when it passes. */
  check(request: CheckedRequest): CheckAnswer | undefined;
}
