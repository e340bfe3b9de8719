/**
 * Scenarios (stateful flows) end to end: stubs with `scenario`, `when_state` and `set_state`
 * walked over real HTTP on both adapters, per `x-stubtool-scope`; the
 * `/__stubtool__/scenarios` endpoints with their exact answers; the same stubs written as a
 * config file, an admin API batch, builders and `--stub` mappings; `validate` through the real CLI.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { get, post, type StubServer, stubServer } from "../mod.ts";
import { send, serverTest } from "./_http.ts";
import { runCli, startServe, tempDir } from "./_cli.ts";

/** The cart flow as builders: Started → has-item → paid, and a logout that empties the cart from any state. */
function cartBuilders() {
  return [
    get("/cart").inScenario("cart").whenState("Started").body({ items: [] }),
    post("/cart").inScenario("cart").whenState("Started").setState("has-item").status(201).body({ added: true }),
    get("/cart").inScenario("cart").whenState("has-item").body({ items: ["book"] }),
    post("/checkout").inScenario("cart").whenState("has-item").setState("paid").body({ paid: true }),
    get("/cart").inScenario("cart").whenState("paid").body({ items: [], paid: true }),
    post("/logout").inScenario("cart").setState("Started").status(204),
  ];
}

/** The same flow in config form (a config file, an admin API batch). */
const CART_YAML = `routes:
  - {method: GET, path: /cart, scenario: cart, when_state: Started, body: {items: []}}
  - {method: POST, path: /cart, scenario: cart, when_state: Started, set_state: has-item, status: 201, body: {added: true}}
  - {method: GET, path: /cart, scenario: cart, when_state: has-item, body: {items: [book]}}
  - {method: POST, path: /checkout, scenario: cart, when_state: has-item, set_state: paid, body: {paid: true}}
  - {method: GET, path: /cart, scenario: cart, when_state: paid, body: {items: [], paid: true}}
  - {method: POST, path: /logout, scenario: cart, set_state: Started, status: 204}
`;

const STATES = ["Started", "has-item", "paid"];

/** Sends a request of `scope` (none: unscoped) to `base` and returns status and JSON (or null). */
async function call(base: string, method: string, path: string, scope?: string) {
  const response = await fetch(base + path, { method, headers: scope ? { "x-stubtool-scope": scope } : {} });
  const text = await response.text();
  return { status: response.status, json: text ? JSON.parse(text) : null };
}

/** Walks the whole flow once for `scope` against `base`, checking each answer. */
async function walkCart(base: string, scope?: string): Promise<void> {
  assert.deepEqual(await call(base, "GET", "/cart", scope), { status: 200, json: { items: [] } });
  assert.deepEqual(await call(base, "POST", "/cart", scope), { status: 201, json: { added: true } });
  assert.deepEqual(await call(base, "GET", "/cart", scope), { status: 200, json: { items: ["book"] } });
  // The stub for Started no longer matches: a second POST /cart finds no stub.
  assert.equal((await call(base, "POST", "/cart", scope)).status, 404);
  assert.deepEqual(await call(base, "POST", "/checkout", scope), { status: 200, json: { paid: true } });
  assert.deepEqual(await call(base, "GET", "/cart", scope), { status: 200, json: { items: [], paid: true } });
  assert.deepEqual(await call(base, "POST", "/logout", scope), { status: 204, json: null });
  assert.deepEqual(await call(base, "GET", "/cart", scope), { status: 200, json: { items: [] } });
}

serverTest("a three-state flow walked from two scopes at once: neither sees the other's state", async (server) => {
  server.routes(...cartBuilders());
  // Both walkers interleave their requests; each scope starts in Started and moves on its own.
  await Promise.all([walkCart(server.url, "worker-1"), walkCart(server.url, "worker-2")]);
  // Scope 1 stops half way; scope 2 and unscoped requests still see Started.
  await call(server.url, "POST", "/cart", "worker-1");
  assert.deepEqual(await call(server.url, "GET", "/cart", "worker-2"), { status: 200, json: { items: [] } });
  assert.deepEqual(await call(server.url, "GET", "/cart"), { status: 200, json: { items: [] } });
  assert.deepEqual(await call(server.url, "GET", "/cart", "worker-1"), { status: 200, json: { items: ["book"] } });
});

