/**
 * The stub registry: every change to a server's stubs goes through it — the API
 * (`server.routes()`), the admin endpoints, and `--watch` reloads — so the stubs, their hit
 * counts and the report always agree.
 * @module
 */

import { type CompiledStub, isCompiledStub, type Stub, type StubSource } from "../stubs/model.ts";
import type { StubChanges } from "../stubs/reload.ts";
import type { Recorder } from "./coverage/recorder.ts";
import type { Route } from "./matching/route.ts";
import type { ScenarioEntry, SetStateResult } from "./matching/scenarios.ts";
import { type BatchProblem, StubSet } from "./matching/stub_set.ts";
import { LOCAL_STATE, type SharedState, type StateOp, type TallyBatch } from "./state/state.ts";
import { fromWire, toWire, unshareable } from "./state/stub_wire.ts";

/** `TypeError` for a batch the API refuses: every problem, with the stub it is about. */
export function batchError(stubs: readonly Stub[], problems: readonly BatchProblem[]): TypeError {
  return new TypeError(
    problems.map((p) => `${stubs[p.index] ? `${stubs[p.index].method} ${stubs[p.index].path}: ` : ""}${p.message}`)
      .join("; "),
  );
}

/**
 * `stubs` as the validator left them (with their compiled parts); a `TypeError` naming each
 * that it did not make (a `Stub` written by hand), and nothing is added.
 */
export function checkedStubs(stubs: readonly Stub[]): readonly CompiledStub[] {
  const problems = stubs.flatMap((stub, index) =>
    isCompiledStub(stub) ? [] : [{
      index,
      message:
        "not a stub stubtool checked: make it with a builder (get(…), route(…), .toStub()) or load it from a config",
    }]
  );
  if (problems.length) throw batchError(stubs, problems);
  return stubs as readonly CompiledStub[];
}

