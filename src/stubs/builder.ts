/**
 * The fluent route builders: `get("/users/{id}").status(200).body({ id: "{id}" })`.
 * Each method checks its argument at once, with the same rules as config files, and
 * throws an Error that says what to write instead.
 * @module
 */

import {
  type Delay,
  type Fault,
  FAULTS,
  type HeaderMap,
  type ResponseFunc,
  type SequenceMode,
  type Stub,
  type StubMethod,
} from "./model.ts";
import type { ValuePatternSpec } from "./patterns.ts";
import type { JsonIgnore } from "./model.ts";
import { checkId, checkPriority, checkScope } from "./request.ts";
import { parsePathTemplate } from "./path.ts";
import { checkStream } from "./stream_field.ts";
import { checkWebSocket } from "./websocket_field.ts";
import {
  checkDelay,
  checkHeaders,
  checkJsonValue,
  checkMethod,
  checkStatus,
  checkUpstream,
  describe,
  validateStub,
} from "./validate.ts";

/** A path template without its `?query` part: `"/search?q={term}"` → `"/search"`. */
export type PathOnly<S extends string> = S extends `${infer P}?${string}` ? P : S;
/** The `{name}` placeholders of a template, as a union: `"/users/{id}/posts/{post}"` → `"id" | "post"`. */
export type PlaceholderNames<S extends string> = S extends `${string}{${infer Name}}${infer Rest}`
  ? Name | PlaceholderNames<Rest>
  : never;

/** The `params` a response function gets for a path template: `"/users/{id}"` → `{ id: string }`. */
export type PathParams<S extends string> = string extends S ? Record<string, string>
  : { [K in PlaceholderNames<PathOnly<S>>]: string };

/** One entry of a sequence, as passed to {@link StubBuilder.sequence}. */
export interface SequenceEntry {
  /** Response status; 200 when absent. */
  status?: number;
  /** Response headers; values may hold `{name}` placeholders. */
  headers?: HeaderMap;
  /** Any JSON value; strings may hold `{name}` placeholders. Absent means an empty body. */
  body?: unknown;
  /** Wait before this answer, in ms or a `{ min, max }` range; absent: the stub's {@link StubBuilder.delay}, if any. */
  delay?: Delay;
  /** Server-sent events instead of a body; see {@link StubBuilder.stream}. */
  stream?: StreamEventInput[];
}

/** One server-sent event, as passed to {@link StubBuilder.stream}. */
export interface StreamEventInput {
  /** An object or list goes out as compact JSON, text as written (one `data:` line per line). */
  data: unknown;
  /** `event:`, the event type. */
  event?: string;
  /** `id:`, the last event id. */
  id?: string;
  /** `retry:`, the client's reconnection time in ms. */
  retry?: number;
  /** Wait before this event goes out, in ms. */
  delayMs?: number;
}

/** A message a WebSocket stub sends: text, or `{ json }` sent as JSON. */
export type WebSocketSendInput = string | { json: unknown };

/** A WebSocket session, as passed to {@link StubBuilder.websocket}. */
export interface WebSocketInput {
  /** Sent once the connection opens, each after its `delayMs` (counted from the one before). */
  onConnect?: { send: WebSocketSendInput | WebSocketSendInput[]; delayMs?: number }[];
  /** The first rule whose `match` (a text value pattern, or `{ json: {...} }`) holds answers with its `send`. */
  onMessage?: { match: unknown; send?: WebSocketSendInput | WebSocketSendInput[] }[];
  /** The server closes the connection with `code` (default 1000) `afterMs` after it opened. */
  close?: { code?: number; afterMs: number };
}

/** A WebSocket session in config form (`on_connect`, `delay_ms`, …); anything else as given, for the validator to name. */
function websocketFields(input: unknown): unknown {
  if (typeof input !== "object" || input === null || Array.isArray(input)) return input;
  const { onConnect, onMessage, close, ...rest } = input as WebSocketInput;
  const out: Record<string, unknown> = { ...rest };
  if (onConnect !== undefined) {
    out.on_connect = Array.isArray(onConnect)
      ? onConnect.map((item) => {
        if (typeof item !== "object" || item === null || !("delayMs" in item)) return item;
        const { delayMs, ...other } = item;
        return { ...other, delay_ms: delayMs };
      })
      : onConnect;
  }
  if (onMessage !== undefined) out.on_message = onMessage;
  if (close !== undefined) {
    if (typeof close !== "object" || close === null || !("afterMs" in close)) out.close = close;
    else {
      const { afterMs, ...other } = close;
      out.close = { ...other, after_ms: afterMs };
    }
  }
  return out;
}

