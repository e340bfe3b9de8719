/**
 * The WireMock admin API at `/__admin/`: the same calls WireMock 3.13.2 answered (recorded by
 * scripts/record_wiremock_admin.ts into tests/fixtures/wiremock_admin.json) sent to stubtool,
 * the statuses and JSON shapes compared; the npm client wiremock-captain driving stubtool as a
 * user's test suite would; the guards of the reserved endpoints; refusals of mappings that do
 * not convert. Both adapters.
 */
import assert from "node:assert/strict";
import { WireMock } from "wiremock-captain";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { get, stubServer } from "../mod.ts";
import { loadWireMockFolder } from "../src/cli/loaders/wiremock_folder.ts";
import { tempDir } from "./_cli.ts";
import { replayFixture, SAVE_DIR } from "./_wiremock_admin.ts";
import { rawRequest, send, serverTest } from "./_http.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

serverTest(
  "the WireMock admin API answers WireMock 3.13.2's statuses and JSON shapes, call by call",
  async (server) => {
    await replayFixture(server.url);
    // mappings/save wrote the one admin mapping left, named as WireMock names it.
    assert.deepEqual([...Deno.readDirSync(join(SAVE_DIR, "mappings"))].map((f) => f.name), [
      "get-hello-8c5db8b0-2db4-4ad7-a99f-38c9b00da3f7.json",
    ]);
  },
  { wiremockDirs: [SAVE_DIR] },
);

