/**
 * Scenario fields of a stub (`scenario`, `when_state`, `set_state`) as plain data, and the
 * checks `validate` runs on them: each field's shape, and a `when_state` that no flow from
 * `Started` ever reaches (the stub could never answer).
 * @module
 */

import { describe } from "./checks.ts";
import { didYouMean } from "../util/hint.ts";

/** The state every scenario starts in, and returns to on reset. */
export const STARTED = "Started";

/** A stub's place in a scenario: the state it waits for and the state it moves the scenario to. */
export interface ScenarioStep {
  scenario: string;
  /** Answer only while the scenario is in this state; absent: in any state. */
  whenState?: string;
  /** Move the scenario here after answering; absent: the state stays. */
  setState?: string;
}

/** A `when_state` nothing reaches: the stub's index, its scenario and state, and a one-line message. */
export interface UnreachableState {
  stubIndex: number;
  scenario: string;
  state: string;
  /** `when_state 'paid' of scenario 'cart' is never reached: …` with the fix. */
  message: string;
}

const NAME_LIMIT = 200;
// deno-lint-ignore no-control-regex -- control characters are what must be caught
const CONTROL = /[\x00-\x1f\x7f]/;

/** A scenario or state name: 1–200 characters, no control characters; a problem, or undefined. */
function checkName(value: unknown, field: string): string | undefined {
  if (typeof value === "string" && value.length >= 1 && value.length <= NAME_LIMIT && !CONTROL.test(value)) {
    return undefined;
  }
  return `${field} must be a name of 1 to ${NAME_LIMIT} characters without control characters, got ${describe(value)}`;
}

/**
 * Checks a raw stub's `scenario`, `when_state` and `set_state` (config-file names). Returns
 * the step (undefined when the stub has no scenario) and every problem, phrased like the
 * rest of the validator's messages.
 *
 * @example
 * ```ts
 * import { checkScenarioFields } from "./scenario_flow.ts";
 * console.log(checkScenarioFields({ when_state: "paid" }).errors);
 * // [ "when_state needs scenario: name the scenario this state belongs to (scenario: NAME)" ]
 * ```
 */
export function checkScenarioFields(
  raw: { scenario?: unknown; when_state?: unknown; set_state?: unknown },
): { step?: ScenarioStep; errors: string[] } {
  const errors: string[] = [];
  for (const field of ["scenario", "when_state", "set_state"] as const) {
    if (raw[field] === undefined) continue;
    const problem = checkName(raw[field], field);
    if (problem) errors.push(problem);
  }
  if (raw.scenario === undefined) {
    for (const field of ["when_state", "set_state"] as const) {
      if (raw[field] !== undefined) {
        errors.push(`${field} needs scenario: name the scenario this state belongs to (scenario: NAME)`);
      }
    }
    return { errors };
  }
  if (raw.when_state === undefined && raw.set_state === undefined) {
    errors.push("scenario needs when_state, set_state or both: the state this stub waits for or moves to");
  }
  if (errors.length) return { errors };
  const step: ScenarioStep = { scenario: raw.scenario as string };
  if (raw.when_state !== undefined) step.whenState = raw.when_state as string;
  if (raw.set_state !== undefined) step.setState = raw.set_state as string;
  return { step, errors };
}

/**
 * Every `when_state` that no flow from `Started` reaches, in stub order. `steps[i]` is stub
 * i's step (undefined for a stub outside any scenario). A state is reached when it is
 * `Started`, or when a stub sets it while waiting for a reached state or for no state (a
 * stub without `when_state` answers in any state, as in WireMock).
 *
 * @example
 * ```ts
 * import { unreachableStates } from "./scenario_flow.ts";
 * const found = unreachableStates([
 *   { scenario: "cart", whenState: "Started", setState: "has-item" },
 *   { scenario: "cart", whenState: "has-itme" },
 * ]);
 * console.log(found[0].message);
 * // "when_state 'has-itme' of scenario 'cart' is never reached: no stub sets it (did you mean 'has-item'?)"
 * ```
 */
export function unreachableStates(steps: readonly (ScenarioStep | undefined | null)[]): UnreachableState[] {
  const byScenario = new Map<string, ScenarioStep[]>();
  for (const step of steps) {
    if (!step) continue;
    const list = byScenario.get(step.scenario);
    if (list) list.push(step);
    else byScenario.set(step.scenario, [step]);
  }
  const reached = new Map<string, Set<string>>();
  for (const [scenario, list] of byScenario) {
    const states = new Set([STARTED]);
    for (let grew = true; grew;) {
      grew = false;
      for (const step of list) {
        if (step.setState === undefined || states.has(step.setState)) continue;
        if (step.whenState === undefined || states.has(step.whenState)) {
          states.add(step.setState);
          grew = true;
        }
      }
    }
    reached.set(scenario, states);
  }
  const found: UnreachableState[] = [];
  steps.forEach((step, stubIndex) => {
    if (!step || step.whenState === undefined) return;
    const { scenario, whenState: state } = step;
    if (reached.get(scenario)!.has(state)) return;
    const list = byScenario.get(scenario)!;
    const set = list.some((other) => other.setState === state);
    let message = `when_state '${state}' of scenario '${scenario}' is never reached: `;
    if (set) {
      message += "the stubs that set it wait for states that are never reached themselves; " +
        "give one of them a when_state the flow reaches";
    } else {
      const known = [STARTED, ...list.flatMap((other) => other.setState === undefined ? [] : [other.setState])];
      // didYouMean reads `-` in the name as `_` (field names); states keep theirs.
      const byKey = new Map(known.map((name) => [name.replaceAll("-", "_"), name]));
      const hint = byKey.get(didYouMean(state, [...byKey.keys()]) ?? "");
      message += hint
        ? `no stub sets it (did you mean '${hint}'?)`
        : `no stub sets it; add set_state: ${state} to a stub`;
    }
    found.push({ stubIndex, scenario, state, message });
  });
  return found;
}