serverTest("unscoped requests share one set of states", async (server) => {
  server.routes(...cartBuilders());
  await call(server.url, "POST", "/cart");
  // Another client without a scope sees the move; a scoped one does not.
  assert.deepEqual(await call(server.url, "GET", "/cart"), { status: 200, json: { items: ["book"] } });
  assert.deepEqual(await call(server.url, "GET", "/cart", "other"), { status: 200, json: { items: [] } });
  await walkCart(server.url, "other");
  assert.deepEqual(await call(server.url, "GET", "/cart"), { status: 200, json: { items: ["book"] } });
});

serverTest(
  "GET /__stubtool__/scenarios lists each scenario unscoped, then each scope that left Started",
  async (server) => {
    server.routes(...cartBuilders(), get("/flag").inScenario("flags").setState("on"));
    const empty = await send(server, "GET", "/__stubtool__/scenarios");
    assert.equal(empty.status, 200);
    assert.equal(empty.headers.get("content-type"), "application/json");
    assert.deepEqual(empty.json, {
      scenarios: [
        { name: "cart", state: "Started", states: STATES },
        { name: "flags", state: "Started", states: ["on"] },
      ],
    });
    await call(server.url, "POST", "/cart", "w1");
    await call(server.url, "GET", "/flag");
    assert.deepEqual((await send(server, "GET", "/__stubtool__/scenarios")).json, {
      scenarios: [
        { name: "cart", state: "Started", states: STATES },
        { name: "flags", state: "on", states: ["on"] },
        { name: "cart", state: "has-item", states: STATES, scope: "w1" },
      ],
    });
    assert.deepEqual(await server.scenarios(), (await send(server, "GET", "/__stubtool__/scenarios")).json.scenarios);
  },
);

serverTest(
  "PUT /__stubtool__/scenarios/NAME moves a scenario (in one scope with ?scope=); exact answers",
  async (server) => {
    server.routes(...cartBuilders());
    const put = (path: string, body: string) => send(server, "PUT", path, { body });

    const moved = await put("/__stubtool__/scenarios/cart", '{"state":"paid"}');
    assert.equal(moved.status, 200);
    assert.equal(moved.text, '{"name":"cart","state":"paid"}');
    assert.deepEqual(await call(server.url, "GET", "/cart"), { status: 200, json: { items: [], paid: true } });
    assert.deepEqual(await call(server.url, "GET", "/cart", "w1"), { status: 200, json: { items: [] } });

    const scoped = await put("/__stubtool__/scenarios/cart?scope=w1", '{"state":"has-item"}');
    assert.equal(scoped.status, 200);
    assert.equal(scoped.text, '{"name":"cart","state":"has-item","scope":"w1"}');
    assert.deepEqual(await call(server.url, "GET", "/cart", "w1"), { status: 200, json: { items: ["book"] } });
    assert.deepEqual(await call(server.url, "GET", "/cart"), { status: 200, json: { items: [], paid: true } });

    // Started is always a state, whatever the stubs name.
    assert.equal((await put("/__stubtool__/scenarios/cart", '{"state":"Started"}')).status, 200);
    assert.deepEqual(await call(server.url, "GET", "/cart"), { status: 200, json: { items: [] } });

    const unknown = await put("/__stubtool__/scenarios/basket", '{"state":"paid"}');
    assert.equal(unknown.status, 404);
    assert.deepEqual(unknown.json, { error: "no scenario is named 'basket'", scenarios: ["cart"] });

    // A state no stub names: 422, as WireMock answers it; the scenario stays where it was.
    const undeclared = await put("/__stubtool__/scenarios/cart", '{"state":"shipped"}');
    assert.equal(undeclared.status, 422);
    assert.deepEqual(undeclared.json, {
      error: "scenario 'cart' has no state 'shipped' (its states: Started, has-item, paid)",
      states: STATES,
    });
    assert.deepEqual(await call(server.url, "GET", "/cart"), { status: 200, json: { items: [] } });

    const notJson = await put("/__stubtool__/scenarios/cart", "paid");
    assert.equal(notJson.status, 400);
    assert.deepEqual(notJson.json, {
      error: 'the body is not JSON: send {"state": "NAME"}, for example {"state": "Started"}',
    });
    const noState = await put("/__stubtool__/scenarios/cart", '{"to":"paid"}');
    assert.equal(noState.status, 400);
    assert.deepEqual(noState.json, {
      error: 'state is missing: send {"state": "NAME"}, for example {"state": "Started"}',
    });

    const wrongMethod = await send(server, "POST", "/__stubtool__/scenarios/cart", { body: '{"state":"paid"}' });
    assert.equal(wrongMethod.status, 405);
    assert.equal(wrongMethod.headers.get("allow"), "GET, HEAD, PUT");
  },
);