serverTest(
  "a mapping added over /__admin/ reads back as it was sent, with its id, and answers as a stub",
  async (server) => {
    const mapping = {
      name: "greeting",
      request: { method: "GET", urlPath: "/greet", queryParameters: { who: { equalTo: "ada" } } },
      response: { status: 200, body: "hi ada" },
    };
    const added = await send(server, "POST", "/__admin/mappings", { body: JSON.stringify(mapping) });
    assert.equal(added.status, 201);
    const id = added.json.id;
    assert.match(id, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    assert.deepEqual(added.json, { id, ...mapping, uuid: id });
    assert.deepEqual((await send(server, "GET", `/__admin/mappings/${id}`)).json, added.json);
    assert.equal((await send(server, "GET", "/greet?who=ada")).text, "hi ada");
    assert.equal((await send(server, "GET", "/greet?who=bo")).status, 404);
    const stubs = (await send(server, "GET", "/__stubtool__/stubs")).json.stubs;
    assert.deepEqual(stubs.map((s: { id: string; source: string }) => [s.id, s.source]), [[id, "admin"]]);
  },
);

serverTest(
  "a mapping that does not convert is refused with 422 naming the feature, and nothing is added",
  async (server) => {
    const refused = await send(server, "POST", "/__admin/mappings", {
      body: JSON.stringify({
        request: { method: "GET", urlPath: "/x", bogus: { name: "mine" } },
        response: { status: 200 },
      }),
    });
    assert.equal(refused.status, 422);
    assert.deepEqual(refused.json.errors, [{
      code: 10,
      title: "'request.bogus' is not supported by stubtool",
      detail: "body mappings[0]: 'request.bogus' is not supported: stubtool has no equivalent",
    }]);
    assert.deepEqual((await send(server, "GET", "/__admin/mappings")).json, { mappings: [], meta: { total: 0 } });
    assert.equal((await send(server, "GET", "/x")).status, 404);
  },
);

serverTest("bodyFileName over /__admin/ is refused without --files-root (the server reads no file)", async (server) => {
  const refused = await send(server, "POST", "/__admin/mappings", {
    body: JSON.stringify({ request: { method: "GET", urlPath: "/f" }, response: { bodyFileName: "../../etc/passwd" } }),
  });
  assert.equal(refused.status, 422);
  assert.equal(refused.json.errors[0].source.pointer, "/response/bodyFileName");
});

Deno.test("regression: bodyFileName over /__admin/ with --files-root told an outside file that exists from one that does not; one message, and a file inside is served", async () => {
  await using dir = await tempDir();
  const root = join(dir.path, "files");
  await mkdir(root);
  await writeFile(join(root, "pet.json"), '{"pet":1}');
  await writeFile(join(dir.path, "exists.txt"), "secret");
  await using server = await stubServer(0, { filesRoot: root });
  const add = (bodyFileName: string, url = "/f") =>
    send(server, "POST", "/__admin/mappings", {
      body: JSON.stringify({ request: { method: "GET", urlPath: url }, response: { bodyFileName } }),
    });
  assert.equal((await add("pet.json", "/pet")).status, 201);
  assert.equal((await send(server, "GET", "/pet")).text, '{"pet":1}');
  const titles = new Set<string>();
  for (const name of ["../exists.txt", "../missing.txt", "/etc/passwd", "/etc/no-such-file"]) {
    const refused = await add(name);
    assert.equal(refused.status, 422, name);
    titles.add(
      refused.json.errors[0].title.replace(JSON.stringify(name.replace(/^\/+/, "")), "FILE").replace(
        / \(looked for .*\)$/,
        "",
      ),
    );
  }
  assert.deepEqual([...titles], [`body_file FILE cannot be read: it is not a file inside --files-root ${root}`]);
  assert.equal((await send(server, "GET", "/f")).status, 404);
});

serverTest(
  "the most recently added mapping wins a tie; WireMock's priority 1 beats a later default one",
  async (server) => {
    const add = (status: number, priority?: number) =>
      send(server, "POST", "/__admin/mappings", {
        body: JSON.stringify({ priority, request: { method: "GET", urlPath: "/p" }, response: { status } }),
      });
    await add(200);
    await add(201);
    assert.equal((await send(server, "GET", "/p")).status, 201);
    await add(202, 1);
    await add(203);
    assert.equal((await send(server, "GET", "/p")).status, 202);
  },
);

serverTest(
  "requests/count and requests/find take WireMock request patterns: url, urlPattern, headers, bodyPatterns",
  async (server) => {
    await send(server, "GET", "/orders?page=2");
    await send(server, "POST", "/orders", {
      body: JSON.stringify({ item: "tea" }),
      headers: { "content-type": "application/json", "x-trace": "t1" },
    });
    await send(server, "POST", "/orders", { body: "{}", headers: { "content-type": "application/json" } });
    const count = async (pattern: unknown) =>
      (await send(server, "POST", "/__admin/requests/count", { body: JSON.stringify(pattern) })).json;
    assert.deepEqual(await count({ method: "GET", url: "/orders?page=2" }), {
      count: 1,
      requestJournalDisabled: false,
    });
    assert.equal((await count({ url: "/orders" })).count, 2);
    assert.equal((await count({ urlPattern: "/orders\\?page=\\d+" })).count, 1);
    assert.equal((await count({ method: "POST", urlPathPattern: "/ord.*" })).count, 2);
    assert.equal((await count({ urlPath: "/orders", headers: { "X-Trace": { equalTo: "t1" } } })).count, 1);
    assert.equal((await count({ method: "ANY", bodyPatterns: [{ contains: "tea" }] })).count, 1);
    const found = await send(server, "POST", "/__admin/requests/find", {
      body: JSON.stringify({
        method: "POST",
        bodyPatterns: [{ equalToJson: { item: "tea" }, ignoreExtraElements: true }],
      }),
    });
    assert.equal(found.json.requests.length, 1);
    const logged = found.json.requests[0];
    assert.equal(logged.url, "/orders");
    assert.equal(logged.absoluteUrl, `${server.url}/orders`);
    assert.equal(logged.body, '{"item":"tea"}');
    assert.equal(logged.bodyAsBase64, btoa('{"item":"tea"}'));
    assert.equal(logged.headers["x-trace"], "t1");
    const refused = await send(server, "POST", "/__admin/requests/count", {
      body: JSON.stringify({
        urlPath: "/x",
        bodyPatterns: [{ matchesXPath: { expression: "/order/item", absent: true } }],
      }),
    });
    assert.equal(refused.status, 422);
    assert.equal(refused.json.errors[0].title, "'bodyPatterns[0] matchesXPath absent' is not supported by stubtool");
  },
);

serverTest("GET /__admin/requests lists serve events newest first; ?limit and ?unmatched", async (server) => {
  await send(server, "POST", "/__admin/mappings", {
    body: JSON.stringify({ id: "a-1", request: { method: "GET", urlPath: "/a" }, response: { status: 200 } }),
  });
  await send(server, "GET", "/a");
  await send(server, "GET", "/b");
  const all = (await send(server, "GET", "/__admin/requests")).json;
  assert.deepEqual(
    all.requests.map((e: { request: { url: string }; wasMatched: boolean }) => [e.request.url, e.wasMatched]),
    [
      ["/b", false],
      ["/a", true],
    ],
  );
  assert.equal(all.requests[1].stubMapping.id, "a-1");
  assert.deepEqual(all.meta, { total: 2 });
  const one = (await send(server, "GET", "/__admin/requests?limit=1")).json;
  assert.deepEqual(one.requests.map((e: { request: { url: string } }) => e.request.url), ["/b"]);
  const unmatched = (await send(server, "GET", "/__admin/requests?unmatched=true")).json;
  assert.deepEqual(unmatched.requests.map((e: { request: { url: string } }) => e.request.url), ["/b"]);
});

serverTest(
  "stubs from the server's own config show in a WireMock shape, and mappings/reset brings them back",
  async (server) => {
    const list = (await send(server, "GET", "/__admin/mappings")).json;
    assert.deepEqual(list.mappings, [{
      id: "base",
      request: { urlPath: "/base", method: "GET" },
      response: { status: 200, body: "from config" },
      uuid: "base",
      metadata: { stubtool: { source: "config" } },
    }]);
    assert.equal((await send(server, "DELETE", "/__admin/mappings")).status, 200);
    assert.equal((await send(server, "GET", "/base")).status, 404);
    assert.equal((await send(server, "POST", "/__admin/mappings/reset")).status, 200);
    assert.equal((await send(server, "GET", "/base")).json, "from config");
  },
  { stubs: [get("/base").id("base").body("from config").toStub()] },
);

serverTest("scenarios: a flow walked, its state set and refused as WireMock does, and reset", async (server) => {
  const add = (mapping: Record<string, unknown>) =>
    send(server, "POST", "/__admin/mappings", { body: JSON.stringify({ scenarioName: "cart", ...mapping }) });
  await add({
    requiredScenarioState: "Started",
    newScenarioState: "full",
    request: { method: "POST", urlPath: "/cart" },
    response: { status: 201 },
  });
  await add({
    requiredScenarioState: "full",
    request: { method: "GET", urlPath: "/cart" },
    response: { body: "1 item" },
  });
  assert.equal((await send(server, "GET", "/cart")).status, 404);
  await send(server, "POST", "/cart");
  assert.equal((await send(server, "GET", "/cart")).text, "1 item");
  const listed = (await send(server, "GET", "/__admin/scenarios")).json.scenarios;
  assert.deepEqual(listed.map((s: Record<string, unknown>) => [s.id, s.name, s.state, s.possibleStates]), [
    ["cart", "cart", "full", ["Started", "full"]],
  ]);
  assert.equal(listed[0].mappings.length, 2);
  assert.equal((await send(server, "POST", "/__admin/scenarios/reset")).status, 200);
  assert.equal((await send(server, "GET", "/cart")).status, 404);
  const put = (body: string) => send(server, "PUT", "/__admin/scenarios/cart/state", { body });
  assert.equal((await put('{"state":"full"}')).status, 200);
  assert.equal((await send(server, "GET", "/cart")).text, "1 item");
  const undeclared = await put('{"state":"gone"}');
  assert.deepEqual([undeclared.status, undeclared.json.errors[0].title], [
    422,
    "Scenario cart does not support state gone",
  ]);
  assert.equal((await put("")).status, 200);
  assert.equal((await send(server, "GET", "/cart")).status, 404);
});

serverTest(
  "the reserved endpoints' guards hold at /__admin/: admin token, cross-origin writes, health open",
  async (server) => {
    const mapping = JSON.stringify({ request: { method: "GET", urlPath: "/g" }, response: { status: 200 } });
    assert.equal((await send(server, "GET", "/__admin/mappings")).status, 401);
    assert.equal((await send(server, "GET", "/__admin/health")).status, 200);
    const withToken = { authorization: "Bearer s3cret" };
    assert.equal((await send(server, "GET", "/__admin/mappings", { headers: withToken })).status, 200);
    const foreign = await send(server, "POST", "/__admin/mappings", {
      body: mapping,
      headers: { ...withToken, origin: "http://evil.test", "sec-fetch-site": "cross-site" },
    });
    assert.equal(foreign.status, 403);
    const rebound = await rawRequest(
      server.getPort(),
      "GET /__admin/mappings HTTP/1.1\r\nhost: evil.test\r\nauthorization: Bearer s3cret\r\nconnection: close\r\n\r\n",
    );
    assert.equal(rebound.statusLine, "HTTP/1.1 403 Forbidden");
    assert.equal((await send(server, "POST", "/__admin/mappings", { body: mapping, headers: withToken })).status, 201);
  },
  { adminToken: "s3cret", loopbackOnly: true },
);

serverTest("wiremock-captain, WireMock's npm client, drives stubtool as a user's test suite would", async (server) => {
  const mock = new WireMock(server.url);
  // stubtool's converter takes urlPath (not yet url) and equalToJson that allows extra fields.
  const features = { requestEndpointFeature: "urlPath" as never, requestIgnoreExtraElements: true };
  const created = await mock.register(
    { method: "POST", endpoint: "/users", body: { name: "ada" } },
    { status: 201, body: { id: 1 } },
    features,
  );
  assert.match(created.id as string, /^[0-9a-f-]{36}$/);
  const answer = await fetch(`${server.url}/users`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ name: "ada" }),
  });
  assert.deepEqual([answer.status, await answer.json()], [201, { id: 1 }]);
  await (await fetch(`${server.url}/missing`)).body?.cancel();
  // Verify: what was sent, and what matched nothing.
  const calls: Json[] = await mock.getRequestsForAPI("POST", "/users");
  assert.equal(calls.length, 1);
  assert.deepEqual(JSON.parse(calls[0].request.body), { name: "ada" });
  assert.deepEqual((await mock.getUnmatchedRequests() as Json[]).map((r: { url: string }) => r.url), ["/missing"]);
  assert.deepEqual((await mock.getAllMappings() as Json[]).map((m: { id: string }) => m.id), [created.id]);
  assert.equal((await mock.getMapping(created.id as string) as Json).id, created.id);
  // Scenarios.
  await mock.register(
    { method: "GET", endpoint: "/job" },
    { status: 200, body: { state: "done" } },
    { ...features, scenario: { scenarioName: "job", requiredScenarioState: "Started", newScenarioState: "done" } },
  );
  await (await fetch(`${server.url}/job`)).body?.cancel();
  assert.deepEqual(
    (await mock.getAllScenarios() as Json[]).map((s: { name: string; state: string }) => [s.name, s.state]),
    [
      ["job", "done"],
    ],
  );
  await mock.resetAllScenarios();
  assert.equal((await mock.getAllScenarios() as Json[])[0].state, "Started");
  // Clean up between tests.
  await mock.deleteMapping(created.id as string);
  assert.equal(await fetch(`${server.url}/users`, { method: "POST", body: "{}" }).then((r) => r.status), 404);
  await mock.clearAll();
  assert.deepEqual(await mock.getAllMappings(), []);
  assert.deepEqual(await mock.getAllRequests(), []);
});

