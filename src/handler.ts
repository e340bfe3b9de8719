/**
 * The fetch-style handler that holds all of stubtool's behaviour (P3, P4, P7). Sockets,
 * the CLI and the npm package are thin shells around {@link StubHandler.fetch}.
 * @module
 */

import { type Delay, type HeaderMap, RESERVED_PREFIX, type ResponseSpec, type Stub, stubLabel } from "./model.ts";
import { placeholderName, splitRequestPath } from "./path.ts";
import { DEFAULT_MAX_UNMATCHED, Recorder, type Report } from "./recorder.ts";
import { type Routable, Router } from "./router.ts";
import { compileJson, compileText, render, type Template } from "./template.ts";
import { checkHeaders, checkStatus, describe, HEADER_VALUE_FORBIDDEN } from "./validate.ts";

/** Default request body limit: 10 MiB (`--max-body`). */
export const DEFAULT_MAX_BODY = 10 * 1024 * 1024;
/** Default time a response function may take: 30 s (`--handler-timeout`). */
export const DEFAULT_HANDLER_TIMEOUT_MS = 30_000;

/** One line of the request log. */
export interface RequestLogEntry {
  method: string;
  /** Path with the query string, as requested. */
  target: string;
  status: number;
  /** The matched stub (`GET /users/{id}`), or undefined when nothing matched. */
  stub?: string;
  /** Time from arrival to the response, in milliseconds. */
  ms: number;
}

/** Options of {@link StubHandler}. */
export interface HandlerOptions {
  /** How many unmatched requests the report keeps (the total is always exact). Default 1000. */
  maxUnmatched?: number;
  /** Largest accepted request body in bytes; larger gets 413. Default 10 MiB. */
  maxBody?: number;
  /** How long a response function may run before the request gets 504, in ms. Default 30000. */
  handlerTimeout?: number;
  /** Called once per stub request (matched or not) after its response is ready. */
  onRequest?: (entry: RequestLogEntry) => void;
}

const JSON_MEDIA = /^[^;]*(\/json|\+json)\s*(;|$)/i;
const JSON_HEADERS: [string, string][] = [["content-type", "application/json"]];

/** A JSON error response, the shape of every error the server produces itself (P4). */
export function jsonError(
  status: number,
  error: string,
  extra: Record<string, unknown> = {},
  headers: HeaderMap = {},
): Response {
  return new Response(JSON.stringify({ error, ...extra }), {
    status,
    headers: { "content-type": "application/json", ...headers },
  });
}

/** Is this a JSON media type (`*\/json`, `*+json`)? (P8.4) */
export function isJsonMediaType(contentType: string): boolean {
  return JSON_MEDIA.test(contentType);
}

function findHeader(headers: HeaderMap | undefined, name: string): string | undefined {
  for (const key in headers) if (key.toLowerCase() === name) return headers[key];
  return undefined;
}

/** The response body text: a string sent as is under a non-JSON content type, else JSON (P8.4). */
function encodeBody(body: unknown, contentType: string | undefined): string {
  return typeof body === "string" && contentType !== undefined && !isJsonMediaType(contentType)
    ? body
    : JSON.stringify(body);
}

/** Thrown while rendering when a captured value would break a header (P7). */
class HeaderValueError extends Error {}

/** A response compiled for fast rendering. */
class CompiledResponse {
  readonly status: number;
  readonly delay?: Delay;
  #headers: [string, Template][];
  #body: Template | undefined;
  /** Set when nothing depends on the request: the same text and init every time. */
  #staticInit: ResponseInit | undefined;

  constructor(spec: ResponseSpec, names: readonly string[]) {
    this.status = spec.status;
    this.delay = spec.delay;
    const contentType = findHeader(spec.headers, "content-type");
    this.#headers = Object.entries(spec.headers ?? {}).map(([name, value]) => [name, compileText(value, names)]);
    if (spec.hasBody && contentType === undefined) this.#headers.unshift(["content-type", "application/json"]);
    if (spec.hasBody) {
      const asText = typeof spec.body === "string" && contentType !== undefined && !isJsonMediaType(contentType);
      this.#body = asText ? compileText(spec.body as string, names) : compileJson(spec.body, names);
    }
    if (this.#headers.every(([, t]) => typeof t === "string") && typeof (this.#body ?? "") === "string") {
      this.#staticInit = { status: this.status, headers: this.#headers as [string, string][] };
    }
  }

