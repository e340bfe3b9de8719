import assert from "node:assert/strict";
import { type DeclaredStep, MAX_SCENARIO_SCOPES, ScenarioStates, STARTED } from "../src/server/matching/scenarios.ts";
import { MAX_SCOPE_LENGTH } from "../src/util/scope_name.ts";

/** The cart flow of the WireMock session the module's notes come from. */
const CART: DeclaredStep[] = [
  { id: "add", scenario: "cart", whenState: "Started", setState: "has-item" },
  { id: "show-one", scenario: "cart", whenState: "has-item" },
  { id: "show-empty", scenario: "cart", whenState: "Started" },
  { id: "clear", scenario: "cart", setState: "cleared" },
  { id: "other", scenario: "other", whenState: "waiting" },
];

Deno.test("every scenario starts in Started; a stub with set_state moves it when it answers", () => {
  const states = new ScenarioStates(CART);
  assert.equal(STARTED, "Started");
  assert.equal(states.holds("cart", "Started", null), true);
  assert.equal(states.holds("cart", "has-item", null), false);
  states.advance("add", null);
  assert.equal(states.holds("cart", "Started", null), false);
  assert.equal(states.holds("cart", "has-item", null), true);
  assert.equal(states.state("cart"), "has-item");
  // A stub that sets no state changes nothing.
  states.advance("show-one", null);
  assert.equal(states.state("cart"), "has-item");
  assert.equal(states.state("other"), "Started");
  assert.equal(states.state("nope"), undefined);
});

Deno.test("a stub without when_state moves its scenario from any state, and its transition is listed from '*'", () => {
  // WireMock 3: a mapping with newScenarioState and no requiredScenarioState answers in every state.
  const states = new ScenarioStates(CART);
  states.advance("clear", null);
  assert.equal(states.state("cart"), "cleared");
  states.advance("clear", null);
  assert.equal(states.state("cart"), "cleared");
  assert.deepEqual(states.transitions(), [
    { scenario: "cart", from: "Started", to: "has-item", stub: "add", taken: 0 },
    { scenario: "cart", from: "*", to: "cleared", stub: "clear", taken: 2 },
  ]);
});

Deno.test("each scope has its own states; requests without a scope share one set", () => {
  const states = new ScenarioStates(CART);
  states.advance("add", "worker-1");
  assert.equal(states.holds("cart", "has-item", "worker-1"), true);
  assert.equal(states.holds("cart", "has-item", "worker-2"), false);
  assert.equal(states.holds("cart", "Started", "worker-2"), true);
  assert.equal(states.holds("cart", "Started", null), true);
  assert.equal(states.holds("cart", "Started", undefined), true);
  assert.equal(states.state("cart", "worker-1"), "has-item");
  assert.equal(states.state("cart"), "Started");
  states.advance("clear", null);
  assert.equal(states.state("cart", "worker-1"), "has-item");
  assert.equal(states.state("cart", "worker-2"), "Started");
});

Deno.test("an empty or over-long scope counts as no scope, as the recorder takes it", () => {
  const states = new ScenarioStates(CART);
  const long = "s".repeat(MAX_SCOPE_LENGTH + 1);
  states.advance("add", long);
  assert.equal(states.state("cart"), "has-item");
  assert.equal(states.holds("cart", "has-item", long), true);
  assert.equal(states.holds("cart", "has-item", ""), true);
  assert.deepEqual(states.list().filter((entry) => entry.scope !== undefined), []);
});

Deno.test("transitions count in total and per scope; an unknown scope took none", () => {
  const states = new ScenarioStates(CART);
  states.advance("add", "a");
  states.advance("add", "b");
  states.advance("add", null);
  states.advance("clear", "a");
  const counts = (scope?: string) => states.transitions(scope).map((t) => `${t.stub}:${t.taken}`);
  assert.deepEqual(counts(), ["add:3", "clear:1"]);
  assert.deepEqual(counts("a"), ["add:1", "clear:1"]);
  assert.deepEqual(counts("b"), ["add:1", "clear:0"]);
  assert.deepEqual(counts("nobody"), ["add:0", "clear:0"]);
});