/** A server's stubs and their counts, changed together. */
export class StubRegistry {
  /**
   * The stubs and their router.
   * @ignore
   */
  readonly set: StubSet = new StubSet();
  readonly #recorder: Recorder;
  #shared: SharedState = LOCAL_STATE;

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
    const { routes, problems } = this.set.add(checkedStubs(stubs), source, true);
    if (!routes) throw batchError(stubs, problems);
    this.#published(routes, source);
    return routes.map((r) => r.id);
  }

  /**
   * {@link StubRegistry.add} that returns problems instead of throwing (the admin API answers 409 with them).
   * @ignore
   */
  tryAdd(stubs: readonly CompiledStub[], source: StubSource): { routes?: readonly Route[]; problems: BatchProblem[] } {
    const result = this.set.add(stubs, source, true);
    if (result.routes) this.#published(result.routes, source);
    return result;
  }

  /**
   * Adds the stubs a server starts with, as one batch, compiled on first use so a large
   * config starts fast (do not change their bodies afterwards). Throws a `TypeError` when an id is taken.
   */
  load(stubs: readonly Stub[], source: StubSource): void {
    const { problems } = this.set.add(checkedStubs(stubs), source);
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
    const ids = removed.map((r) => r.id);
    if (ids.length) this.#shared.publish({ op: "remove", ids });
    return ids;
  }

  /**
   * Replaces stub `id` in place (hit count and sequence start again); problems when `id` is unknown or taken.
   * @ignore
   */
  replaceStub(id: string, stub: CompiledStub): { route?: Route; problems: BatchProblem[] } {
    const old = this.set.get(id);
    const result = this.set.replace(id, stub, true);
    if (result.route && old) this.#recorder.forget([old]);
    if (result.route) {
      const why = unshareable(result.route);
      if (why) this.#shared.warn(`[WARN] stub ${id} stays on this replica: ${why}`);
      else this.#shared.publish({ op: "replace", id, stub: toWire(result.route) });
    }
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
    const { changes, problems } = this.set.replaceSource(source, checkedStubs(stubs));
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
    const moved = route.stub.setState !== undefined;
    if (moved) this.set.scenarios.advance(route.id, scope);
    this.#shared.counted?.(route.id, scope, moved);
  }

  /**
   * Adds what another replica counted (`serve --state`): hits of stubs this replica knows,
   * the transitions they took, the unmatched requests.
   * @ignore
   */
  tally(batch: TallyBatch): void {
    for (const [id, scope, hits, moved] of batch.hits) {
      const route = this.set.get(id);
      if (!route) continue;
      this.#recorder.hit(route, scope, hits);
      if (moved) this.set.scenarios.countTaken(id, scope, moved);
    }
    for (const { request, scope } of batch.unmatched) this.#recorder.keep(request, scope);
  }

  /**
   * Back to the stubs the server started with (or the config `serve --watch` last loaded):
   * stubs added at runtime go, removed or replaced ones come back; the others keep their hit counts.
   */
  resetStubs(): void {
    this.#recorder.forget(this.set.resetToBaseline());
    this.#shared.publish({ op: "resetStubs" });
  }

  /** Zeroes hit counts, restarts sequences and scenarios (the recorder forgets unmatched requests too). */
  reset(): void {
    this.#recorder.reset(this.set.routes);
    for (const route of this.set.routes) route.position = 0;
    this.set.scenarios.reset();
    this.set.scenarios.resetCounts();
    this.#shared.publish({ op: "reset" });
  }

  /**
   * Moves scenario `name` to `state` (in `scope`), on every replica when state is shared.
   * @ignore
   */
  setScenarioState(name: string, state: string, scope: string | null = null): SetStateResult {
    const result = this.set.scenarios.set(name, state, scope);
    if (result === "ok") this.#shared.publish({ op: "scenario", name, state, scope });
    return result;
  }

  /** Every scenario back to `Started`, on every replica when state is shared. */
  resetScenarios(): void {
    this.set.scenarios.reset();
    this.#shared.publish({ op: "resetScenarios" });
  }

  /**
   * Shares this registry's runtime changes through `state` (`serve --state`); config stubs stay this replica's own.
   * @ignore
   */
  share(state: SharedState): void {
    this.#shared = state;
    this.#recorder.tell = state.unmatched;
  }

  /**
   * What this registry shares its changes through ({@link LOCAL_STATE} in a single process).
   * @ignore
   */
  get shared(): SharedState {
    return this.#shared;
  }

  /**
   * Applies a change another replica published (not published again: the link knows it is applying).
   * Returns the problem when the change could not be applied here.
   * @ignore
   */
  applyShared(op: Exclude<StateOp, { op: "reset" }>): string | undefined {
    switch (op.op) {
      case "add": {
        const { stubs, problems } = fromWire(op.stubs);
        if (!stubs) return problems.join("; ");
        const result = this.set.add(stubs, op.source, true);
        return result.routes ? undefined : batchError(stubs, result.problems).message;
      }
      case "replace": {
        const { stubs, problems } = fromWire([op.stub]);
        if (!stubs) return problems.join("; ");
        return this.replaceStub(op.id, stubs[0]).route ? undefined : `no stub ${op.id} to replace`;
      }
      case "remove":
        this.remove(...op.ids);
        return undefined;
      case "resetStubs":
        this.resetStubs();
        return undefined;
      case "scenario": {
        const result = this.setScenarioState(op.name, op.state, op.scope);
        return result === "ok" ? undefined : `scenario ${op.name}: ${result}`;
      }
      case "resetScenarios":
        this.resetScenarios();
        return undefined;
    }
  }

  /** Publishes an added batch: the stubs that can travel; a `[WARN]` for each that cannot. */
  #published(routes: readonly Route[], source: StubSource): void {
    const shared: Record<string, unknown>[] = [];
    for (const route of routes) {
      const why = unshareable(route);
      if (why) this.#shared.warn(`[WARN] stub ${route.id} stays on this replica: ${why}`);
      else shared.push(toWire(route));
    }
    if (shared.length) this.#shared.publish({ op: "add", source, stubs: shared });
  }

  /** Every scenario's state, one entry per scope that has left `Started`. */
  scenarioStates(scope?: string): ScenarioEntry[] {
    return this.set.scenarios.list(scope);
  }

  /** Why `setScenarioState` refused `name` / `state`, naming a close one when there is one. */
  scenarioRefusal(name: string, state: string): string | undefined {
    return this.set.scenarios.refusal(name, state);
  }
}