  render(values: readonly string[], headOnly: boolean): Response {
    const body = this.#body === undefined || headOnly ? null : render(this.#body, values);
    if (this.#staticInit) return new Response(body, this.#staticInit);
    const headers = this.#headers.map(([name, template]): [string, string] => {
      const value = render(template, values);
      if (typeof template !== "string" && HEADER_VALUE_FORBIDDEN.test(value)) {
        throw new HeaderValueError(`header '${name}' would contain CR, LF or NUL after substitution`);
      }
      return [name, value];
    });
    return new Response(body, { status: this.status, headers });
  }
}

/** A registered stub: its routing data, compiled responses and sequence position. */
interface Route extends Routable {
  stub: Stub;
  index: number;
  label: string;
  /** Path placeholder names, in segment order. */
  paramNames: string[];
  responses: CompiledResponse[];
  /** Next sequence entry. */
  position: number;
}

function compileRoute(stub: Stub, index: number): Route {
  const segments = stub.segments;
  const paramNames = segments.flatMap((s) => s.param ? [s.name] : []);
  const queryCaptures = Object.values(stub.query ?? {}).flatMap((v) => placeholderName(v) ?? []);
  const names = [...paramNames, ...queryCaptures];
  return {
    stub,
    index,
    order: index,
    method: stub.method,
    path: stub.path,
    segments,
    query: stub.query,
    label: stubLabel(stub),
    paramNames,
    responses: stub.responses.map((spec) => new CompiledResponse(spec, names)),
    position: 0,
  };
}

function delayMs(delay: Delay): number {
  return typeof delay === "number" ? delay : delay.min + Math.random() * (delay.max - delay.min);
}

/** Splits `request.url` into pathname and raw query without building a URL object. */
function splitUrl(url: string): [pathname: string, query: string] {
  const start = url.indexOf("/", url.indexOf("//") + 2);
  if (start === -1) return ["/", ""];
  let end = url.indexOf("#", start);
  if (end === -1) end = url.length;
  const q = url.indexOf("?", start);
  return q === -1 || q > end ? [url.slice(start, end), ""] : [url.slice(start, q), url.slice(q + 1, end)];
}

const TOO_LARGE = Symbol("too large");

/** Reads a request body, giving up as soon as it passes `max` bytes. */
async function readBody(request: Request, max: number): Promise<Uint8Array | typeof TOO_LARGE> {
  const declared = request.headers.get("content-length");
  if (declared !== null && Number(declared) > max) return TOO_LARGE;
  if (!request.body) return new Uint8Array();
  const chunks: Uint8Array[] = [];
  let total = 0;
  const reader = request.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > max) {
      await reader.cancel().catch(() => {});
      return TOO_LARGE;
    }
    chunks.push(value);
  }
  if (chunks.length === 1) return chunks[0];
  const out = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    out.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return out;
}

function parsePayload(bytes: Uint8Array): unknown {
  if (bytes.byteLength === 0) return null;
  try {
    return JSON.parse(new TextDecoder().decode(bytes));
  } catch {
    return null;
  }
}

/**
 * All stub behaviour behind one fetch-style function. Holds the stubs, the router and the
 * recorder; {@link StubHandler.fetch} never throws because of user config or client input.
 *
 * @example
 * ```ts
 * import { StubHandler } from "./handler.ts";
 * import { get } from "../mod.ts";
 * const handler = new StubHandler([get("/users/{id}").body({ id: "{id}" }).toStub()]);
 * const response = await handler.fetch(new Request("http://stub/users/42"));
 * console.log(await response.json()); // { id: "42" }
 * ```
 */
export class StubHandler {
  #router = new Router<Route>();
  #routes: Route[] = [];
  #recorder: Recorder;
  #maxBody: number;
  #handlerTimeout: number;
  #onRequest?: (entry: RequestLogEntry) => void;
  /** Aborted when the server stops waiting for in-flight work (end of the shutdown grace). */
  #closing = new AbortController();

  constructor(stubs: readonly Stub[] = [], options: HandlerOptions = {}) {
    this.#recorder = new Recorder(options.maxUnmatched ?? DEFAULT_MAX_UNMATCHED);
    this.#maxBody = options.maxBody ?? DEFAULT_MAX_BODY;
    this.#handlerTimeout = options.handlerTimeout ?? DEFAULT_HANDLER_TIMEOUT_MS;
    this.#onRequest = options.onRequest;
    this.add(stubs);
  }

