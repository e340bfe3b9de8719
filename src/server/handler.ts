/**
 * The handler that holds all of stubtool's behaviour (P3, P4, P7). Sockets, the CLI and
 * the npm package are thin shells around it: {@link StubHandler.fetch} is the fetch-style
 * entry (`(Request) => Response`), and {@link StubHandler.handle} the same behaviour for
 * adapters that write responses themselves.
 * @module
 */

import { type Incoming, requestIncoming, TOO_LARGE } from "./incoming.ts";
import { DEFAULT_JOURNAL_SIZE, Journal, type JournalRecord } from "./journal.ts";
import type { ClosestStub, JournalSnapshot, Report, UnmatchedRequest } from "../report/types.ts";
import { type Delay, RESERVED_PREFIX, type Stub, stubLabel } from "../stubs/model.ts";
import { placeholderName, splitRequestPath } from "../stubs/path.ts";
import { DEFAULT_MAX_UNMATCHED, Recorder } from "./recorder.ts";
import {
  answerFromResult,
  CompiledResponse,
  errorAnswer,
  HeaderValueError,
  type Respond,
  type ResponseHead,
  toResponse,
} from "./response.ts";
import { diffStubs, type StubChanges } from "../stubs/reload.ts";
import { type Routable, Router } from "./router.ts";

export { errorAnswer, jsonError } from "./response.ts";
export { TOO_LARGE } from "./incoming.ts";
export type { Incoming } from "./incoming.ts";
export type { Respond, ResponseHead } from "./response.ts";
export type { StubChanges } from "../stubs/reload.ts";

/** Default request body limit: 10 MiB (`--max-body`). */
export const DEFAULT_MAX_BODY = 10 * 1024 * 1024;
/** Default time a response function may take: 30 s (`--handler-timeout`). */
export const DEFAULT_HANDLER_TIMEOUT_MS = 30_000;

/** One line of the request log. */
export interface RequestLogEntry {
  /** The request method as sent. */
  method: string;
  /** Path with the query string, as requested. */
  target: string;
  /** The status answered (404 when no stub matched). */
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
  /** Called once per stub request (matched or not) when its response is ready. */
  onRequest?: (entry: RequestLogEntry) => void;
  /**
   * How many recent requests the journal keeps (`GET /__stubtool__/requests`, the
   * dashboard). Default 500; 0 turns the journal off.
   */
  journalSize?: number;
  /**
   * Track scoped coverage: a request with `x-stubtool-scope: NAME` also counts in that
   * scope's report. Off by default: reading a request header costs every request ~0.3 µs
   * on Deno (its headers object is built on first access), about 5% of peak throughput.
   */
  scopes?: boolean;
}

const JSON_HEAD: ResponseHead = { status: 200, headers: { "content-type": "application/json" } };
const RESET_HEAD: ResponseHead = { status: 204, headers: {} };
const HEALTH_BODY = '{"status":"ok"}';
const ENDPOINTS = [
  "GET /__stubtool__/ (dashboard)",
  "GET /__stubtool__/health",
  "GET /__stubtool__/report",
  "GET /__stubtool__/requests",
  "POST /__stubtool__/reset",
];

const NO_NAMES: readonly string[] = [];

/** The request header that files a request under a scope (`GET /__stubtool__/report?scope=NAME`). */
export const SCOPE_HEADER = "x-stubtool-scope";

const SCOPES_OFF = "scoped coverage is off: start the server with --scopes (API: stubServer(port, { scopes: true }))";

/** `?scope=NAME` of a report request; an empty or missing one means the whole report. */
function reportScope(rawQuery: string): { scope?: string } {
  if (rawQuery === "") return {};
  const scope = new URLSearchParams(rawQuery).get("scope");
  return scope ? { scope } : {};
}