/** Events in config form (`delay_ms`). */
function streamFields(events: unknown): unknown {
  if (!Array.isArray(events)) return events;
  return events.map((event) => {
    if (typeof event !== "object" || event === null || !("delayMs" in event)) return event;
    const { delayMs, ...rest } = event as StreamEventInput;
    return { ...rest, delay_ms: delayMs };
  });
}

/**
 * Builds one stub. Start one with {@link route} or a method helper such as {@link get}.
 *
 * @example
 * ```ts
 * import { get } from "../../mod.ts";
 * const stub = get("/users/{id}").status(200).header("x-source", "stub").body({ id: "{id}" });
 * ```
 */
export class StubBuilder<P extends string = string> {
  #fields: Record<string, unknown>;
  #name: string;

  /**
   * Starts a stub for `method` and `path`. {@link route} and the method helpers check both
   * at once; called directly, they are checked only by {@link StubBuilder.toStub}.
   */
  constructor(method: StubMethod, path: P) {
    this.#fields = { method, path };
    this.#name = `${method.toLowerCase() === "delete" ? "del" : method.toLowerCase()}(${JSON.stringify(path)})`;
  }

  #fail(call: string, problem: string, instead: string): never {
    throw new TypeError(`${this.#name}.${call}: ${problem}; ${instead}`);
  }

  /**
   * Sets the response status (default 200). A template stub (`.template()`) may give it as a
   * Handlebars template that renders to a status code, such as `"{{#if request.json.bad}}400{{else}}201{{/if}}"`.
   */
  status(code: number | `${string}{{${string}}}${string}`): this {
    if (typeof code === "string" && code.includes("{{")) {
      this.#fields.status = code; // checked with the rest of the stub: it needs template: true
      return this;
    }
    const problem = checkStatus(code);
    if (problem) this.#fail(`status(${describe(code)})`, problem, "write for example .status(404)");
    this.#fields.status = code;
    return this;
  }

  /** Sets the response body: any JSON value; strings inside may hold `{name}` placeholders. */
  body(value: unknown): this {
    const problem = value === undefined ? "body is undefined" : checkJsonValue(value, "body");
    if (problem) this.#fail("body(…)", problem, "pass a JSON value such as .body({ ok: true })");
    this.#fields.body = value;
    return this;
  }

  /**
   * Answers with the bytes of a file (read when the stub is built, relative to the working
   * directory); the content type comes from its extension unless a header sets one.
   */
  bodyFile(path: string): this {
    if (typeof path !== "string" || path === "") {
      this.#fail(`bodyFile(${describe(path)})`, "expected a file path", 'write .bodyFile("fixtures/avatar.png")');
    }
    this.#fields.body_file = path;
    return this;
  }

  /** Answers with these bytes, given as base64 text (`application/octet-stream` unless a header says otherwise). */
  bodyBase64(text: string): this {
    this.#fields.body_base64 = text;
    return this;
  }

  /**
   * Passes matching requests on to `url` (plus the request's path and query) and streams
   * the answer back. Combines with {@link StubBuilder.delay}, not with an answer.
   */
  proxy(url: string): this {
    const problem = checkUpstream(url, "proxy");
    if (problem) this.#fail(`proxy(${describe(url)})`, problem, 'write for example .proxy("http://localhost:9000")');
    this.#fields.proxy = url;
    return this;
  }

  /**
   * Breaks the answer on purpose: `"disconnect"` closes the connection before a
   * complete answer, `"truncate"` sends the whole body's length and then half of it,
   * `"reset"` resets the connection before any byte, `"empty"` closes it before any byte,
   * `"malformed_chunk"` sends status and headers then a broken chunk, `"random_then_close"`
   * sends bytes that are not HTTP then closes (the last four exactly on the default wire).
   */
  fault(kind: Fault): this {
    if (!(FAULTS as readonly unknown[]).includes(kind)) {
      this.#fail(`fault(${describe(kind)})`, "unknown fault", `write .fault() with one of ${FAULTS.join(", ")}`);
    }
    this.#fields.fault = kind;
    return this;
  }

  /** Sends the body at `bytesPerSecond`. */
  throttle(bytesPerSecond: number): this {
    if (!Number.isInteger(bytesPerSecond) || bytesPerSecond < 1) {
      this.#fail(
        `throttle(${describe(bytesPerSecond)})`,
        "expected whole bytes per second, 1 or more",
        "write .throttle(1024)",
      );
    }
    this.#fields.throttle = bytesPerSecond;
    return this;
  }

  /**
   * Sets one response header (the value may hold `{name}` placeholders); a list of values
   * sends the header once per value (`set-cookie`). `header("content-type", null)` sends no
   * content type at all (and a string body as written).
   */
  header(name: string, value: string | string[] | null): this {
    return this.headers({ [name]: value });
  }

  /** Sets several response headers, added to those set before (`content-type: null`: none). */
  headers(map: Record<string, string | string[] | null>): this {
    const errors: string[] = [];
    // `content-type: null` (send none) is the one null value; the stub's validation checks the rest.
    const values = Object.entries(map).filter(([name, value]) =>
      value !== null || name.toLowerCase() !== "content-type"
    );
    checkHeaders(Object.fromEntries(values), "headers", errors);
    if (errors.length) this.#fail("headers(…)", errors[0], `pass a map of names to strings such as { "x-id": "{id}" }`);
    this.#fields.headers = { ...(this.#fields.headers as HeaderMap | undefined), ...map };
    return this;
  }

  /** Waits `ms` milliseconds before answering, or a uniform random time from `ms` to `max`. */
  delay(ms: number, max?: number): this {
    const delay: Delay = max === undefined ? ms : { min: ms, max };
    const problem = checkDelay(delay);
    if (problem) {
      this.#fail(
        `delay(${[ms, max].filter((v) => v !== undefined).join(", ")})`,
        problem,
        "write .delay(250) or .delay(100, 300)",
      );
    }
    this.#fields.delay = delay;
    return this;
  }

  /** Answers the n-th matching request with the n-th response; see {@link StubBuilder.sequenceMode}. */
  sequence(...responses: SequenceEntry[]): this {
    if (responses.length === 0) {
      this.#fail(
        "sequence()",
        "a sequence needs at least one response",
        "write .sequence({ status: 503 }, { status: 200 })",
      );
    }
    this.#fields.sequence = responses.map((entry) =>
      entry?.stream === undefined ? entry : { ...entry, stream: streamFields(entry.stream) }
    );
    return this;
  }

  /** After the last sequence entry: repeat it (`repeat-last`, the default) or start over (`cycle`). */
  sequenceMode(mode: SequenceMode): this {
    if (mode !== "repeat-last" && mode !== "cycle") {
      this.#fail(
        `sequenceMode(${describe(mode)})`,
        "unknown mode",
        `write .sequenceMode("cycle") or .sequenceMode("repeat-last")`,
      );
    }
    this.#fields.sequence_mode = mode;
    return this;
  }

  /**
   * Requires query parameters: a literal value must be equal, `{name}` captures the value,
   * text with `{name}` inside captures part of it, `{ regex }` must match the whole value,
   * `{ absent: true }` must not be there.
   */
  queryParams(map: Record<string, ValuePatternSpec>): this {
    this.#fields.query_params = {
      ...(this.#fields.query_params as Record<string, ValuePatternSpec> | undefined),
      ...map,
    };
    return this;
  }

  /** The request conditions set so far (`request:`), to add one to. */
  #request(): Record<string, unknown> {
    return (this.#fields.request ??= {}) as Record<string, unknown>;
  }

  /**
   * Requires a request header (name case-insensitive): literal text with optional `{name}`
   * captures (`"Bearer {token}"`), `{ regex }` or `{ absent: true }`.
   */
  withHeader(name: string, pattern: ValuePatternSpec): this {
    const request = this.#request();
    request.headers = { ...(request.headers as Record<string, ValuePatternSpec> | undefined), [name]: pattern };
    return this;
  }

  /**
   * Requires the path's `{name}` capture, as sent (percent-escapes kept), to match a value
   * pattern (`request.path_params`): `.withPathParam("id", { regex: "[0-9]+" })`.
   */
  withPathParam(name: string, pattern: ValuePatternSpec): this {
    const request = this.#request();
    request.path_params = {
      ...(request.path_params as Record<string, ValuePatternSpec> | undefined),
      [name]: pattern,
    };
    return this;
  }

  /**
   * Requires a cookie of the Cookie header (name case-sensitive): a value pattern one of its
   * values must match, or `{ absent: true }` (a missing cookie meets nothing else).
   */
  withCookie(name: string, pattern: ValuePatternSpec): this {
    const request = this.#request();
    request.cookies = { ...(request.cookies as Record<string, ValuePatternSpec> | undefined), [name]: pattern };
    return this;
  }

  /**
   * Requires a JSON body that contains `value`: listed object keys must be there (others may
   * be too), lists must match element by element, strings are text patterns (`"{name}"`
   * captures any string, number or boolean).
   */
  withJson(value: unknown): this {
    const problem = value === undefined ? "the pattern is undefined" : checkJsonValue(value, "json");
    if (problem) this.#fail("withJson(…)", problem, "pass a JSON value such as .withJson({ amount: 42 })");
    this.#request().json = value;
    return this;
  }

  /** Requires an `application/x-www-form-urlencoded` body with these fields (value patterns). */
  withForm(map: Record<string, ValuePatternSpec>): this {
    const request = this.#request();
    request.form = { ...(request.form as Record<string, ValuePatternSpec> | undefined), ...map };
    return this;
  }

  /** Requires the body, as UTF-8 text, to contain `text`. */
  withBodyContaining(text: string): this {
    if (typeof text !== "string" || text === "") {
      this.#fail(
        `withBodyContaining(${describe(text)})`,
        "expected non-empty text",
        'write .withBodyContaining("urgent")',
      );
    }
    this.#request().body_contains = text;
    return this;
  }

  /** Requires the query exactly as sent, without `?` (`"a=1&b=2"`; `""`: no query, or a bare `?`). */
  withQueryString(text: string): this {
    this.#request().query_string = text;
    return this;
  }

  /** Requires the whole path as sent (percent-encoded, no query) to match a regular expression. */
  withPathRegex(regex: string): this {
    this.#request().path_regex = regex;
    return this;
  }

  /** Requires the whole path and query as sent (`/a?x=1`) to match a regular expression. */
  withUrlRegex(regex: string): this {
    this.#request().url_regex = regex;
    return this;
  }

  /**
   * Requires a JSON body equal to `value` (key order and spacing aside, numbers by value);
   * `ignore` relaxes it: `extra_fields`, `extra_items`, `array_order`.
   */
  withJsonEquals(value: unknown, ignore: JsonIgnore[] = []): this {
    const problem = value === undefined ? "the document is undefined" : checkJsonValue(value, "json_equals");
    if (problem) this.#fail("withJsonEquals(…)", problem, "pass a JSON value such as .withJsonEquals({ id: 1 })");
    this.#request().json_equals = value;
    if (ignore.length) this.#request().json_ignore = ignore;
    else delete this.#request().json_ignore;
    return this;
  }

  /** Requires a JSONPath expression to find a value (not null), or one that matches `pattern`. */
  withJsonPath(path: string, pattern: ValuePatternSpec | true = true): this {
    const request = this.#request();
    request.json_path = { ...(request.json_path as Record<string, unknown> | undefined), [path]: pattern };
    return this;
  }

  /** Gives the stub an id (1–100 characters of `A-Z a-z 0-9 _ . : -`), unique on the server. */
  id(id: string): this {
    const problem = checkId(id);
    if (problem) this.#fail(`id(${describe(id)})`, problem, 'write for example .id("user-found")');
    this.#fields.id = id;
    return this;
  }

  /** Answers only requests that carry `x-stubtool-scope: <name>`; for them it wins over unscoped stubs. */
  scope(name: string): this {
    const problem = checkScope(name);
    if (problem) this.#fail(`scope(${describe(name)})`, problem, 'write for example .scope("checkout_test")');
    this.#fields.scope = name;
    return this;
  }

  /** Wins over stubs of lower priority whatever their paths (default 0). */
  priority(n: number): this {
    const problem = checkPriority(n);
    if (problem) this.#fail(`priority(${describe(n)})`, problem, "write for example .priority(10)");
    this.#fields.priority = n;
    return this;
  }

  /** Puts the stub in scenario `name`, a state machine that starts in `Started` (add `.whenState()` and/or `.setState()`). */
  inScenario(name: string): this {
    this.#fields.scenario = name;
    return this;
  }

  /** Answers only while the scenario is in `state`. */
  whenState(state: string): this {
    this.#fields.when_state = state;
    return this;
  }

  /** Moves the scenario to `state` when this stub answers. */
  setState(state: string): this {
    this.#fields.set_state = state;
    return this;
  }

  /** Renders body strings, header values and a string status as Handlebars templates per request (`{{params.id}}`). */
  template(): this {
    this.#fields.template = true;
    return this;
  }

  /**
   * Sends a request after the answer (a webhook). The URL's scheme, host and port are written
   * out; captures or templates may fill its path and query.
   */
  callback(
    method: string,
    url: string,
    options: { headers?: Record<string, string>; body?: unknown; delayMs?: number } = {},
  ): this {
    const list = (this.#fields.callbacks ??= []) as unknown[];
    list.push({
      method,
      url,
      ...(options.headers ? { headers: options.headers } : {}),
      ...(options.body !== undefined ? { body: options.body } : {}),
      ...(options.delayMs !== undefined ? { delay_ms: options.delayMs } : {}),
    });
    return this;
  }

  /** Computes the response per request; returns `[status, body]` or `[status, body, headers]`. */
  responseFunc(fn: ResponseFunc<PathParams<P>>): this {
    if (typeof fn !== "function") {
      this.#fail("responseFunc(…)", `expected a function, got ${describe(fn)}`, "pass ({ payload }) => [200, payload]");
    }
    this.#fields.response_func = fn;
    return this;
  }

  /**
   * Answers with server-sent events (`text/event-stream`), each sent after its `delayMs`;
   * an object or list as `data` goes out as compact JSON.
   *
   * @example
   * ```ts
   * import { post } from "../../mod.ts";
   * post("/v1/chat/completions").stream([
   *   { data: { choices: [{ delta: { content: "Hi" } }] }, delayMs: 50 },
   *   { data: "[DONE]" },
   * ]);
   * ```
   */
  stream(events: StreamEventInput[]): this {
    const errors: string[] = [];
    const fields = streamFields(events);
    checkStream(fields, "stream", errors);
    if (errors.length) {
      this.#fail(
        "stream()",
        errors[0].replace(/delay_ms/g, "delayMs"),
        'write .stream([{ data: { n: 1 }, delayMs: 100 }, { data: "[DONE]" }])',
      );
    }
    this.#fields.stream = fields;
    return this;
  }

  /**
   * Answers with a WebSocket session (a GET stub): messages sent on connect, the first
   * `onMessage` rule whose `match` holds answers a message (none: no reply, recorded as
   * unmatched), and an optional close. With `.template()`, sends read `message.text` and `message.json`.
   *
   * @example
   * ```ts
   * import { get } from "../../mod.ts";
   * get("/chat").websocket({
   *   onConnect: [{ send: { json: { type: "welcome" } } }],
   *   onMessage: [{ match: { json: { type: "ping" } }, send: { json: { type: "pong" } } }],
   * });
   * ```
   */
  websocket(session: WebSocketInput): this {
    const errors: string[] = [];
    const fields = websocketFields(session);
    checkWebSocket(fields, "websocket", errors);
    if (errors.length) {
      this.#fail(
        "websocket()",
        errors[0].replace(/delay_ms/g, "delayMs").replace(/after_ms/g, "afterMs").replace(/on_connect/g, "onConnect")
          .replace(/on_message/g, "onMessage"),
        'write .websocket({ onMessage: [{ match: "ping", send: "pong" }] })',
      );
    }
    this.#fields.websocket = fields;
    return this;
  }

  /** Validates the whole stub (field combinations included) and returns it. */
  toStub(): Stub {
    const { stub, errors } = validateStub(this.#fields, { allowResponseFunc: true });
    if (!stub) throw new TypeError(`${this.#name}: ${errors.join("; ")}`);
    return stub;
  }
}

/**
 * Starts a stub for any method.
 *
 * @example
 * ```ts
 * import { route } from "./builder.ts";
 * route("PATCH", "/users/{id}").status(204);
 * ```
 */
export function route<P extends string>(method: string, path: P): StubBuilder<P> {
  const { method: checked, error } = checkMethod(method);
  if (!checked) throw new TypeError(`route(${describe(method)}, ${JSON.stringify(path)}): ${error}`);
  if (typeof path !== "string") {
    throw new TypeError(
      `route(${describe(method)}, …): path must be a string such as "/users/{id}", got ${describe(path)}`,
    );
  }
  const { problems } = parsePathTemplate(path);
  if (problems.length) {
    throw new TypeError(`route(${describe(method)}, ${JSON.stringify(path)}): ${problems.join("; ")}`);
  }
  return new StubBuilder(checked, path);
}
