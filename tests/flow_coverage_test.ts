// Flow coverage in the report: every declared scenario transition with how often it was
// taken, over real HTTP on both adapters (GET /__stubtool__/report, server.report(), scoped
// reports, reset, the dashboard), and ScenarioStates.coverage itself.
import assert from "node:assert/strict";
import { del, get, post, type StubServer } from "../mod.ts";
import { ScenarioStates } from "../src/server/matching/scenarios.ts";
import { send, serverTest } from "./_http.ts";

/** A 3-state checkout flow, a transition nobody takes, and a stub that only waits for a state. */
function checkout(server: StubServer): void {
  server.routes(
    post("/cart/items").id("add-item").inScenario("checkout").whenState("Started").setState("has-items").status(201),
    post("/cart/pay").id("pay").inScenario("checkout").whenState("has-items").setState("paid").status(200),
    del("/cart").id("clear").inScenario("checkout").whenState("paid").setState("Started").status(204),
    del("/cart/items").id("abandon").inScenario("checkout").whenState("has-items").setState("Started").status(204),
    get("/cart/receipt").id("receipt").inScenario("checkout").whenState("paid").body({ paid: true }),
    get("/health").id("health").body({ ok: true }),
  );
}

const TRANSITIONS = (add: number, pay: number, clear: number) => [
  {
    name: "checkout",
    transitions: [
      { from: "Started", to: "has-items", stub: "add-item", taken: add },
      { from: "has-items", to: "paid", stub: "pay", taken: pay },
      { from: "paid", to: "Started", stub: "clear", taken: clear },
      { from: "has-items", to: "Started", stub: "abandon", taken: 0 },
    ],
  },
];

/** Walks the flow once around and into it again: add, pay, receipt, clear, add; one request out of order. */
async function walk(server: StubServer, headers: Record<string, string> = {}): Promise<void> {
  const steps: [string, string, number][] = [
    ["POST", "/cart/items", 201],
    ["POST", "/cart/items", 404], // has-items: adding again matches nothing
    ["POST", "/cart/pay", 200],
    ["GET", "/cart/receipt", 200],
    ["DELETE", "/cart", 204],
    ["POST", "/cart/items", 201],
  ];
  for (const [method, path, status] of steps) {
    assert.equal((await send(server, method, path, { headers })).status, status, `${method} ${path}`);
  }
}

serverTest(
  "report: a walked 3-state flow lists every declared transition with how often it was taken",
  async (server) => {
    checkout(server);
    await walk(server);
    const answer = await send(server, "GET", "/__stubtool__/report");
    assert.equal(answer.status, 200);
    assert.deepEqual(Object.keys(answer.json), ["summary", "stubs", "unused_stubs", "unmatched_requests", "scenarios"]);
    assert.deepEqual(answer.json.scenarios, TRANSITIONS(2, 1, 1));
    assert.deepEqual(answer.json.summary, { total_stubs: 6, matched_stubs: 4, unmatched_requests: 1 });
    assert.deepEqual((await server.report()).scenarios, TRANSITIONS(2, 1, 1));
  },
);

serverTest("report: without scenarios the report keeps exactly its four top-level keys", async (server) => {
  server.routes(get("/health").body({ ok: true }));
  await send(server, "GET", "/health");
  const answer = await send(server, "GET", "/__stubtool__/report");
  assert.deepEqual(Object.keys(answer.json), ["summary", "stubs", "unused_stubs", "unmatched_requests"]);
  assert.deepEqual(Object.keys(await server.report()), ["summary", "stubs", "unused_stubs", "unmatched_requests"]);
});

serverTest("report: declared transitions are listed before any is taken, all at 0", async (server) => {
  checkout(server);
  assert.deepEqual((await send(server, "GET", "/__stubtool__/report")).json.scenarios, TRANSITIONS(0, 0, 0));
});

serverTest("reset zeroes the transition counts and puts the flow back in Started", async (server) => {
  checkout(server);
  await walk(server);
  assert.equal((await send(server, "POST", "/__stubtool__/reset")).status, 204);
  assert.deepEqual((await send(server, "GET", "/__stubtool__/report")).json.scenarios, TRANSITIONS(0, 0, 0));
  // Back in Started: the first step answers again, and counts from 0.
  assert.equal((await send(server, "POST", "/cart/items")).status, 201);
  assert.deepEqual((await server.report()).scenarios, TRANSITIONS(1, 0, 0));
});

serverTest("scoped report: only the transitions taken in that scope count", async (server) => {
  checkout(server);
  await walk(server, { "x-stubtool-scope": "a_test.ts" });
  // Another scope walks its own flow (its own states) up to paying.
  await send(server, "POST", "/cart/items", { headers: { "x-stubtool-scope": "b_test.ts" } });
  await send(server, "POST", "/cart/pay", { headers: { "x-stubtool-scope": "b_test.ts" } });
  const scoped = (scope: string) => send(server, "GET", `/__stubtool__/report?scope=${scope}`);
  assert.deepEqual((await scoped("a_test.ts")).json.scenarios, TRANSITIONS(2, 1, 1));
  assert.deepEqual((await scoped("b_test.ts")).json.scenarios, TRANSITIONS(1, 1, 0));
  assert.deepEqual((await scoped("nobody")).json.scenarios, TRANSITIONS(0, 0, 0));
  assert.deepEqual((await server.report({ scope: "b_test.ts" })).scenarios, TRANSITIONS(1, 1, 0));
  assert.deepEqual((await server.report()).scenarios, TRANSITIONS(3, 2, 1));
}, { scopes: true });

serverTest("a transition taken changes the report's ETag, so a cached report is never stale", async (server) => {
  checkout(server);
  const before = await send(server, "GET", "/__stubtool__/report");
  await send(server, "POST", "/cart/items");
  const after = await send(server, "GET", "/__stubtool__/report", {
    headers: { "if-none-match": before.headers.get("etag")! },
  });
  assert.equal(after.status, 200);
  assert.deepEqual(after.json.scenarios, TRANSITIONS(1, 0, 0));
});

serverTest("GET /__stubtool__/ shows the Scenarios section with the counts", async (server) => {
  checkout(server);
  await walk(server);
  const page = await send(server, "GET", "/__stubtool__/");
  assert.match(
    page.text,
    /<caption id="scenarios-table-caption">4 declared transitions of 1 scenario; 1 transition never taken is highlighted<\/caption>/,
  );
  assert.match(
    page.text,
    /<tr class="unused"><th scope="row">checkout<\/th><td><code>has-items<\/code> → <code>Started<\/code><\/td><td><code>abandon<\/code><\/td><td class="num hits-0">0 <span class="tag">never taken<\/span><\/td><\/tr>/,
  );
});

Deno.test("ScenarioStates.coverage: every scenario in declaration order, even one whose stubs set no state", () => {
  const states = new ScenarioStates([
    { id: "add", scenario: "cart", whenState: "Started", setState: "full" },
    { id: "banner", scenario: "promo", whenState: "Started" },
    { id: "any", scenario: "cart", setState: "Started" },
  ]);
  states.advance("add", null);
  states.advance("any", "w1");
  assert.deepEqual(states.coverage(), [
    {
      name: "cart",
      transitions: [
        { from: "Started", to: "full", stub: "add", taken: 1 },
        { from: "*", to: "Started", stub: "any", taken: 1 },
      ],
    },
    { name: "promo", transitions: [] },
  ]);
  assert.deepEqual(states.coverage("w1")[0].transitions.map((t) => t.taken), [0, 1]);
  assert.deepEqual(new ScenarioStates().coverage(), []);
});
