/**
 * Many replicas, one mock (P22): three `stubServer`s joined through a real `redis-server`.
 * Runtime stubs and resets added on one replica answer on the others; config stubs stay each
 * replica's own; the store going away and coming back; the password never shown.
 */
import assert from "node:assert/strict";
import { get as route, post, type StubServer, stubServer, type StubServerOptions } from "../mod.ts";
import { get } from "./_cli.ts";
import { send } from "./_http.ts";
import { createClient } from "@redis/client";
import { eventually, RedisServer } from "./_redis.ts";

function assertIncludes(text: string, part: string): void {
  assert.ok(text.includes(part), `${JSON.stringify(text)} does not include ${JSON.stringify(part)}`);
}

/** Three replicas of one cluster, each with its own log lines. */
async function replicas(
  redis: RedisServer,
  options: StubServerOptions = {},
  cluster = crypto.randomUUID(),
): Promise<{ servers: StubServer[]; logs: string[][] } & AsyncDisposable> {
  const logs: string[][] = [[], [], []];
  const servers: StubServer[] = [];
  for (const [i, adapter] of (["deno", "node", "deno"] as const).entries()) {
    servers.push(
      await stubServer(0, { ...options, adapter, state: { url: redis.url, cluster, log: (l) => logs[i].push(l) } }),
    );
  }
  return { servers, logs, [Symbol.asyncDispose]: () => Promise.all(servers.map((s) => s.shutdown())).then(() => {}) };
}

Deno.test("an admin add on one replica answers on the other two within 100 ms, and a removal too", async () => {
  await using redis = await new RedisServer().start();
  await using cluster = await replicas(redis);
  const [a, b, c] = cluster.servers;
  const added = await send(a, "POST", "/__stubtool__/stubs", {
    body: JSON.stringify({ routes: [{ id: "greet", method: "GET", path: "/hello", body: { hi: 1 } }] }),
  });
  assert.deepEqual(added.status, 201);
  const waited: number[] = [];
  for (const server of [b, c]) {
    waited.push(await eventually(async () => (await send(server, "GET", "/hello")).status === 200));
    assert.deepEqual((await send(server, "GET", "/hello")).json, { hi: 1 });
  }
  assert.ok(Math.max(...waited) < 100, `seen after ${waited} ms`);
  assert.deepEqual((await send(c, "DELETE", "/__stubtool__/stubs/greet")).status, 204);
  for (const server of [a, b]) {
    await eventually(async () => (await send(server, "GET", "/hello")).status === 404, 1_000);
  }
});

Deno.test("WireMock mappings, replacements and stub resets reach every replica; config stubs stay each one's own", async () => {
  await using redis = await new RedisServer().start();
  await using cluster = await replicas(redis, { stubs: [route("/base").body({ base: true }).toStub()] });
  const [a, b, c] = cluster.servers;
  const mapping = {
    id: "0b9a2c2e-5f0e-4d55-9d0a-4c4f7f6b9a11",
    request: { method: "GET", url: "/wm" },
    response: { status: 200, body: "one" },
  };
  assert.deepEqual((await send(b, "POST", "/__admin/mappings", { body: JSON.stringify(mapping) })).status, 201);
  await eventually(async () => (await send(a, "GET", "/wm")).text === "one", 1_000);
  await eventually(async () => (await send(c, "GET", "/wm")).text === "one", 1_000);
  const replaced = { ...mapping, response: { status: 200, body: "two" } };
  assert.deepEqual(
    (await send(c, "PUT", `/__admin/mappings/${mapping.id}`, { body: JSON.stringify(replaced) })).status,
    200,
  );
  await eventually(async () => (await send(a, "GET", "/wm")).text === "two", 1_000);
  await eventually(async () => (await send(b, "GET", "/wm")).text === "two", 1_000);
  // Config stubs are not published: removing one on a replica leaves the others'.
  const baseId = (await a.stubs()).find((s) => s.path === "/base")!.id;
  assert.deepEqual((await send(a, "POST", "/__stubtool__/stubs/reset")).status, 204);
  for (const server of [a, b, c]) {
    await eventually(async () => (await send(server, "GET", "/wm")).status === 404, 1_000);
    assert.deepEqual((await send(server, "GET", "/base")).json, { base: true });
    assert.deepEqual((await server.stubs()).map((s) => s.id), [baseId]);
  }
});

