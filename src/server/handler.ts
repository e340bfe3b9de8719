/**
 * The handler that holds all of stubtool's behaviour. Sockets, the CLI and the npm package
 * are thin shells around it: {@link StubHandler.fetch} is the fetch-style entry
 * (`(Request) => Response`), and {@link StubHandler.handle} the same behaviour for adapters
 * that write responses themselves. It is a short pipeline; each step lives in a module of its own:
 * mounts for the reserved prefixes (mounts.ts), the request log and journal
 * (journal/), the stub registry (registry.ts), unmatched answers (coverage/unmatched.ts), one
 * answerer per answer kind (answers/), body reading (body.ts), deadlines and delivery.
 * @module
 */

import type { ClosestStub, JournalEntry, JournalSnapshot, Report } from "../report/types.ts";
import type { RequestPattern } from "../stubs/validate.ts";
import { METHODS, type Stub, type StubSource } from "../stubs/model.ts";
import { CannedAnswerer } from "./answers/canned.ts";
import { FunctionAnswerer } from "./answers/function.ts";
import { ProxyAnswerer } from "./answers/proxy.ts";
import { modelOf, paramsOf, TemplateAnswerer } from "./answers/template.ts";
import { StreamAnswerer, type StreamStats } from "./answers/stream.ts";
import { WebSocketAnswerer, type WebSocketLimits, type WebSocketStats } from "./answers/websocket.ts";
import { AfterAnswer } from "./after_answer.ts";
import type { CallbackRecord } from "./callbacks/callbacks.ts";
import type { ForwardTap } from "./proxy/proxy.ts";
import { BodyReader } from "./body.ts";
import { Cors } from "./cors.ts";
import { Deadlines } from "./deadlines.ts";
import { afterDelay, deliveringRespond } from "./answers/delivery.ts";
import { SCOPES_OFF } from "./admin/endpoints.ts";
import { findRequests } from "./admin/find.ts";
import { type GuardOptions, ReservedGuard } from "./admin/guard.ts";
import { type Incoming, requestIncoming } from "./incoming.ts";
import {
  DEFAULT_JOURNAL_BYTES,
  DEFAULT_JOURNAL_SIZE,
  Journal,
  JOURNAL_BODY_MAX,
  journalEntry,
  type JournalFilter,
  type JournalRecord,
  recordOf,
  type SharedRecord,
} from "./journal/journal.ts";
import { DEFAULT_MAX_UNMATCHED, Recorder } from "./coverage/recorder.ts";
import { STARTED } from "./matching/scenarios.ts";
import { SCOPE_HEADER, scopeFrom, scopeHeaderProblem, usableScope } from "./scope.ts";
import { type LogState, RequestLog, type RequestLogEntry } from "./journal/request_log.ts";
import { RequestView } from "./request_view.ts";
import { errorAnswer, headAnswer, type Respond, toResponse } from "./response.ts";
import type { Route } from "./matching/route.ts";
import { type Match, NEED_BODY } from "./matching/router.ts";
import { StubRegistry } from "./registry.ts";
import type { StepAsk } from "./state/state.ts";
import { type Mount, serverMounts } from "./mounts.ts";
import { wireMockLayout } from "./wiremock/layout.ts";
import { UnmatchedAnswerer } from "./coverage/unmatched.ts";