Deno.test("the WireMock admin API needs no option: a server started plainly answers /__admin/health", async () => {
  await using server = await stubServer(0);
  const health = await send(server, "GET", "/__admin/health");
  assert.equal(health.status, 200);
  assert.equal(health.json.status, "healthy");
});

serverTest(
  "mappings list newest first with ?limit and ?offset; import replaces a taken id, or keeps it with IGNORE",
  async (server) => {
    const mapping = (id: string, status: number) => ({
      id,
      request: { method: "GET", urlPath: `/${id}` },
      response: { status },
    });
    for (const id of ["m1", "m2", "m3"]) {
      await send(server, "POST", "/__admin/mappings", { body: JSON.stringify(mapping(id, 200)) });
    }
    const ids = async (query = "") =>
      (await send(server, "GET", `/__admin/mappings${query}`)).json.mappings.map((m: { id: string }) => m.id);
    assert.deepEqual(await ids(), ["m3", "m2", "m1"]);
    assert.deepEqual(await ids("?limit=1&offset=1"), ["m2"]);
    const importing = (body: unknown) =>
      send(server, "POST", "/__admin/mappings/import", { body: JSON.stringify(body) });
    assert.equal((await importing({ mappings: [mapping("m1", 201), mapping("m4", 201)] })).status, 200);
    assert.equal((await send(server, "GET", "/m1")).status, 201);
    assert.equal(
      (await importing({ mappings: [mapping("m1", 202)], importOptions: { duplicatePolicy: "IGNORE" } })).status,
      200,
    );
    assert.equal((await send(server, "GET", "/m1")).status, 201);
    await importing({ mappings: [mapping("m2", 203)], importOptions: { deleteAllNotInImport: true } });
    assert.deepEqual(await ids(), ["m2"]);
    assert.equal((await send(server, "GET", "/m2")).status, 203);
    // One mapping that does not convert keeps the whole import out.
    const refused = await importing({ mappings: [mapping("m5", 200), { request: { urlPath: "/x", bogus: 1 } }] });
    assert.equal(refused.status, 422);
    assert.deepEqual(await ids(), ["m2"]);
  },
);