serverTest(
  "regression: GET /__stubtool__/scenarios ignored ?scope= and GET /__stubtool__/scenarios/NAME answered 405; both answer the scope's view",
  async (server) => {
    server.routes(...cartBuilders(), get("/login").inScenario("auth").whenState("Started").body({}));
    await call(server.url, "POST", "/cart", "w1");
    await call(server.url, "POST", "/cart", "w2");
    await call(server.url, "POST", "/checkout", "w2");
    const AUTH = ["Started"];
    assert.deepEqual((await send(server, "GET", "/__stubtool__/scenarios?scope=w1")).json, {
      scenarios: [
        { name: "cart", state: "has-item", states: STATES, scope: "w1" },
        { name: "auth", state: "Started", states: AUTH, scope: "w1" },
      ],
    });
    // A scope that never moved anything sees every scenario in Started.
    assert.deepEqual((await send(server, "GET", "/__stubtool__/scenarios?scope=w9")).json, {
      scenarios: [
        { name: "cart", state: "Started", states: STATES, scope: "w9" },
        { name: "auth", state: "Started", states: AUTH, scope: "w9" },
      ],
    });
    assert.deepEqual(await server.scenarios("w2"), [
      { name: "cart", state: "paid", states: STATES, scope: "w2" },
      { name: "auth", state: "Started", states: AUTH, scope: "w2" },
    ]);
    // An empty ?scope= is the whole list, as for the report.
    assert.equal((await send(server, "GET", "/__stubtool__/scenarios?scope=")).json.scenarios.length, 4);

    const one = await send(server, "GET", "/__stubtool__/scenarios/cart");
    assert.equal(one.status, 200);
    assert.equal(one.text, '{"name":"cart","state":"Started","states":["Started","has-item","paid"]}');
    const scoped = await send(server, "GET", "/__stubtool__/scenarios/cart?scope=w2");
    assert.equal(scoped.text, '{"name":"cart","state":"paid","states":["Started","has-item","paid"],"scope":"w2"}');
    const unknown = await send(server, "GET", "/__stubtool__/scenarios/kart");
    assert.equal(unknown.status, 404);
    assert.deepEqual(unknown.json, {
      error: "no scenario is named 'kart' (did you mean 'cart'?)",
      scenarios: ["cart", "auth"],
    });
  },
  { scopes: true },
);

serverTest(
  "POST /__stubtool__/scenarios/reset answers 204 and puts every scenario in every scope back in Started",
  async (server) => {
    server.routes(...cartBuilders());
    await call(server.url, "POST", "/cart");
    await call(server.url, "POST", "/cart", "w1");
    const reset = await send(server, "POST", "/__stubtool__/scenarios/reset");
    assert.equal(reset.status, 204);
    assert.equal(reset.text, "");
    assert.deepEqual(await call(server.url, "GET", "/cart"), { status: 200, json: { items: [] } });
    assert.deepEqual(await call(server.url, "GET", "/cart", "w1"), { status: 200, json: { items: [] } });
    assert.deepEqual((await send(server, "GET", "/__stubtool__/scenarios")).json, {
      scenarios: [{ name: "cart", state: "Started", states: STATES }],
    });
    const wrongMethod = await send(server, "GET", "/__stubtool__/scenarios/reset");
    assert.equal(wrongMethod.status, 405);
    assert.equal(wrongMethod.headers.get("allow"), "POST");
  },
);

serverTest("POST /__stubtool__/reset puts the scenarios back in Started too", async (server) => {
  server.routes(...cartBuilders());
  await call(server.url, "POST", "/cart");
  await call(server.url, "POST", "/cart", "w1");
  assert.equal((await send(server, "POST", "/__stubtool__/reset")).status, 204);
  assert.deepEqual(await call(server.url, "GET", "/cart"), { status: 200, json: { items: [] } });
  assert.deepEqual(await call(server.url, "GET", "/cart", "w1"), { status: 200, json: { items: [] } });
});