Deno.test("a replica that joins later replays the runtime stubs added before it, from the last stub reset on", async () => {
  await using redis = await new RedisServer().start();
  const name = crypto.randomUUID();
  await using first = await stubServer(0, { state: { url: redis.url, cluster: name } });
  first.routes(route("/gone").body("x"));
  await first.resetStubs();
  first.routes(route("/kept").body("y"));
  await eventually(async () => (await first.stubs()).length === 1);
  await new Promise((resolve) => setTimeout(resolve, 50));
  await using later = await stubServer(0, { state: { url: redis.url, cluster: name } });
  assert.deepEqual((await later.stubs()).map((s) => s.path), ["/kept"]);
  // Another cluster on the same store sees nothing.
  await using other = await stubServer(0, { state: { url: redis.url, cluster: `${name}-other` } });
  assert.deepEqual(await other.stubs(), []);
});

Deno.test("a response function stays on its replica with one [WARN]; the others never see it", async () => {
  await using redis = await new RedisServer().start();
  await using cluster = await replicas(redis);
  const [a, b] = cluster.servers;
  a.routes(route("/fn").responseFunc(() => [200, "computed"]), route("/plain").body("plain"));
  a.routes(route("/fn2").responseFunc(() => [200, "computed"]));
  await eventually(async () => (await send(b, "GET", "/plain")).json === "plain", 1_000);
  assert.deepEqual((await send(b, "GET", "/fn")).status, 404);
  assert.deepEqual(cluster.logs[0].filter((l) => l.startsWith("[WARN]")).length, 2);
  assertIncludes(cluster.logs[0][0], "a response function runs only in the process that registered it");
});

Deno.test("scenario states set and reset over the admin API reach every replica", async () => {
  await using redis = await new RedisServer().start();
  await using cluster = await replicas(redis, {
    stubs: [
      route("/cart").inScenario("cart").whenState("Started").body("empty").toStub(),
      route("/cart").inScenario("cart").whenState("full").body("full").toStub(),
    ],
  });
  const [a, b, c] = cluster.servers;
  assert.deepEqual((await send(a, "PUT", "/__stubtool__/scenarios/cart", { body: '{"state":"full"}' })).status, 200);
  for (const server of [b, c]) {
    await eventually(async () => (await send(server, "GET", "/cart")).json === "full", 1_000);
  }
  await b.resetScenarios();
  for (const server of [a, c]) {
    await eventually(async () => (await send(server, "GET", "/cart")).json === "empty", 1_000);
  }
});

Deno.test("health says degraded while the store is away, one [WARN], and changes made meanwhile arrive when it returns", async () => {
  const redis = await new RedisServer().start();
  await using cluster = await replicas(redis);
  const [a, b] = cluster.servers;
  a.routes(route("/before").body("b"));
  await eventually(async () => (await send(b, "GET", "/before")).status === 200, 1_000);
  assert.deepEqual((await send(b, "GET", "/__stubtool__/health")).json.status, "ok");
  await redis.kill();
  await eventually(async () => (await send(a, "GET", "/__stubtool__/health")).json.status === "degraded");
  a.routes(route("/during").body("d"));
  // Every replica keeps answering from what it knows.
  assert.deepEqual((await send(b, "GET", "/before")).json, "b");
  const health = (await send(a, "GET", "/__stubtool__/health")).json;
  assert.deepEqual(health.state.pending, 1);
  assert.deepEqual(health.state.lost, 0);
  await new Promise((resolve) => setTimeout(resolve, 300));
  assert.deepEqual(cluster.logs[0].filter((l) => l.startsWith("[WARN]")).length, 1);
  await using _again = await new RedisServer(redis.port).start();
  await eventually(async () => (await send(b, "GET", "/during")).json === "d");
  await eventually(async () => (await send(a, "GET", "/__stubtool__/health")).json.status === "ok");
  assert.deepEqual((await send(a, "GET", "/__stubtool__/health")).json.state, {
    store: "connected",
    cluster: (await send(a, "GET", "/__stubtool__/health")).json.state.cluster,
    lost: 0,
    pending: 0,
  });
});