  /** Registers validated stubs; they take effect for the next request. */
  add(stubs: readonly Stub[]): void {
    for (const stub of stubs) {
      const route = compileRoute(stub, this.#routes.length);
      this.#routes.push(route);
      this.#router.add(route);
    }
  }

  /** The stubs, in registration order. */
  get stubs(): Stub[] {
    return this.#routes.map((r) => r.stub);
  }

  /** The coverage report (P4, seed §2.5). */
  report(): Report {
    return this.#recorder.report(this.stubs);
  }

  /** Zeroes hit counts, clears unmatched requests, restarts sequences. */
  reset(): void {
    this.#recorder.reset();
    for (const route of this.#routes) route.position = 0;
  }

  /** Ends delays and pending response functions at once (the shutdown grace ran out). */
  abortPending(): void {
    this.#closing.abort();
  }

  /** Answers one request. */
  fetch = (request: Request): Response | Promise<Response> => {
    if (!this.#onRequest) return this.#dispatch(request, undefined);
    const start = performance.now();
    const log: { stub?: string } = {};
    const done = (response: Response) => {
      if (log.stub !== RESERVED) {
        const [pathname, query] = splitUrl(request.url);
        this.#onRequest!({
          method: request.method,
          target: query ? `${pathname}?${query}` : pathname,
          status: response.status,
          stub: log.stub,
          ms: performance.now() - start,
        });
      }
      return response;
    };
    const result = this.#dispatch(request, log);
    return result instanceof Response ? done(result) : result.then(done);
  };

  #dispatch(request: Request, log: { stub?: string } | undefined): Response | Promise<Response> {
    const [pathname, rawQuery] = splitUrl(request.url);
    if (pathname.startsWith(RESERVED_PREFIX) || pathname === "/__stubtool__") {
      if (log) log.stub = RESERVED;
      return this.#reserved(request.method, pathname);
    }
    const method = request.method;
    const segments = splitRequestPath(pathname);
    const headOnly = method === "HEAD";
    const match = this.#router.match(method, segments, rawQuery) ??
      (headOnly ? this.#router.match("GET", segments, rawQuery) : undefined);
    if (!match) return this.#unmatched(method, pathname, rawQuery, segments);

    const route = match.route;
    if (log) log.stub = route.label;
    this.#recorder.hit(route.index);
    if (route.stub.responseFunc) return this.#callResponseFunc(route, match.values, request, headOnly, rawQuery);
    if (method !== "GET" && !headOnly) {
      const declared = request.headers.get("content-length");
      if (declared !== null && Number(declared) > this.#maxBody) return this.#tooLarge();
    }
    const responses = route.responses;
    let response = responses[0];
    if (route.stub.isSequence) {
      response = responses[Math.min(route.position, responses.length - 1)];
      route.position = route.stub.sequenceMode === "cycle"
        ? (route.position + 1) % responses.length
        : Math.min(route.position + 1, responses.length);
    }
    if (response.delay === undefined) return this.#render(route, response, match.values, headOnly);
    return this.#sleep(delayMs(response.delay)).then(() => this.#render(route, response, match.values, headOnly));
  }

  #render(route: Route, response: CompiledResponse, values: string[], headOnly: boolean): Response {
    try {
      return response.render(values, headOnly);
    } catch (error) {
      const message = error instanceof HeaderValueError ? error.message : `could not build the response: ${error}`;
      return jsonError(500, message, { stub: `${route.method} ${route.path}` });
    }
  }

  #unmatched(method: string, pathname: string, rawQuery: string, segments: string[]): Response {
    // GET stubs answer HEAD requests (P3.5), so a HEAD miss is explained as a GET miss.
    const explainAs = method === "HEAD" ? "GET" : method;
    const closest = this.#router.nearMisses(explainAs, segments, rawQuery).map(({ route, reason }) => ({
      method: route.method,
      path: route.path,
      reason,
    }));
    const query = rawQuery ? { query: rawQuery } : {};
    this.#recorder.unmatched({ method, path: pathname, ...query, timestamp: new Date().toISOString() });
    return jsonError(404, "no stub matched", { method, path: pathname, ...query, closest });
  }

  #tooLarge(): Response {
    return jsonError(413, `request body is larger than ${this.#maxBody} bytes (--max-body)`);
  }

  #reserved(method: string, pathname: string): Response {
    const endpoint = pathname.slice(RESERVED_PREFIX.length);
    const allow = endpoint === "reset" ? "POST" : "GET, HEAD";
    if (endpoint !== "health" && endpoint !== "report" && endpoint !== "reset") {
      return jsonError(404, `unknown stubtool endpoint '${pathname}'`, {
        endpoints: ["GET /__stubtool__/health", "GET /__stubtool__/report", "POST /__stubtool__/reset"],
      });
    }
    if (!allow.split(", ").includes(method)) {
      return jsonError(405, `${pathname} accepts ${allow}, not ${method}`, {}, { allow });
    }
    const body = method === "HEAD" ? null : undefined;
    switch (endpoint) {
      case "health":
        return new Response(body === null ? null : '{"status":"ok"}', { headers: JSON_HEADERS });
      case "report":
        return new Response(body === null ? null : JSON.stringify(this.report()), { headers: JSON_HEADERS });
      default:
        this.reset();
        return new Response(null, { status: 204 });
    }
  }

  /** Waits `ms`, or less if the shutdown grace runs out. */
  #sleep(ms: number): Promise<void> {
    const signal = this.#closing.signal;
    if (signal.aborted) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        signal.removeEventListener("abort", done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      signal.addEventListener("abort", done);
    });
  }

  async #callResponseFunc(
    route: Route,
    values: string[],
    request: Request,
    headOnly: boolean,
    rawQuery: string,
  ): Promise<Response> {
    const stubName = `${route.method} ${route.path}`;
    let bytes: Uint8Array | typeof TOO_LARGE;
    try {
      bytes = await readBody(request, this.#maxBody);
    } catch (error) {
      return jsonError(400, `could not read the request body: ${error instanceof Error ? error.message : error}`);
    }
    if (bytes === TOO_LARGE) return this.#tooLarge();
    const queryParams = new Map<string, string[]>();
    for (const [key, value] of new URLSearchParams(rawQuery)) {
      const list = queryParams.get(key);
      if (list) list.push(value);
      else queryParams.set(key, [value]);
    }
    const args = {
      payload: parsePayload(bytes),
      headers: Object.fromEntries(request.headers),
      params: Object.fromEntries(route.paramNames.map((name, i) => [name, values[i]])),
      queryParams: Object.fromEntries(queryParams),
    };
    if (route.stub.delay !== undefined) await this.#sleep(delayMs(route.stub.delay));

    const outcome = await this.#withTimeout(() => route.stub.responseFunc!(args));
    if ("timeout" in outcome) {
      return this.#closing.signal.aborted
        ? jsonError(503, "the server shut down before the response function answered", { stub: stubName })
        : jsonError(504, `response function did not answer within ${this.#handlerTimeout} ms (--handler-timeout)`, {
          stub: stubName,
        });
    }
    if ("error" in outcome) {
      const reason = outcome.error instanceof Error ? outcome.error.message : String(outcome.error);
      return jsonError(500, `response function threw: ${reason}`, { stub: stubName });
    }
    const built = buildFuncResponse(outcome.value, headOnly);
    return typeof built === "string" ? jsonError(500, `response function ${built}`, { stub: stubName }) : built;
  }

  /** Runs `fn`, settling with its value, its error, or a timeout (handler timeout or shutdown). */
  #withTimeout(fn: () => unknown): Promise<{ value: unknown } | { error: unknown } | { timeout: true }> {
    const signal = this.#closing.signal;
    return new Promise((resolve) => {
      const finish = (outcome: { value: unknown } | { error: unknown } | { timeout: true }) => {
        clearTimeout(timer);
        signal.removeEventListener("abort", onAbort);
        resolve(outcome);
      };
      const onAbort = () => finish({ timeout: true });
      const timer = setTimeout(onAbort, this.#handlerTimeout);
      signal.addEventListener("abort", onAbort);
      if (signal.aborted) return onAbort();
      Promise.resolve().then(fn).then((value) => finish({ value }), (error) => finish({ error }));
    });
  }
}

