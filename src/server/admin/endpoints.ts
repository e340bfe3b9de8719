/**
 * The reserved endpoints under `/__stubtool__/`: health, the report, the
 * request journal, reset and the live dashboard. Requests to them are never counted,
 * recorded or journaled.
 * @module
 */

import type { JournalSnapshot, Report } from "../../report/types.ts";
import { RESERVED_PREFIX } from "../../stubs/path.ts";
import { ADMIN_ENDPOINTS, type AdminHost, answerAdmin } from "./admin.ts";
import { stubInfo } from "./stub_form.ts";
import type { ReservedGuard } from "./guard.ts";
import { answerFlow, FLOW_ENDPOINTS, type FlowHost } from "./flow_endpoints.ts";
import type { Incoming } from "../incoming.ts";
import type { JournalFilter } from "../journal/journal.ts";
import { errorAnswer, type Respond, type ResponseHead } from "../response.ts";

/** What the endpoints ask of the server. */
export interface ReservedHost extends AdminHost, FlowHost {
  /** Is scoped coverage on? */
  scopes(): boolean;
  /** Changes whenever the report or the journal could: an ETag for answers built from them. */
  version(): string;
  report(options: { scope?: string }): Report;
  journal(filter?: JournalFilter): JournalSnapshot;
  reset(): void;
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
  ...ADMIN_ENDPOINTS,
  ...FLOW_ENDPOINTS,
];

/** What a scoped report says on a server without scoped coverage. */
export const SCOPES_OFF =
  "scoped coverage is off: start the server with --scopes (API: stubServer(port, { scopes: true }))";

/** `?scope=NAME` of a report request; an empty or missing one means the whole report. */
function reportScope(params: URLSearchParams): { scope?: string } {
  const scope = params.get("scope");
  return scope ? { scope } : {};
}

/** The filter of `GET /__stubtool__/requests?method=&path=&stub=&unmatched=true&scope=&limit=`, or what is wrong. */
export function journalFilter(params: URLSearchParams): JournalFilter | string {
  const filter: JournalFilter = {};
  for (const [name, value] of params) {
    switch (name) {
      case "method":
        filter.method = value.toUpperCase();
        break;
      case "path":
        filter.path = value;
        break;
      case "stub":
        filter.stub = value;
        break;
      case "scope":
        filter.scope = value;
        break;
      case "unmatched":
        if (value !== "true" && value !== "false") return `unmatched must be true or false, got '${value}'`;
        filter.unmatched = value === "true";
        break;
      case "limit":
        if (!/^\d{1,9}$/.test(value)) return `limit must be a whole number, got '${value}'`;
        filter.limit = Number(value);
        break;
      default:
        return `unknown filter '${name}' (method, path, stub, unmatched, scope, limit)`;
    }
  }
  return filter;
}

/** Answers above this many bytes are streamed and count against {@link LARGE_ANSWER_BUDGET}. */
export const LARGE_ANSWER = 64 * 1024;
/**
 * How many bytes of large answers (report, journal, dashboard) may be under way at once;
 * past it they get 503 and Retry-After (one is always let through). Clients that ask and do
 * not read would otherwise each hold a copy of a multi-megabyte answer (memory is
 * bounded whatever the traffic).
 */
export const LARGE_ANSWER_BUDGET = 24 * 1024 * 1024;
const CHUNK = 64 * 1024;

/** What the endpoints keep between requests: large answers under way, and the last one written. */
interface AnswerState {
  /** Bytes of large answers being sent right now (see {@link LARGE_ANSWER_BUDGET}). */
  largeBytes: number;
  /** The last report or journal text written, with what it was written from (one is kept: bounded memory). */
  lastAnswer?: { version: string; answer: SharedAnswer };
}

/** An answer's text, and once it has been streamed, its bytes and how many clients are reading them. */
export interface SharedAnswer {
  text: string;
  bytes?: Uint8Array<ArrayBuffer>;
  readers?: number;
}

/**
 * Sends `body` as `head`'s body: as is when small; streamed in chunks when large, so a
 * client that does not read holds one chunk rather than the whole answer. Clients reading
 * the same answer share its bytes, and at most {@link LARGE_ANSWER_BUDGET} bytes of distinct
 * large answers are under way at once.
 */
function answer<R>(state: AnswerState, head: ResponseHead, body: string | SharedAnswer, respond: Respond<R>): R {
  const shared = typeof body === "string" ? { text: body } : body;
  if (shared.text.length <= LARGE_ANSWER) return respond(head, shared.text);
  const bytes = shared.bytes ??= new TextEncoder().encode(shared.text);
  const size = bytes.byteLength;
  if (!shared.readers) {
    if (state.largeBytes > 0 && state.largeBytes + size > LARGE_ANSWER_BUDGET) {
      return respond(...errorAnswer(
        503,
        `busy: ${Math.round(state.largeBytes / 1024 / 1024)} MB of large answers are being sent ` +
          "(clients that do not read hold them); retry",
        {},
        { "retry-after": "1" },
      ));
    }
    state.largeBytes += size;
  }
  shared.readers = (shared.readers ?? 0) + 1;
  let offset = 0;
  let done = false;
  const release = () => {
    if (done) return;
    done = true;
    if (--shared.readers! === 0) state.largeBytes -= size;
  };
  const stream = new ReadableStream<Uint8Array<ArrayBuffer>>({
    pull(controller) {
      if (done) return controller.close();
      controller.enqueue(bytes.slice(offset, offset + CHUNK));
      offset += CHUNK;
      if (offset >= size) {
        release();
        controller.close();
      }
    },
    cancel: release,
  }, { highWaterMark: 1 });
  return respond(head, stream);
}

