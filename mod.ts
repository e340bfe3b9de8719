/**
 * stubtool: an HTTP mock server with a coverage / contract-drift report.
 *
 * Start a server in-process, declare stubs with the fluent builders, point your client at
 * `server.url`, and ask `server.report()` which stubs were hit and which requests matched
 * nothing.
 *
 * @example
 * ```ts
 * import { get, post, stubServer } from "./mod.ts";
 * await using server = await stubServer(0);
 * server.routes(
 *   get("/users/{id}").body({ id: "{id}" }),
 *   post("/login").responseFunc(({ headers }) =>
 *     headers.authorization ? [200, { ok: true }] : [401, { error: "unauthorized" }]
 *   ),
 * );
 * const user = await (await fetch(`${server.url}/users/7`)).json();
 * console.log(user.id); // "7"
 * const report = await server.report();
 * console.log(report.summary.matched_stubs); // 1
 * ```
 *
 * @module
 */

// Stubs built in code are checked synchronously: the template engine is loaded up front.
import "./src/templating/eager.ts";
import { route, type StubBuilder } from "./src/stubs/builder.ts";

// Everything a public type names is exported too (Method's METHODS; Stub's parts; PathParams'
// helpers), so the docs on jsr.io link to each one; `deno doc --lint` (npm run check) fails
// when one is missing. The handler and the adapter interface live at the "./handler" entry.
export { route, StubBuilder } from "./src/stubs/builder.ts";
export type {
  PathOnly,
  PathParams,
  PlaceholderNames,
  SequenceEntry,
  StreamEventInput,
  WebSocketInput,
  WebSocketSendInput,
} from "./src/stubs/builder.ts";
export type { ValuePatternSpec } from "./src/stubs/patterns.ts";
export type { JsonIgnore } from "./src/stubs/model.ts";
export type { StubInfo } from "./src/server/admin/stub_form.ts";
export type { JournalFilter } from "./src/server/journal/journal.ts";
export { StubServer, stubServer } from "./src/server/server.ts";
export type { FoundRequests, StubServerOptions } from "./src/server/server.ts";
export type { GuardOptions } from "./src/server/admin/guard.ts";
export type { HandlerOptions, RequestLogEntry } from "./src/server/handler.ts";
export type { ForwardTap } from "./src/server/proxy/proxy.ts";
export type { ScenarioEntry } from "./src/server/matching/scenarios.ts";
export type {
  ClosestStub,
  JournalEntry,
  JournalSnapshot,
  Report,
  ReportScenario,
  ReportStub,
  ReportTransition,
  ReportViolation,
  ReportWebSocketRule,
  UnmatchedRequest,
  UnusedStub,
} from "./src/report/types.ts";
export { METHODS } from "./src/stubs/model.ts";
export type {
  CallbackSpec,
  CheckAnswer,
  CheckedRequest,
  CheckViolation,
  Delay,
  Dribble,
  Fault,
  HeaderMap,
  LognormalDelay,
  Method,
  RequestCheck,
  ResponseFunc,
  ResponseFuncArgs,
  ResponseFuncResult,
  ResponseSpec,
  SequenceMode,
  StreamEvent,
  Stub,
  StubMethod,
  StubSource,
} from "./src/stubs/model.ts";
export type { ProxyAdjust } from "./src/stubs/proxy_field.ts";

/**
 * Starts a `GET` stub.
 *
 * @example
 * ```ts
 * import { get } from "./mod.ts";
 * get("/users/{id}").body({ id: "{id}" });
 * ```
 */
export function get<P extends string>(path: P): StubBuilder<P> {
  return route("GET", path);
}

/**
 * Starts a `POST` stub.
 *
 * @example
 * ```ts
 * import { post } from "./mod.ts";
 * post("/orders").status(201).body({ id: "o-1" });
 * ```
 */
export function post<P extends string>(path: P): StubBuilder<P> {
  return route("POST", path);
}

/**
 * Starts a `PUT` stub.
 *
 * @example
 * ```ts
 * import { put } from "./mod.ts";
 * put("/users/{id}").status(204);
 * ```
 */
export function put<P extends string>(path: P): StubBuilder<P> {
  return route("PUT", path);
}

/**
 * Starts a `PATCH` stub.
 *
 * @example
 * ```ts
 * import { patch } from "./mod.ts";
 * patch("/users/{id}").body({ id: "{id}", patched: true });
 * ```
 */
export function patch<P extends string>(path: P): StubBuilder<P> {
  return route("PATCH", path);
}

/**
 * Starts a `DELETE` stub (`delete` is a reserved word, hence `del`).
 *
 * @example
 * ```ts
 * import { del } from "./mod.ts";
 * del("/users/{id}").status(204);
 * ```
 */
export function del<P extends string>(path: P): StubBuilder<P> {
  return route("DELETE", path);
}

/**
 * Starts a `HEAD` stub. Without one, `HEAD` requests are answered by the matching `GET` stub.
 *
 * @example
 * ```ts
 * import { head } from "./mod.ts";
 * head("/files/{name}").header("x-size", "42");
 * ```
 */
export function head<P extends string>(path: P): StubBuilder<P> {
  return route("HEAD", path);
}

/**
 * Starts an `OPTIONS` stub.
 *
 * @example
 * ```ts
 * import { options } from "./mod.ts";
 * options("/users").status(204).header("allow", "GET, POST");
 * ```
 */
export function options<P extends string>(path: P): StubBuilder<P> {
  return route("OPTIONS", path);
}