Deno.test("regression: an admin mapping of the default priority lost to every ranked --wiremock mapping; now priorities keep WireMock's order across both, and the mapping added last wins a tie", async () => {
  await using dir = await tempDir();
  await mkdir(join(dir.path, "mappings"));
  const mapping = (priority: number | undefined, path: string, body: string) => ({
    ...(priority === undefined ? {} : { priority }),
    request: { method: "GET", urlPath: path },
    response: { status: 200, body },
  });
  await writeFile(
    join(dir.path, "mappings", "all.json"),
    JSON.stringify({
      mappings: [
        mapping(undefined, "/tie", "folder first"),
        mapping(undefined, "/tie", "folder later"),
        mapping(1, "/urgent", "folder urgent"),
      ],
    }),
  );
  await using server = await stubServer(0, { wiremock: [loadWireMockFolder(dir.path).stubs] });
  const text = async (path: string) => await (await fetch(`${server.url}${path}`)).text();
  assert.equal(await text("/tie"), "folder later", "in a folder, the later of two tied mappings wins");
  for (const added of [mapping(undefined, "/tie", "admin"), mapping(5, "/urgent", "admin default")]) {
    const answer = await fetch(`${server.url}/__admin/mappings`, { method: "POST", body: JSON.stringify(added) });
    assert.equal(answer.status, 201, await answer.text());
  }
  assert.equal(await text("/tie"), "admin", "a mapping added over /__admin/ wins a tie with the loaded ones");
  assert.equal(await text("/urgent"), "folder urgent", "a loaded priority-1 mapping beats a later default one");
});