Deno.test("list: every scenario unscoped in declaration order, then each scope's scenarios not in Started", () => {
  const states = new ScenarioStates(CART);
  states.advance("add", "w1");
  states.advance("clear", "w2");
  states.advance("add", null);
  // `states` is the set WireMock lists as possibleStates: Started only when a stub names it.
  assert.deepEqual(states.list(), [
    { name: "cart", state: "has-item", states: ["Started", "has-item", "cleared"] },
    { name: "other", state: "Started", states: ["waiting"] },
    { name: "cart", state: "has-item", states: ["Started", "has-item", "cleared"], scope: "w1" },
    { name: "cart", state: "cleared", states: ["Started", "has-item", "cleared"], scope: "w2" },
  ]);
  // A scope back in Started lists nothing.
  assert.equal(states.set("cart", "Started", "w1"), "ok");
  assert.deepEqual(states.list().map((e) => e.scope ?? "-"), ["-", "-", "w2"]);
  // The lists are copies.
  states.list()[0].states.push("mutated");
  assert.deepEqual(states.list()[0].states, ["Started", "has-item", "cleared"]);
});

Deno.test("set: a declared state or Started; an unknown scenario or an undeclared state is refused", () => {
  // WireMock 3.13 answers 404 for the unknown scenario and 422 for the state no mapping names.
  const states = new ScenarioStates(CART);
  assert.equal(states.set("nope", "x"), "unknown scenario");
  assert.equal(states.set("cart", "nowhere"), "unknown state");
  assert.equal(states.state("cart"), "Started");
  assert.equal(states.set("cart", "cleared"), "ok");
  assert.equal(states.state("cart"), "cleared");
  assert.equal(states.set("cart", "has-item", "w1"), "ok");
  assert.equal(states.state("cart", "w1"), "has-item");
  assert.equal(states.state("cart"), "cleared");
  // Started is taken even where no stub names it ("other" only waits for "waiting").
  assert.equal(states.set("other", "waiting"), "ok");
  assert.equal(states.set("other", "Started"), "ok");
  assert.equal(states.state("other"), "Started");
  // Putting an unseen scope in Started keeps no scope.
  assert.equal(states.set("cart", "Started", "unseen"), "ok");
  assert.deepEqual(states.list().map((e) => e.scope ?? "-"), ["-", "-", "w1"]);
  assert.equal(states.has("cart"), true);
  assert.equal(states.has("nope"), false);
});

Deno.test("reset puts every scenario back in Started in every scope and keeps the counts; resetCounts zeroes them", () => {
  const states = new ScenarioStates(CART);
  states.advance("add", null);
  states.advance("add", "w1");
  states.reset();
  assert.equal(states.state("cart"), "Started");
  assert.equal(states.state("cart", "w1"), "Started");
  assert.deepEqual(states.list().map((e) => e.scope ?? "-"), ["-", "-"]);
  assert.deepEqual(states.transitions().map((t) => t.taken), [2, 0]);
  assert.deepEqual(states.transitions("w1").map((t) => t.taken), [1, 0]);
  states.advance("add", "w1");
  states.resetCounts();
  assert.deepEqual(states.transitions().map((t) => t.taken), [0, 0]);
  assert.deepEqual(states.transitions("w1").map((t) => t.taken), [0, 0]);
  assert.equal(states.state("cart", "w1"), "has-item");
});

Deno.test("update keeps the state of scenarios that still exist, even one no stub names any more", () => {
  // WireMock 3: removing the mapping that set the current state keeps the state.
  const states = new ScenarioStates([...CART, {
    id: "pay",
    scenario: "cart",
    whenState: "has-item",
    setState: "paid",
  }]);
  states.advance("add", null);
  states.advance("pay", null);
  states.advance("add", "w1");
  assert.equal(states.state("cart"), "paid");
  states.update(CART);
  assert.equal(states.state("cart"), "paid");
  assert.equal(states.state("cart", "w1"), "has-item");
  assert.deepEqual(states.list()[0].states, ["Started", "has-item", "cleared"]);
  assert.equal(states.set("cart", "paid"), "unknown state");
});

