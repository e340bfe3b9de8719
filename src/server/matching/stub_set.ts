/**
 * The stubs a server holds, as batches: a config file, the `--stub`s, one
 * `routes()` call, one admin `POST`. Every stub has an id (given, or made up and never
 * reused while the server runs). Adding, removing and replacing are synchronous and
 * validated first, so no request sees half a change; requests already answering keep the
 * stub that matched them.
 * @module
 */

import type { CompiledStub, StubSource } from "../../stubs/model.ts";
import { diffStubs, type StubChanges } from "../../stubs/reload.ts";
import { Route } from "./route.ts";
import { Router } from "./router.ts";
import { type DeclaredStep, ScenarioStates } from "./scenarios.ts";

/** Why a batch was refused: which stub of it, and what is wrong. */
export interface BatchProblem {
  /** Index of the stub in the batch. */
  index: number;
  message: string;
}

/** Where a sequence carried over by a reload resumes: the same position, within its (maybe shorter) new sequence. */
function carryPosition(position: number, stub: CompiledStub): number {
  const length = stub.responses.length;
  if (!stub.isSequence || length === 0) return 0;
  return stub.sequenceMode === "cycle" ? position % length : Math.min(position, length);
}

/** Does whether `route` matches depend on more than the request's target (headers, body, scenario state)? */
function readsMoreThanTarget(route: Route): boolean {
  return route.stub.whenState !== undefined ||
    route.conditions.some((c) => c.needsBody || c.readsHeaders === true);
}

/** The stubs of a server: listed in declaration order (batch by batch), routed by precedence. */
export class StubSet {
  #routes: Route[] = [];
  #byId = new Map<string, Route>();
  #router = new Router<Route>();
  #nextBatch = 0;
  #generated = 0;
  /** Counts changes, so caches that depend on the stubs know when to forget. */
  version = 0;
  /** Is any stub's condition about headers or the body (near-miss explanations then depend on more than the target)? */
  #requestConditions = 0;
  /** Live scenario states, for the stubs that name a scenario. */
  readonly scenarios: ScenarioStates = new ScenarioStates();
  /** How many stubs take part in a scenario (requests then need their scope read). */
  #scenarioStubs = 0;
  /** How many stubs answer WebSocket upgrades. */
  #webSocketStubs = 0;