serverTest(
  "regression: WireMock's Java client removes a mapping with POST /__admin/mappings/remove and asks for near misses when a verify fails; both were 404/405",
  async (server) => {
    const mapping = { request: { method: "GET", urlPath: "/tmp" }, response: { status: 200, body: "t" } };
    const added = await send(server, "POST", "/__admin/mappings", { body: JSON.stringify(mapping) });
    assert.equal(added.status, 201);
    assert.equal((await send(server, "GET", "/tmp")).status, 200);
    // By request part (the client sends the mapping it registered; here without its id).
    const removed = await send(server, "POST", "/__admin/mappings/remove", { body: JSON.stringify(mapping) });
    assert.equal(removed.status, 200, removed.text);
    assert.equal((await send(server, "GET", "/tmp")).status, 404);
    // Nothing left to remove: WireMock's empty 200 all the same.
    const again = await send(server, "POST", "/__admin/mappings/remove", { body: JSON.stringify(mapping) });
    assert.deepEqual([again.status, again.text], [200, ""]);
    // By id.
    const withId = await send(server, "POST", "/__admin/mappings", { body: JSON.stringify(mapping) });
    const id = withId.json.id;
    const byId = await send(server, "POST", "/__admin/mappings/remove", { body: JSON.stringify({ id }) });
    assert.equal(byId.status, 200, byId.text);
    assert.equal((await send(server, "GET", `/__admin/mappings/${id}`)).status, 404);
    for (const path of ["/__admin/near-misses/request-pattern", "/__admin/near-misses/request"]) {
      const near = await send(server, "POST", path, { body: JSON.stringify({ method: "GET", url: "/x" }) });
      assert.equal(near.status, 200, path);
      assert.deepEqual(near.json, { nearMisses: [] }, path);
    }
    const unmatched = await send(server, "GET", "/__admin/requests/unmatched/near-misses");
    assert.deepEqual([unmatched.status, unmatched.json], [200, { nearMisses: [] }]);
  },
);