Deno.test("a store that is down at start: the replica serves its config, says degraded, and joins when it comes", async () => {
  const redis = new RedisServer();
  const logs: string[] = [];
  const started = performance.now();
  await using server = await stubServer(0, {
    stubs: [route("/own").body("own").toStub()],
    state: { url: redis.url, log: (l) => logs.push(l) },
  });
  assert.ok(performance.now() - started < 5_000);
  assert.deepEqual((await send(server, "GET", "/own")).json, "own");
  assert.deepEqual((await send(server, "GET", "/__stubtool__/health")).json.status, "degraded");
  assert.deepEqual(logs.filter((l) => l.startsWith("[WARN]")).length, 1);
  await using _store = await redis.start();
  await eventually(async () => (await send(server, "GET", "/__stubtool__/health")).json.status === "ok");
});

Deno.test("the store URL's password never shows: not in [WARN] lines, health or option errors", async () => {
  const secret = "s3cr3t-pa55";
  const redis = new RedisServer();
  const logs: string[] = [];
  await using server = await stubServer(0, {
    state: { url: `redis://:${secret}@127.0.0.1:${redis.port}/2`, log: (l) => logs.push(l) },
  });
  const health = await get(`${server.url}/__stubtool__/health`);
  assert.ok(!health.text.includes(secret));
  assert.ok(logs.length > 0 && !logs.join("\n").includes(secret), logs.join("\n"));
  assertIncludes(logs[0], `redis://:***@127.0.0.1:${redis.port}/2`);
  await assert.rejects(() => stubServer(0, { state: { url: `http://:${secret}@127.0.0.1:1/` } }), (error: Error) => {
    assert.ok(error instanceof TypeError);
    assert.equal(
      error.message,
      "stubServer(port, options): state.url must start with redis:// or rediss://, got http://:***@127.0.0.1:1/",
    );
    return true;
  });
});

Deno.test("POST /__stubtool__/reset on one replica zeroes the hit counts of every replica", async () => {
  await using redis = await new RedisServer().start();
  await using cluster = await replicas(redis, { stubs: [route("/counted").body(1).toStub()] });
  const [a, b] = cluster.servers;
  await send(b, "GET", "/counted");
  await send(b, "GET", "/counted");
  assert.deepEqual((await b.stubs()).map((s) => s.hit_count), [2]);
  assert.equal((await send(a, "POST", "/__stubtool__/reset")).status, 204);
  await eventually(async () => (await b.stubs())[0].hit_count === 0, 1_000);
});

Deno.test("changes past 10,000 waiting for an absent store are counted as lost, with one [WARN]", async () => {
  const redis = new RedisServer();
  const logs: string[] = [];
  await using server = await stubServer(0, {
    stubs: [route("/s").inScenario("s").whenState("a").body(1).toStub()],
    state: { url: redis.url, log: (l) => logs.push(l) },
  });
  for (let i = 0; i < 10_005; i++) await server.setScenarioState("s", i % 2 ? "a" : "Started");
  const { state } = (await send(server, "GET", "/__stubtool__/health")).json;
  assert.deepEqual({ pending: state.pending, lost: state.lost }, { pending: 10_000, lost: 5 });
  assert.equal(logs.filter((l) => l.includes("later ones are lost")).length, 1);
});

/** A checkout: the first POST /pay moves `order` from Started to paid; later ones find it paid. */
const CHECKOUT = [
  post("/pay").inScenario("order").whenState("Started").setState("paid").body("paid").toStub(),
  post("/pay").inScenario("order").whenState("paid").status(409).body("already paid").toStub(),
  route("/order").inScenario("order").whenState("Started").body("open").toStub(),
  route("/order").inScenario("order").whenState("paid").body("paid").toStub(),
];