/** The router and the routes it holds, swapped together. */
interface RouteTable {
  router: Router<Route>;
  routes: Route[];
  /**
   * Near misses already worked out, by method and target: clients tend to repeat the same
   * unmatched request (polling, retries), and with many stubs the search is the costly part
   * of a 404. Bounded; it belongs to this set of stubs and goes when they change.
   */
  closest: Map<string, ClosestStub[]>;
}

/** How many explained misses a {@link RouteTable} keeps. */
const CLOSEST_CACHE_SIZE = 256;
/** Longer targets are explained every time rather than kept. */
const CLOSEST_CACHE_KEY_MAX = 1024;

/** Where a carried-over stub's sequence resumes: the same position, within its (maybe shorter) new sequence. */
function carryPosition(position: number, stub: Stub): number {
  const length = stub.responses.length;
  if (!stub.isSequence || length === 0) return 0;
  return stub.sequenceMode === "cycle" ? position % length : Math.min(position, length);
}

/** A registered stub: its routing data, compiled responses and sequence position. */
class Route implements Routable {
  readonly stub: Stub;
  readonly index: number;
  // Copied from the stub: the router reads them for every stub at load, and a field read
  // costs less than a getter call in code that has not been optimised yet.
  readonly method: Stub["method"];
  readonly path: string;
  readonly segments: Stub["segments"];
  readonly query: Stub["query"];
  /** Declaration order, the router's last tie-breaker. */
  readonly order: number;
  /** Next sequence entry. */
  position = 0;
  #label: string | undefined;
  #paramNames: readonly string[] | undefined;
  #responses: CompiledResponse[] | undefined;

  constructor(stub: Stub, index: number) {
    this.stub = stub;
    this.index = index;
    this.method = stub.method;
    this.path = stub.path;
    this.segments = stub.segments;
    this.query = stub.query;
    this.order = index;
  }

  /** Path placeholder names, in segment order. */
  get paramNames(): readonly string[] {
    if (this.#paramNames) return this.#paramNames;
    let names = NO_NAMES;
    for (const segment of this.stub.segments) {
      if (segment.param) (names === NO_NAMES ? names = [] : names as string[]).push(segment.name);
    }
    return this.#paramNames = names;
  }

  /**
   * The responses, compiled on the first request that needs them: a config of thousands
   * of stubs starts without serializing bodies most of which a test run never asks for.
   * Validation has already checked everything compiling relies on, so this cannot fail.
   */
  get responses(): CompiledResponse[] {
    return this.#responses ?? this.compile();
  }

  /** Compiles the responses now (they keep the bodies as they are at this moment). */
  compile(): CompiledResponse[] {
    // Capture slots: path placeholders, then query captures (the order the router fills them).
    const paramNames = this.paramNames;
    let names = paramNames;
    for (const key in this.stub.query) {
      const name = placeholderName(this.stub.query[key]);
      if (name !== undefined) (names === paramNames ? names = [...paramNames] : names as string[]).push(name);
    }
    return this.#responses = this.stub.responses.map((spec) => new CompiledResponse(spec, names));
  }

  /** `GET /users/{id}?q={term}`, for the request log (built on first use: most stubs never log). */
  get label(): string {
    return this.#label ??= stubLabel(this.stub);
  }

  /** `METHOD /path`, as error answers name the stub. */
  get name(): string {
    return `${this.method} ${this.path}`;
  }
}

function delayMs(delay: Delay): number {
  return typeof delay === "number" ? delay : delay.min + Math.random() * (delay.max - delay.min);
}

const utf8 = new TextDecoder();

function parsePayload(bytes: Uint8Array): unknown {
  if (bytes.byteLength === 0) return null;
  try {
    return JSON.parse(utf8.decode(bytes));
  } catch {
    return null;
  }
}

/** What a thrown value says, even when it is no Error and turning it into text throws too. */
function reasonOf(error: unknown): string {
  try {
    return String(error instanceof Error ? error.message : error);
  } catch {
    return "a value that cannot be turned into text";
  }
}

function queryLists(rawQuery: string): Record<string, string[]> {
  if (rawQuery === "") return {};
  const lists = new Map<string, string[]>();
  for (const [key, value] of new URLSearchParams(rawQuery)) {
    const list = lists.get(key);
    if (list) list.push(value);
    else lists.set(key, [value]);
  }
  return Object.fromEntries(lists);
}

/**
 * Per-request logging state, present only when a request log or the journal is on: the
 * journal keeps this very object once the response is ready.
 */
interface LogState extends JournalRecord {
  reserved: boolean;
}

/**
 * All stub behaviour behind one handler. Holds the stubs, the router and the recorder;
 * answering never throws because of user config or client input.
 *
 * @example
 * ```ts
 * import { StubHandler } from "./handler.ts";
 * import { get } from "../../mod.ts";
 * const handler = new StubHandler([get("/users/{id}").body({ id: "{id}" }).toStub()]);
 * const response = await handler.fetch(new Request("http://stub/users/42"));
 * console.log(await response.json()); // { id: "42" }
 * ```
 */
export class StubHandler {
  /** Router and routes: one reference, so a reload swaps them together (see {@link StubHandler.replace}). */
  #table: RouteTable = { router: new Router<Route>(), routes: [], closest: new Map() };
  #recorder: Recorder;
  #maxBody: number;
  #handlerTimeout: number;
  #onRequest?: (entry: RequestLogEntry) => void;
  /** The request journal; undefined when it is off (`journalSize: 0`). */
  #journal: Journal | undefined;
  /** Whether requests are filed under their `x-stubtool-scope` (option `scopes`). */
  #scopes: boolean;
  /** Aborted when the server stops waiting for in-flight work (end of the shutdown grace). */
  #closing = new AbortController();