const RESERVED = "\u0000reserved";

/** Turns a response function's result into a Response, or says (as text) what is wrong with it. */
function buildFuncResponse(result: unknown, headOnly: boolean): Response | string {
  if (!Array.isArray(result) || result.length < 2 || result.length > 3) {
    return `must return [status, body] or [status, body, headers], got ${describe(result)}`;
  }
  const [status, body, rawHeaders] = result;
  const statusError = checkStatus(status);
  if (statusError) return `returned an invalid status: ${statusError}`;
  const errors: string[] = [];
  const headers = rawHeaders === undefined ? {} : checkHeaders(rawHeaders, "headers", errors) ?? {};
  if (errors.length) return `returned invalid headers: ${errors[0]}`;
  const contentType = findHeader(headers, "content-type");
  let text: string | null = null;
  if (body !== undefined) {
    if (status === 204 || status === 205 || status === 304) {
      return `returned a body with status ${status}, which cannot carry one`;
    }
    try {
      text = encodeBody(body, contentType);
    } catch (error) {
      return `returned a body that is not JSON-serializable: ${error instanceof Error ? error.message : error}`;
    }
    if (text === undefined) return `returned a body that is not JSON-serializable: ${describe(body)}`;
    if (contentType === undefined) headers["content-type"] = "application/json";
  }
  return new Response(headOnly ? null : text, { status, headers });
}
