/**
 * The handler that holds all of stubtool's behaviour (P3, P4, P7, P9, P10). Sockets, the
 * CLI and the npm package are thin shells around it: {@link StubHandler.fetch} is the
 * fetch-style entry (`(Request) => Response`), and {@link StubHandler.handle} the same
 * behaviour for adapters that write responses themselves. The reserved endpoints under
 * `/__stubtool__/` live beside it (endpoints.ts).
 * @module
 */

import type { ClosestStub, JournalSnapshot, Report } from "../report/types.ts";
import { type Delay, METHODS, type Stub, type StubSource } from "../stubs/model.ts";
import { Cors } from "./cors.ts";
import { forward, type ForwardTap } from "./proxy.ts";
import { faulted, throttled } from "./faults.ts";
import { RESERVED_PREFIX } from "../stubs/path.ts";
import type { StubChanges } from "../stubs/reload.ts";
import { answerReserved, type ReservedHost } from "./endpoints.ts";
import { type GuardOptions, ReservedGuard } from "./guard.ts";
import { type Incoming, requestIncoming } from "./incoming.ts";
import {
  DEFAULT_JOURNAL_BYTES,
  DEFAULT_JOURNAL_SIZE,
  Journal,
  JOURNAL_BODY_MAX,
  journalEntry,
  type JournalFilter,
  type JournalRecord,
} from "./journal.ts";
import { DEFAULT_MAX_UNMATCHED, Recorder, usableScope } from "./recorder.ts";
import { findRequests } from "./find.ts";
import { BodyView, MAX_JSON_DEPTH, RequestView } from "./request_view.ts";
import {
  answerFromResult,
  type CompiledResponse,
  errorAnswer,
  headAnswer,
  HeaderValueError,
  type Respond,
  toResponse,
} from "./response.ts";
import type { Route } from "./route.ts";
import { type Match, NEED_BODY } from "./router.ts";
import { type BatchProblem, StubSet } from "./stub_set.ts";

export { errorAnswer, jsonError } from "./response.ts";
export { TOO_LARGE } from "./incoming.ts";
export type { Incoming } from "./incoming.ts";
export type { AnswerBody, Respond, ResponseHead } from "./response.ts";
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
  /** The matched stub's id. */
  id?: string;
  /** When nothing matched: the ids of the stubs that came closest (the 404's `closest`). */
  closest?: string[];
  /** Time from arrival to the response, in milliseconds. */
  ms: number;
}

/** Options of {@link StubHandler}. */
export interface HandlerOptions extends GuardOptions {
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
  /** How many bytes of request targets and bodies the journal keeps. Default 16 MiB. */
  journalBytes?: number;
  /**
   * Track scoped coverage: a request with `x-stubtool-scope: NAME` also counts in that
   * scope's report. Off by default: reading a request header costs every request ~0.3 µs
   * on Deno (its headers object is built on first access), about 5% of peak throughput.
   * (Scoped stubs need no option: their scope header is read whenever one exists.)
   */
  scopes?: boolean;
  /** Where the stubs given to the constructor come from (`config` unless told). */
  source?: StubSource;
  /** Stubs from `--stub` flags: a batch after the constructor's stubs, so they win ties with them (P9.3). */
  inline?: readonly Stub[];
  /** CORS for browser apps (P11.2): `true` for any origin, or `{ origins: [...] }`. Off by default. */
  cors?: boolean | { origins: readonly string[] };
  /** Where requests no stub matches are passed on (P12.2); they are still recorded as unmatched. */
  proxyUnmatched?: string;
  /** Watches every proxied exchange (`stubtool record`). */
  proxyTap?: (method: string, target: string) => ForwardTap | undefined;
}

/** The request header that files a request under a scope (P9.5; `GET /__stubtool__/report?scope=NAME`). */
export const SCOPE_HEADER = "x-stubtool-scope";