  /** After every change: a new version, and the scenarios the stubs now declare. */
  #changed(): void {
    this.version++;
    const declared: DeclaredStep[] = [];
    if (this.#scenarioStubs > 0) {
      for (const route of this.#routes) {
        const { scenario, whenState, setState } = route.stub;
        if (scenario !== undefined) declared.push({ id: route.id, scenario, whenState, setState });
      }
    }
    this.scenarios.update(declared);
  }

  /** Does any stub answer WebSocket upgrades? */
  get hasWebSockets(): boolean {
    return this.#webSocketStubs > 0;
  }

  /** Does any stub take part in a scenario? */
  get hasScenarios(): boolean {
    return this.#scenarioStubs > 0;
  }
  /**
   * The stubs the server started with (config, `--stub`), as they were placed: what
   * {@link StubSet.resetToBaseline} brings back. A reload of a source replaces that source's part.
   */
  #baseline: Route[] = [];

  /** The router over the current stubs. */
  get router(): Router<Route> {
    return this.#router;
  }

  /** Every stub, in declaration order: batch by batch, each in the order given. */
  get routes(): readonly Route[] {
    return this.#routes;
  }

  /** Does any stub have a header or body condition? */
  get hasRequestConditions(): boolean {
    return this.#requestConditions > 0;
  }

  /** The stub with this id. */
  get(id: string): Route | undefined {
    return this.#byId.get(id);
  }

  /** An id nobody has: `stub-<n>`, never handed out twice. */
  #newId(taken: ReadonlySet<string>): string {
    for (;;) {
      const id = `stub-${++this.#generated}`;
      if (!this.#byId.has(id) && !taken.has(id)) return id;
    }
  }

  /** Problems that keep a batch out: ids used twice in it, or by a stub the server has. */
  check(stubs: readonly CompiledStub[], replacing?: Route): BatchProblem[] {
    const problems: BatchProblem[] = [];
    const seen = new Map<string, number>();
    stubs.forEach((stub, index) => {
      if (stub.id === undefined) return;
      const other = seen.get(stub.id);
      const holder = this.#byId.get(stub.id);
      if (other !== undefined) problems.push({ index, message: `id '${stub.id}' is used twice in this batch` });
      else if (holder && holder !== replacing) {
        problems.push({ index, message: `id '${stub.id}' is already used by ${holder.label} (${holder.source})` });
      }
      seen.set(stub.id, index);
    });
    return problems;
  }

  /**
   * Adds `stubs` as one batch, later than every batch before (so they win ties with
   * earlier stubs of the same pattern). Returns the new routes, or the problems (nothing
   * is added then). With `compile`, answers are compiled now rather than on first use.
   */
  add(
    stubs: readonly CompiledStub[],
    source: StubSource,
    compile = false,
  ): { routes?: Route[]; problems: BatchProblem[] } {
    const problems = this.check(stubs);
    if (problems.length) return { problems };
    const batch = this.#nextBatch++;
    const taken = new Set(stubs.flatMap((s) => s.id === undefined ? [] : [s.id]));
    const routes = stubs.map((stub, order) => {
      const route = new Route(stub, { id: stub.id ?? this.#newId(taken), source, batch, order }, this.scenarios);
      if (compile) route.compile();
      return route;
    });
    for (const route of routes) this.#insert(route);
    this.#routes.push(...routes);
    this.#changed();
    return { routes, problems };
  }

  #insert(route: Route): void {
    this.#byId.set(route.id, route);
    this.#router.add(route);
    if (readsMoreThanTarget(route)) this.#requestConditions++;
    if (route.stub.scenario !== undefined) this.#scenarioStubs++;
    if (route.stub.websocket !== undefined) this.#webSocketStubs++;
  }

  #delete(route: Route): void {
    this.#byId.delete(route.id);
    this.#router.remove(route);
    if (readsMoreThanTarget(route)) this.#requestConditions--;
    if (route.stub.scenario !== undefined) this.#scenarioStubs--;
    if (route.stub.websocket !== undefined) this.#webSocketStubs--;
  }

  /** Makes the current stubs the baseline (the server has finished adding the stubs it starts with). */
  markBaseline(): void {
    this.#baseline = [...this.#routes];
  }

  /**
   * Back to the baseline: stubs that are not part of it go; baseline stubs that were removed
   * or replaced come back (hit count and sequence from 0) under their ids and in their places;
   * baseline stubs still there are kept as they are, hit counts included. Returns the routes
   * that went, so their counts can be forgotten.
   */
  resetToBaseline(): Route[] {
    const kept = new Set(this.#baseline.filter((r) => this.#byId.get(r.id) === r));
    const gone = this.#routes.filter((r) => !kept.has(r));
    for (const route of gone) this.#delete(route);
    this.#baseline = this.#baseline.map((was) => {
      if (kept.has(was)) return was;
      const route = new Route(
        was.stub,
        { id: was.id, source: was.source, batch: was.batch, order: was.order },
        this.scenarios,
      );
      this.#insert(route);
      return route;
    });
    this.#routes = [...this.#baseline];
    this.#changed();
    return gone;
  }

  /** Removes the stubs for which `which` is true; returns them. */
  remove(which: (route: Route) => boolean): Route[] {
    const removed = this.#routes.filter(which);
    if (removed.length === 0) return removed;
    for (const route of removed) this.#delete(route);
    this.#routes = this.#routes.filter((r) => !which(r));
    this.#changed();
    return removed;
  }

  /**
   * Replaces the stub `id` with `stub` under the same id, in the same place of the
   * precedence order; its hit count and sequence start again. Returns the new route, or
   * problems (an id in `stub` that belongs to another stub).
   */
  replace(id: string, stub: CompiledStub, compile = false): { route?: Route; problems: BatchProblem[] } {
    const old = this.#byId.get(id);
    if (!old) return { problems: [{ index: 0, message: `no stub has id '${id}'` }] };
    const route = new Route(
      { ...stub, id },
      { id, source: old.source, batch: old.batch, order: old.order },
      this.scenarios,
    );
    if (compile) route.compile();
    this.#delete(old);
    this.#insert(route);
    this.#routes[this.#routes.indexOf(old)] = route;
    this.#changed();
    return { route, problems: [] };
  }

  /**
   * Replaces every stub of `source` (`serve --watch` after the config changed) with `stubs`,
   * keeping the batch's place. Stubs whose identity is unchanged (see `diffStubs`) keep
   * their id, hit count and sequence position. Returns what changed, or problems.
   */
  replaceSource(
    source: StubSource,
    stubs: readonly CompiledStub[],
  ): { changes?: StubChanges; problems: BatchProblem[] } {
    const old = this.#routes.filter((r) => r.source === source);
    const changes = diffStubs(old.map((r) => r.stub), stubs);
    // Ids of the stubs going away are free for the new ones.
    const leaving = new Set(old.map((r) => r.id));
    const problems = this.check(stubs).filter((p) => !leaving.has(stubs[p.index].id!) || p.message.includes("twice"));
    if (problems.length) return { problems };
    // A source whose stubs were all removed at runtime comes back in its baseline place.
    const batch = old[0]?.batch ?? this.#baseline.find((r) => r.source === source)?.batch ?? this.#nextBatch++;
    const taken = new Set(stubs.flatMap((s) => s.id === undefined ? [] : [s.id]));
    for (const route of old) this.#delete(route);
    const routes = stubs.map((stub, order) => {
      const was = changes.from[order] === undefined ? undefined : old[changes.from[order]!];
      const id = stub.id ?? (was && !taken.has(was.id) ? was.id : this.#newId(taken));
      taken.add(id);
      const route = new Route(stub, { id, source, batch, order }, this.scenarios);
      if (was) {
        route.hits = was.hits;
        route.position = carryPosition(was.position, stub);
      }
      return route;
    });
    for (const route of routes) this.#insert(route);
    // Keep declaration order: the batch's stubs where the old ones were.
    const at = this.#routes.findIndex((r) => r.source === source);
    const others = this.#routes.filter((r) => r.source !== source);
    const index = at === -1 ? others.findIndex((r) => r.batch > batch) : at;
    others.splice(index === -1 ? others.length : index, 0, ...routes);
    this.#routes = others;
    // The reloaded stubs are that source's new baseline.
    this.#baseline = [...this.#baseline.filter((r) => r.source !== source), ...routes]
      .sort((a, b) => a.batch - b.batch || a.order - b.order);
    this.#changed();
    return { changes, problems: [] };
  }
}