serverTest(
  "regression: a misspelt scenario (kart) or a state differing by case got no 'did you mean' over HTTP or the API, and the API named no states",
  async (server) => {
    server.routes(...cartBuilders());
    const put = (path: string, body: string) => send(server, "PUT", path, { body });
    const kart = await put("/__stubtool__/scenarios/kart", '{"state":"paid"}');
    assert.equal(kart.status, 404);
    assert.deepEqual(kart.json, { error: "no scenario is named 'kart' (did you mean 'cart'?)", scenarios: ["cart"] });
    const paid = await put("/__stubtool__/scenarios/cart", '{"state":"Paid"}');
    assert.equal(paid.status, 422);
    assert.deepEqual(paid.json, {
      error: "scenario 'cart' has no state 'Paid' (did you mean 'paid'? its states: Started, has-item, paid)",
      states: STATES,
    });
    await assert.rejects(server.setScenarioState("kart", "paid"), {
      name: "TypeError",
      message: `setScenarioState("kart", "paid"): no scenario is named 'kart' (did you mean 'cart'?)`,
    });
    await assert.rejects(server.setScenarioState("cart", "Paid"), {
      name: "TypeError",
      message:
        `setScenarioState("cart", "Paid"): scenario 'cart' has no state 'Paid' (did you mean 'paid'? its states: Started, has-item, paid)`,
    });
    assert.deepEqual(await call(server.url, "GET", "/cart"), { status: 200, json: { items: [] } });
  },
);

serverTest(
  "the API moves and resets scenarios as the endpoints do; an unknown scenario or state rejects",
  async (server) => {
    server.routes(...cartBuilders());
    await server.setScenarioState("cart", "has-item");
    await server.setScenarioState("cart", "paid", "w1");
    assert.deepEqual(await call(server.url, "GET", "/cart"), { status: 200, json: { items: ["book"] } });
    assert.deepEqual(await call(server.url, "GET", "/cart", "w1"), { status: 200, json: { items: [], paid: true } });
    await assert.rejects(server.setScenarioState("basket", "paid"), {
      name: "TypeError",
      message: `setScenarioState("basket", "paid"): no scenario is named 'basket'`,
    });
    await assert.rejects(server.setScenarioState("cart", "shipped"), {
      name: "TypeError",
      message: `setScenarioState("cart", "shipped"): scenario 'cart' has no state 'shipped' (its states: ${
        STATES.join(", ")
      })`,
    });
    await server.resetScenarios();
    assert.deepEqual(await call(server.url, "GET", "/cart"), { status: 200, json: { items: [] } });
    assert.deepEqual(await call(server.url, "GET", "/cart", "w1"), { status: 200, json: { items: [] } });
  },
);

serverTest(
  "a sequence in a scenario state answers in turn while the state holds; each answer moves the scenario",
  async (server) => {
    server.routes(
      get("/job").inScenario("job").whenState("Started").sequence(
        { status: 202, body: { state: "queued" } },
        { status: 202, body: { state: "running" } },
      ),
      post("/job/finish").inScenario("job").setState("done").status(204),
      get("/job").inScenario("job").whenState("done").body({ state: "done" }),
      // A sequence that moves the scenario: each answer takes the transition.
      get("/step").inScenario("steps").whenState("Started").setState("one").sequence({ body: 1 }, { body: 2 }),
      get("/step").inScenario("steps").whenState("one").setState("Started").body("back"),
    );
    const job = () => call(server.url, "GET", "/job");
    assert.deepEqual(await job(), { status: 202, json: { state: "queued" } });
    assert.deepEqual(await job(), { status: 202, json: { state: "running" } });
    assert.deepEqual(await job(), { status: 202, json: { state: "running" } }); // the last answer repeats
    await call(server.url, "POST", "/job/finish");
    assert.deepEqual(await job(), { status: 200, json: { state: "done" } });

    const step = async () => (await call(server.url, "GET", "/step")).json;
    assert.deepEqual([await step(), await step(), await step(), await step()], [1, "back", 2, "back"]);
  },
);

serverTest("a stub with only set_state answers in any state and moves the scenario from there", async (server) => {
  server.routes(...cartBuilders());
  for (const path of ["/cart", "/checkout"]) {
    await call(server.url, "POST", path);
    assert.deepEqual(await call(server.url, "POST", "/logout"), { status: 204, json: null });
    assert.deepEqual(await call(server.url, "GET", "/cart"), { status: 200, json: { items: [] } });
  }
  // From Started too.
  assert.deepEqual(await call(server.url, "POST", "/logout"), { status: 204, json: null });
});

