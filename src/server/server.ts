/**
 * `stubServer()`: the handler on a real port, on Deno or Node.
 * @module
 */

import { statSync } from "node:fs";
import { hostname as machineName } from "node:os";
import type { Serve } from "./adapters/types.ts";
import { StubBuilder } from "../stubs/builder.ts";
import { hostName, isLoopbackName } from "./admin/guard.ts";
import { DEFAULT_MAX_BODY, type HandlerOptions, StubHandler } from "./handler.ts";
import { unreadBodyLimit } from "./incoming.ts";
import { collectWhenIdle } from "./idle.ts";
import { checkedStubs } from "./registry.ts";
import type { Stub } from "../stubs/model.ts";
import type { JournalEntry, JournalSnapshot, Report } from "../report/types.ts";
import { describe, stubWarnings, unknownField } from "../stubs/validate.ts";
import { stubLabel } from "../stubs/model.ts";
import { checkPattern } from "./admin/find.ts";
import { type StubInfo, stubInfo } from "./admin/stub_form.ts";
import type { ScenarioEntry } from "./matching/scenarios.ts";
import { checkStoreUrl } from "./state/store_url.ts";
import { loadTemplating } from "../templating/engine.ts";

/** What {@link StubServer.requests} resolves with. */
export interface FoundRequests {
  /** How many requests matched. */
  count: number;
  /** False when the journal has dropped older requests, so some may be missing. */
  complete: boolean;
  /** The matching requests, oldest first, as `GET /__stubtool__/requests` lists them. */
  requests: JournalEntry[];
}

/** How long shutdown waits for in-flight responses before cutting them short. */
export const SHUTDOWN_GRACE_MS = 5_000;

/** Options of {@link stubServer}. */
export interface StubServerOptions extends HandlerOptions {
  /** Interface to bind. Default `127.0.0.1` (loopback only). */
  hostname?: string;
  /**
   * The HTTP server: `node` (`node:http`, on Deno and Node alike; the default) answers every
   * mainstream client, Java's `java.net.http` included; `deno` (`Deno.serve`, Deno only) is
   * 2–4 times faster but answers an HTTP/1.1 request that asks for an upgrade and has a
   * body length (what `java.net.http` sends on `http://`) with an empty `400` before any
   * handler runs.
   */
  adapter?: "deno" | "node";
  /**
   * Serve HTTPS: a certificate and key (PEM text), or `"self-signed"` for one made
   * at start for `localhost`, `127.0.0.1` and `::1` (its PEM is {@link StubServer.certificate}).
   * HTTP/2 is offered to clients that speak it.
   */
  tls?: { cert: string; key: string } | "self-signed";
  /**
   * Stubs to serve from the start (validated, as a config file yields them). Their
   * responses are compiled on first use, so a large config starts fast: do not change
   * their bodies afterwards (stubs added with {@link StubServer.routes} are compiled at once).
   */
  stubs?: readonly Stub[];
  /**
   * Gets one `[WARN] routes()[i] (METHOD /path): …` line for each problem `validate` would warn
   * about in the stubs {@link StubServer.routes} adds (a `{{…}}` without `.template()`, a
   * `whenState` no stub sets). Default: written to stderr (`console.warn`); `() => {}` drops them.
   */
  onWarning?: (line: string) => void;
  /**
   * Join other replicas through a Redis 7 (or Valkey) store: stubs added, replaced or removed
   * at runtime, resets and scenario states set over the admin API reach every replica naming
   * the same `url` and `cluster` (default `stubtool`). `log` gets `[WARN]` lines (default
   * `console.error`); the URL's password never appears in them.
   */
  state?: { url: string; cluster?: string; log?: (line: string) => void };
}

/** Every option {@link stubServer} knows (the compiler keeps this list complete). */
const OPTION_NAMES: Record<keyof StubServerOptions, true> = {
  hostname: true,
  adapter: true,
  tls: true,
  stubs: true,
  state: true,
  maxUnmatched: true,
  maxBody: true,
  handlerTimeout: true,
  onRequest: true,
  journalSize: true,
  journalBytes: true,
  scopes: true,
  source: true,
  inline: true,
  wiremock: true,
  wiremockDirs: true,
  cors: true,
  proxyUnmatched: true,
  proxyTap: true,
  onCallback: true,
  callbackCa: true,
  loopbackOnly: true,
  allowHosts: true,
  adminToken: true,
  filesRoot: true,
  onWarning: true,
  websocket: true,
};
const KNOWN_OPTIONS = Object.keys(OPTION_NAMES).sort();