serverTest(
  "regression: a mapping with matches / urlPattern '(a+)+$' froze the server on an almost-match; it answers at once",
  async (server) => {
    for (
      const mapping of [
        { request: { method: "GET", urlPattern: "/p/(a+)+$" }, response: { status: 200, body: "url" } },
        {
          request: {
            method: "POST",
            urlPath: "/b",
            bodyPatterns: [{ matchesJsonPath: { expression: "$.name", matches: "(a+)+$" } }],
          },
          response: { status: 200, body: "body" },
        },
      ]
    ) {
      assert.equal((await send(server, "POST", "/__admin/mappings", { body: JSON.stringify(mapping) })).status, 201);
    }
    const start = performance.now();
    const attacks = [
      send(server, "GET", "/p/" + "a".repeat(37) + "!"),
      send(server, "POST", "/b", { body: JSON.stringify({ name: "a".repeat(50_000) + "!" }) }),
      send(server, "GET", "/__stubtool__/health"),
    ];
    const [url, body, health] = await Promise.all(attacks);
    const took = performance.now() - start;
    assert.deepEqual([url.status, body.status, health.status], [404, 404, 200]);
    // The backtracking engine took 7+ s at 37 characters; a generous bound for a loaded machine.
    assert.ok(took < 2000, `the attacks and the health check took ${took.toFixed(0)} ms`);
    assert.equal((await send(server, "GET", "/p/aaa")).text, "url");
  },
);

serverTest("a mapping with a lookahead or a backreference is refused with 422 and not added", async (server) => {
  for (const [pattern, problem] of [["a(?=b)", "a lookahead (?=…)"], ["(a)\\1", "the escape \\1"]]) {
    const refused = await send(server, "POST", "/__admin/mappings", {
      body: JSON.stringify({
        request: { method: "GET", urlPath: "/x", headers: { "x-a": { matches: pattern } } },
        response: { status: 200 },
      }),
    });
    assert.equal(refused.status, 422, pattern);
    assert.ok(refused.json.errors[0].detail.includes(problem), refused.json.errors[0].detail);
  }
  assert.deepEqual((await send(server, "GET", "/__admin/mappings")).json, { mappings: [], meta: { total: 0 } });
});

serverTest(
  "regression: a 2,000-mapping import rescanned the whole body once per mapping (9 s, every request blocked); 10,000 import in slices while a health check is answered",
  async (server) => {
    const mappings = Array.from({ length: 10_000 }, (_, i) => ({
      request: { method: "GET", url: `/item/${i}` },
      response: { status: 200, body: `item ${i}` },
    }));
    const started = performance.now();
    const importing = send(server, "POST", "/__admin/mappings/import", { body: JSON.stringify({ mappings }) })
      .then((answer) => ({ answer, at: performance.now() - started }));
    // The health check goes out while the import is under way (its body is ~0.9 MB).
    await new Promise((resolve) => setTimeout(resolve, 30));
    const health = await send(server, "GET", "/__admin/health").then((answer) => ({
      answer,
      at: performance.now() - started,
    }));
    const imported = await importing;
    assert.equal(imported.answer.status, 200);
    assert.equal(health.answer.status, 200);
    // Linear: well under a second on an idle machine; the bound is for a loaded 2-core CI machine.
    assert.ok(imported.at < 10_000, `the import took ${Math.round(imported.at)} ms`);
    assert.ok(health.at < imported.at, `the health check (${Math.round(health.at)} ms) waited for the import`);
    assert.equal((await send(server, "GET", "/item/9999")).text, "item 9999");
    assert.equal((await send(server, "GET", "/item/0")).text, "item 0");
    assert.equal((await send(server, "GET", "/__admin/mappings")).json.mappings.length, 10_000);
  },
);

