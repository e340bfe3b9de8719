/**
 * What a scenario loses when some of its mappings are left out: the states its other
 * mappings can no longer reach, and the mappings that need those states (they will never
 * answer). WireMock's rules: every scenario starts in `Started`; a mapping with
 * `requiredScenarioState` answers only in that state (without one, in any state); a mapping
 * with `newScenarioState` moves the scenario there when it answers.
 * @module
 */

import { isObject } from "../../util/json_shape.ts";

/** One mapping of a folder, kept or left out, with where it is (`FILE mappings[i]`). */
export interface PlacedMapping {
  place: string;
  mapping: unknown;
}

/** One warning: placed at a mapping left out, saying what its scenario can no longer do. */
export interface ScenarioLoss {
  place: string;
  message: string;
}

interface Step {
  place: string;
  scenario: string;
  from: string | undefined;
  to: string | undefined;
}

function stepOf({ place, mapping }: PlacedMapping): Step | undefined {
  if (!isObject(mapping) || typeof mapping.scenarioName !== "string") return undefined;
  const state = (value: unknown) => typeof value === "string" ? value : undefined;
  return {
    place,
    scenario: mapping.scenarioName,
    from: state(mapping.requiredScenarioState),
    to: state(mapping.newScenarioState),
  };
}

/** The states reachable from `Started` through `steps`. */
function reachable(steps: readonly Step[]): Set<string> {
  const states = new Set(["Started"]);
  for (let grew = true; grew;) {
    grew = false;
    for (const step of steps) {
      if (step.to === undefined || states.has(step.to)) continue;
      if (step.from === undefined || states.has(step.from)) {
        states.add(step.to);
        grew = true;
      }
    }
  }
  return states;
}

/**
 * For each scenario that lost mappings: one warning per left-out mapping whose leaving makes
 * a state unreachable, naming the state and the kept mappings that need it.
 *
 * @example
 * ```ts
 * import { scenarioLosses } from "./scenario_reach.ts";
 * const losses = scenarioLosses(
 *   [{ place: "b.json mappings[0]", mapping: { scenarioName: "s", requiredScenarioState: "two" } }],
 *   [{ place: "a.json mappings[0]", mapping: { scenarioName: "s", newScenarioState: "two" } }],
 * );
 * console.log(losses[0].message);
 * // scenario 's' can no longer reach state 'two' with this mapping left out: b.json mappings[0] will never answer
 * ```
 */
export function scenarioLosses(kept: readonly PlacedMapping[], refused: readonly PlacedMapping[]): ScenarioLoss[] {
  const keptSteps = kept.map(stepOf).filter((s): s is Step => s !== undefined);
  const refusedSteps = refused.map(stepOf).filter((s): s is Step => s !== undefined);
  const losses: ScenarioLoss[] = [];
  for (const scenario of new Set(refusedSteps.map((s) => s.scenario))) {
    const mine = keptSteps.filter((s) => s.scenario === scenario);
    const gone = refusedSteps.filter((s) => s.scenario === scenario);
    const before = reachable([...mine, ...gone]);
    const after = reachable(mine);
    const lost = [...before].filter((state) => !after.has(state));
    if (lost.length === 0) continue;
    const states = `state${lost.length === 1 ? "" : "s"} ${lost.map((s) => `'${s}'`).join(", ")}`;
    const needing = mine.filter((s) => s.from !== undefined && lost.includes(s.from)).map((s) => s.place);
    // Each left-out mapping that led to a lost state says so.
    for (const step of gone) {
      if (step.to === undefined || !lost.includes(step.to)) continue;
      losses.push({
        place: step.place,
        message: `scenario '${scenario}' can no longer reach ${states} with this mapping left out` +
          (needing.length ? `: ${needing.join(", ")} will never answer` : ""),
      });
    }
  }
  return losses;
}