export { errorAnswer, jsonError } from "./response.ts";
export type { Incoming } from "./incoming.ts";
export type { AnswerBody, Respond, ResponseHead } from "./response.ts";
export type { StubChanges } from "../stubs/reload.ts";
export type { RequestLogEntry } from "./journal/request_log.ts";
export { DEFAULT_MAX_BODY } from "./body.ts";
export { SCOPES_OFF } from "./admin/endpoints.ts";
export { SCOPE_HEADER } from "./scope.ts";
export { DEFAULT_HANDLER_TIMEOUT_MS } from "./deadlines.ts";

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
  /** Stubs from `--stub` flags: a batch after the constructor's stubs, so they win ties with them. */
  inline?: readonly Stub[];
  /** Stubs converted from WireMock folders (`serve --wiremock`): one batch per folder, after the config's stubs. */
  wiremock?: readonly (readonly Stub[])[];
  /**
   * The WireMock folders served (`serve --wiremock DIR`): `POST /__admin/mappings/save` writes
   * into the first, and a `GET` no stub matches is answered from their `__files`, as WireMock does.
   */
  wiremockDirs?: readonly string[];
  /** CORS for browser apps: `true` for any origin, or `{ origins: [...] }`. Off by default. */
  cors?: boolean | { origins: readonly string[] };
  /** Where requests no stub matches are passed on; they are still recorded as unmatched. */
  proxyUnmatched?: string;
  /** Gets one line per callback sent (the request log), and a `[WARN]` line when callbacks are dropped. */
  onCallback?: (line: string) => void;
  /** PEM certificates that callbacks to https receivers trust besides the usual ones (`serve --callback-ca`). */
  callbackCa?: string;
  /** Watches every proxied exchange (`stubtool record`): the request's method, target and headers give its tap. */
  proxyTap?: (method: string, target: string, headers: Record<string, string>) => ForwardTap | undefined;
  /**
   * The folder whose files stubs added over the admin API may name in `body_file` (symbolic
   * links followed, nothing outside it). Without it the admin API reads no file of this machine.
   */
  filesRoot?: string;
  /** Bounds of WebSocket sessions: message size, open connections, unread bytes per connection. */
  websocket?: Partial<WebSocketLimits>;
}