  /**
   * Starts with `stubs` (validated, as builders' {@link StubBuilder.toStub} or a config file
   * yields them). Their responses are compiled on first use, so a large config starts fast:
   * do not change their bodies afterwards (stubs added with {@link StubHandler.add} are
   * compiled at once).
   */
  constructor(stubs: readonly Stub[] = [], options: HandlerOptions = {}) {
    this.#recorder = new Recorder(options.maxUnmatched ?? DEFAULT_MAX_UNMATCHED);
    this.#maxBody = options.maxBody ?? DEFAULT_MAX_BODY;
    this.#handlerTimeout = options.handlerTimeout ?? DEFAULT_HANDLER_TIMEOUT_MS;
    this.#onRequest = options.onRequest;
    const journalSize = options.journalSize ?? DEFAULT_JOURNAL_SIZE;
    this.#journal = journalSize === 0 ? undefined : new Journal(journalSize);
    this.#scopes = options.scopes === true;
    this.#register(stubs);
  }

  /**
   * Registers validated stubs; they take effect for the next request. Their responses are
   * compiled now, so a body object the caller changes afterwards does not change the answer.
   */
  add(stubs: readonly Stub[]): void {
    const { routes } = this.#table;
    for (let i = this.#register(stubs); i < routes.length; i++) routes[i].compile();
  }

  /**
   * Adds stubs to the table; their responses compile on first use (see {@link Route.responses}).
   * Returns the index of the first one added.
   */
  #register(stubs: readonly Stub[]): number {
    const { router, routes, closest } = this.#table;
    closest.clear(); // new stubs can be the closest to a miss seen before
    const first = routes.length;
    for (const stub of stubs) {
      const route = new Route(stub, routes.length);
      routes.push(route);
      router.add(route);
    }
    return first;
  }

