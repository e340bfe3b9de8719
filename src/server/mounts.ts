/**
 * The mounts under reserved prefixes, built for one handler: `/__stubtool__/` (endpoints.ts)
 * and `/__admin/` (wiremock_admin.ts, WireMock's admin API, loaded on the first request that
 * reaches it: wiremock/lazy.ts). Each owns its paths and answers
 * them before any stub is looked at; both pass the same guard.
 * @module
 */

import type { JournalEntry, JournalSnapshot, Report } from "../report/types.ts";
import type { RequestPattern } from "../stubs/validate.ts";
import type { CallbackRecord } from "./callbacks/callbacks.ts";
import type { StubsHost } from "./admin/admin.ts";
import { ReservedMount } from "./admin/endpoints.ts";
import { recordView } from "./admin/find.ts";
import { NEED_BODY } from "./matching/router.ts";
import type { ReservedGuard } from "./admin/guard.ts";
import type { Incoming } from "./incoming.ts";
import type { Journal, JournalFilter } from "./journal/journal.ts";
import type { StubRegistry } from "./registry.ts";
import type { Respond } from "./response.ts";
import type { WireMockAdminHost } from "./wiremock/wiremock_admin.ts";
import { isWireMockAdminPath, loadWireMockAdmin, wireMockAdminLoaded } from "./wiremock/lazy.ts";
import { loadTemplating, templatingLoaded } from "../templating/engine.ts";

/** A mount under a reserved prefix: it owns its paths, and answers them before any stub is looked at. */
export interface Mount {
  owns(pathname: string): boolean;
  answer<R>(incoming: Incoming, pathname: string, rawQuery: string, respond: Respond<R>): R | Promise<R>;
}

/** What the mounts reach of the handler that serves them. */
export interface MountedServer {
  registry: StubRegistry;
  maxBody: number;
  filesRoot: string | undefined;
  wiremockDirs: readonly string[] | undefined;
  scopes: boolean;
  journal: Journal | undefined;
  /** Changes whenever the report or the journal could. */
  version(): string;
  findRequests(pattern: RequestPattern): { requests: JournalEntry[]; complete: boolean };
  report(options: { scope?: string }): Report;
  journalSnapshot(filter?: JournalFilter): JournalSnapshot;
  reset(): void;
  callbacks(): CallbackRecord[];
}

/** The mounts of one handler, in the order they are asked. */
export function serverMounts(server: MountedServer, guard: ReservedGuard): Mount[] {
  const { registry, journal } = server;
  const scenarios = () => registry.set.scenarios;
  const stubs: StubsHost = {
    maxBody: server.maxBody,
    filesRoot: server.filesRoot,
    routes: () => registry.routes,
    route: (id) => registry.get(id),
    add: (batch, source) => registry.tryAdd(batch, source),
    replaceStub: (id, stub) => registry.replaceStub(id, stub),
    remove: (which) => registry.removeWhere(which),
    resetStubs: () => registry.resetStubs(),
  };
  const reserved = new ReservedMount({
    ...stubs,
    find: (pattern) => server.findRequests(pattern),
    scopes: () => server.scopes,
    version: server.version,
    report: (options) => server.report(options),
    journal: (filter) => server.journalSnapshot(filter),
    reset: () => server.reset(),
    scenarios: (scope) => scenarios().list(scope),
    scenario: (name, scope) => scenarios().entry(name, scope),
    droppedScenarioScopes: () => scenarios().droppedScopes,
    setScenarioState: (name, state, scope) => registry.setScenarioState(name, state, scope),
    scenarioRefusal: (name, state) => scenarios().refusal(name, state) ?? "",
    scenarioStates: (name) => scenarios().settable(name),
    resetScenarios: () => registry.resetScenarios(),
    callbacks: () => server.callbacks(),
    health: () => {
      const state = registry.shared.health();
      return state && JSON.stringify({ status: state.store === "connected" ? "ok" : "degraded", state });
    },
  }, guard);
  const wiremock = wireMockAdminMount({
    ...stubs,
    reset: () => server.reset(),
    clearJournal: () => journal?.clear(),
    journal: () => ({ records: journal?.records() ?? [], on: journal !== undefined }),
    removeRequests: (which) => journal?.removeWhere(which) ?? [],
    nearMisses: (record) => {
      const misses = registry.set.router.nearMisses(recordView(record));
      return misses === NEED_BODY ? [] : misses.map((m) => m.route);
    },
    wiremockDirs: server.wiremockDirs,
    scenarios: () => scenarios().list(),
    setScenarioState: (name, state) => registry.setScenarioState(name, state),
    resetScenarios: () => registry.resetScenarios(),
  }, guard);
  return [reserved, wiremock].map(engineFirst);
}

/**
 * The `/__admin/` mount, made when a request first reaches it: the first such request waits
 * for the room to load (wiremock/lazy.ts); the uptime it reports still counts from here.
 */
function wireMockAdminMount(host: WireMockAdminHost, guard: ReservedGuard): Mount {
  const started = Date.now();
  let mount: Mount | undefined;
  const made = (room: NonNullable<ReturnType<typeof wireMockAdminLoaded>>) =>
    mount ??= new room.WireMockAdminMount(host, guard, started);
  return {
    owns: isWireMockAdminPath,
    answer: (incoming, pathname, rawQuery, respond) => {
      const room = wireMockAdminLoaded();
      return room
        ? made(room).answer(incoming, pathname, rawQuery, respond)
        : loadWireMockAdmin().then((loaded) => made(loaded).answer(incoming, pathname, rawQuery, respond));
    },
  };
}

/** Methods that only read (a stub list, the report, the dashboard): none carries a stub or a request pattern. */
const READS = new Set(["GET", "HEAD", "OPTIONS"]);

/**
 * The mount, loading the template engine (src/templating/engine.ts) before the first request that
 * may carry a stub, a mapping or a request pattern (any method but a read): what it carries is
 * checked synchronously, and may use a template or JSONPath. A server started without the
 * engine (the command line's plain config) loads it then, once.
 */
function engineFirst(mount: Mount): Mount {
  return {
    owns: (pathname) => mount.owns(pathname),
    answer: (incoming, pathname, rawQuery, respond) =>
      READS.has(incoming.method) || templatingLoaded()
        ? mount.answer(incoming, pathname, rawQuery, respond)
        : loadTemplating().then(() => mount.answer(incoming, pathname, rawQuery, respond)),
  };
}