/**
 * All stub behaviour behind one handler. Holds the stubs (its {@link StubHandler.registry}),
 * the recorder and the journal; answering never throws because of user config or client input.
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
  /** The stubs: add, remove and replace them here (they take effect for the next request). */
  readonly registry: StubRegistry;
  readonly #recorder: Recorder;
  /** The request journal; undefined when it is off (`journalSize: 0`). */
  readonly #journal: Journal | undefined;
  readonly #log: RequestLog;
  /** Whether requests are filed under their `x-stubtool-scope` for coverage (option `scopes`). */
  readonly #scopes: boolean;
  /** CORS rules, when on. */
  readonly #cors: Cors | undefined;
  readonly #deadlines: Deadlines;
  readonly #bodies: BodyReader;
  /** The mounts under reserved prefixes (`/__stubtool__/`, `/__admin/`): each owns its paths and state. */
  readonly #mounts: readonly Mount[];
  readonly #unmatched: UnmatchedAnswerer;
  readonly #canned: CannedAnswerer;
  readonly #function: FunctionAnswerer;
  readonly #proxy: ProxyAnswerer;
  readonly #template: TemplateAnswerer;
  readonly #stream: StreamAnswerer;
  readonly #websocket: WebSocketAnswerer;
  /** Callbacks (webhooks) after the answer. */
  readonly #afterAnswer: AfterAnswer;

  /**
   * Starts with `stubs` (validated, as builders' {@link StubBuilder.toStub} or a config file
   * yields them) as one batch. Their responses are compiled on first use, so a large config
   * starts fast: do not change their bodies afterwards (stubs added through the
   * {@link StubHandler.registry} are compiled at once).
   */
  constructor(stubs: readonly Stub[] = [], options: HandlerOptions = {}) {
    this.#recorder = new Recorder(options.maxUnmatched ?? DEFAULT_MAX_UNMATCHED);
    this.registry = new StubRegistry(this.#recorder);
    const journalSize = options.journalSize ?? DEFAULT_JOURNAL_SIZE;
    this.#journal = journalSize === 0
      ? undefined
      : new Journal(journalSize, options.journalBytes ?? DEFAULT_JOURNAL_BYTES);
    this.#log = new RequestLog(options.onRequest, this.#journal);
    this.#scopes = options.scopes === true;
    this.#cors = options.cors ? new Cors(options.cors) : undefined;
    this.#deadlines = new Deadlines(options.handlerTimeout);
    this.#bodies = new BodyReader(options.maxBody);
    this.#proxy = new ProxyAnswerer(this.#deadlines, options.proxyTap);
    this.#canned = new CannedAnswerer(this.#bodies);
    this.#function = new FunctionAnswerer(this.#bodies, this.#deadlines);
    this.#template = new TemplateAnswerer(this.#bodies);
    this.#stream = new StreamAnswerer(this.#bodies, this.#deadlines);
    this.#websocket = new WebSocketAnswerer(options.websocket);
    this.#afterAnswer = new AfterAnswer(options.onCallback, options.callbackCa);
    const proxyUnmatched = options.proxyUnmatched === undefined ? undefined : new URL(options.proxyUnmatched);
    this.#unmatched = new UnmatchedAnswerer(
      this.registry.set,
      this.#recorder,
      this.#bodies,
      this.#proxy,
      proxyUnmatched,
      (options.wiremockDirs ?? []).map((dir) => wireMockLayout(dir).filesDir),
    );
    this.#mounts = serverMounts({
      registry: this.registry,
      maxBody: this.#bodies.maxBody,
      filesRoot: options.filesRoot,
      wiremockDirs: options.wiremockDirs,
      scopes: this.#scopes,
      journal: this.#journal,
      version: () => `${this.registry.set.version}.${this.#recorder.version}.${this.#journal?.version ?? 0}`,
      findRequests: (pattern) => this.findRequests(pattern),
      report: (options) => this.report(options),
      journalSnapshot: (filter) => this.journal(filter),
      reset: () => this.reset(),
      callbacks: () => this.callbackRecords(),
    }, new ReservedGuard(options));
    const batches: [readonly Stub[], StubSource][] = [
      [stubs, options.source ?? "config"],
      ...(options.wiremock ?? []).map((batch): [readonly Stub[], StubSource] => [batch, "wiremock"]),
      [options.inline ?? [], "inline"],
    ];
    for (const [batch, source] of batches) if (batch.length) this.registry.load(batch, source);
    this.registry.set.markBaseline();
  }

  /** Whether scoped coverage is on (option `scopes`). */
  get scopes(): boolean {
    return this.#scopes;
  }

  /**
   * The coverage report. With `scope`, only the requests that carried
   * `x-stubtool-scope: <scope>` count (an unknown scope has no hits and no unmatched requests).
   */
  report(options: { scope?: string } = {}): Report {
    if (options.scope !== undefined && !this.#scopes) throw new Error(SCOPES_OFF);
    const { scope } = options;
    return this.#recorder.report(this.registry.routes, {
      scope,
      scenarios: this.registry.set.scenarios.coverage(scope),
      violations: this.registry.routes.some((route) => route.stub.requestCheck?.validates === true),
    });
  }

  /** The most recent requests, oldest first (`GET /__stubtool__/requests`), those that pass `filter`. */
  journal(filter?: JournalFilter): JournalSnapshot {
    return this.#journal?.snapshot(filter) ?? { capacity: 0, total: 0, requests: [] };
  }

  /**
   * The journal to share (`serve --state`: the link reads this replica's own requests from it
   * at each batch), or undefined when it is off (nothing to share).
   * @ignore
   */
  get sharedJournal(): Journal | undefined {
    return this.#journal;
  }

  /**
   * Adds the requests another replica journaled (`serve --state`), within this journal's bounds.
   * @ignore
   */
  keepJournaled(records: SharedRecord[]): void {
    for (const record of records) this.#journal?.keep(recordOf(record));
  }

  /**
   * The journal's kept records, oldest first, and whether it still holds every request (for `requests/find`).
   * @ignore
   */
  journalRecords(): { records: JournalRecord[]; complete: boolean } {
    // WebSocket messages are journaled beside requests, but they are not requests.
    const records = (this.#journal?.records() ?? []).filter((record) => record.message === undefined);
    return { records, complete: this.#journal?.complete ?? false };
  }

  /**
   * The journaled requests `pattern` (validated) matches, oldest first, and whether the
   * journal still holds every request (`requests/find`, `server.requests()`).
   * @ignore
   */
  findRequests(pattern: RequestPattern): { requests: JournalEntry[]; complete: boolean } {
    const { records, complete } = this.journalRecords();
    return { requests: findRequests(pattern, records).map(journalEntry), complete };
  }

  /**
   * How many event streams are open, and the bytes of events they handed to the wire.
   * @ignore
   */
  get streams(): Readonly<StreamStats> {
    return this.#stream.stats;
  }

  /**
   * How many WebSocket sessions are open, the messages in and out, and the connections
   * dropped or refused by the bounds.
   * @ignore
   */
  get websockets(): Readonly<WebSocketStats> {
    return this.#websocket.stats;
  }

  /**
   * Does any stub answer WebSocket upgrades? (The Node adapter listens for upgrades only then.)
   * @ignore
   */
  get hasWebSocketStubs(): boolean {
    return this.registry.set.hasWebSockets;
  }

  /**
   * The WebSocket bounds in force (the Node adapter gives `maxMessage` to `ws` as its `maxPayload`).
   * @ignore
   */
  get websocketLimits(): Readonly<WebSocketLimits> {
    return this.#websocket.limits;
  }

  /** Zeroes hit counts, clears unmatched requests and the journal, restarts sequences. */
  reset(): void {
    this.registry.reset();
    this.#journal?.clear();
  }

  /** Ends delays and pending response functions at once (the shutdown grace ran out). */
  abortPending(): void {
    this.#deadlines.abort();
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
    // `_` after the first slash is rare in stub paths: one char test before the prefix tests.
    if (pathname.charCodeAt(1) === 95) {
      for (const mount of this.#mounts) {
        if (mount.owns(pathname)) return mount.answer(incoming, pathname, rawQuery, respond);
      }
    }
    const view = new RequestView(incoming, incoming.method, pathname, rawQuery);
    const stubs = this.registry.set;
    let scopeProblem: string | undefined;
    if (this.#scopes || stubs.router.hasScoped || stubs.hasScenarios) {
      const header = incoming.header(SCOPE_HEADER);
      scopeProblem = scopeHeaderProblem(header);
      view.scope = scopeFrom(header);
    }
    if (this.#cors) {
      const cors = this.#withCors(view, incoming, respond);
      if ("answer" in cors) return cors.answer;
      respond = cors.respond;
    }
    if (!this.#log.on) {
      return scopeProblem
        ? respond(...errorAnswer(400, scopeProblem))
        : this.#dispatch(view, incoming, respond, undefined);
    }
    const log = this.#log.start(incoming, view);
    respond = this.#log.responder(log, respond);
    // An over-long scope is refused rather than dropped: dropped, it would move the shared states.
    if (scopeProblem) return respond(...errorAnswer(400, scopeProblem));
    let result: R | Promise<R>;
    if (this.#log.keepsBodies && incoming.hasBody()) {
      // The journal keeps what was sent: the first 64 KiB of the body, read before matching
      // (the body can only be read once, and conditions may need it too). A body the client
      // broke off is journaled as cut; the request is still matched and counted, and only a
      // stub that needs the body answers 400.
      const logged = respond;
      result = this.#bodies.read(incoming, JOURNAL_BODY_MAX, view, log).then(() =>
        this.#dispatch(view, incoming, logged, log)
      );
    } else result = this.#dispatch(view, incoming, respond, log);
    this.#log.settle(log);
    return result;
  }

  /** Match → unmatched answer, or hit → answer by kind, delivered. */
  #dispatch<R>(
    view: RequestView,
    incoming: Incoming,
    respond: Respond<R>,
    log: LogState | undefined,
    attempt = 0,
  ): R | Promise<R> {
    const match = this.registry.set.router.match(view);
    if (match === NEED_BODY) {
      return this.#bodies.whole(incoming, view, log).then((failed) =>
        failed ? respond(...failed) : this.#dispatch(view, incoming, respond, log, attempt)
      );
    }
    if (!match) {
      // With shared state, this replica's scenario states may lag the store's (another replica
      // just moved one): match once more against the store's before answering 404.
      if (attempt === 0 && this.registry.shared.states && this.registry.set.hasScenarios) {
        return this.#storeStates(view, incoming, respond, log);
      }
      return this.#unmatched.answer(view, incoming, respond, log);
    }
    const route = match.route;
    const stub = route.stub;
    // A plain stub never waits on the store: only scenario and sequence stubs take a step there.
    if ((stub.isSequence || stub.scenario !== undefined) && this.registry.shared.step) {
      const ask = stepAsk(route, view.scope);
      if (ask) return this.#sharedStep(route, match, ask, view, incoming, respond, log, attempt);
    }
    return this.#chosen(route, match, view, incoming, respond, log);
  }

  /** Takes the store's states of every scenario (in the request's scope), then matches again (once). */
  async #storeStates<R>(
    view: RequestView,
    incoming: Incoming,
    respond: Respond<R>,
    log: LogState | undefined,
  ): Promise<R> {
    const scenarios = this.registry.set.scenarios;
    const names = scenarios.list(view.scope ?? undefined).map((entry) => entry.name).filter((name, i, all) =>
      all.indexOf(name) === i
    );
    const states = await this.registry.shared.states!(names, view.scope);
    states?.forEach((state, i) => scenarios.set(names[i], state, view.scope));
    return this.#dispatch(view, incoming, respond, log, 1);
  }

  /**
   * A scenario or sequence stub with shared state: one atomic step on the store. A request
   * that lost the race for its state (or found it moved by another replica) is matched again
   * against the state the store holds, as if it had come after the winner (WireMock answers
   * its requests one after another). Steps on this replica alone while the store is away.
   */
  async #sharedStep<R>(
    route: Route,
    match: Match<Route>,
    ask: StepAsk,
    view: RequestView,
    incoming: Incoming,
    respond: Respond<R>,
    log: LogState | undefined,
    attempt: number,
  ): Promise<R> {
    const answer = await this.registry.shared.step!(ask);
    if (!answer) return this.#chosen(route, match, view, incoming, respond, log);
    const scenarios = this.registry.set.scenarios;
    const scenario = ask.scenario;
    if (!answer.ok && scenario) {
      scenarios.set(scenario.name, answer.state, scenario.scope);
      // The state cannot lag more than this many times in a row but by changes made meanwhile: give up waiting then.
      if (attempt < MAX_STEP_ATTEMPTS) return this.#dispatch(view, incoming, respond, log, attempt + 1);
      return respond(...errorAnswer(503, `scenario '${scenario.name}' kept moving under this request; try again`));
    }
    if (ask.sequence !== undefined) route.placeAt(answer.position);
    return this.#chosen(route, match, view, incoming, respond, log, scenario ? answer.state : undefined);
  }

  /** The chosen stub: counted (its scenario moved), then its request check, callbacks and answer. */
  #chosen<R>(
    route: Route,
    match: Match<Route>,
    view: RequestView,
    incoming: Incoming,
    respond: Respond<R>,
    log: LogState | undefined,
    found?: string,
  ): R | Promise<R> {
    if (log) {
      log.stub = route.label;
      log.id = route.id;
      const { scenario, setState } = route.stub;
      if (setState !== undefined) {
        // Read before hit() moves it: the state this request found.
        const from = found ?? this.registry.set.scenarios.state(scenario!, view.scope) ?? STARTED;
        log.transition = `${scenario}: ${from} → ${setState}`;
      }
    }
    this.registry.hit(route, view.scope);
    const check = route.stub.requestCheck;
    if (check?.readsBody && !view.body) {
      return this.#bodies.whole(incoming, view, log).then((failed) =>
        failed ? respond(...failed) : this.#checked(route, match, view, incoming, respond, log)
      );
    }
    return this.#checked(route, match, view, incoming, respond, log);
  }

  /** The stub's request check (an OpenAPI operation's), then its callbacks and answer. */
  #checked<R>(
    route: Route,
    match: Match<Route>,
    view: RequestView,
    incoming: Incoming,
    respond: Respond<R>,
    log: LogState | undefined,
  ): R | Promise<R> {
    const check = route.stub.requestCheck;
    if (check) {
      const body = view.body;
      const refused = check.check({
        params: paramsOf(route.names, match.values),
        query: (name) => view.query.all(name),
        header: (name) => view.header(name),
        ...(check.readsBody && body ? { body: { text: body.text(), json: body.json() } } : {}),
      });
      if (refused) {
        if (refused.violations) this.#recorder.violations(refused.violations, view.scope);
        return respond({ status: refused.status, headers: refused.headers }, refused.body);
      }
    }
    const callbacks = route.callbacks;
    if (callbacks) {
      // A callback that reads the body gets all of it (up to --max-body), never the journal's first 64 KiB.
      if (callbacks.readsBody && !view.body) {
        return this.#bodies.whole(incoming, view, log).then((failed) => {
          if (failed) {
            this.#afterAnswer.notSent(route, `the request body was not read whole: ${errorText(failed[1])}`);
            return respond(...failed);
          }
          const wrapped = this.#afterAnswer.wrap(route, match, view, incoming, respond);
          return this.#answer(route, match, view, incoming, wrapped, log);
        });
      }
      respond = this.#afterAnswer.wrap(route, match, view, incoming, respond);
    }
    return this.#answer(route, match, view, incoming, respond, log);
  }

  /** The matched stub's answer, by its kind, delivered as the stub says (delay, fault, throttle). */
  #answer<R>(
    route: Route,
    match: Match<Route>,
    view: RequestView,
    incoming: Incoming,
    respond: Respond<R>,
    log: LogState | undefined,
  ): R | Promise<R> {
    const { answer, delivery } = route;
    const deliver = deliveringRespond(delivery, this.#deadlines, respond);
    switch (answer.kind) {
      case "function":
        return afterDelay(delivery.delay, this.#deadlines, () =>
          this.#function.answer(
            { fn: answer.fn, stub: route.name, names: route.names, values: match.values },
            view,
            incoming,
            deliver,
            log,
          ));
      case "proxy":
        return afterDelay(
          delivery.delay,
          this.#deadlines,
          () => this.#proxy.answer(answer.url, view, incoming, deliver, route.name, undefined, answer.adjust),
        );
      case "stream":
        return this.#answerStream(route, match, view, incoming, deliver, log);
      case "websocket":
        return this.#answerWebSocket(route, match, view, incoming, respond);
      case "template": {
        const refused = this.#canned.refuse(view.method, incoming, respond);
        if (refused !== undefined) return refused;
        const response = route.templates[route.nextIndex()];
        const params = paramsOf(route.names, match.values);
        const pathParams = paramsOf(route.names, match.raw, route.pathCaptures);
        return afterDelay(
          response.delay,
          this.#deadlines,
          () => this.#template.answer(response, route.name, params, pathParams, view, incoming, deliver, log),
        );
      }
      case "canned": {
        const refused = this.#canned.refuse(view.method, incoming, respond);
        if (refused !== undefined) return refused;
        const response = route.nextResponse();
        // No closure on the common path: most stubs answer at once.
        if (response.delay === undefined) {
          return this.#canned.answer(response, match.values, match.raw, route.name, deliver);
        }
        return afterDelay(
          response.delay,
          this.#deadlines,
          () => this.#canned.answer(response, match.values, match.raw, route.name, deliver),
        );
      }
    }
  }

  /**
   * A stub with a `stream:` answer: the next entry's event stream, or (a sequence entry
   * without one) its canned or template answer.
   */
  #answerStream<R>(
    route: Route,
    match: Match<Route>,
    view: RequestView,
    incoming: Incoming,
    respond: Respond<R>,
    log: LogState | undefined,
  ): R | Promise<R> {
    const refused = this.#canned.refuse(view.method, incoming, respond);
    if (refused !== undefined) return refused;
    const index = route.nextIndex();
    const stream = route.streams[index];
    const params = (): [Record<string, string>, Record<string, string>] => [
      paramsOf(route.names, match.values),
      paramsOf(route.names, match.raw, route.pathCaptures),
    ];
    if (stream) {
      const captures = { values: match.values, raw: match.raw, params };
      return afterDelay(
        stream.delay,
        this.#deadlines,
        () => this.#stream.answer(stream, route.name, captures, view, incoming, respond, log),
      );
    }
    if (route.stub.template) {
      const response = route.templates[index];
      return afterDelay(
        response.delay,
        this.#deadlines,
        () => this.#template.answer(response, route.name, ...params(), view, incoming, respond, log),
      );
    }
    const response = route.responses[index];
    return afterDelay(
      response.delay,
      this.#deadlines,
      () => this.#canned.answer(response, match.values, match.raw, route.name, respond),
    );
  }

  /**
   * A `websocket:` stub: the upgrade and a session that counts each rule's matches, records
   * messages no rule matched as unmatched (with the rules' near misses), and journals each
   * message in and out as an entry of the connection (bounded with the journal).
   */
  #answerWebSocket<R>(
    route: Route,
    match: Match<Route>,
    view: RequestView,
    incoming: Incoming,
    respond: Respond<R>,
  ): R | Promise<R> {
    const journal = this.#journal;
    const recorder = this.#recorder;
    const scope = view.scope;
    const record = (message: "in" | "out", text: string, closest?: ClosestStub[]) => {
      if (!journal) return;
      const bytes = UTF8.encode(text);
      const cut = bytes.byteLength > JOURNAL_BODY_MAX;
      journal.add({
        method: view.method,
        target: incoming.target,
        time: Date.now(),
        status: 101,
        ms: 0,
        stub: route.label,
        id: route.id,
        closest,
        scope,
        headers: undefined,
        body: cut ? bytes.subarray(0, JOURNAL_BODY_MAX) : bytes,
        bodyTruncated: cut,
        message,
      });
    };
    const stub: Omit<ClosestStub, "reason"> = { method: route.method, path: route.path, id: route.id };
    if (route.stub.place !== undefined) stub.place = route.stub.place;
    return this.#websocket.answer(
      route.websocket!,
      {
        values: match.values,
        model: (message) => {
          const model = modelOf(
            view,
            incoming,
            paramsOf(route.names, match.values),
            paramsOf(route.names, match.raw, route.pathCaptures),
          );
          return message ? { ...model, message } : model;
        },
        stub,
      },
      {
        received: (text, rule, closest) => {
          if (rule >= 0) recorder.ruleHit(route, rule);
          else recorder.unmatchedMessage(route, text, closest, scope);
          record("in", text, rule < 0 ? closest : undefined);
        },
        sent: (text) => record("out", text),
      },
      incoming,
      respond,
    );
  }

  /** The callbacks sent (and failed), oldest first (`GET /__stubtool__/callbacks`). */
  callbackRecords(): CallbackRecord[] {
    return this.#afterAnswer.records();
  }

  /**
   * Waits up to `graceMs` for callbacks in flight, then drops the rest; resolves with how
   * many were dropped (shutdown).
   */
  drainCallbacks(graceMs: number): Promise<{ dropped: number }> {
    return this.#afterAnswer.drain(graceMs);
  }

  /**
   * CORS for a request with an allowed `Origin`: a preflight to a path some stub serves is
   * answered here (unless an `OPTIONS` stub matches it); other answers get the CORS headers.
   * A preflight answer is neither a hit nor unmatched.
   */
  #withCors<R>(view: RequestView, incoming: Incoming, respond: Respond<R>): { answer: R } | { respond: Respond<R> } {
    const cors = this.#cors!;
    const origin = incoming.header("origin");
    if (origin === null || !cors.allows(origin)) return { respond };
    if (view.method === "OPTIONS" && incoming.header("access-control-request-method") !== null) {
      const router = this.registry.set.router;
      // A user's OPTIONS stub (or one that needs the body to tell) answers instead.
      if (router.match(view) === undefined) {
        const methods = router.methodsFor(view, METHODS);
        if (methods.length > 0) {
          // An adapter's answer may be undefined (Node writes it): the wrapper says it was given.
          return {
            answer: respond(cors.preflight(origin, methods, incoming.header("access-control-request-headers")), null),
          };
        }
      }
    }
    return { respond: (head, body) => respond(cors.decorate(head, origin), body) };
  }
}

/** How many times a request is matched again because its scenario moved on another replica meanwhile. */
const MAX_STEP_ATTEMPTS = 8;

/** The step a scenario or sequence stub takes on the store; undefined when it takes none. */
function stepAsk(route: Route, scope: string | null): StepAsk | undefined {
  const { scenario, whenState, setState, isSequence } = route.stub;
  const ask: StepAsk = {};
  if (scenario !== undefined && (whenState !== undefined || setState !== undefined)) {
    ask.scenario = { name: scenario, scope: usableScope(scope) ? scope : null, when: whenState, to: setState };
  }
  if (isSequence) ask.sequence = route.id;
  return ask.scenario || ask.sequence !== undefined ? ask : undefined;
}

const UTF8 = new TextEncoder();

/** The `error` of an error answer's JSON body. */
function errorText(body: unknown): string {
  try {
    return String(JSON.parse(body as string).error);
  } catch {
    return String(body);
  }
}
