/**
 * The stub registry: every change to a server's stubs goes through it — the API
 * (`server.routes()`), the admin endpoints, and `--watch` reloads — so the stubs, their hit
 * counts and the report always agree.
 * @module
 */

import type { Stub, StubSource } from "../stubs/model.ts";
import type { StubChanges } from "../stubs/reload.ts";
import type { Recorder } from "./coverage/recorder.ts";
import type { Route } from "./matching/route.ts";
import type { ScenarioEntry, SetStateResult } from "./matching/scenarios.ts";
import { type BatchProblem, StubSet } from "./matching/stub_set.ts";

/** `TypeError` for a batch the API refuses: every problem, with the stub it is about. */
export function batchError(stubs: readonly Stub[], problems: readonly BatchProblem[]): TypeError {
  return new TypeError(
    problems.map((p) => `${stubs[p.index] ? `${stubs[p.index].method} ${stubs[p.index].path}: ` : ""}${p.message}`)
      .join("; "),
  );
}

/** A server's stubs and their counts, changed together. */
export class StubRegistry {
  /**
   * The stubs and their router.
   * @ignore
   */
  readonly set: StubSet = new StubSet();
  readonly #recorder: Recorder;

  /**
   * An empty registry whose changes keep `recorder`'s counts in step.
   * @ignore
   */
  constructor(recorder: Recorder) {
    this.#recorder = recorder;
  }

  /**
   * Registers validated stubs as one batch (later batches win ties); they take effect for
   * the next request. Their responses are compiled now, so a body object the caller changes
   * afterwards does not change the answer. Returns the new stubs' ids; throws a `TypeError`
   * (and adds nothing) when an id is taken.
   */
  add(stubs: readonly Stub[], source: StubSource = "api"): string[] {
    const { routes, problems } = this.set.add(stubs, source, true);
    if (!routes) throw batchError(stubs, problems);
    return routes.map((r) => r.id);
  }

  /**
   * {@link StubRegistry.add} that returns problems instead of throwing (the admin API answers 409 with them).
   * @ignore
   */
  tryAdd(stubs: readonly Stub[], source: StubSource): { routes?: readonly Route[]; problems: BatchProblem[] } {
    return this.set.add(stubs, source, true);
  }

  /**
   * Adds the stubs a server starts with, as one batch, compiled on first use so a large
   * config starts fast (do not change their bodies afterwards). Throws a `TypeError` when an id is taken.
   */
  load(stubs: readonly Stub[], source: StubSource): void {
    const { problems } = this.set.add(stubs, source);
    if (problems.length) throw batchError(stubs, problems);
  }

  /** Removes the stubs with these ids; returns the ids that were there. */
  remove(...ids: string[]): string[] {
    const wanted = new Set(ids);
    return this.removeWhere((r) => wanted.has(r.id));
  }

  /**
   * Removes every stub `which` picks; returns their ids.
   * @ignore
   */
  removeWhere(which: (route: Route) => boolean): string[] {
    const removed = this.set.remove(which);
    this.#recorder.forget(removed);
    return removed.map((r) => r.id);
  }

  /**
   * Replaces stub `id` in place (hit count and sequence start again); problems when `id` is unknown or taken.
   * @ignore
   */
  replaceStub(id: string, stub: Stub): { route?: Route; problems: BatchProblem[] } {
    const old = this.set.get(id);
    const result = this.set.replace(id, stub, true);
    if (result.route && old) this.#recorder.forget([old]);
    return result;
  }

  /**
   * Replaces every stub of `source` at once (`serve --watch` after the config changed). Stubs
   * whose identity (method, path, conditions, or id; the n-th duplicate pairs with the n-th)
   * is unchanged keep their id, hit counts (in every scope) and sequence position. Returns
   * what was added, removed and changed among that source's stubs; throws a `TypeError` when an id is taken.
   */
  replaceSource(stubs: readonly Stub[], source: StubSource = "config"): StubChanges {
    const before = this.set.routes.filter((r) => r.source === source);
    const { changes, problems } = this.set.replaceSource(source, stubs);
    if (!changes) throw batchError(stubs, problems);
    const after = this.set.routes.filter((r) => r.source === source);
    this.#recorder.carry(
      changes.from.flatMap((was, i) => was === undefined ? [] : [[before[was], after[i]] as [Route, Route]]),
    );
    this.#recorder.forget(before);
    return changes;
  }

  /**
   * The registered stubs with their ids, sources and hit counts, in declaration order.
   * @ignore
   */
  get routes(): readonly Route[] {
    return this.set.routes;
  }

  /** The stubs, in declaration order. */
  get stubs(): Stub[] {
    return this.set.routes.map((r) => r.stub);
  }

  /**
   * The registered stub with this id.
   * @ignore
   */
  get(id: string): Route | undefined {
    return this.set.get(id);
  }

  /**
   * Counts a request `route` answered (in `scope` too).
   * @ignore
   */
  hit(route: Route, scope: string | null): void {
    this.#recorder.hit(route, scope);
    // The scenario moves when its stub is chosen, before any delay (as WireMock does).
    if (route.stub.setState !== undefined) this.set.scenarios.advance(route.id, scope);
  }

  /**
   * Back to the stubs the server started with (or the config `serve --watch` last loaded):
   * stubs added at runtime go, removed or replaced ones come back; the others keep their hit counts.
   */
  resetStubs(): void {
    this.#recorder.forget(this.set.resetToBaseline());
  }

  /** Zeroes hit counts, restarts sequences and scenarios (the recorder forgets unmatched requests too). */
  reset(): void {
    this.#recorder.reset(this.set.routes);
    for (const route of this.set.routes) route.position = 0;
    this.set.scenarios.reset();
    this.set.scenarios.resetCounts();
  }

  /** Every scenario's state, one entry per scope that has left `Started`. */
  scenarioStates(scope?: string): ScenarioEntry[] {
    return this.set.scenarios.list(scope);
  }

  /** Why `setScenarioState` refused `name` / `state`, naming a close one when there is one. */
  scenarioRefusal(name: string, state: string): string | undefined {
    return this.set.scenarios.refusal(name, state);
  }

  /**
   * Moves scenario `name` to `state` for `scope` (null: requests without a scope).
   * @ignore
   */
  setScenarioState(name: string, state: string, scope: string | null): SetStateResult {
    return this.set.scenarios.set(name, state, scope);
  }

  /** Every scenario back to `Started`, in every scope. */
  resetScenarios(): void {
    this.set.scenarios.reset();
  }
}
