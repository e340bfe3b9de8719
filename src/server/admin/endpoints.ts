/**
 * The reserved endpoints under `/__stubtool__/`: health, the report, the
 * request journal, reset and the live dashboard. Requests to them are never counted,
 * recorded or journaled.
 * @module
 */

import type { JournalSnapshot, Report } from "../../report/types.ts";
import { RESERVED_PREFIX } from "../../stubs/path.ts";
import { ADMIN_ENDPOINTS, ADMIN_ROUTES, type AdminHost } from "./admin.ts";
import { stubInfo } from "./stub_form.ts";
import type { ReservedGuard } from "./guard.ts";
import { FLOW_ENDPOINTS, FLOW_ROUTES, type FlowHost } from "./flow_endpoints.ts";
import { type ReservedCall, type ReservedHandler, type RouteRow, RouteTable } from "./routes.ts";
import type { Incoming } from "../incoming.ts";
import type { JournalFilter } from "../journal/journal.ts";
import { errorAnswer, jsonHead, notAllowedAnswer, type Respond, type ResponseHead } from "../response.ts";

/** What the endpoints ask of the server. */
export interface ReservedHost extends AdminHost, FlowHost {
  /** Is scoped coverage on? */
  scopes(): boolean;
  /** Changes whenever the report or the journal could: an ETag for answers built from them. */
  version(): string;
  report(options: { scope?: string }): Report;
  journal(filter?: JournalFilter): JournalSnapshot;
  reset(): void;
  /** The health body when there is more to say than `{"status":"ok"}` (a shared state store). */
  health?(): string | undefined;
}

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

/**
 * Answers the report, the journal or the dashboard: unchanged since the client's copy is a
 * 304 (the dashboard polls every second), else `make`'s answer under the ETag.
 */
function whenChanged<R>(
  host: ReservedHost,
  call: ReservedCall<R>,
  make: (etag: string) => R | Promise<R>,
): R | Promise<R> {
  const { etag, unchanged } = fresh(host, call.incoming, call.rawQuery);
  if (unchanged) return call.respond({ status: 304, headers: { etag } }, null);
  return make(etag);
}

/**
 * The routes of the server's own endpoints under `/__stubtool__/`. A HEAD request gets the
 * GET's answer; the handler drops its body (headAnswer). The report, the journal and the
 * dashboard are JSON or HTML answers, streamed when large.
 */
function reservedRoutes(state: AnswerState): RouteRow<ReservedHandler<ReservedHost>>[] {
  return [
    {
      method: ["GET", "HEAD"],
      pattern: "",
      handler: (host, call) => whenChanged(host, call, (etag) => dashboard(host, state, etag, call.respond)),
    },
    {
      method: ["GET", "HEAD"],
      pattern: "health",
      handler: (host, { respond }) => respond(jsonHead(), host.health?.() ?? HEALTH_BODY),
    },
    {
      method: ["GET", "HEAD"],
      pattern: "report",
      handler: (host, call) =>
        whenChanged(host, call, (etag) => {
          const scope = reportScope(call.query);
          if (scope.scope !== undefined && !host.scopes()) return call.respond(...errorAnswer(400, SCOPES_OFF));
          const text = cachedText(host, state, `report ${call.rawQuery}`, () => JSON.stringify(host.report(scope)));
          return answer(state, jsonHead(200, { etag }), text, call.respond);
        }),
    },
    {
      method: ["GET", "HEAD"],
      pattern: "requests",
      handler: (host, call) =>
        whenChanged(host, call, (etag) => {
          const filter = journalFilter(call.query);
          if (typeof filter === "string") return call.respond(...errorAnswer(400, filter));
          const text = cachedText(host, state, `requests ${call.rawQuery}`, () => JSON.stringify(host.journal(filter)));
          return answer(state, jsonHead(200, { etag }), text, call.respond);
        }),
    },
    {
      method: "POST",
      pattern: "reset",
      handler: (host, { respond }) => {
        host.reset();
        return respond(RESET_HEAD, null);
      },
    },
  ];
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
  readonly #routes: RouteTable<ReservedHandler<ReservedHost>>;

  constructor(host: ReservedHost, guard: ReservedGuard) {
    this.#host = host;
    this.#guard = guard;
    this.#routes = new RouteTable([...reservedRoutes({ largeBytes: 0 }), ...ADMIN_ROUTES, ...FLOW_ROUTES]);
  }

  /** Is `pathname` this mount's (`/__stubtool__/…`, or `/__stubtool__` itself)? */
  owns(pathname: string): boolean {
    return pathname.startsWith(RESERVED_PREFIX) || pathname === "/__stubtool__";
  }

  /** Answers a request to one of the endpoints, or the guard's refusal. */
  answer<R>(incoming: Incoming, pathname: string, rawQuery: string, respond: Respond<R>): R | Promise<R> {
    const refusal = this.#guard.check(incoming, pathname, pathname.slice(RESERVED_PREFIX.length), rawQuery);
    if (refusal) return respond(...refusal);
    const method = incoming.method;
    if (pathname.length < RESERVED_PREFIX.length) {
      // `/__stubtool__` without the slash: where a user typing the dashboard's address lands.
      if (method === "GET" || method === "HEAD") {
        return respond({ status: 308, headers: { location: RESERVED_PREFIX } }, null);
      }
      return respond(...errorAnswer(404, `unknown stubtool endpoint '${pathname}'`, { endpoints: ENDPOINTS }));
    }
    const match = this.#routes.match(method, pathname.slice(RESERVED_PREFIX.length));
    if (!match) {
      return respond(...errorAnswer(404, `unknown stubtool endpoint '${pathname}'`, { endpoints: ENDPOINTS }));
    }
    if ("allow" in match) return respond(...notAllowedAnswer(pathname, method, match.allow));
    const query = new URLSearchParams(rawQuery);
    return match.handler(this.#host, { incoming, pathname, rawQuery, query, respond }, match.params);
  }
}