  /**
   * Replaces every stub at once (`serve --watch` after the config changed). The new router
   * and routes are built aside and switched in one assignment, so no request sees a
   * half-loaded set. Stubs whose identity (method, path, required query; the n-th duplicate
   * pairs with the n-th) is unchanged keep their hit counts, in every scope, and their
   * sequence position. Returns what was added, removed and changed.
   */
  replace(stubs: readonly Stub[]): StubChanges {
    const old = this.#table.routes;
    const changes = diffStubs(old.map((r) => r.stub), stubs);
    const table: RouteTable = { router: new Router<Route>(), routes: [], closest: new Map() };
    stubs.forEach((stub, i) => {
      const route = new Route(stub, i);
      const was = changes.from[i];
      if (was !== undefined) route.position = carryPosition(old[was].position, stub);
      table.routes.push(route);
      table.router.add(route);
    });
    this.#recorder.remap(changes.from);
    this.#table = table;
    return changes;
  }

  /** The stubs, in registration order. */
  get stubs(): Stub[] {
    return this.#table.routes.map((r) => r.stub);
  }

  /**
   * The coverage report (P4, seed §2.5). With `scope`, only the requests that carried
   * `x-stubtool-scope: <scope>` count (an unknown scope has no hits and no unmatched requests).
   */
  report(options: { scope?: string } = {}): Report {
    if (options.scope !== undefined && !this.#scopes) throw new Error(SCOPES_OFF);
    return this.#recorder.report(this.stubs, options.scope);
  }

  /** The most recent requests, oldest first (`GET /__stubtool__/requests`). */
  journal(): JournalSnapshot {
    return this.#journal?.snapshot() ?? { capacity: 0, total: 0, requests: [] };
  }

  /** Zeroes hit counts, clears unmatched requests and the journal, restarts sequences. */
  reset(): void {
    this.#recorder.reset();
    this.#journal?.clear();
    for (const route of this.#table.routes) route.position = 0;
  }

  /** Ends delays and pending response functions at once (the shutdown grace ran out). */
  abortPending(): void {
    this.#closing.abort();
  }

  /** Answers one fetch `Request` with a `Response`. */
  fetch = (request: Request): Response | Promise<Response> => this.handle(requestIncoming(request), toResponse);

  /**
   * Answers one request: `respond` turns the answer into the caller's response type (a
   * `Response`, or a write to a Node `ServerResponse`). Never throws.
   */
  handle<R>(incoming: Incoming, respond: Respond<R>): R | Promise<R> {
    const onRequest = this.#onRequest;
    const journal = this.#journal;
    if (!onRequest && !journal) return this.#dispatch(incoming, respond, undefined);
    // Clock reads are most of what recording costs (performance.now() is ~0.1 µs on Deno):
    // the journal reads Date.now() once for the arrival time, and times only answers that
    // come after dispatch returns (delays, response functions). An answer given during
    // dispatch took microseconds and is journaled as 0 ms. The request log times every one.
    const log: LogState = {
      method: incoming.method,
      target: incoming.target,
      time: Date.now(),
      status: 0,
      ms: 0,
      stub: undefined,
      closest: undefined,
      reserved: false,
    };
    const start = onRequest ? performance.now() : 0;
    let pendingSince = 0;
    const result = this.#dispatch(incoming, (head, body) => {
      if (!log.reserved) {
        log.status = head.status;
        if (onRequest) log.ms = performance.now() - start;
        else if (pendingSince !== 0) log.ms = performance.now() - pendingSince;
        journal?.add(log);
        onRequest?.({ method: log.method, target: log.target, status: log.status, stub: log.stub, ms: log.ms });
      }
      return respond(head, body);
    }, log);
    if (!onRequest && log.status === 0 && !log.reserved) pendingSince = performance.now();
    return result;
  }

  #dispatch<R>(incoming: Incoming, respond: Respond<R>, log: LogState | undefined): R | Promise<R> {
    const target = incoming.target;
    const q = target.indexOf("?");
    const pathname = q === -1 ? target : target.slice(0, q);
    const rawQuery = q === -1 ? "" : target.slice(q + 1);
    // `_` after the first slash is rare in stub paths: one char test before the prefix test.
    if (pathname.charCodeAt(1) === 95 && (pathname.startsWith(RESERVED_PREFIX) || pathname === "/__stubtool__")) {
      if (log) log.reserved = true;
      return this.#reserved(incoming.method, pathname, rawQuery, respond);
    }
    const method = incoming.method;
    const headOnly = method === "HEAD";
    const router = this.#table.router;
    const match = router.matchPath(method, pathname, rawQuery) ??
      (headOnly ? router.matchPath("GET", pathname, rawQuery) : undefined);
    if (!match) {
      return this.#unmatched(method, pathname, rawQuery, respond, log, incoming);
    }