/** Refuses a port that is not one and options with keys no option has (a typo would be ignored otherwise). */
function checkArguments(port: unknown, options: unknown): void {
  if (typeof port !== "number") {
    throw new TypeError(
      `stubServer(port): port must be an integer from 0 to 65535 (0 lets the OS choose), got ${describe(port)}` +
        (typeof port === "string" ? " (a string)" : ""),
    );
  }
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new RangeError(
      `stubServer(port): port must be an integer from 0 to 65535 (0 lets the OS choose), got ${describe(port)}`,
    );
  }
  if (typeof options !== "object" || options === null || Array.isArray(options)) {
    throw new TypeError(`stubServer(port, options): options must be an object, got ${describe(options)}`);
  }
  for (const name of Object.keys(options)) {
    if (!Object.hasOwn(OPTION_NAMES, name)) {
      throw new TypeError(`stubServer(port, options): ${unknownField("option", name, KNOWN_OPTIONS)}`);
    }
  }
  const { filesRoot, callbackCa } = options as StubServerOptions;
  if (
    callbackCa !== undefined && (typeof callbackCa !== "string" || !callbackCa.includes("-----BEGIN CERTIFICATE-----"))
  ) {
    throw new TypeError(
      `stubServer(port, options): callbackCa must be PEM certificate text (-----BEGIN CERTIFICATE-----), got ${
        describe(typeof callbackCa === "string" ? callbackCa.slice(0, 40) : callbackCa)
      }`,
    );
  }
  if ((options as StubServerOptions).state !== undefined) checkState((options as StubServerOptions).state);
  if (filesRoot !== undefined) {
    const problem = folderProblem(filesRoot);
    if (problem) throw new TypeError(`stubServer(port, options): filesRoot ${problem}`);
  }
}

/** The cluster names `--cluster` and the `state.cluster` option accept. */
const CLUSTER_NAME = /^[A-Za-z0-9._-]{1,64}$/;

/** Checks the `state` option (throws a `TypeError` naming the fix; never shows the password). */
function checkState(state: unknown): void {
  const where = "stubServer(port, options): state";
  if (typeof state !== "object" || state === null || Array.isArray(state)) {
    throw new TypeError(`${where} must be an object { url, cluster?, log? }, got ${describe(state)}`);
  }
  const { url, cluster, log } = state as Record<string, unknown>;
  if (typeof url !== "string") throw new TypeError(`${where}.url must be a redis:// URL, got ${describe(url)}`);
  const checked = checkStoreUrl(url);
  if ("error" in checked) throw new TypeError(`${where}.url ${checked.error}`);
  if (cluster !== undefined && (typeof cluster !== "string" || !CLUSTER_NAME.test(cluster))) {
    throw new TypeError(`${where}.cluster must be 1 to 64 letters, digits, '.', '_' or '-', got ${describe(cluster)}`);
  }
  if (log !== undefined && typeof log !== "function") {
    throw new TypeError(`${where}.log must be a function, got ${describe(log)}`);
  }
}

/** Joins the replicas sharing `state` (the Redis client loads only now); the handler then publishes its runtime changes. */
async function joinState(
  handler: StubHandler,
  state: NonNullable<StubServerOptions["state"]>,
): Promise<{ name: string }> {
  // Stubs other replicas add arrive as data and are checked synchronously: the template engine is loaded up front.
  const [{ joinCluster }] = await Promise.all([import("./state/redis.ts"), loadTemplating()]);
  const link = await joinCluster({
    apply: (op) => op.op === "reset" ? (handler.reset(), undefined) : handler.registry.applyShared(op),
    tally: (batch) => handler.registry.tally(batch),
    journaled: (records) => handler.keepJournaled(records),
  }, {
    url: state.url,
    cluster: state.cluster ?? "stubtool",
    log: state.log ?? ((line) => console.error(line)),
    journal: handler.sharedJournal,
  });
  handler.registry.share(link);
  return link;
}

