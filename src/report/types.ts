/**
 * The shapes of what the server reports: the coverage report (`GET /__stubtool__/report`,
 * ) and the request journal (`GET /__stubtool__/requests`). The
 * server builds them; the renderers in this folder read them.
 * @module
 */

/** A stub as the report lists it. */
export interface ReportStub {
  /** The stub's id: given in the config or API, or made up by the server. */
  id?: string;
  /** The stub's display name, when it has one (a WireMock mapping's `name`, or its file and index). */
  name?: string;
  /** The stub's method, upper-case (`GET`). */
  method: string;
  /** The path template without any `?query`. */
  path: string;
  /**
   * Requests the stub answered since start or the last reset (a `HEAD` request answered
   * by a `GET` stub counts for that stub).
   */
  hit_count: number;
  /** Required query parameters (value patterns as written), only when the stub has some. */
  query_params?: Record<string, unknown>;
  /**
   * A `websocket:` stub's `on_message` rules in order, each with the messages it answered
   * (not in a scoped report: messages are not filed by scope).
   */
  websocket_rules?: ReportWebSocketRule[];
}

/** One `on_message` rule of a WebSocket stub in the report. */
export interface ReportWebSocketRule {
  /** The rule's match as written: the text pattern (`ping`, `/^echo/`), or `{json: …}` as compact JSON. */
  match: string;
  /** Messages it answered since start or the last reset. */
  matches: number;
}

/** An unused stub: a {@link ReportStub} without its (zero) hit count. */
export type UnusedStub = Omit<ReportStub, "hit_count">;

/** A stub that nearly matched a request, and why it did not (the 404's `closest`). */
export interface ClosestStub {
  /** The stub's method, upper-case (`GET`). */
  method: string;
  /** The stub's path template without any `?query`. */
  path: string;
  /**
   * The criterion that failed, with what the request had and the stub wants:
   * `segment 3 is 'invoices', stub has 'orders'`, `query parameter 'sort' is 'desc', stub wants 'asc'`,
   * `missing query parameter 'q'`, `method differs (stub is POST)`, `trailing slash (stub has none)`.
   */
  reason: string;
  /** The stub's required query parameters, when it has some (so `/users` and `/users?role=admin` tell apart). */
  query_params?: Record<string, unknown>;
  /** The stub's id, so two stubs of one pattern tell apart. */
  id?: string;
  /** Where the stub came from: `routes[1] of stubs.yaml`, `--stub[0]`, `admin`, `api`. */
  place?: string;
}

/** A request that matched no stub. */
export interface UnmatchedRequest {
  /** The request method as sent. */
  method: string;
  /** The request path, without the query string. */
  path: string;
  /** The raw query string without `?`, only when non-empty. */
  query?: string;
  /** `Date#toISOString()` of when it arrived. */
  timestamp: string;
  /** Stubs that nearly matched (as in the 404 answer), only when there are some. */
  closest?: ClosestStub[];
  /** True when `method`, `path` or `query` was cut to 2 KiB. */
  truncated?: boolean;
  /** True when it was passed on to `proxy_unmatched`. */
  proxied?: boolean;
  /** The status the upstream answered it with; absent when the upstream failed. */
  upstream_status?: number;
  /**
   * A WebSocket message no `on_message` rule of the stub at `method` `path` matched (cut to
   * 2 KiB); `closest` then holds the rules' near misses (`on_message[0]: message is …`).
   */
  message?: string;
}

/** The coverage / contract-drift report served at `/__stubtool__/report`. */
export interface Report {
  /** The counts at a glance. */
  summary: {
    /** How many stubs there are. */
    total_stubs: number;
    /** How many stubs were hit at least once. */
    matched_stubs: number;
    /** Every request that matched no stub since start or the last reset: exact, even once the list drops some. */
    unmatched_requests: number;
  };
  /** Every stub with its hit count, in declaration order. */
  stubs: ReportStub[];
  /** The stubs never hit, in declaration order. */
  unused_stubs: UnusedStub[];
  /**
   * Requests that matched no stub, oldest first; only the newest are kept (`maxUnmatched`,
   * `--max-unmatched`: 1,000 by default).
   */
  unmatched_requests: UnmatchedRequest[];
  /**
   * Flow coverage: every scenario the stubs name, in the order they name them, with its
   * declared transitions. Present only when at least one stub has a `scenario`, so a report
   * of stubs without scenarios keeps exactly the four keys above.
   */
  scenarios?: ReportScenario[];
  /**
   * Requests the server refused because they break the OpenAPI spec it checks them against
   * (`serve --openapi SPEC --mock`): one entry per operation + location + message, with how
   * often. Present only when the server checks requests, so other reports keep their keys.
   */
  violations?: ReportViolation[];
}

