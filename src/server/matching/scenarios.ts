/**
 * Live scenario states of a running server: which state each scenario is in, per scope
 * (each `x-stubtool-scope` value has its own states; requests without one share a set), and
 * how often each declared transition was taken (the coverage of flows).
 *
 * Built from plain data: one {@link DeclaredStep} per stub in a scenario. The matcher asks
 * {@link ScenarioStates.holds} whether a stub's `when_state` holds (a Map lookup, nothing
 * allocated); once a stub is chosen to answer, the handler calls {@link ScenarioStates.advance}.
 *
 * What WireMock 3.13.2 does, observed by running it, and what this does:
 * - A stub with `newScenarioState` moves the scenario when it is chosen, before its
 *   `fixedDelayMilliseconds` runs (a second request during the delay already sees the new
 *   state) and also when its answer is a `fault`. So the handler should call `advance` as
 *   soon as the stub is chosen, not after the bytes went out. A stub without
 *   `requiredScenarioState` answers, and moves the scenario, in any state; same here (its
 *   transitions list `from: "*"`).
 * - `PUT /__admin/scenarios/{name}/state` with a state no mapping names answers 422 ("Scenario
 *   cart does not support state nowhere"), even for `Started` when no mapping names it; an
 *   unknown scenario 404; an empty body puts the scenario back in `Started`. Here
 *   {@link ScenarioStates.set} refuses an undeclared state too, but always takes `Started`;
 *   the WireMock layer can refuse it by checking `states` itself.
 * - `GET /__admin/scenarios` lists `{id, name, state, possibleStates, mappings}`, `id` equal to
 *   the name, `possibleStates` every required and new state its mappings name (`Started`
 *   only when one names it), both lists in hash order. Here `states` holds the same set in
 *   declaration order.
 * - `POST /__admin/scenarios/reset` answers 200 `{}` and puts every scenario in `Started`.
 * - Adding a mapping keeps its scenario's state; removing the one that set the current state
 *   keeps the state; a scenario whose last mapping goes is forgotten, and starts in `Started`
 *   when a mapping brings it back. Same here ({@link ScenarioStates.update}).
 * @module
 */

import type { ReportScenario } from "../../report/types.ts";
import { didYouMean } from "../../util/hint.ts";
import { type ScenarioStep, STARTED } from "../../stubs/scenario_flow.ts";
import { usableScope } from "../scope.ts";
import type { Condition } from "./router.ts";

export { STARTED } from "../../stubs/scenario_flow.ts";

/** Most scopes whose scenario states are kept; moving one more drops the one least recently moved. */
export const MAX_SCENARIO_SCOPES = 1000;

/** A stub's scenario step, with the stub's id (ids are unique among the declared stubs). */
export interface DeclaredStep extends ScenarioStep {
  id: string;
}

/** One scenario's state: unscoped, or in one scope (`scope` set). */
export interface ScenarioEntry {
  /** The scenario's name. */
  name: string;
  /** The state it is in now. */
  state: string;
  /** Every state the scenario's stubs name (`when_state`, `set_state`), in declaration order. */
  states: string[];
  /** The `x-stubtool-scope` this state belongs to; absent for the unscoped state. */
  scope?: string;
}

/** A declared transition and how often it was taken. */
export interface ScenarioTransition {
  scenario: string;
  /** The stub's `when_state`, or `*` for a stub that answers in any state. */
  from: string;
  to: string;
  /** The id of the stub that takes it. */
  stub: string;
  taken: number;
}

/** What {@link ScenarioStates.set} did. */
export type SetStateResult = "ok" | "unknown scenario" | "unknown state";

interface Scenario {
  states: string[];
  /** The scenario's stubs that set a state, in declaration order. */
  moves: Move[];
}

interface Move {
  id: string;
  scenario: string;
  from: string;
  to: string;
  /** Identifies the transition across updates: a stub that changes its states starts from 0. */
  key: string;
}