/** Why `path` is not a folder that can be read, or undefined when it is one. */
export function folderProblem(path: unknown): string | undefined {
  if (typeof path !== "string" || path === "") return `must be the path of a folder, got ${describe(path)}`;
  try {
    if (!statSync(path).isDirectory()) return `${JSON.stringify(path)} is not a folder`;
  } catch (error) {
    const code = (error as { code?: string }).code;
    return `${JSON.stringify(path)} cannot be read: ${
      code === "ENOENT" ? "no such folder" : code === "EACCES" ? "permission denied" : String(error)
    }`;
  }
  return undefined;
}

function loadAdapter(name: "deno" | "node"): Promise<Serve> {
  return name === "deno"
    ? import("./adapters/deno.ts").then((m) => m.serve)
    : import("./adapters/node.ts").then((m) => m.serve);
}

function urlHost(hostname: string): string {
  if (hostname === "0.0.0.0" || hostname === "") return "127.0.0.1";
  if (hostname === "::") return "[::1]";
  return hostname.includes(":") ? `[${hostname}]` : hostname;
}

/**
 * A running mock server. Create one with {@link stubServer}.
 *
 * @example
 * ```ts
 * import { get, stubServer } from "../../mod.ts";
 * await using server = await stubServer(0);
 * server.routes(get("/ping").body({ pong: true }));
 * const response = await fetch(`${server.url}/ping`);
 * console.log(await response.json()); // { pong: true }
 * ```
 */
export class StubServer implements AsyncDisposable {
  /** The handler behind this server; call it directly to skip the socket. */
  readonly handler: StubHandler;
  /** Base URL, `http://127.0.0.1:PORT` (`https://` with TLS). */
  readonly url: string;
  /** The certificate served over TLS (PEM), for clients to trust; undefined without TLS. */
  readonly certificate: string | undefined;
  readonly #port: number;
  readonly #close: (graceMs: number, onGraceEnd: () => void) => Promise<void>;
  #closed: Promise<void> | undefined;
  readonly #stopCollecting: () => void;
  readonly #warn: (line: string) => void;

  /** @internal Use {@link stubServer}. */
  constructor(
    handler: StubHandler,
    port: number,
    hostname: string,
    close: (graceMs: number, onGraceEnd: () => void) => Promise<void>,
    certificate?: string,
    releaseMemory?: () => void,
    // The library's one way to say something outside an answer: stderr unless the caller takes the lines.
    warn: (line: string) => void = (line) => console.warn(line),
  ) {
    this.handler = handler;
    this.#warn = warn;
    this.#port = port;
    this.certificate = certificate;
    this.url = `${certificate === undefined ? "http" : "https"}://${urlHost(hostname)}:${port}`;
    this.#close = close;
    this.#stopCollecting = collectWhenIdle(() => handler.handled, releaseMemory);
  }

  /**
   * Registers stubs (builders or validated stubs) as one batch; they answer from the next
   * request on, and win ties with stubs added before. Returns their ids. Every stub
   * is checked first: a bad one throws and nothing is added. What `validate` would warn
   * about is said through the `onWarning` option (stderr by default).
   */
  routes(...stubs: Array<StubBuilder | Stub>): string[] {
    const validated = checkedStubs(stubs.map((s) => s instanceof StubBuilder ? s.toStub() : s));
    const others = this.handler.registry.routes.map((route) => route.stub);
    const ids = this.handler.registry.add(validated, "api");
    for (
      const { place, message } of stubWarnings(validated, (i) => `routes()[${i}] (${stubLabel(validated[i])})`, others)
    ) {
      this.#warn(`[WARN] ${place}: ${message}`);
    }
    return ids;
  }

  /** Every stub in declaration order, in config form with `id`, `source` and `hit_count` (as `GET /__stubtool__/stubs`). */
  stubs(): Promise<StubInfo[]> {
    return Promise.resolve(this.handler.registry.routes.map(stubInfo));
  }

  /** Removes the stubs with these ids; resolves with the ids that were there. */
  remove(...ids: string[]): Promise<string[]> {
    return Promise.resolve(this.handler.registry.remove(...ids));
  }