serverTest(
  "regression: deeply nested JSON to /__admin/ answered 500 'Maximum call stack size exceeded'; 400 with its place",
  async (server) => {
    const deep = "[".repeat(100_000) + "]".repeat(100_000);
    const cases: [string, string][] = [
      ["/__admin/mappings", `{"request":{"url":"/x"},"response":{"jsonBody":${deep}}}`],
      ["/__admin/mappings/import", `{"mappings":[{"request":{"url":"/x"},"response":{"jsonBody":${deep}}}]}`],
      ["/__admin/requests/find", `{"bodyPatterns":[{"equalToJson":${deep}}]}`],
    ];
    const places = [
      "body response.jsonBody[0][0][0][0][0][0]…",
      "body mappings[0].response.jsonBody[0][0][0][0]…",
      "body bodyPatterns[0].equalToJson[0][0][0][0][0]…",
    ];
    for (const [i, [path, body]] of cases.entries()) {
      const answer = await send(server, "POST", path, { body });
      assert.equal(answer.status, 400, path);
      assert.equal(
        answer.json.errors[0].title,
        `${
          places[i]
        }: nests objects and arrays more than 128 levels deep, which stubtool does not read: flatten the document`,
      );
    }
    // 128 levels are read.
    const ok = "[".repeat(120) + "1" + "]".repeat(120);
    const added = await send(server, "POST", "/__admin/mappings", {
      body: `{"request":{"url":"/x"},"response":{"jsonBody":${ok}}}`,
    });
    assert.equal(added.status, 201);
  },
);

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

serverTest(
  "regression: serve event ids were 37 characters (WireMock's Java client could not read them); now one RFC 4122 UUID per request, found and deleted by it",
  async (server) => {
    for (let i = 0; i < 5; i++) await send(server, "GET", `/e/${i}`);
    const events = (await send(server, "GET", "/__admin/requests")).json.requests;
    const ids = events.map((e: { id: string }) => e.id);
    for (const id of ids) assert.match(id, UUID);
    assert.equal(new Set(ids).size, 5);
    // Read again, each record keeps its id.
    assert.deepEqual((await send(server, "GET", "/__admin/requests")).json.requests.map((e: Json) => e.id), ids);
    const one = await send(server, "GET", `/__admin/requests/${ids[2]}`);
    assert.equal(one.json.request.url, "/e/2");
    assert.equal(one.json.request.clientIp, "127.0.0.1");
    assert.equal((await send(server, "DELETE", `/__admin/requests/${ids[2]}`)).status, 200);
    const gone = await send(server, "GET", `/__admin/requests/${ids[2]}`);
    assert.deepEqual([gone.status, gone.text], [404, ""]);
    const left = (await send(server, "GET", "/__admin/requests")).json.requests;
    assert.deepEqual(left.map((e: Json) => [e.id, e.request.url]), [
      [ids[0], "/e/4"],
      [ids[1], "/e/3"],
      [ids[3], "/e/1"],
      [ids[4], "/e/0"],
    ]);
  },
);

for (const adapter of ["node", "deno"] as const) {
  Deno.test(`[${adapter}] the WireMock journal shows request header names ${adapter === "node" ? "in the case sent (node's raw header lines)" : "lower-cased (Deno.serve keeps no case)"}`, async () => {
    await using server = await stubServer(0, { adapter, stubs: [get("/h").toStub()] });
    await rawRequest(
      server.getPort(),
      "GET /h HTTP/1.1\r\nHost: localhost\r\nX-Mixed-Case: one\r\nx-mixed-case: two\r\nconnection: close\r\n\r\n",
    );
    const event = (await send(server, "GET", "/__admin/requests")).json.requests.find((e: Json) =>
      e.request.url === "/h"
    );
    const headers = event.request.headers;
    if (adapter === "node") {
      assert.deepEqual(headers, { Host: "localhost", "X-Mixed-Case": "one, two", connection: "close" });
    } else assert.equal(headers["x-mixed-case"], "one, two");
    assert.equal(event.request.clientIp, "127.0.0.1");
  });
}

serverTest(
  "every answer from a mapping added over /__admin/ carries Matched-Stub-Id (and -Name) with an id /__admin/mappings knows",
  async (server) => {
    const added = await send(server, "POST", "/__admin/mappings", {
      body: JSON.stringify({ name: "n1", request: { method: "GET", urlPath: "/ms" }, response: { status: 200 } }),
    });
    const id = added.json.id;
    const answer = await send(server, "GET", "/ms");
    assert.equal(answer.headers.get("matched-stub-id"), id);
    assert.equal(answer.headers.get("matched-stub-name"), "n1");
    assert.equal((await send(server, "GET", `/__admin/mappings/${id}`)).status, 200);
    // The mapping reads back as it was sent: the header is WireMock's, not the mapping's.
    assert.equal((await send(server, "GET", `/__admin/mappings/${id}`)).json.response.headers, undefined);
    await send(server, "PUT", `/__admin/mappings/${id}`, {
      body: JSON.stringify({ request: { method: "GET", urlPath: "/ms" }, response: { status: 201 } }),
    });
    const replaced = await send(server, "GET", "/ms");
    assert.deepEqual([replaced.status, replaced.headers.get("matched-stub-id")], [201, id]);
  },
);

