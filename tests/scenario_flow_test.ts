import assert from "node:assert/strict";
import { checkScenarioFields, unreachableStates } from "../src/stubs/scenario_flow.ts";

Deno.test("checkScenarioFields: a stub may set a state, wait for one, or both", () => {
  assert.deepEqual(checkScenarioFields({}), { errors: [] });
  assert.deepEqual(checkScenarioFields({ scenario: "cart", set_state: "has-item" }), {
    step: { scenario: "cart", setState: "has-item" },
    errors: [],
  });
  assert.deepEqual(checkScenarioFields({ scenario: "cart", when_state: "has-item" }), {
    step: { scenario: "cart", whenState: "has-item" },
    errors: [],
  });
  assert.deepEqual(checkScenarioFields({ scenario: "cart", when_state: "Started", set_state: "paid" }), {
    step: { scenario: "cart", whenState: "Started", setState: "paid" },
    errors: [],
  });
});

Deno.test("checkScenarioFields: a state without a scenario, a scenario without states, and bad names", () => {
  assert.deepEqual(checkScenarioFields({ when_state: "paid", set_state: "done" }).errors, [
    "when_state needs scenario: name the scenario this state belongs to (scenario: NAME)",
    "set_state needs scenario: name the scenario this state belongs to (scenario: NAME)",
  ]);
  assert.deepEqual(checkScenarioFields({ scenario: "cart" }).errors, [
    "scenario needs when_state, set_state or both: the state this stub waits for or moves to",
  ]);
  assert.deepEqual(checkScenarioFields({ scenario: "", when_state: 3, set_state: "a\nb" }).errors, [
    'scenario must be a name of 1 to 200 characters without control characters, got ""',
    "when_state must be a name of 1 to 200 characters without control characters, got 3",
    'set_state must be a name of 1 to 200 characters without control characters, got "a\\nb"',
  ]);
  assert.equal(checkScenarioFields({ scenario: "x".repeat(201), set_state: "a" }).errors.length, 1);
});

Deno.test("unreachableStates: a when_state no stub sets, with the closest set_state as a hint", () => {
  assert.deepEqual(
    unreachableStates([
      { scenario: "cart", whenState: "Started", setState: "has-item" },
      undefined,
      { scenario: "cart", whenState: "has-itme" },
      { scenario: "cart", whenState: "shipped" },
      { scenario: "other", whenState: "has-item" },
    ]),
    [
      {
        stubIndex: 2,
        scenario: "cart",
        state: "has-itme",
        message:
          "when_state 'has-itme' of scenario 'cart' is never reached: no stub sets it (did you mean 'has-item'?)",
      },
      {
        stubIndex: 3,
        scenario: "cart",
        state: "shipped",
        message:
          "when_state 'shipped' of scenario 'cart' is never reached: no stub sets it; add set_state: shipped to a stub",
      },
      {
        stubIndex: 4,
        scenario: "other",
        state: "has-item",
        message:
          "when_state 'has-item' of scenario 'other' is never reached: no stub sets it; add set_state: has-item to a stub",
      },
    ],
  );
});

Deno.test("unreachableStates: Started is always reached, and a chain of states is followed from it", () => {
  assert.deepEqual(
    unreachableStates([
      { scenario: "order", whenState: "Started" },
      { scenario: "order", whenState: "paid", setState: "shipped" },
      { scenario: "order", whenState: "shipped", setState: "done" },
      { scenario: "order", whenState: "done" },
      // Declared after the stub that waits for it: order does not matter.
      { scenario: "order", whenState: "Started", setState: "paid" },
    ]),
    [],
  );
});

Deno.test("unreachableStates: a stub without when_state sets its state from anywhere", () => {
  assert.deepEqual(
    unreachableStates([
      { scenario: "cart", setState: "cleared" },
      { scenario: "cart", whenState: "cleared" },
    ]),
    [],
  );
});

Deno.test("unreachableStates: states set only by stubs that wait for unreachable states are unreachable too", () => {
  const found = unreachableStates([
    { scenario: "loop", whenState: "a", setState: "b" },
    { scenario: "loop", whenState: "b", setState: "a" },
  ]);
  assert.deepEqual(found.map((f) => [f.stubIndex, f.state]), [[0, "a"], [1, "b"]]);
  assert.equal(
    found[0].message,
    "when_state 'a' of scenario 'loop' is never reached: the stubs that set it wait for states that are never reached themselves; give one of them a when_state the flow reaches",
  );
});