  /** Removes every stub added through {@link StubServer.routes}; resolves with their ids. */
  clear(): Promise<string[]> {
    return Promise.resolve(this.handler.registry.removeWhere((route) => route.source === "api"));
  }

  /**
   * Back to the stubs the server started with (its `stubs` option), as
   * `POST /__stubtool__/stubs/reset`: stubs added since (`routes()`, the admin API) go,
   * removed or replaced ones come back; stubs that stayed keep their hit counts.
   *
   * @example
   * ```ts
   * import { get, stubServer } from "../../mod.ts";
   * await using server = await stubServer(0, { stubs: [get("/flags").body({ beta: false }).toStub()] });
   * server.routes(get("/flags").body({ beta: true }));
   * await server.resetStubs();
   * console.log(await (await fetch(`${server.url}/flags`)).json()); // { beta: false }
   * ```
   */
  resetStubs(): Promise<void> {
    this.handler.registry.resetStubs();
    return Promise.resolve();
  }

  /**
   * Every scenario's state (one entry per scope that has left `Started`), as `GET /__stubtool__/scenarios`
   * lists them; with `scope`, every scenario as that scope sees it (`?scope=`).
   */
  scenarios(scope?: string): Promise<ScenarioEntry[]> {
    return Promise.resolve(this.handler.registry.scenarioStates(scope));
  }

  /**
   * Moves scenario `name` to `state` (for the requests of `scope`, when given), as
   * `PUT /__stubtool__/scenarios/NAME`. Rejects with a `TypeError` for an unknown scenario or state, whose
   * message says what the `404`/`422` answer says (the close name, the scenario's states).
   *
   * @example
   * ```ts
   * import { get, stubServer } from "../../mod.ts";
   * await using server = await stubServer(0);
   * server.routes(
   *   get("/cart").inScenario("cart").whenState("Started").body({ items: [] }),
   *   get("/cart").inScenario("cart").whenState("full").body({ items: [1] }),
   * );
   * await server.setScenarioState("cart", "full");
   * console.log(await (await fetch(`${server.url}/cart`)).json()); // { items: [ 1 ] }
   * ```
   */
  setScenarioState(name: string, state: string, scope?: string): Promise<void> {
    const result = this.handler.registry.setScenarioState(name, state, scope ?? null);
    if (result === "ok") return Promise.resolve();
    const why = this.handler.registry.scenarioRefusal(name, state);
    return Promise.reject(new TypeError(`setScenarioState(${JSON.stringify(name)}, ${JSON.stringify(state)}): ${why}`));
  }

  /** Every scenario back to `Started`, in every scope. */
  resetScenarios(): Promise<void> {
    this.handler.registry.resetScenarios();
    return Promise.resolve();
  }

  /**
   * The journaled requests a pattern matches, oldest first (as `POST /__stubtool__/requests/find`):
   * `method`, `path`, `query_params`, `request`, `scope`, each optional (no pattern: every
   * request kept). `complete` is false when the journal has dropped older requests.
   *
   * @example
   * ```ts
   * import { post, stubServer } from "../../mod.ts";
   * await using server = await stubServer(0);
   * server.routes(post("/orders").status(201));
   * await (await fetch(`${server.url}/orders`, { method: "POST", body: '{"sku":"a-1"}' })).body?.cancel();
   * const found = await server.requests({ method: "POST", path: "/orders", request: { json: { sku: "a-1" } } });
   * console.log(found.count); // 1
   * ```
   */
  requests(pattern: Record<string, unknown> = {}): Promise<FoundRequests> {
    const { pattern: checked, errors } = checkPattern(pattern);
    if (!checked) return Promise.reject(new TypeError(`requests(…): ${errors.join("; ")}`));
    const { requests, complete } = this.handler.findRequests(checked);
    return Promise.resolve({ count: requests.length, complete, requests });
  }

  /** The port actually bound. */
  getPort(): number {
    return this.#port;
  }