/** One scope's states (only scenarios not in `Started`) and the transitions it took. */
interface ScopeState {
  states: Map<string, string>;
  taken: Map<string, number>;
}

/**
 * Scenario states per scope and transition counts, for the declared stubs.
 *
 * @example
 * ```ts
 * import { ScenarioStates } from "./scenarios.ts";
 * const states = new ScenarioStates([
 *   { id: "add", scenario: "cart", whenState: "Started", setState: "has-item" },
 *   { id: "show", scenario: "cart", whenState: "has-item" },
 * ]);
 * console.log(states.holds("cart", "has-item", null)); // false
 * states.advance("add", null);
 * console.log(states.holds("cart", "has-item", null)); // true
 * console.log(states.holds("cart", "has-item", "worker-2")); // false: each scope has its own states
 * ```
 */
export class ScenarioStates {
  #scenarios = new Map<string, Scenario>();
  #moves = new Map<string, Move>();
  /** Unscoped states of scenarios not in `Started`. */
  #unscoped = new Map<string, string>();
  /** Transitions taken, in every scope together, by {@link Move.key}. */
  #taken = new Map<string, number>();
  /** Scopes by name, least recently moved first (a Map keeps insertion order). */
  #scopes = new Map<string, ScopeState>();
  /** Scopes dropped past {@link MAX_SCENARIO_SCOPES} since start or {@link ScenarioStates.reset}: their scenarios are in `Started` again. */
  #dropped = 0;

  constructor(declared: readonly DeclaredStep[] = []) {
    this.update(declared);
  }

  /**
   * Takes the declared stubs anew (stubs added, removed or changed). Scenarios that still
   * exist keep their state in every scope, even one no stub names any more; the states of
   * scenarios that are gone are forgotten. Transitions keep their counts while the same stub
   * still takes them.
   */
  update(declared: readonly DeclaredStep[]): void {
    const scenarios = new Map<string, Scenario>();
    const moves = new Map<string, Move>();
    for (const step of declared) {
      let scenario = scenarios.get(step.scenario);
      if (!scenario) scenarios.set(step.scenario, scenario = { states: [], moves: [] });
      for (const state of [step.whenState, step.setState]) {
        if (state !== undefined && !scenario.states.includes(state)) scenario.states.push(state);
      }
      if (step.setState === undefined) continue;
      const from = step.whenState ?? "*";
      const move: Move = {
        id: step.id,
        scenario: step.scenario,
        from,
        to: step.setState,
        key: JSON.stringify([step.id, step.scenario, from, step.setState]),
      };
      scenario.moves.push(move);
      moves.set(step.id, move);
    }
    this.#scenarios = scenarios;
    this.#moves = moves;
    const keys = new Set<string>();
    for (const move of moves.values()) keys.add(move.key);
    const prune = (states: Map<string, string>, taken: Map<string, number>) => {
      for (const name of states.keys()) if (!scenarios.has(name)) states.delete(name);
      for (const key of taken.keys()) if (!keys.has(key)) taken.delete(key);
    };
    prune(this.#unscoped, this.#taken);
    for (const scope of this.#scopes.values()) prune(scope.states, scope.taken);
  }

  /**
   * Is `scenario` in `whenState` for a request of `scope` (null or undefined: unscoped)?
   * A scope never moved is in `Started` everywhere. Called while matching: one or two Map
   * lookups.
   */
  holds(scenario: string, whenState: string, scope: string | null | undefined): boolean {
    const states = usableScope(scope) ? this.#scopes.get(scope)?.states : this.#unscoped;
    return (states?.get(scenario) ?? STARTED) === whenState;
  }

  /**
   * Once stub `stubId` is chosen to answer a request of `scope`: moves its scenario to the stub's
   * `set_state` and counts the transition (in the scope, and in the total). A stub that sets
   * no state changes nothing.
   */
  advance(stubId: string, scope: string | null | undefined): void {
    const move = this.#moves.get(stubId);
    if (!move) return;
    this.#taken.set(move.key, (this.#taken.get(move.key) ?? 0) + 1);
    if (!usableScope(scope)) {
      this.#put(this.#unscoped, move.scenario, move.to);
      return;
    }
    const state = this.#scope(scope);
    state.taken.set(move.key, (state.taken.get(move.key) ?? 0) + 1);
    this.#put(state.states, move.scenario, move.to);
  }

  /**
   * Counts `count` transitions stub `stubId` took on another replica (`serve --state`), in
   * `scope` too; the state itself travels apart.
   */
  countTaken(stubId: string, scope: string | null, count: number): void {
    const move = this.#moves.get(stubId);
    if (!move) return;
    this.#taken.set(move.key, (this.#taken.get(move.key) ?? 0) + count);
    if (!usableScope(scope)) return;
    const taken = this.#scopes.get(scope)?.taken ?? this.#scope(scope).taken;
    taken.set(move.key, (taken.get(move.key) ?? 0) + count);
  }

  /** A scope's states, made on first use; it becomes the most recently moved, and past the bound the least recent goes. */
  #scope(name: string): ScopeState {
    let state = this.#scopes.get(name);
    if (state) this.#scopes.delete(name);
    else {
      if (this.#scopes.size >= MAX_SCENARIO_SCOPES) {
        this.#scopes.delete(this.#scopes.keys().next().value!);
        this.#dropped++;
      }
      state = { states: new Map(), taken: new Map() };
    }
    this.#scopes.set(name, state);
    return state;
  }

  #put(states: Map<string, string>, scenario: string, state: string): void {
    if (state === STARTED) states.delete(scenario);
    else states.set(scenario, state);
  }