Deno.test("update forgets a scenario whose stubs are gone: brought back, it starts in Started", () => {
  const states = new ScenarioStates(CART);
  states.set("other", "waiting");
  states.set("other", "waiting", "w1");
  const withoutOther = CART.filter((step) => step.scenario !== "other");
  states.update(withoutOther);
  assert.equal(states.has("other"), false);
  assert.equal(states.set("other", "waiting"), "unknown scenario");
  assert.deepEqual(states.list().map((e) => e.name), ["cart"]);
  states.update(CART);
  assert.equal(states.state("other"), "Started");
  assert.equal(states.state("other", "w1"), "Started");
});

Deno.test("update keeps a transition's count while the same stub takes it; a stub whose states change starts from 0", () => {
  const states = new ScenarioStates(CART);
  states.advance("add", null);
  states.advance("clear", "w1");
  states.update([...CART]);
  assert.deepEqual(states.transitions().map((t) => `${t.stub}:${t.taken}`), ["add:1", "clear:1"]);
  const changed = CART.map((step) => step.id === "add" ? { ...step, setState: "cleared" } : step);
  states.update(changed);
  assert.deepEqual(states.transitions().map((t) => `${t.from}>${t.to}:${t.taken}`), [
    "Started>cleared:0",
    "*>cleared:1",
  ]);
  assert.deepEqual(states.transitions("w1").map((t) => t.taken), [0, 1]);
});

Deno.test("at most MAX_SCENARIO_SCOPES scopes are kept: moving one more drops the one least recently moved", () => {
  const states = new ScenarioStates(CART);
  for (let i = 0; i < MAX_SCENARIO_SCOPES; i++) states.advance("add", `s${i}`);
  assert.equal(states.droppedScopes, 0);
  // s0 moves again, so s1 is now the least recently moved.
  states.advance("clear", "s0");
  states.advance("add", "one-more");
  assert.equal(states.droppedScopes, 1);
  const scopes = new Set(states.list().flatMap((e) => e.scope === undefined ? [] : [e.scope]));
  assert.equal(scopes.size, MAX_SCENARIO_SCOPES);
  assert.equal(scopes.has("s1"), false);
  assert.equal(scopes.has("s0"), true);
  assert.equal(scopes.has("one-more"), true);
  assert.equal(states.state("cart", "s1"), "Started");
  assert.equal(states.state("cart", "s0"), "cleared");
  // The total still counts every transition taken.
  assert.deepEqual(states.transitions().map((t) => t.taken), [MAX_SCENARIO_SCOPES + 1, 1]);
  states.reset();
  assert.equal(states.droppedScopes, 0);
});

Deno.test("regression: a misspelt scenario or a state that differs only by case was refused without naming the close one", () => {
  const states = new ScenarioStates(CART);
  assert.equal(states.refusal("kart", "Started"), "no scenario is named 'kart' (did you mean 'cart'?)");
  assert.equal(states.refusal("basket", "Started"), "no scenario is named 'basket'");
  assert.equal(
    states.refusal("cart", "Has-Item"),
    "scenario 'cart' has no state 'Has-Item' (did you mean 'has-item'? its states: Started, has-item, cleared)",
  );
  assert.equal(
    states.refusal("cart", "shipped"),
    "scenario 'cart' has no state 'shipped' (its states: Started, has-item, cleared)",
  );
  assert.equal(states.refusal("cart", "cleared"), undefined);
  assert.equal(states.refusal("other", "Started"), undefined);
  assert.deepEqual(states.settable("other"), ["Started", "waiting"]);
  assert.deepEqual(states.settable("cart"), ["Started", "has-item", "cleared"]);
});