  /**
   * The coverage report, as `GET /__stubtool__/report` serves it. With `scope`, only the
   * requests that carried the header `x-stubtool-scope: <scope>` count, as
   * `GET /__stubtool__/report?scope=<scope>` serves it: what one test file hit. Scopes are
   * tracked only by a server started with `{ scopes: true }`; otherwise a scoped report rejects.
   *
   * @example
   * ```ts
   * import { get, stubServer } from "../../mod.ts";
   * await using server = await stubServer(0, { scopes: true });
   * server.routes(get("/ping").body({ pong: true }), get("/other").body({}));
   * await (await fetch(`${server.url}/ping`, { headers: { "x-stubtool-scope": "ping_test.ts" } })).body?.cancel();
   * await (await fetch(`${server.url}/other`)).body?.cancel();
   * const scoped = await server.report({ scope: "ping_test.ts" });
   * console.log(scoped.summary); // { total_stubs: 2, matched_stubs: 1, unmatched_requests: 0 }
   * ```
   */
  report(options: { scope?: string } = {}): Promise<Report> {
    try {
      return Promise.resolve(this.handler.report(options));
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /**
   * The most recent requests, oldest first, as `GET /__stubtool__/requests` serves them
   * (the `journalSize` option sets how many; 0 turns the journal off).
   */
  journal(): Promise<JournalSnapshot> {
    return Promise.resolve(this.handler.journal());
  }

  /** Zeroes hit counts, clears unmatched requests and the journal, restarts sequences. */
  reset(): Promise<void> {
    this.handler.reset();
    return Promise.resolve();
  }

  /**
   * Stops accepting requests, lets in-flight responses finish (up to 5 s, then cuts delays
   * and response functions short), and resolves when the port is free: at once when nothing
   * is in flight (idle connections are closed), at most a second after the grace otherwise,
   * whatever clients do (one still uploading, one that never sends a byte). Safe to call twice.
   */
  shutdown(): Promise<void> {
    this.#stopCollecting();
    // Callbacks in flight get the same grace as the answers; then the rest are dropped, counted.
    return this.#closed ??= Promise.all([
      this.#close(SHUTDOWN_GRACE_MS, () => this.handler.abortPending()),
      this.handler.drainCallbacks(SHUTDOWN_GRACE_MS),
    ]).then(() => this.handler.registry.shared.close());
  }

  /** `await using server = await stubServer(0)` shuts the server down at scope exit. */
  [Symbol.asyncDispose](): Promise<void> {
    return this.shutdown();
  }
}

/**
 * Starts a mock server on `port` (0 lets the OS choose) and resolves once it listens.
 * Throws a `TypeError` for a port that is not a number and for an option it does not know
 * (`journalsize`: did you mean `journalSize`?), a `RangeError` for a number that is no port.
 *
 * @example
 * ```ts
 * import { get, stubServer } from "../../mod.ts";
 * const server = await stubServer(0);
 * server.routes(get("/users/{id}").body({ id: "{id}" }));
 * console.log(server.getPort() > 0); // true
 * await server.shutdown();
 * ```
 */
export async function stubServer(port = 0, options: StubServerOptions = {}): Promise<StubServer> {
  checkArguments(port, options);
  const hostname = options.hostname ?? "127.0.0.1";
  // node:http by default, under Deno too: Deno.serve refuses Java's java.net.http (see the option).
  const serve = await loadAdapter(options.adapter ?? "node");
  // On a loopback bind the reserved endpoints answer only this machine's names (DNS rebinding).
  const loopbackOnly = options.loopbackOnly ?? isLoopbackName(hostName(hostname));
  const handler = new StubHandler(options.stubs ?? [], { ...options, loopbackOnly });
  const link = options.state === undefined ? undefined : await joinState(handler, options.state);
  const tls = options.tls === "self-signed"
    ? await import("./tls.ts").then((m) => m.selfSignedCertificate())
    : options.tls;
  const listener = await serve(handler, {
    port,
    hostname,
    tls,
    unreadBodyLimit: unreadBodyLimit(options.maxBody ?? DEFAULT_MAX_BODY),
  });
  // The name the other replicas show on the requests this one served (nothing is journaled before it listens).
  if (link) link.name = `${machineName()}:${listener.port}`;
  return new StubServer(
    handler,
    listener.port,
    hostname,
    listener.close.bind(listener),
    tls?.cert,
    listener.releaseMemory?.bind(listener),
    options.onWarning,
  );
}