serverTest("POST /__admin/mappings/save without a --wiremock folder is 405 with the reason", async (server) => {
  const refused = await send(server, "POST", "/__admin/mappings/save");
  assert.equal(refused.status, 405);
  assert.equal(
    refused.json.errors[0].title,
    "mappings/save writes into the folder of serve --wiremock DIR, and this server serves none",
  );
});

Deno.test("POST /__admin/mappings/save writes the admin mappings into the served folder; loaded again they answer alike", async () => {
  await using dir = await tempDir();
  await mkdir(join(dir.path, "mappings"));
  {
    await using server = await stubServer(0, { wiremockDirs: [dir.path] });
    for (const [name, path] of [["Greet Me", "/g"], [undefined, "/a/b"]]) {
      await send(server, "POST", "/__admin/mappings", {
        body: JSON.stringify({ name, request: { method: "GET", url: path }, response: { status: 200, body: path } }),
      });
    }
    const saved = await send(server, "POST", "/__admin/mappings/save");
    assert.deepEqual([saved.status, saved.text], [200, ""]);
  }
  const files = [...Deno.readDirSync(join(dir.path, "mappings"))].map((f) =>
    f.name.replace(/-[0-9a-f-]{36}\.json$/, "")
  )
    .sort();
  assert.deepEqual(files, ["get-ab", "greet-me"]);
  const loaded = loadWireMockFolder(dir.path);
  assert.deepEqual(loaded.problems, []);
  await using again = await stubServer(0, { wiremock: [loaded.stubs] });
  assert.equal((await send(again, "GET", "/a/b")).text, "/a/b");
  assert.equal((await send(again, "GET", "/g")).text, "/g");
});

serverTest(
  "settings: GET/POST/PUT as WireMock 3 (a field not sent goes back to its default); a global delay is refused, not kept without effect",
  async (server) => {
    assert.deepEqual((await send(server, "GET", "/__admin/settings")).json, { settings: { proxyPassThrough: true } });
    assert.equal((await send(server, "POST", "/__admin/settings", { body: '{"extended":{"x":1}}' })).status, 200);
    assert.deepEqual((await send(server, "GET", "/__admin/settings")).json, {
      settings: { extended: { x: 1 }, proxyPassThrough: false },
    });
    const delay = await send(server, "POST", "/__admin/settings", { body: '{"fixedDelay":50}' });
    assert.equal(delay.status, 422);
    assert.equal(delay.json.errors[0].title, "'fixedDelay' is not supported by stubtool");
    assert.deepEqual((await send(server, "GET", "/__admin/settings")).json.settings.extended, { x: 1 });
  },
);

serverTest(
  "regression: a jsonBody with 1.0 added over /__admin/mappings was refused (422); its numbers are now sent as WireMock writes them",
  async (server) => {
    const one = await send(server, "POST", "/__admin/mappings", {
      body: '{"request":{"url":"/one"},"response":{"jsonBody":{"a":1.0,"b":2.50,"c":1e3,"d":-0.0,"e":1}}}',
    });
    assert.equal(one.status, 201);
    const many = await send(server, "POST", "/__admin/mappings/import", {
      body:
        '{"mappings":[{"request":{"url":"/two"},"response":{"jsonBody":[1]}},{"request":{"url":"/three"},"response":{"jsonBody":[3.0]}}]}',
    });
    assert.equal(many.status, 200);
    assert.equal((await send(server, "GET", "/one")).text, '{"a":1.0,"b":2.50,"c":1000,"d":0.0,"e":1}');
    assert.equal((await send(server, "GET", "/two")).text, "[1]");
    assert.equal((await send(server, "GET", "/three")).text, "[3.0]");
  },
);