/**
 * An answer built from the report or the journal, made again only when either
 * changed since (its version) or it is asked with other parameters: CI steps and dashboards
 * ask for the same report many times, and with 10,000 stubs writing it takes milliseconds.
 */
function cachedText(
  host: ReservedHost,
  state: AnswerState,
  key: string,
  make: () => string,
): SharedAnswer {
  const version = `${host.version()} ${key}`;
  if (state.lastAnswer?.version !== version) state.lastAnswer = { version, answer: { text: make() } };
  return state.lastAnswer.answer;
}

/** The ETag of answers built from the report and the journal, and whether the client already has it. */
function fresh(host: ReservedHost, incoming: Incoming, rawQuery: string): { etag: string; unchanged: boolean } {
  const etag = `"${host.version()}${rawQuery ? `-${rawQuery.length}` : ""}"`;
  return { etag, unchanged: incoming.header("if-none-match") === etag };
}

/** Answers a request under `/__stubtool__/` (or `/__stubtool__` itself, which redirects to the dashboard). */
function answerReserved<R>(
  host: ReservedHost,
  state: AnswerState,
  incoming: Incoming,
  pathname: string,
  rawQuery: string,
  respond: Respond<R>,
): R | Promise<R> {
  const method = incoming.method;
  if (pathname.length < RESERVED_PREFIX.length) {
    // `/__stubtool__` without the slash: where a user typing the dashboard's address lands.
    if (method === "GET" || method === "HEAD") {
      return respond({ status: 308, headers: { location: RESERVED_PREFIX } }, null);
    }
    return respond(...errorAnswer(404, `unknown stubtool endpoint '${pathname}'`, { endpoints: ENDPOINTS }));
  }
  const endpoint = pathname.slice(RESERVED_PREFIX.length);
  const params = new URLSearchParams(rawQuery);
  const admin = answerAdmin(host, incoming, endpoint, params, respond);
  if (admin) return admin.answer;
  const flow = answerFlow(host, incoming, endpoint, params, respond);
  if (flow) return flow.answer;
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
  // A HEAD request gets the GET's answer; the handler drops its body (headAnswer).
  if (endpoint === "health") return respond(JSON_HEAD, HEALTH_BODY);
  if (endpoint === "reset") {
    host.reset();
    return respond(RESET_HEAD, null);
  }
  // The report, the journal and the dashboard: unchanged since the client's copy is a 304
  // (the dashboard polls every second), else a JSON or HTML answer, streamed when large.
  const { etag, unchanged } = fresh(host, incoming, rawQuery);
  if (unchanged) return respond({ status: 304, headers: { etag } }, null);
  switch (endpoint) {
    case "":
      return dashboard(host, state, etag, respond);
    case "report": {
      const scope = reportScope(params);
      if (scope.scope !== undefined && !host.scopes()) return respond(...errorAnswer(400, SCOPES_OFF));
      const head = { status: 200, headers: { "content-type": "application/json", etag } };
      return answer(
        state,
        head,
        cachedText(host, state, `report ${rawQuery}`, () => JSON.stringify(host.report(scope))),
        respond,
      );
    }
    default: {
      const filter = journalFilter(params);
      if (typeof filter === "string") return respond(...errorAnswer(400, filter));
      const head = { status: 200, headers: { "content-type": "application/json", etag } };
      return answer(
        state,
        head,
        cachedText(host, state, `requests ${rawQuery}`, () => JSON.stringify(host.journal(filter))),
        respond,
      );
    }
  }
}

/** The live dashboard page; its module loads on the first visit, not at start. */
function dashboard<R>(host: ReservedHost, state: AnswerState, etag: string, respond: Respond<R>): Promise<R> {
  return import("../../report/dashboard.ts").then(
    ({ dashboardPage }) => {
      const page = dashboardPage(host.report({}), host.journal(), {
        stubs: host.routes().map(stubInfo),
        states: host.scenarios(),
      });
      const head = { status: 200, headers: { ...page.headers, etag } };
      return answer(state, head, page.html, respond);
    },
    (error) => respond(...errorAnswer(500, `could not load the dashboard: ${error}`)),
  );
}

/**
 * The mount at `/__stubtool__/`: every request under it passes the guard (cross-origin,
 * DNS rebinding, admin token), then reaches its endpoint. It never reaches a stub, the
 * report or the journal.
 */
export class ReservedMount {
  readonly #host: ReservedHost;
  readonly #guard: ReservedGuard;
  readonly #state: AnswerState = { largeBytes: 0 };

  constructor(host: ReservedHost, guard: ReservedGuard) {
    this.#host = host;
    this.#guard = guard;
  }

  /** Is `pathname` this mount's (`/__stubtool__/…`, or `/__stubtool__` itself)? */
  owns(pathname: string): boolean {
    return pathname.startsWith(RESERVED_PREFIX) || pathname === "/__stubtool__";
  }

  /** Answers a request to one of the endpoints, or the guard's refusal. */
  answer<R>(incoming: Incoming, pathname: string, rawQuery: string, respond: Respond<R>): R | Promise<R> {
    const refusal = this.#guard.check(incoming, pathname, pathname.slice(RESERVED_PREFIX.length), rawQuery);
    if (refusal) return respond(...refusal);
    return answerReserved(this.#host, this.#state, incoming, pathname, rawQuery, respond);
  }
}