/** A way requests broke the spec, and how often (the `violations` of a {@link Report}). */
export interface ReportViolation {
  /** The spec operation the request called: `POST /pets`. */
  operation: string;
  /** Where in the request: `body.name`, `query.limit`, `header.x-trace`, `path.petId`, `security`. */
  location: string;
  /** What is wrong, as the `422` answer said: `must NOT have fewer than 1 characters`. */
  message: string;
  /** How many refused requests had it. */
  count: number;
}

/** A scenario in the report: its name and every transition its stubs declare. */
export interface ReportScenario {
  /** The scenario's name (`scenario:`). */
  name: string;
  /** One per stub of the scenario that has a `set_state`, in declaration order (empty when none has). */
  transitions: ReportTransition[];
}

/** A declared scenario transition and how often it was taken. */
export interface ReportTransition {
  /** The stub's `when_state`, or `*` for a stub that answers (and moves the scenario) in any state. */
  from: string;
  /** The stub's `set_state`. */
  to: string;
  /** The id of the stub that takes the transition. */
  stub: string;
  /** How often the transition was taken since start or the last reset (in the report's scope, when scoped). */
  taken: number;
}

/**
 * A stub as `GET /__stubtool__/stubs` lists it: the fields the dashboard shows beside the
 * report's (where it came from, its scenario and state condition, its request conditions).
 */
export interface StubDetail {
  /** The stub's id. */
  id: string;
  /** `config`, `inline`, `api`, `admin` or `wiremock`. */
  source?: string;
  /** Where it was declared: `routes[1] of stubs.yaml`, `--stub[0]`, `mappings/users.json mappings[2]`. */
  place?: string;
  /** A config file's stub: the line its `routes:` entry starts on (shown as `stubs.yaml:7`). */
  line?: number;
  /** Its `x-stubtool-scope`. */
  scope?: string;
  /** Its scenario. */
  scenario?: string;
  /** The state the scenario must be in. */
  when_state?: string;
  /** The state it moves the scenario to. */
  set_state?: string;
  /** Its request conditions besides method, path and query, as configured. */
  request?: Record<string, unknown>;
  /** Its priority, when not 0. */
  priority?: number;
}

/** Where a scenario is now in one scope, as `GET /__stubtool__/scenarios` lists it. */
export interface CurrentState {
  /** The scenario's name. */
  name: string;
  /** The state it is in. */
  state: string;
  /** The `x-stubtool-scope` this state belongs to; absent for the unscoped state. */
  scope?: string;
}

/** One request as `GET /__stubtool__/requests` lists it. */
export interface JournalEntry {
  /** When it arrived, `Date#toISOString()`. */
  time: string;
  /** The request method as sent. */
  method: string;
  /** Path with the query string, as requested. */
  target: string;
  /** The status answered (404 when no stub matched). */
  status: number;
  /** The matched stub (`GET /users/{id}`), when one matched. */
  stub?: string;
  /** When nothing matched: up to 3 stubs that nearly did, each with the reason (may be empty). */
  closest?: ClosestStub[];
  /**
   * Time from arrival to the response, in milliseconds (3 decimals). An answer the server
   * gives at once (a stub without delay) is 0: it took microseconds, and timing it would
   * cost more than recording it.
   */
  duration_ms: number;
  /** The id of the stub that answered. */
  id?: string;
  /** The request headers, names lower-cased (a header sent on several lines: its values joined by `, `). */
  headers?: Record<string, string>;
  /**
   * The header lines as sent, in order, each `[name, value]` with the name in its case (one
   * entry per line), when the wire keeps them (`--adapter node`, the default; not `Deno.serve`).
   */
  header_lines?: [name: string, value: string][];
  /** The request body as text (its first 64 KiB), when it had one that is UTF-8. */
  body?: string;
  /** The request body (its first 64 KiB) in base64, when it is not UTF-8 text. */
  body_base64?: string;
  /** True when the body was longer than what the journal kept. */
  body_truncated?: boolean;
  /**
   * A WebSocket message, not a request: `in` from the client, `out` to it, on the connection
   * `target` opened (journaled with status 101); its text is `body`. A message no rule
   * matched carries the rules' near misses in `closest`.
   */
  message?: "in" | "out";
  /**
   * With `serve --state`: the replica that served a request another replica journaled, as
   * `HOST:PORT` (its host name and listening port); absent for the requests this one served.
   */
  replica?: string;
}

/** What `GET /__stubtool__/requests` answers. */
export interface JournalSnapshot {
  /** How many requests the journal keeps (0: the journal is off). */
  capacity: number;
  /** Requests journaled since start or the last reset, including those no longer kept. */
  total: number;
  /** The kept requests, oldest first. */
  requests: JournalEntry[];
}
