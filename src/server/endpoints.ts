/**
 * The reserved endpoints under `/__stubtool__/` (P4, P9.4): health, the report, the
 * request journal, reset and the live dashboard. Requests to them are never counted,
 * recorded or journaled.
 * @module
 */

import type { JournalSnapshot, Report } from "../report/types.ts";
import { RESERVED_PREFIX } from "../stubs/path.ts";
import type { Incoming } from "./incoming.ts";
import type { JournalFilter } from "./journal.ts";
import { errorAnswer, type Respond, type ResponseHead } from "./response.ts";

/** What the endpoints ask of the server. */
export interface ReservedHost {
  /** Is scoped coverage on? */
  scopes(): boolean;
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
];

/** What a scoped report says on a server without scoped coverage. */
const SCOPES_OFF = "scoped coverage is off: start the server with --scopes (API: stubServer(port, { scopes: true }))";

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

/** Answers a request under `/__stubtool__/` (or `/__stubtool__` itself, which redirects to the dashboard). */
export function answerReserved<R>(
  host: ReservedHost,
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
  const params = new URLSearchParams(rawQuery);
  switch (endpoint) {
    case "":
      return dashboard(host, headOnly, respond);
    case "health":
      return respond(JSON_HEAD, headOnly ? null : HEALTH_BODY);
    case "report": {
      const scope = reportScope(params);
      if (scope.scope !== undefined && !host.scopes()) return respond(...errorAnswer(400, SCOPES_OFF));
      return respond(JSON_HEAD, headOnly ? null : JSON.stringify(host.report(scope)));
    }
    case "requests": {
      const filter = journalFilter(params);
      if (typeof filter === "string") return respond(...errorAnswer(400, filter));
      return respond(JSON_HEAD, headOnly ? null : JSON.stringify(host.journal(filter)));
    }
    default:
      host.reset();
      return respond(RESET_HEAD, null);
  }
}

/** The live dashboard page; its module loads on the first visit, not at start. */
function dashboard<R>(host: ReservedHost, headOnly: boolean, respond: Respond<R>): Promise<R> {
  return import("../report/dashboard.ts").then(
    ({ dashboardPage }) => {
      const page = dashboardPage(host.report({}), host.journal());
      return respond({ status: 200, headers: page.headers }, headOnly ? null : page.html);
    },
    (error) => respond(...errorAnswer(500, `could not load the dashboard: ${error}`)),
  );
}