Deno.test("60 concurrent requests racing on one scenario state over 3 replicas take the transition exactly once; the losers answer from the new state", async () => {
  await using redis = await new RedisServer().start();
  await using cluster = await replicas(redis, { stubs: CHECKOUT });
  const { servers } = cluster;
  const answers = await Promise.all(
    Array.from({ length: 60 }, (_, i) => send(servers[i % 3], "POST", "/pay").then((a) => `${a.status} ${a.json}`)),
  );
  assert.deepEqual(answers.filter((a) => a === "200 paid").length, 1, answers.join(", "));
  assert.deepEqual(answers.filter((a) => a === "409 already paid").length, 59, answers.join(", "));
  // Every replica reads the moved state at once (a `when_state` stub reads the store).
  for (const server of servers) assert.deepEqual((await send(server, "GET", "/order")).json, "paid");
  // The state moved once in the store, whatever replica is asked.
  for (const server of servers) {
    await eventually(async () => (await server.scenarios()).find((s) => s.name === "order")?.state === "paid", 1_000);
  }
});

Deno.test("a flow walked one request per replica sees each step the previous replica took, at once", async () => {
  await using redis = await new RedisServer().start();
  await using cluster = await replicas(redis, { stubs: CHECKOUT });
  const [a, b, c] = cluster.servers;
  assert.deepEqual((await send(a, "GET", "/order")).json, "open");
  assert.deepEqual((await send(b, "POST", "/pay")).json, "paid");
  // No wait: c matches against the store's state, not only what the stream has told it yet.
  assert.deepEqual((await send(c, "POST", "/pay")).status, 409);
  assert.deepEqual((await send(a, "GET", "/order")).json, "paid");
  // A reset on one replica puts the shared state back for all.
  assert.equal((await send(c, "POST", "/__stubtool__/reset")).status, 204);
  await eventually(async () => (await send(a, "GET", "/order")).json === "open", 1_000);
  assert.deepEqual((await send(b, "POST", "/pay")).json, "paid");
});

Deno.test("regression: a request whose stub needs a state the store holds but this replica had not heard of yet answered 404 (16 flows over 3 replicas: most steps failed)", async () => {
  await using redis = await new RedisServer().start();
  const cluster = crypto.randomUUID();
  await using server = await stubServer(0, {
    stubs: [route("/cart").inScenario("cart").whenState("has-item").body("has-item").toStub()],
    state: { url: redis.url, cluster },
  });
  // Another replica's move, in the store but not yet on this replica's stream.
  const client = createClient({ url: redis.url });
  await client.connect();
  try {
    await client.hSet(`stubtool:{${cluster}}:scenarios`, JSON.stringify(["w1", "cart"]), "has-item");
    await client.hSet(`stubtool:{${cluster}}:scenarios`, JSON.stringify([null, "cart"]), "has-item");
  } finally {
    client.destroy();
  }
  const scoped = await send(server, "GET", "/cart", { headers: { "x-stubtool-scope": "w1" } });
  assert.deepEqual([scoped.status, scoped.json], [200, "has-item"]);
  assert.deepEqual((await send(server, "GET", "/cart")).json, "has-item");
  // Another scope is still in Started; a path no stub has is still a 404.
  assert.equal((await send(server, "GET", "/cart", { headers: { "x-stubtool-scope": "w2" } })).status, 404);
  assert.equal((await send(server, "GET", "/nowhere")).status, 404);
});

Deno.test("scoped scenario states are shared per scope: each scope takes its own transition once", async () => {
  await using redis = await new RedisServer().start();
  await using cluster = await replicas(redis, { stubs: CHECKOUT });
  const { servers } = cluster;
  const answers = await Promise.all(
    Array.from(
      { length: 30 },
      (_, i) =>
        send(servers[i % 3], "POST", "/pay", { headers: { "x-stubtool-scope": `w${i % 2}` } }).then((a) =>
          `w${i % 2} ${a.status}`
        ),
    ),
  );
  assert.deepEqual(answers.filter((a) => a === "w0 200").length, 1);
  assert.deepEqual(answers.filter((a) => a === "w1 200").length, 1);
  assert.deepEqual((await send(servers[0], "GET", "/order")).json, "open");
});