    const route = match.route;
    if (log) log.stub = route.label;
    this.#recorder.hit(route.index, this.#scopes ? incoming.header(SCOPE_HEADER) : null);
    if (route.stub.responseFunc) {
      return this.#callResponseFunc(route, match.values, incoming, headOnly, rawQuery, respond);
    }
    if (method !== "GET" && !headOnly) {
      const declared = incoming.header("content-length");
      if (declared !== null && Number(declared) > this.#maxBody) return this.#tooLarge(respond);
    }
    const responses = route.responses;
    let response = responses[0];
    if (route.stub.isSequence) {
      response = responses[Math.min(route.position, responses.length - 1)];
      route.position = route.stub.sequenceMode === "cycle"
        ? (route.position + 1) % responses.length
        : Math.min(route.position + 1, responses.length);
    }
    if (response.delay === undefined) return this.#render(route, response, match.values, headOnly, respond);
    return this.#sleep(delayMs(response.delay)).then(() =>
      this.#render(route, response, match.values, headOnly, respond)
    );
  }

  #render<R>(route: Route, response: CompiledResponse, values: string[], headOnly: boolean, respond: Respond<R>): R {
    try {
      return response.render(values, headOnly, respond);
    } catch (error) {
      const message = error instanceof HeaderValueError ? error.message : `could not build the response: ${error}`;
      return respond(...errorAnswer(500, message, { stub: route.name }));
    }
  }

  #unmatched<R>(
    method: string,
    pathname: string,
    rawQuery: string,
    respond: Respond<R>,
    log: LogState | undefined,
    incoming: Incoming,
  ): R {
    const closest = this.#closest(method, pathname, rawQuery);
    const query = rawQuery ? { query: rawQuery } : {};
    const request: UnmatchedRequest = { method, path: pathname, ...query, timestamp: new Date().toISOString() };
    if (closest.length) request.closest = closest;
    this.#recorder.unmatched(request, this.#scopes ? incoming.header(SCOPE_HEADER) : null);
    if (log) log.closest = closest;
    return respond(...errorAnswer(404, "no stub matched", { method, path: pathname, ...query, closest }));
  }

  /** The near misses of an unmatched request (P4 `closest`), from the cache when it was seen before. */
  #closest(method: string, pathname: string, rawQuery: string): ClosestStub[] {
    const { router, closest: cache } = this.#table;
    const key = `${method} ${pathname}?${rawQuery}`;
    const cacheable = key.length <= CLOSEST_CACHE_KEY_MAX;
    const cached = cacheable ? cache.get(key) : undefined;
    if (cached) return cached;
    // GET stubs answer HEAD requests (P3.5), so a HEAD miss is explained as a GET miss.
    const explainAs = method === "HEAD" ? "GET" : method;
    const closest = router.nearMisses(explainAs, splitRequestPath(pathname), rawQuery).map(({ route, reason }) => ({
      method: route.method,
      path: route.path,
      reason,
    }));
    if (cacheable) {
      if (cache.size >= CLOSEST_CACHE_SIZE) cache.delete(cache.keys().next().value!);
      cache.set(key, closest);
    }
    return closest;
  }

  #tooLarge<R>(respond: Respond<R>): R {
    return respond(...errorAnswer(413, `request body is larger than ${this.#maxBody} bytes (--max-body)`));
  }

  #reserved<R>(method: string, pathname: string, rawQuery: string, respond: Respond<R>): R | Promise<R> {
    // `/__stubtool__` itself is shorter than the prefix: no endpoint, like an unknown one.
    const endpoint = pathname.length < RESERVED_PREFIX.length ? undefined : pathname.slice(RESERVED_PREFIX.length);
    if (
      endpoint !== "" && endpoint !== "health" && endpoint !== "report" && endpoint !== "requests" &&
      endpoint !== "reset"
    ) {
      return respond(...errorAnswer(404, `unknown stubtool endpoint '${pathname}'`, { endpoints: ENDPOINTS }));
    }
    const allow = endpoint === "reset" ? "POST" : "GET, HEAD";
    if (!allow.split(", ").includes(method)) {
      return respond(...errorAnswer(405, `${pathname} accepts ${allow}, not ${method}`, {}, { allow }));
    }
    const headOnly = method === "HEAD";
    switch (endpoint) {
      case "":
        return this.#dashboard(headOnly, respond);
      case "health":
        return respond(JSON_HEAD, headOnly ? null : HEALTH_BODY);
      case "report": {
        const scope = reportScope(rawQuery);
        if (scope.scope !== undefined && !this.#scopes) return respond(...errorAnswer(400, SCOPES_OFF));
        return respond(JSON_HEAD, headOnly ? null : JSON.stringify(this.report(scope)));
      }
      case "requests":
        return respond(JSON_HEAD, headOnly ? null : JSON.stringify(this.journal()));
      default:
        this.reset();
        return respond(RESET_HEAD, null);
    }
  }

  /** The live dashboard page; its module loads on the first visit, not at start. */
  #dashboard<R>(headOnly: boolean, respond: Respond<R>): Promise<R> {
    return import("../report/dashboard.ts").then(
      ({ dashboardPage }) => {
        const page = dashboardPage(this.report(), this.journal());
        return respond({ status: 200, headers: page.headers }, headOnly ? null : page.html);
      },
      (error) => respond(...errorAnswer(500, `could not load the dashboard: ${error}`)),
    );
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

  async #callResponseFunc<R>(
    route: Route,
    values: string[],
    incoming: Incoming,
    headOnly: boolean,
    rawQuery: string,
    respond: Respond<R>,
  ): Promise<R> {
    let bytes: Uint8Array | typeof TOO_LARGE;
    try {
      bytes = await incoming.body(this.#maxBody);
    } catch (error) {
      const reason = error instanceof Error ? error.message : error;
      return respond(...errorAnswer(400, `could not read the request body: ${reason}`));
    }
    if (bytes === TOO_LARGE) return this.#tooLarge(respond);
    const args = {
      payload: parsePayload(bytes),
      headers: incoming.headers(),
      params: Object.fromEntries(route.paramNames.map((name, i) => [name, values[i]])),
      queryParams: queryLists(rawQuery),
    };
    if (route.stub.delay !== undefined) await this.#sleep(delayMs(route.stub.delay));

    const outcome = await this.#withTimeout(() => route.stub.responseFunc!(args));
    const stub = route.name;
    if ("timeout" in outcome) {
      return respond(
        ...(this.#closing.signal.aborted
          ? errorAnswer(503, "the server shut down before the response function answered", { stub })
          : errorAnswer(504, `response function did not answer within ${this.#handlerTimeout} ms (--handler-timeout)`, {
            stub,
          })),
      );
    }
    if ("error" in outcome) {
      return respond(...errorAnswer(500, `response function threw: ${reasonOf(outcome.error)}`, { stub }));
    }
    let answer: ReturnType<typeof answerFromResult>;
    try {
      answer = answerFromResult(outcome.value, headOnly);
    } catch (error) { // a getter or proxy in the result threw while it was read
      answer = `returned a value that threw when read: ${reasonOf(error)}`;
    }
    return typeof answer === "string"
      ? respond(...errorAnswer(500, `response function ${answer}`, { stub }))
      : respond(...answer);
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