  /** The state of `name` (in `scope`, when given); undefined for an unknown scenario. */
  state(name: string, scope?: string | null): string | undefined {
    if (!this.#scenarios.has(name)) return undefined;
    const states = usableScope(scope) ? this.#scopes.get(scope)?.states : this.#unscoped;
    return states?.get(name) ?? STARTED;
  }

  /** One scenario's entry: unscoped, or as `scope` sees it (with `scope`); undefined for an unknown scenario. */
  entry(name: string, scope?: string | null): ScenarioEntry | undefined {
    const scenario = this.#scenarios.get(name);
    if (!scenario) return undefined;
    const state = this.state(name, scope)!;
    return { name, state, states: [...scenario.states], ...(usableScope(scope) ? { scope } : {}) };
  }

  /**
   * How many scopes' states were dropped to keep {@link MAX_SCENARIO_SCOPES} (their scenarios
   * answer from `Started` again), since start or the last reset.
   */
  get droppedScopes(): number {
    return this.#dropped;
  }

  /** Whether a stub names this scenario. */
  has(name: string): boolean {
    return this.#scenarios.has(name);
  }

  /**
   * With `scope`: every scenario as that scope sees it (in `Started` where the scope never moved
   * it), each entry with `scope`. Without: every scenario's unscoped state, in the order the stubs name them; then, for each kept
   * scope (least recently moved first), one entry per scenario that scope holds in a state
   * other than `Started` (a scenario a scope does not list is in `Started` there).
   */
  list(scope?: string): ScenarioEntry[] {
    if (usableScope(scope)) return [...this.#scenarios.keys()].map((name) => this.entry(name, scope)!);
    const out: ScenarioEntry[] = [];
    for (const [name, scenario] of this.#scenarios) {
      out.push({ name, state: this.#unscoped.get(name) ?? STARTED, states: [...scenario.states] });
    }
    for (const [scope, { states }] of this.#scopes) {
      for (const [name, state] of states) {
        out.push({ name, state, states: [...this.#scenarios.get(name)!.states], scope });
      }
    }
    return out;
  }

  /**
   * Puts scenario `name` in `state` (in `scope`, when given). `Started` is always taken;
   * another state only when a stub names it.
   */
  set(name: string, state: string, scope?: string | null): SetStateResult {
    const scenario = this.#scenarios.get(name);
    if (!scenario) return "unknown scenario";
    if (state !== STARTED && !scenario.states.includes(state)) return "unknown state";
    if (!usableScope(scope)) this.#put(this.#unscoped, name, state);
    else if (state !== STARTED || this.#scopes.has(scope)) this.#put(this.#scope(scope).states, name, state);
    return "ok";
  }

  /** The states {@link set} takes for scenario `name`: `Started`, then every state its stubs name. */
  settable(name: string): string[] {
    const declared = this.#scenarios.get(name)?.states ?? [];
    return declared.includes(STARTED) ? [...declared] : [STARTED, ...declared];
  }

  /**
   * Why {@link set} refuses `name` and `state`, in one line that names the close name when one is
   * (`no scenario is named 'kart' (did you mean 'cart'?)`, `scenario 'cart' has no state 'Paid'
   * (did you mean 'paid'? its states: Started, paid)`); undefined when it takes them.
   */
  refusal(name: string, state: string): string | undefined {
    if (!this.#scenarios.has(name)) {
      const hint = didYouMean(name, [...this.#scenarios.keys()]);
      return `no scenario is named '${name}'${hint ? ` (did you mean '${hint}'?)` : ""}`;
    }
    const states = this.settable(name);
    if (states.includes(state)) return undefined;
    const hint = didYouMean(state, states);
    return `scenario '${name}' has no state '${state}' (${hint ? `did you mean '${hint}'? ` : ""}its states: ${
      states.join(", ")
    })`;
  }

  /** Puts every scenario back in `Started`, unscoped and in every scope. Transition counts stay. */
  reset(): void {
    this.#dropped = 0;
    this.#unscoped.clear();
    for (const scope of this.#scopes.values()) scope.states.clear();
  }

  /** Zeroes every transition count, in total and in every scope. States stay. */
  resetCounts(): void {
    this.#taken.clear();
    for (const scope of this.#scopes.values()) scope.taken.clear();
  }

  /**
   * Every declared transition, grouped by scenario in the order the stubs name them, with
   * how often it was taken: in total, or in `scope` only (an unknown scope took none).
   */
  transitions(scope?: string): ScenarioTransition[] {
    const taken = scope === undefined ? this.#taken : this.#scopes.get(scope)?.taken;
    const out: ScenarioTransition[] = [];
    for (const scenario of this.#scenarios.values()) {
      for (const move of scenario.moves) {
        out.push({
          scenario: move.scenario,
          from: move.from,
          to: move.to,
          stub: move.id,
          taken: taken?.get(move.key) ?? 0,
        });
      }
    }
    return out;
  }

  /**
   * The report's flow coverage: every scenario in the order the stubs name them, each with
   * its declared transitions and how often they were taken (in total, or in `scope` only).
   */
  coverage(scope?: string): ReportScenario[] {
    const taken = scope === undefined ? this.#taken : this.#scopes.get(scope)?.taken;
    return [...this.#scenarios].map(([name, scenario]) => ({
      name,
      transitions: scenario.moves.map((move) => ({
        from: move.from,
        to: move.to,
        stub: move.id,
        taken: taken?.get(move.key) ?? 0,
      })),
    }));
  }
}

const NO_LITERALS: Condition["literals"] = [];

/**
 * The router's condition for a stub with `when_state`: it holds while `scenario` is in
 * `whenState` for the request's scope, and counts as one condition in precedence.
 */
export function scenarioCondition(
  states: ScenarioStates,
  scenario: string,
  whenState: string,
): Condition & { readonly names: readonly string[] } {
  return {
    weight: 1,
    needsBody: false,
    literals: NO_LITERALS,
    names: [],
    test: (view) => states.holds(scenario, whenState, view.scope),
    reason: (view) =>
      `scenario '${scenario}' is in state '${
        states.state(scenario, view.scope) ?? STARTED
      }', stub wants '${whenState}'`,
  };
}