Deno.test("a sequence answers the n-th request across three replicas with the n-th entry, in exact order", async () => {
  await using redis = await new RedisServer().start();
  const entries = Array.from({ length: 9 }, (_, i) => ({ body: i }));
  await using cluster = await replicas(redis, { stubs: [route("/seq").sequence(...entries).toStub()] });
  const { servers } = cluster;
  const answers: unknown[] = [];
  for (let i = 0; i < 12; i++) answers.push((await send(servers[i % 3], "GET", "/seq")).json);
  // repeat-last: the 10th and later get the last entry.
  assert.deepEqual(answers, [0, 1, 2, 3, 4, 5, 6, 7, 8, 8, 8, 8]);
});

Deno.test("a cycling sequence hit by 60 concurrent requests over three replicas hands out each entry exactly 20 times", async () => {
  await using redis = await new RedisServer().start();
  await using cluster = await replicas(redis, {
    stubs: [route("/seq").sequence({ body: "a" }, { body: "b" }, { body: "c" }).sequenceMode("cycle").toStub()],
  });
  const { servers } = cluster;
  const answers = await Promise.all(
    Array.from({ length: 60 }, (_, i) => send(servers[i % 3], "GET", "/seq").then((a) => a.json as string)),
  );
  const counts: Record<string, number> = {};
  for (const answer of answers) counts[answer] = (counts[answer] ?? 0) + 1;
  assert.deepEqual(counts, { a: 20, b: 20, c: 20 });
  // A reset starts the shared sequence again.
  assert.equal((await send(servers[1], "POST", "/__stubtool__/reset")).status, 204);
  await eventually(async () => (await send(servers[2], "GET", "/seq")).json === "a", 1_000);
  assert.deepEqual((await send(servers[0], "GET", "/seq")).json, "b");
});

Deno.test("with the store away, scenario and sequence stubs step on their replica alone and count it as lost", async () => {
  const redis = new RedisServer();
  await using server = await stubServer(0, {
    stubs: [...CHECKOUT, route("/seq").sequence({ body: 1 }, { body: 2 }).toStub()],
    state: { url: redis.url, log: () => {} },
  });
  assert.deepEqual((await send(server, "POST", "/pay")).json, "paid");
  assert.deepEqual((await send(server, "POST", "/pay")).status, 409);
  assert.deepEqual((await send(server, "GET", "/seq")).json, 1);
  assert.deepEqual((await send(server, "GET", "/seq")).json, 2);
  assert.deepEqual((await send(server, "GET", "/__stubtool__/health")).json.state.lost, 4);
});

Deno.test("hit counts, unmatched requests and flow coverage sent to any replica add up in every replica's report", async () => {
  await using redis = await new RedisServer().start();
  await using cluster = await replicas(redis, { stubs: [route("/counted").body(1).toStub(), ...CHECKOUT] });
  const { servers } = cluster;
  await Promise.all(Array.from({ length: 30 }, (_, i) => send(servers[i % 3], "GET", "/counted")));
  for (let i = 0; i < 6; i++) await send(servers[i % 3], "GET", `/missing/${i}`);
  await Promise.all(Array.from({ length: 9 }, (_, i) => send(servers[i % 3], "POST", "/pay")));
  for (const server of servers) {
    await eventually(async () => {
      const report = (await send(server, "GET", "/__stubtool__/report")).json;
      return report.stubs[0].hit_count === 30 && report.summary.unmatched_requests === 6 &&
        report.stubs[1].hit_count + report.stubs[2].hit_count === 9;
    }, 2_000);
    const report = (await send(server, "GET", "/__stubtool__/report")).json;
    assert.deepEqual(report.stubs.map((s: { hit_count: number }) => s.hit_count), [30, 1, 8, 0, 0]);
    assert.deepEqual(
      report.unmatched_requests.map((u: { path: string }) => u.path).toSorted(),
      Array.from({ length: 6 }, (_, i) => `/missing/${i}`),
    );
    const paid = report.scenarios[0].transitions.find((t: { to: string }) => t.to === "paid");
    assert.deepEqual(paid.taken, 1);
  }
  // Counted once: a little later nothing more has arrived.
  await new Promise((resolve) => setTimeout(resolve, 200));
  assert.deepEqual((await send(servers[2], "GET", "/__stubtool__/report")).json.stubs[0].hit_count, 30);
  assert.deepEqual((await servers[1].stubs())[0].hit_count, 30);
  // A reset on one replica zeroes the cluster's counts everywhere, and they stay zero.
  assert.equal((await send(servers[0], "POST", "/__stubtool__/reset")).status, 204);
  await new Promise((resolve) => setTimeout(resolve, 200));
  for (const server of servers) {
    const report = (await send(server, "GET", "/__stubtool__/report")).json;
    assert.deepEqual([report.stubs[0].hit_count, report.summary.unmatched_requests], [0, 0]);
  }
});