serverTest("a stub with only when_state answers while the state holds; nothing moves", async (server) => {
  server.routes(
    get("/beta").inScenario("flags").whenState("beta").body({ beta: true }),
    get("/beta").body({ beta: false }),
  );
  assert.deepEqual(await call(server.url, "GET", "/beta"), { status: 200, json: { beta: false } });
  // No stub sets "beta": the endpoint cannot move there.
  assert.equal((await send(server, "PUT", "/__stubtool__/scenarios/flags", { body: '{"state":"beta"}' })).status, 200);
  assert.deepEqual(await call(server.url, "GET", "/beta"), { status: 200, json: { beta: true } });
});

/** The flow's first two steps and the scenario list, for the stubs however they were added. */
async function checkCartServer(base: string): Promise<void> {
  await Promise.all([walkCart(base, "a"), walkCart(base, "b")]);
  await call(base, "POST", "/cart", "a");
  const listed = await (await fetch(`${base}/__stubtool__/scenarios`)).json();
  assert.deepEqual(listed, {
    scenarios: [
      { name: "cart", state: "Started", states: STATES },
      { name: "cart", state: "has-item", states: STATES, scope: "a" },
    ],
  });
}

serverTest(
  "the flow added through POST /__stubtool__/stubs (YAML) behaves as the builders' one",
  async (server: StubServer) => {
    const added = await send(server, "POST", "/__stubtool__/stubs", {
      body: CART_YAML,
      headers: { "content-type": "application/yaml" },
    });
    assert.equal(added.status, 201, added.text);
    await checkCartServer(server.url);
    // The stubs list carries the fields in config form.
    const listed = (await send(server, "GET", "/__stubtool__/stubs")).json.stubs;
    assert.deepEqual(
      listed.map((s: Record<string, unknown>) => [s.scenario, s.when_state, s.set_state]),
      [
        ["cart", "Started", undefined],
        ["cart", "Started", "has-item"],
        ["cart", "has-item", undefined],
        ["cart", "has-item", "paid"],
        ["cart", "paid", undefined],
        ["cart", undefined, "Started"],
      ],
    );
  },
);

serverTest("the flow added with builders, checked as the config file and admin API ones", async (server) => {
  server.routes(...cartBuilders());
  await checkCartServer(server.url);
});

Deno.test("serve: the flow from a config file, and from --stub mappings, behaves as the builders' one", async () => {
  await using dir = await tempDir();
  const config = join(dir.path, "stubs.yaml");
  await Deno.writeTextFile(config, CART_YAML);
  const fromFile = await startServe(["--port", "0", "--config", config]);
  try {
    await checkCartServer(fromFile.url);
  } finally {
    await fromFile.process[Symbol.asyncDispose]();
  }
  // Each --stub is one YAML flow mapping: the config form's fields, scenario ones included.
  const inline = CART_YAML.split("\n").filter((line) => line.startsWith("  - ")).map((line) => line.slice(4));
  const served = await startServe(["--port", "0", ...inline.flatMap((text) => ["--stub", text])]);
  try {
    await checkCartServer(served.url);
  } finally {
    await served.process[Symbol.asyncDispose]();
  }
});

Deno.test("validate warns about a when_state no set_state reaches, with its place, and exits 0", async () => {
  await using dir = await tempDir();
  const config = join(dir.path, "stubs.yaml");
  await Deno.writeTextFile(
    config,
    `routes:
  - method: POST
    path: /cart
    scenario: cart
    set_state: has-item
  - method: GET
    path: /cart
    scenario: cart
    when_state: has-item
    body: {items: [book]}
  - method: GET
    path: /cart
    scenario: cart
    when_state: paid
    body: {items: []}
`,
  );
  const result = await runCli(["validate", config]);
  assert.equal(result.code, 0, result.stderr);
  assert.equal(result.stdout, `[OK] ${config} is valid (3 route(s) defined)\n`);
  // Regression: routes[2] was also called a duplicate of routes[1], though it answers in another state.
  assert.equal(
    result.stderr,
    `[WARN] routes[2]: when_state 'paid' of scenario 'cart' is never reached: no stub sets it; ` +
      `add set_state: paid to a stub (at ${config}:14:5)\n`,
  );
});

Deno.test("validate: the cart flow, every when_state reached, gives no warning", async () => {
  await using dir = await tempDir();
  const config = join(dir.path, "stubs.yaml");
  await Deno.writeTextFile(config, CART_YAML);
  const result = await runCli(["validate", config]);
  assert.deepEqual([result.code, result.stderr], [0, ""]);
  assert.equal(result.stdout, `[OK] ${config} is valid (6 route(s) defined)\n`);
});