/** How many explained misses are kept (clients repeat the same unmatched request: polling, retries). */
const CLOSEST_CACHE_SIZE = 256;
/** Longer targets are explained every time rather than kept. */
const CLOSEST_CACHE_KEY_MAX = 1024;

function delayMs(delay: Delay): number {
  return typeof delay === "number" ? delay : delay.min + Math.random() * (delay.max - delay.min);
}

/** What a thrown value says, even when it is no Error and turning it into text throws too. */
function reasonOf(error: unknown): string {
  try {
    return String(error instanceof Error ? error.message : error);
  } catch {
    return "a value that cannot be turned into text";
  }
}

/** Per-request logging state, present only when a request log or the journal is on. */
interface LogState extends JournalRecord {
  /** The answer went out (the record is in the journal). */
  done: boolean;
}

/** `TypeError` for a batch the API refuses: every problem, with the stub it is about. */
function batchError(stubs: readonly Stub[], problems: readonly BatchProblem[]): TypeError {
  return new TypeError(
    problems.map((p) => `${stubs[p.index] ? `${stubs[p.index].method} ${stubs[p.index].path}: ` : ""}${p.message}`)
      .join("; "),
  );
}

/**
 * All stub behaviour behind one handler. Holds the stubs, the recorder and the journal;
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
  #stubs = new StubSet();
  #recorder: Recorder;
  #maxBody: number;
  #handlerTimeout: number;
  #onRequest?: (entry: RequestLogEntry) => void;
  /** The request journal; undefined when it is off (`journalSize: 0`). */
  #journal: Journal | undefined;
  /** Whether requests are filed under their `x-stubtool-scope` for coverage (option `scopes`). */
  #scopes: boolean;
  /** Aborted when the server stops waiting for in-flight work (end of the shutdown grace). */
  #closing = new AbortController();
  /** CORS rules, when on. */
  #cors: Cors | undefined;
  /** Where unmatched requests go, when somewhere. */
  #proxyUnmatched: URL | undefined;
  #proxyTap: HandlerOptions["proxyTap"];
  readonly #guard: ReservedGuard;
  /** Near misses already worked out, for one version of the stubs. */
  #closest = { version: -1, cache: new Map<string, ClosestStub[]>() };

  /**
   * Starts with `stubs` (validated, as builders' {@link StubBuilder.toStub} or a config file
   * yields them) as one batch. Their responses are compiled on first use, so a large config
   * starts fast: do not change their bodies afterwards (stubs added with
   * {@link StubHandler.add} are compiled at once).
   */
  constructor(stubs: readonly Stub[] = [], options: HandlerOptions = {}) {
    this.#recorder = new Recorder(options.maxUnmatched ?? DEFAULT_MAX_UNMATCHED);
    this.#maxBody = options.maxBody ?? DEFAULT_MAX_BODY;
    this.#handlerTimeout = options.handlerTimeout ?? DEFAULT_HANDLER_TIMEOUT_MS;
    this.#onRequest = options.onRequest;
    const journalSize = options.journalSize ?? DEFAULT_JOURNAL_SIZE;
    this.#journal = journalSize === 0
      ? undefined
      : new Journal(journalSize, options.journalBytes ?? DEFAULT_JOURNAL_BYTES);
    this.#scopes = options.scopes === true;
    this.#cors = options.cors ? new Cors(options.cors) : undefined;
    this.#proxyUnmatched = options.proxyUnmatched === undefined ? undefined : new URL(options.proxyUnmatched);
    this.#proxyTap = options.proxyTap;
    this.#guard = new ReservedGuard(options);
    this.#reservedHost.maxBody = this.#maxBody;
    for (const [batch, source] of [[stubs, options.source ?? "config"], [options.inline ?? [], "inline"]] as const) {
      if (!batch.length) continue;
      const { problems } = this.#stubs.add(batch, source);
      if (problems.length) throw batchError(batch, problems);
    }
  }

  /**
   * Registers validated stubs as one batch (later batches win ties, P9.3); they take effect
   * for the next request. Their responses are compiled now, so a body object the caller
   * changes afterwards does not change the answer. Returns the new stubs' ids; throws a
   * `TypeError` (and adds nothing) when an id is taken.
   */
  add(stubs: readonly Stub[], source: StubSource = "api"): string[] {
    const { routes, problems } = this.#stubs.add(stubs, source, true);
    if (!routes) throw batchError(stubs, problems);
    return routes.map((r) => r.id);
  }

  /**
   * {@link StubHandler.add} that reports problems instead of throwing (the admin API answers 409 with them).
   * @ignore
   */
  addBatch(stubs: readonly Stub[], source: StubSource): { routes?: readonly Route[]; problems: BatchProblem[] } {
    return this.#stubs.add(stubs, source, true);
  }

  /** Removes the stubs with these ids; returns the ids that were there. */
  remove(...ids: string[]): string[] {
    const wanted = new Set(ids);
    const removed = this.#stubs.remove((r) => wanted.has(r.id));
    this.#recorder.forget(removed);
    return removed.map((r) => r.id);
  }

  /**
   * Removes every stub `which` picks; returns their ids.
   * @ignore
   */
  removeWhere(which: (route: Route) => boolean): string[] {
    const removed = this.#stubs.remove(which);
    this.#recorder.forget(removed);
    return removed.map((r) => r.id);
  }

  /**
   * Replaces stub `id` in place (hit count and sequence start again); problems when `id` is unknown or taken.
   * @ignore
   */
  replaceStub(id: string, stub: Stub): { route?: Route; problems: BatchProblem[] } {
    const old = this.#stubs.get(id);
    const result = this.#stubs.replace(id, stub, true);
    if (result.route && old) this.#recorder.forget([old]);
    return result;
  }

  /**
   * Replaces every stub of `source` at once (`serve --watch` after the config changed). Stubs
   * whose identity (method, path, conditions, or id; the n-th duplicate pairs with the n-th)
   * is unchanged keep their id, hit counts (in every scope) and sequence position. Returns
   * what was added, removed and changed among that source's stubs.
   */
  replace(stubs: readonly Stub[], source: StubSource = "config"): StubChanges {
    const before = this.#stubs.routes.filter((r) => r.source === source);
    const { changes, problems } = this.#stubs.replaceSource(source, stubs);
    if (!changes) throw batchError(stubs, problems);
    const after = this.#stubs.routes.filter((r) => r.source === source);
    this.#recorder.carry(
      changes.from.flatMap((was, i) => was === undefined ? [] : [[before[was], after[i]] as [Route, Route]]),
    );
    this.#recorder.forget(before);
    return changes;
  }

  /** The stubs, in declaration order. */
  get stubs(): Stub[] {
    return this.#stubs.routes.map((r) => r.stub);
  }

  /**
   * The registered stubs with their ids, sources and hit counts, in declaration order.
   * @ignore
   */
  get routes(): readonly Route[] {
    return this.#stubs.routes;
  }

  /**
   * The registered stub with this id.
   * @ignore
   */
  route(id: string): Route | undefined {
    return this.#stubs.get(id);
  }

  /** Whether scoped coverage is on (option `scopes`). */
  get scopes(): boolean {
    return this.#scopes;
  }

  /**
   * The coverage report (P4, seed §2.5). With `scope`, only the requests that carried
   * `x-stubtool-scope: <scope>` count (an unknown scope has no hits and no unmatched requests).
   */
  report(options: { scope?: string } = {}): Report {
    if (options.scope !== undefined && !this.#scopes) throw new Error(SCOPES_OFF);
    return this.#recorder.report(this.#stubs.routes, options.scope);
  }

  /** The most recent requests, oldest first (`GET /__stubtool__/requests`), those that pass `filter`. */
  journal(filter?: JournalFilter): JournalSnapshot {
    return this.#journal?.snapshot(filter) ?? { capacity: 0, total: 0, requests: [] };
  }

  /**
   * The journal's kept records, oldest first, and whether it still holds every request (for `requests/find`).
   * @ignore
   */
  journalRecords(): { records: JournalRecord[]; complete: boolean } {
    return { records: this.#journal?.records() ?? [], complete: this.#journal?.complete ?? false };
  }

  /** Zeroes hit counts, clears unmatched requests and the journal, restarts sequences. */
  reset(): void {
    this.#recorder.reset(this.#stubs.routes);
    this.#journal?.clear();
    for (const route of this.#stubs.routes) route.position = 0;
  }

  /** Ends delays and pending response functions at once (the shutdown grace ran out). */
  abortPending(): void {
    this.#closing.abort();
  }

  /** Requests handled since start, reserved endpoints included (the server watches it to tell when it has gone quiet). */
  handled = 0;

  /** Answers one fetch `Request` with a `Response`. */
  fetch = (request: Request): Response | Promise<Response> => this.handle(requestIncoming(request), toResponse);

  /**
   * Answers one request: `respond` turns the answer into the caller's response type (a
   * `Response`, or a write to a Node `ServerResponse`). Never throws.
   */
  handle<R>(incoming: Incoming, respond: Respond<R>): R | Promise<R> {
    this.handled++;
    if (incoming.method === "HEAD") respond = headAnswer(respond);
    const target = incoming.target;
    const q = target.indexOf("?");
    const pathname = q === -1 ? target : target.slice(0, q);
    const rawQuery = q === -1 ? "" : target.slice(q + 1);
    // `_` after the first slash is rare in stub paths: one char test before the prefix test.
    if (pathname.charCodeAt(1) === 95 && (pathname.startsWith(RESERVED_PREFIX) || pathname === "/__stubtool__")) {
      const refusal = this.#guard.check(incoming, pathname, pathname.slice(RESERVED_PREFIX.length), rawQuery);
      if (refusal) return respond(...refusal);
      return answerReserved(this.#reservedHost, incoming, pathname, rawQuery, respond);
    }
    const view = new RequestView(incoming, incoming.method, pathname, rawQuery);
    if (this.#scopes || this.#stubs.router.hasScoped) {
      const scope = incoming.header(SCOPE_HEADER);
      view.scope = usableScope(scope) ? scope : null;
    }
    if (this.#cors) {
      const origin = incoming.header("origin");
      if (origin !== null && this.#cors.allows(origin)) {
        const preflight = this.#preflight(view, incoming, origin, respond);
        // An adapter's answer may be undefined (Node writes it): the wrapper says it was given.
        if (preflight) return preflight.answer;
        const cors = this.#cors;
        const plain = respond;
        respond = (head, body) => plain(cors.decorate(head, origin), body);
      }
    }
    const onRequest = this.#onRequest;
    const journal = this.#journal;
    if (!onRequest && !journal) return this.#dispatch(view, incoming, respond, undefined);
    // Clock reads are most of what recording costs (performance.now() is ~0.1 µs on Deno):
    // the journal reads Date.now() once for the arrival time, and times only answers that
    // come after dispatch returns (delays, response functions, bodies). An answer given
    // during dispatch took microseconds and is journaled as 0 ms. The request log times every one.
    const log: LogState = {
      method: incoming.method,
      target,
      time: Date.now(),
      status: 0,
      ms: 0,
      stub: undefined,
      id: undefined,
      closest: undefined,
      scope: view.scope,
      headers: journal ? incoming.headerSource() : undefined,
      body: undefined,
      bodyTruncated: false,
      done: false,
    };
    const start = onRequest ? performance.now() : 0;
    let pendingSince = 0;
    const logged: Respond<R> = (head, body) => {
      if (!log.done) {
        log.done = true;
        log.status = head.status;
        if (onRequest) log.ms = performance.now() - start;
        else if (pendingSince !== 0) log.ms = performance.now() - pendingSince;
        journal?.add(log);
        onRequest?.({
          method: log.method,
          target: log.target,
          status: log.status,
          stub: log.stub,
          id: log.id,
          closest: log.closest?.map((c) => c.id!),
          ms: log.ms,
        });
      }
      return respond(head, body);
    };
    let result: R | Promise<R>;
    if (journal && incoming.hasBody()) {
      // The journal keeps what was sent: the first 64 KiB of the body, read before matching
      // (the body can only be read once, and conditions may need it too). A body the client
      // broke off is journaled as cut; the request is still matched and counted, and only a
      // stub that needs the body answers 400.
      result = this.#readBody(incoming, JOURNAL_BODY_MAX, view, log).then(() =>
        this.#dispatch(view, incoming, logged, log)
      );
    } else result = this.#dispatch(view, incoming, logged, log);
    if (!onRequest && log.status === 0) pendingSince = performance.now();
    return result;
  }

  /**
   * Answers a CORS preflight (`OPTIONS` with `Access-Control-Request-Method`) to a path some
   * stub serves, unless an `OPTIONS` stub matches it: undefined then, and the request is
   * handled like any other. A preflight answer is neither a hit nor unmatched.
   */
  #preflight<R>(view: RequestView, incoming: Incoming, origin: string, respond: Respond<R>): { answer: R } | undefined {
    if (view.method !== "OPTIONS" || incoming.header("access-control-request-method") === null) return undefined;
    const router = this.#stubs.router;
    const own = router.match(view);
    if (own !== undefined) return undefined; // a user's OPTIONS stub (or one that needs the body) answers
    const methods = router.methodsFor(view, METHODS);
    if (methods.length === 0) return undefined;
    return {
      answer: respond(this.#cors!.preflight(origin, methods, incoming.header("access-control-request-headers")), null),
    };
  }

  /**
   * Reads the body up to `max` bytes into `view` (complete) and `log` (for the journal).
   * Resolves with an error answer when the client went away mid-body.
   */
  async #readBody(
    incoming: Incoming,
    max: number,
    view: RequestView,
    log: LogState | undefined,
  ): Promise<Parameters<Respond<unknown>> | undefined> {
    let read;
    try {
      read = await incoming.read(max);
    } catch (error) {
      if (log && log.body === undefined) log.bodyTruncated = true;
      return errorAnswer(400, `could not read the request body: ${reasonOf(error)}`);
    }
    if (log && log.body === undefined) {
      log.body = read.bytes.subarray(0, JOURNAL_BODY_MAX);
      log.bodyTruncated = !read.complete || read.bytes.byteLength > JOURNAL_BODY_MAX;
    }
    // A body over --max-body is never matched on or handed to a function, even when the journal has it whole.
    if (read.complete && read.bytes.byteLength <= this.#maxBody) {
      view.body = new BodyView(read.bytes, true, incoming.header("content-type"));
    }
    return undefined;
  }

  /**
   * Makes sure `view.body` holds the whole body (up to `--max-body`): an answer when it is
   * too large (413) or could not be read (400), else undefined.
   */
  async #wholeBody(incoming: Incoming, view: RequestView, log: LogState | undefined) {
    if (view.body) return undefined;
    if (!incoming.hasBody()) {
      view.body = new BodyView(new Uint8Array(), true, incoming.header("content-type"));
      return undefined;
    }
    const declared = incoming.header("content-length");
    if (declared !== null && Number(declared) > this.#maxBody) return this.#tooLarge();
    const failed = await this.#readBody(incoming, this.#maxBody, view, log);
    if (failed) return failed;
    return view.body ? undefined : this.#tooLarge();
  }

  #dispatch<R>(view: RequestView, incoming: Incoming, respond: Respond<R>, log: LogState | undefined): R | Promise<R> {
    const match = this.#stubs.router.match(view);
    if (match === NEED_BODY) {
      return this.#wholeBody(incoming, view, log).then((failed) =>
        failed ? respond(...failed) : this.#dispatch(view, incoming, respond, log)
      );
    }
    if (!match) return this.#unmatched(view, incoming, respond, log);

    const route = match.route;
    if (log) {
      log.stub = route.label;
      log.id = route.id;
    }
    this.#recorder.hit(route, view.scope);
    if (route.stub.responseFunc) return this.#callResponseFunc(route, match, view, incoming, respond, log);
    if (route.stub.proxy !== undefined) return this.#proxied(route, view, incoming, respond);
    if (view.method !== "GET" && view.method !== "HEAD") {
      const declared = incoming.header("content-length");
      if (declared !== null && Number(declared) > this.#maxBody) return respond(...this.#tooLarge());
    }
    const response = route.nextResponse();
    if (response.delay === undefined) return this.#render(route, response, match, respond);
    return this.#sleep(delayMs(response.delay)).then(() => this.#render(route, response, match, respond));
  }

  #render<R>(route: Route, response: CompiledResponse, match: Match<Route>, respond: Respond<R>): R {
    const { fault, throttle } = route.stub;
    if (fault !== undefined || throttle !== undefined) {
      // The answer is built as usual, then sent broken or slowly (P12.4).
      const plain = respond;
      const signal = this.#closing.signal;
      respond = (head, body) => {
        if (fault !== undefined) return plain(...faulted(fault, head, body));
        return plain(...throttled(head, body, throttle!, signal));
      };
    }
    try {
      // A header that cannot go out throws before `respond` is called: a 500 for this request
      // only, answered and journaled once. An error from `respond` itself is the adapter's.
      return response.render(match.values, match.raw, respond);
    } catch (error) {
      if (!(error instanceof HeaderValueError)) throw error;
      return respond(...errorAnswer(500, error.message, { stub: route.name }));
    }
  }

  #unmatched<R>(view: RequestView, incoming: Incoming, respond: Respond<R>, log: LogState | undefined): R | Promise<R> {
    const closest = this.#closestTo(view);
    if (closest === NEED_BODY) {
      return this.#wholeBody(incoming, view, log).then((failed) =>
        failed ? respond(...failed) : this.#unmatched(view, incoming, respond, log)
      );
    }
    const { method, pathname, rawQuery } = view;
    const entry = this.#recorder.unmatched(method, pathname, rawQuery, closest, view.scope);
    if (log) log.closest = closest;
    if (this.#proxyUnmatched) {
      // Still an unmatched request (the report says so), answered by the real service.
      entry.proxied = true;
      return this.#forward(this.#proxyUnmatched, view, incoming, respond, undefined, (status) => {
        if (status !== undefined) entry.upstream_status = status;
      });
    }
    // The answer echoes what the report keeps: a long path or query cut, marked `truncated`.
    const { path, query, truncated } = entry;
    return respond(
      ...errorAnswer(404, "no stub matched", {
        method: entry.method,
        path,
        ...(query === undefined ? {} : { query }),
        ...(truncated ? { truncated } : {}),
        closest,
      }),
    );
  }

  /** The near misses of an unmatched request (P4 `closest`), from the cache when it was seen before. */
  #closestTo(view: RequestView): ClosestStub[] | typeof NEED_BODY {
    const stubs = this.#stubs;
    if (this.#closest.version !== stubs.version) this.#closest = { version: stubs.version, cache: new Map() };
    const cache = this.#closest.cache;
    // Explanations that depend on headers or the body are not worth keeping by target.
    const key = `${view.method} ${view.scope ?? ""} ${view.pathname}?${view.rawQuery}`;
    const cacheable = !stubs.hasRequestConditions && key.length <= CLOSEST_CACHE_KEY_MAX;
    const cached = cacheable ? cache.get(key) : undefined;
    if (cached) return cached;
    const misses = stubs.router.nearMisses(view);
    if (misses === NEED_BODY) return NEED_BODY;
    const closest = misses.map(({ route, reason }): ClosestStub => {
      const entry: ClosestStub = { method: route.method, path: route.path, reason };
      if (route.stub.query) entry.query_params = { ...route.stub.query };
      entry.id = route.id;
      entry.place = route.stub.place ?? route.source;
      return entry;
    });
    if (cacheable) {
      if (cache.size >= CLOSEST_CACHE_SIZE) cache.delete(cache.keys().next().value!);
      cache.set(key, closest);
    }
    return closest;
  }

  /** A `proxy:` stub's answer: the upstream's, after the stub's delay (P12.1). */
  async #proxied<R>(route: Route, view: RequestView, incoming: Incoming, respond: Respond<R>): Promise<R> {
    if (route.stub.delay !== undefined) await this.#sleep(delayMs(route.stub.delay));
    return this.#forward(new URL(route.stub.proxy!), view, incoming, respond, route.name);
  }

  /**
   * Passes the request on to `base` and its answer back, streamed; 502 when the upstream
   * cannot be reached, 504 when it does not answer within the handler timeout.
   */
  async #forward<R>(
    base: URL,
    view: RequestView,
    incoming: Incoming,
    respond: Respond<R>,
    stub: string | undefined,
    onStatus?: (status: number | undefined) => void,
  ): Promise<R> {
    const result = await forward(base, incoming, view.pathname, view.rawQuery, {
      timeoutMs: this.#handlerTimeout,
      signal: this.#closing.signal,
      tap: this.#proxyTap?.(view.method, incoming.target),
    });
    if ("message" in result) {
      onStatus?.(undefined);
      return respond(...errorAnswer(result.status, result.message, stub === undefined ? {} : { stub }));
    }
    onStatus?.(result.head.status);
    return respond(result.head, result.body);
  }

  #tooLarge(): Parameters<Respond<unknown>> {
    return errorAnswer(413, `request body is larger than ${this.#maxBody} bytes (--max-body)`);
  }

  /** What the reserved endpoints may ask of the handler. */
  #reservedHost: ReservedHost = {
    maxBody: 0, // set in the constructor
    routes: () => this.#stubs.routes,
    route: (id) => this.#stubs.get(id),
    add: (stubs, source) => this.addBatch(stubs, source),
    replace: (id, stub) => this.replaceStub(id, stub),
    remove: (which) => this.removeWhere(which),
    find: (pattern) => {
      const { records, complete } = this.journalRecords();
      return { requests: findRequests(pattern, records).map(journalEntry), complete };
    },
    scopes: () => this.#scopes,
    version: () => `${this.#stubs.version}.${this.#recorder.version}.${this.#journal?.version ?? 0}`,
    largeBytes: 0,
    report: (options) => this.report(options),
    journal: (filter) => this.journal(filter),
    reset: () => this.reset(),
  };

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
    match: Match<Route>,
    view: RequestView,
    incoming: Incoming,
    respond: Respond<R>,
    log: LogState | undefined,
  ): Promise<R> {
    const failed = await this.#wholeBody(incoming, view, log);
    if (failed) return respond(...failed);
    const body = view.body!;
    const names = route.names;
    const params: Record<string, string> = {};
    for (let i = 0; i < names.length; i++) params[names[i]] = match.values[i];
    let headers: Record<string, string> | undefined;
    let queryParams: Record<string, string[]> | undefined;
    // Parsed on first access: a function that never reads the payload never pays for
    // parsing a large body (P13.2).
    const args = {
      get payload(): unknown {
        if (body.tooDeep) {
          throw new TypeError(
            `the request body is nested deeper than ${MAX_JSON_DEPTH} levels, so it is not parsed; read body (the text) instead`,
          );
        }
        return body.json()?.value ?? null;
      },
      get body(): string {
        return body.text();
      },
      get headers(): Record<string, string> {
        return headers ??= incoming.headers();
      },
      params,
      get queryParams(): Record<string, string[]> {
        return queryParams ??= view.query.lists();
      },
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
      answer = answerFromResult(outcome.value);
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

/** What a scoped report says on a server without scoped coverage. */
export const SCOPES_OFF =
  "scoped coverage is off: start the server with --scopes (API: stubServer(port, { scopes: true }))";