Deno.test("a replica that joins later reports the counts the cluster made since the last reset", async () => {
  await using redis = await new RedisServer().start();
  const name = crypto.randomUUID();
  const stubs = [route("/counted").body(1).toStub()];
  await using first = await stubServer(0, { stubs, state: { url: redis.url, cluster: name } });
  for (let i = 0; i < 5; i++) await send(first, "GET", "/counted");
  await new Promise((resolve) => setTimeout(resolve, 150));
  await using later = await stubServer(0, { stubs, state: { url: redis.url, cluster: name } });
  assert.deepEqual((await later.stubs())[0].hit_count, 5);
});

Deno.test("a request sent to replica A is found by requests/find on B and counted by WireMock's requests/count on C", async () => {
  await using redis = await new RedisServer().start();
  await using cluster = await replicas(redis, { stubs: [post("/orders").status(201).body({ ok: true }).toStub()] });
  const [a, b, c] = cluster.servers;
  const sent = await send(a, "POST", "/orders", { body: '{"sku":"A-1"}', headers: { "x-trace": "t-7" } });
  assert.equal(sent.status, 201);
  await send(a, "GET", "/nowhere");
  const pattern = JSON.stringify({ method: "POST", path: "/orders" });
  await eventually(async () =>
    (await send(b, "POST", "/__stubtool__/requests/find", { body: pattern })).json.count === 1
  );
  const found = (await send(b, "POST", "/__stubtool__/requests/find", { body: pattern })).json;
  assert.deepEqual([found.complete, found.requests[0].target, found.requests[0].status], [true, "/orders", 201]);
  assert.deepEqual([found.requests[0].body, found.requests[0].headers["x-trace"]], ['{"sku":"A-1"}', "t-7"]);
  const wiremock = JSON.stringify({ method: "POST", url: "/orders", bodyPatterns: [{ contains: "A-1" }] });
  await eventually(async () => (await send(c, "POST", "/__admin/requests/count", { body: wiremock })).json.count === 1);
  // Unmatched requests travel too; the listing on B holds both, once.
  await eventually(async () => (await send(b, "GET", "/__stubtool__/requests")).json.total === 2);
  const listed = (await send(b, "GET", "/__stubtool__/requests")).json;
  assert.deepEqual(listed.requests.map((r: { target: string }) => r.target), ["/orders", "/nowhere"]);
  assert.deepEqual(listed.requests[1].status, 404);
  const unmatched = (await send(c, "GET", "/__admin/requests/unmatched")).json;
  assert.deepEqual(unmatched.requests.map((r: { url: string }) => r.url), ["/nowhere"]);
  // A's own journal holds each of its requests once (its batches are not added back to it).
  await new Promise((resolve) => setTimeout(resolve, 200));
  assert.deepEqual((await send(a, "GET", "/__stubtool__/requests")).json.total, 2);
  // A reset on C empties every replica's journal, and batches sent before it do not come back.
  assert.equal((await send(c, "POST", "/__stubtool__/reset")).status, 204);
  await new Promise((resolve) => setTimeout(resolve, 200));
  for (const server of [a, b, c]) assert.deepEqual((await send(server, "GET", "/__stubtool__/requests")).json.total, 0);
});