for (const adapter of ["deno", "node"] as const) {
  Deno.test(`[${adapter}] regression: the request log entry of a stub that moves a scenario did not say so; it carries 'cart: Started → has-item' (per scope)`, async () => {
    const entries: { target: string; transition?: string }[] = [];
    await using server = await stubServer(0, {
      adapter,
      scopes: true,
      onRequest: (entry) => entries.push({ target: entry.target, transition: entry.transition }),
    });
    server.routes(...cartBuilders());
    await call(server.url, "POST", "/cart");
    await call(server.url, "GET", "/cart");
    await call(server.url, "POST", "/checkout", "w1"); // w1 is still in Started: nothing matches
    await call(server.url, "POST", "/checkout");
    await call(server.url, "POST", "/logout", "w1");
    assert.deepEqual(entries, [
      { target: "/cart", transition: "cart: Started → has-item" },
      { target: "/cart", transition: undefined },
      { target: "/checkout", transition: undefined },
      { target: "/checkout", transition: "cart: has-item → paid" },
      { target: "/logout", transition: "cart: Started → Started" },
    ]);
  });
}

serverTest(
  "scenario scopes dropped past 1,000 are counted in GET /__stubtool__/scenarios (were dropped silently)",
  async (server) => {
    server.routes(...cartBuilders());
    const listed = async () => (await send(server, "GET", "/__stubtool__/scenarios")).json;
    for (let i = 0; i < 1000; i += 50) {
      await Promise.all(Array.from({ length: 50 }, (_, k) => call(server.url, "POST", "/cart", `w${i + k}`)));
    }
    assert.equal((await listed()).dropped_scopes, undefined);
    assert.equal((await call(server.url, "POST", "/cart", "w-1000")).status, 201);
    assert.equal((await call(server.url, "POST", "/cart", "w-1001")).status, 201);
    const body = await listed();
    assert.equal(body.dropped_scopes, 2);
    assert.equal(body.scenarios.filter((s: { scope?: string }) => s.scope !== undefined).length, 1000);
    // w0 and w1 were dropped: their cart is in Started again.
    assert.deepEqual(await call(server.url, "GET", "/cart", "w0"), { status: 200, json: { items: [] } });
    assert.equal((await send(server, "POST", "/__stubtool__/scenarios/reset")).status, 204);
    assert.equal((await listed()).dropped_scopes, undefined);
  },
);

serverTest(
  "an x-stubtool-scope over 200 characters is a 400 naming the header (was: silently the shared state)",
  async (server) => {
    server.routes(...cartBuilders());
    const long = "w".repeat(201);
    const refused = await send(server, "POST", "/cart", { headers: { "x-stubtool-scope": long } });
    assert.equal(refused.status, 400);
    assert.deepEqual(refused.json, {
      error: "x-stubtool-scope: a scope name is at most 200 characters, got 201: send a shorter name",
    });
    // The shared state did not move; 200 characters is still a scope of its own.
    assert.deepEqual(await call(server.url, "GET", "/cart"), { status: 200, json: { items: [] } });
    assert.equal((await call(server.url, "POST", "/cart", "w".repeat(200))).status, 201);
    assert.deepEqual(await call(server.url, "GET", "/cart"), { status: 200, json: { items: [] } });
    assert.deepEqual(await call(server.url, "GET", "/cart", "w".repeat(200)), {
      status: 200,
      json: { items: ["book"] },
    });
    // The admin API refuses it alike: adding stubs under it, and moving a scenario in it.
    const added = await send(server, "POST", "/__stubtool__/stubs", {
      body: JSON.stringify({ routes: [{ method: "GET", path: "/x" }] }),
      headers: { "content-type": "application/json", "x-stubtool-scope": long },
    });
    assert.equal(added.status, 400);
    assert.equal(
      added.json.error,
      "x-stubtool-scope: a scope name is at most 200 characters, got 201: send a shorter name",
    );
    const moved = await send(server, "PUT", `/__stubtool__/scenarios/cart?scope=${long}`, {
      body: JSON.stringify({ state: "paid" }),
    });
    assert.equal(moved.status, 400);
    assert.equal(moved.json.error, "?scope=: a scope name is at most 200 characters, got 201: send a shorter name");
    assert.deepEqual(await call(server.url, "GET", "/cart"), { status: 200, json: { items: [] } });
  },
);