Deno.test("a burst of 300 requests to A (more than go within 50 ms) reaches B's and C's journals whole, each request once, in A's order", async () => {
  await using redis = await new RedisServer().start();
  await using cluster = await replicas(redis, { stubs: [route("/burst/{n}").body({ ok: true }).toStub()] });
  const [a, b, c] = cluster.servers;
  let next = 0;
  await Promise.all(Array.from({ length: 16 }, async () => {
    while (next < 300) assert.equal((await send(a, "GET", `/burst/${next++}`)).status, 200);
  }));
  const order = (await send(a, "GET", "/__stubtool__/requests")).json.requests.map((r: { target: string }) => r.target);
  assert.equal(order.length, 300);
  for (const server of [b, c]) {
    await eventually(async () => (await send(server, "GET", "/__stubtool__/requests")).json.total >= 300, 3_000);
    await new Promise((resolve) => setTimeout(resolve, 300));
    const journal = (await send(server, "GET", "/__stubtool__/requests")).json;
    assert.equal(journal.total, 300);
    assert.deepEqual(journal.requests.map((r: { target: string }) => r.target), order);
  }
  assert.equal((await send(a, "GET", "/__stubtool__/requests")).json.total, 300);
});

Deno.test("the shared journal keeps the bounds of each replica's: --journal-size entries and --journal-bytes", async () => {
  await using redis = await new RedisServer().start();
  await using cluster = await replicas(redis, { journalSize: 5, journalBytes: 64 * 1024 });
  const [a, b, c] = cluster.servers;
  for (let i = 0; i < 12; i++) await send(a, "POST", `/big/${i}`, { body: "x".repeat(16 * 1024) });
  await eventually(async () => (await send(b, "GET", "/__stubtool__/requests")).json.total >= 1);
  await new Promise((resolve) => setTimeout(resolve, 300));
  for (const server of [b, c]) {
    const journal = (await send(server, "GET", "/__stubtool__/requests")).json;
    assert.ok(journal.requests.length <= 5, `${journal.requests.length} entries kept`);
    const bytes = journal.requests.reduce((n: number, r: { body?: string }) => n + (r.body?.length ?? 0), 0);
    assert.ok(bytes <= 64 * 1024, `${bytes} body bytes kept`);
    // The newest request is there, whole.
    const last = journal.requests.at(-1);
    assert.deepEqual([last.target, last.body.length], ["/big/11", 16 * 1024]);
  }
});

Deno.test("a request sent to replica A carries A's HOST:PORT as replica in B's journal and B's dashboard detail; A's own entry has none", async () => {
  await using redis = await new RedisServer().start();
  await using cluster = await replicas(redis, { stubs: [route("/where").body({ ok: true }).toStub()] });
  const [a, b] = cluster.servers;
  assert.equal((await send(a, "GET", "/where")).status, 200);
  await eventually(async () => (await send(b, "GET", "/__stubtool__/requests")).json.total === 1);
  const name = `${Deno.hostname()}:${a.getPort()}`;
  const [there] = (await send(b, "GET", "/__stubtool__/requests")).json.requests;
  assert.deepEqual([there.target, there.replica], ["/where", name]);
  const [own] = (await send(a, "GET", "/__stubtool__/requests")).json.requests;
  assert.deepEqual([own.target, "replica" in own], ["/where", false]);
  const page = (await send(b, "GET", "/__stubtool__/")).text;
  assertIncludes(page, `<dt>Served by</dt><dd>replica <code>${name}</code></dd>`);
  // The page carries its renderers' source (for the live refresh): look for the rendered row only.
  assert.ok(!(await send(a, "GET", "/__stubtool__/")).text.includes("<dt>Served by</dt>"));
});
