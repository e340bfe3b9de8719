/**
 * Behaviour over real HTTP, one test (at least) per rule of the stub fields, matching, endpoints, API and reliability, run against
 * both runtime adapters.
 */
import assert from "node:assert/strict";
import { del, get, head, options, patch, post, put, route, type Stub, stubServer } from "../mod.ts";
import { StubHandler } from "../handler.ts";
import { send, serverTest } from "./_http.ts";
import { validateConfig } from "../src/stubs/validate.ts";

// ---------------------------------------------------------------- stub fields

serverTest("status defaults to 200 and a body is JSON with application/json", async (server) => {
  server.routes(get("/a").body({ ok: true }));
  const answer = await send(server, "GET", "/a");
  assert.equal(answer.status, 200);
  assert.equal(answer.headers.get("content-type"), "application/json");
  assert.equal(answer.text, '{"ok":true}');
});

serverTest("explicit status and no body gives an empty body without content-type", async (server) => {
  server.routes(del("/a").status(204), post("/b").status(202));
  const deleted = await send(server, "DELETE", "/a");
  assert.equal(deleted.status, 204);
  assert.equal(deleted.text, "");
  const accepted = await send(server, "POST", "/b");
  assert.equal(accepted.status, 202);
  assert.equal(accepted.text, "");
  assert.equal(accepted.headers.get("content-type"), null);
  // Regression (Node adapter): an empty answer went out chunked instead of saying its length.
  assert.equal(accepted.headers.get("content-length"), "0");
  assert.equal(accepted.headers.get("transfer-encoding"), null);
});

serverTest("every JSON value is a body: string, number, null, array", async (server) => {
  server.routes(
    get("/s").body("hello"),
    get("/n").body(42),
    get("/null").body(null),
    get("/list").body([1, "two", { three: 3 }]),
  );
  assert.equal((await send(server, "GET", "/s")).text, '"hello"');
  assert.equal((await send(server, "GET", "/n")).text, "42");
  assert.equal((await send(server, "GET", "/null")).text, "null");
  assert.equal((await send(server, "GET", "/list")).text, '[1,"two",{"three":3}]');
});

serverTest("response headers are sent; a content-type header replaces the JSON default", async (server) => {
  server.routes(
    get("/h").headers({ "x-one": "1", "X-Two": "2" }).body({}),
    get("/vendor").header("content-type", "application/vnd.api+json").body({ a: 1 }),
  );
  const answer = await send(server, "GET", "/h");
  assert.equal(answer.headers.get("x-one"), "1");
  assert.equal(answer.headers.get("x-two"), "2");
  const vendor = await send(server, "GET", "/vendor");
  assert.equal(vendor.headers.get("content-type"), "application/vnd.api+json");
  assert.equal(vendor.text, '{"a":1}');
});

serverTest("a string body under a non-JSON content-type is sent as is", async (server) => {
  server.routes(
    get("/text/{name}").header("content-type", "text/plain").body("hello {name}"),
    get("/json-string").header("content-type", "application/json; charset=utf-8").body("raw"),
  );
  const text = await send(server, "GET", "/text/ada");
  assert.equal(text.text, "hello ada");
  // P19.2: a content type the stub sets is sent exactly as written (no charset added).
  assert.equal(text.headers.get("content-type"), "text/plain");
  assert.equal((await send(server, "GET", "/json-string")).text, '"raw"');
});

serverTest("fixed delay waits before answering", async (server) => {
  server.routes(get("/slow").delay(150).body({}));
  const start = performance.now();
  const answer = await send(server, "GET", "/slow");
  const elapsed = performance.now() - start;
  assert.equal(answer.status, 200);
  assert.ok(elapsed >= 140, `answered after ${elapsed} ms, expected at least 150`);
});

serverTest("delay {min, max} draws a wait inside the range", async (server) => {
  server.routes(get("/range").delay(80, 120).body({}));
  const start = performance.now();
  await send(server, "GET", "/range");
  const elapsed = performance.now() - start;
  assert.ok(elapsed >= 75, `answered after ${elapsed} ms, expected at least 80`);
});

serverTest("sequence answers the n-th request with the n-th entry, then repeats the last", async (server) => {
  server.routes(get("/flaky").sequence({ status: 503 }, { status: 500, body: { try: 2 } }, { body: { ok: true } }));
  const statuses = [];
  for (let i = 0; i < 5; i++) statuses.push((await send(server, "GET", "/flaky")).status);
  assert.deepEqual(statuses, [503, 500, 200, 200, 200]);
});

serverTest("sequence_mode cycle starts over after the last entry", async (server) => {
  server.routes(get("/c").sequence({ status: 201 }, { status: 202 }).sequenceMode("cycle"));
  const statuses = [];
  for (let i = 0; i < 5; i++) statuses.push((await send(server, "GET", "/c")).status);
  assert.deepEqual(statuses, [201, 202, 201, 202, 201]);
});

serverTest("a top-level delay applies to sequence entries without their own", async (server) => {
  const { config } = validateConfig({
    routes: [{ method: "GET", path: "/s", delay: 120, sequence: [{ status: 200 }, { status: 201, delay: 0 }] }],
  });
  server.routes(...config!.routes);
  let start = performance.now();
  assert.equal((await send(server, "GET", "/s")).status, 200);
  assert.ok(performance.now() - start >= 110);
  start = performance.now();
  assert.equal((await send(server, "GET", "/s")).status, 201);
  assert.ok(performance.now() - start < 100);
});

serverTest("methods are stored upper-case and each builder sets its method", async (server) => {
  server.routes(
    route("get", "/m").body("get"),
    post("/m").body("post"),
    put("/m").body("put"),
    patch("/m").body("patch"),
    del("/m").body("delete"),
    options("/m").body("options"),
  );
  for (const method of ["GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]) {
    assert.equal((await send(server, method, "/m")).json, method.toLowerCase());
  }
});

// ---------------------------------------------------------------- matching

serverTest("a placeholder matches exactly one non-empty segment", async (server) => {
  server.routes(get("/users/{id}").body({ id: "{id}" }));
  assert.deepEqual((await send(server, "GET", "/users/42")).json, { id: "42" });
  assert.equal((await send(server, "GET", "/users/42/extra")).status, 404);
  assert.equal((await send(server, "GET", "/users//")).status, 404);
  assert.equal((await send(server, "GET", "/users")).status, 404);
});

serverTest("segments are compared percent-decoded, in stubs and requests", async (server) => {
  server.routes(get("/files/a%20b").body("space"), get("/caf\u00e9/{x}").body({ x: "{x}" }));
  assert.equal((await send(server, "GET", "/files/a%20b")).json, "space");
  assert.deepEqual((await send(server, "GET", "/caf%C3%A9/%2F%20")).json, { x: "/ " });
});

serverTest("a trailing slash is significant", async (server) => {
  server.routes(get("/a").body("no slash"), get("/b/").body("slash"));
  assert.equal((await send(server, "GET", "/a")).status, 200);
  assert.equal((await send(server, "GET", "/a/")).status, 404);
  assert.equal((await send(server, "GET", "/b/")).status, 200);
  assert.equal((await send(server, "GET", "/b")).status, 404);
});

serverTest("a static segment beats a placeholder whatever the declaration order", async (server) => {
  server.routes(get("/users/{id}").body("placeholder"), get("/users/me").body("static"));
  assert.equal((await send(server, "GET", "/users/me")).json, "static");
  assert.equal((await send(server, "GET", "/users/you")).json, "placeholder");
});

serverTest("a stub with required query beats one without; otherwise first declared wins", async (server) => {
  server.routes(
    get("/search").body("any"),
    get("/search?sort=asc").body("sorted"),
    get("/dup").body("first"),
    get("/dup").body("second"),
  );
  assert.equal((await send(server, "GET", "/search?sort=asc")).json, "sorted");
  assert.equal((await send(server, "GET", "/search?sort=desc")).json, "any");
  assert.equal((await send(server, "GET", "/dup")).json, "first");
});

serverTest("the static branch falls back to the placeholder branch when it dead-ends", async (server) => {
  server.routes(get("/a/static/x").body("deep static"), get("/a/{p}/y").body({ p: "{p}" }));
  assert.deepEqual((await send(server, "GET", "/a/static/y")).json, { p: "static" });
});

serverTest("placeholders fill strings in body and headers; keys and unknown names stay", async (server) => {
  server.routes(
    get("/orgs/{org}/users/{id}")
      .header("x-user", "{org}:{id}")
      .body({ "{id}": "{id}", nested: [{ who: "user {id} of {org}" }, "{unknown}"], n: 1 }),
  );
  const answer = await send(server, "GET", "/orgs/acme/users/7");
  assert.equal(answer.headers.get("x-user"), "acme:7");
  assert.deepEqual(answer.json, { "{id}": "7", nested: [{ who: "user 7 of acme" }, "{unknown}"], n: 1 });
});

serverTest("captured values are JSON-escaped and substituted as strings", async (server) => {
  server.routes(get("/echo/{v}").body({ v: "{v}", n: "{v}" }));
  const answer = await send(server, "GET", "/echo/" + encodeURIComponent('a"b\\c\n{v}'));
  assert.deepEqual(answer.json, { v: 'a"b\\c\n{v}', n: 'a"b\\c\n{v}' });
  assert.deepEqual((await send(server, "GET", "/echo/12")).json, { v: "12", n: "12" });
});

{
  const logged: { target: string; status: number }[] = [];
  serverTest(
    "regression: path and query captures go into header values as sent (%E2%9C%93 was a 500, journaled twice; %3F/%2F changed a Location)",
    async (server) => {
      logged.length = 0;
      server.routes(
        get("/users/{id}").status(302).header("location", "/u/{id}").body({ id: "{id}" }),
        get("/find?q={q}").status(302).header("location", "/search?q={q}").body({ q: "{q}" }),
      );
      const redirect = (path: string) => fetch(server.url + path, { redirect: "manual" });
      const cases: [path: string, location: string, body: unknown][] = [
        ["/users/%E2%9C%93", "/u/%E2%9C%93", { id: "✓" }],
        ["/users/a%3Fb%2Fc", "/u/a%3Fb%2Fc", { id: "a?b/c" }],
        ["/find?q=a%26b%3Dc+d", "/search?q=a%26b%3Dc+d", { q: "a&b=c d" }],
        ["/find?q=%E2%9C%93", "/search?q=%E2%9C%93", { q: "✓" }],
      ];
      for (const [path, location, body] of cases) {
        const answer = await redirect(path);
        assert.equal(answer.status, 302, path);
        assert.equal(answer.headers.get("location"), location, path);
        assert.deepEqual(await answer.json(), body, path);
      }
      const journal = (await server.journal()).requests.map((r) => [r.target, r.status]);
      assert.deepEqual(journal, cases.map(([path]) => [path, 302]));
      assert.deepEqual(logged, cases.map(([path]) => ({ target: path, status: 302 })));
    },
    { onRequest: ({ target, status }) => void logged.push({ target, status }) },
  );
}

serverTest("?q={term} requires q and captures its value", async (server) => {
  server.routes(get("/search?q={term}").body({ term: "{term}" }));
  assert.deepEqual((await send(server, "GET", "/search?q=red%20shoes&page=2")).json, { term: "red shoes" });
  assert.equal((await send(server, "GET", "/search?page=2")).status, 404);
});

serverTest("query_params: a literal requires that exact value, extra parameters allowed", async (server) => {
  server.routes(get("/list").queryParams({ sort: "asc" }).body("asc"));
  assert.equal((await send(server, "GET", "/list?sort=asc&x=1")).json, "asc");
  assert.equal((await send(server, "GET", "/list?sort=desc")).status, 404);
});

serverTest("a stub with no query part matches any query string", async (server) => {
  server.routes(get("/any").body("yes"));
  assert.equal((await send(server, "GET", "/any?a=1&b=2")).json, "yes");
});

serverTest("HEAD without a HEAD stub is answered by the GET stub, without body, as its hit", async (server) => {
  server.routes(get("/doc").header("x-doc", "1").body({ big: "body" }), head("/own").header("x-own", "1"));
  const answer = await send(server, "HEAD", "/doc");
  assert.equal(answer.status, 200);
  assert.equal(answer.text, "");
  assert.equal(answer.headers.get("x-doc"), "1");
  assert.equal((await send(server, "HEAD", "/own")).headers.get("x-own"), "1");
  const report = await server.report();
  assert.equal(report.stubs[0].hit_count, 1);
  assert.equal(report.summary.unmatched_requests, 0);
});

// ---------------------------------------------------------------- endpoints

serverTest("GET /__stubtool__/health answers 200 {status: ok}", async (server) => {
  const answer = await send(server, "GET", "/__stubtool__/health");
  assert.equal(answer.status, 200);
  assert.equal(answer.text, '{"status":"ok"}');
});

serverTest("the report has exactly its four keys, stubs in declaration order", async (server) => {
  server.routes(get("/b").body(1), get("/a?x={x}").body(2), post("/c").status(201));
  await send(server, "GET", "/a?x=1");
  await send(server, "GET", "/a?x=2");
  await send(server, "GET", "/nothing?z=9");
  await send(server, "PUT", "/nothing");
  const answer = await send(server, "GET", "/__stubtool__/report");
  const report = answer.json;
  assert.deepEqual(Object.keys(report), ["summary", "stubs", "unused_stubs", "unmatched_requests"]);
  assert.deepEqual(report.summary, { total_stubs: 3, matched_stubs: 1, unmatched_requests: 2 });
  assert.deepEqual(report.stubs, [
    { id: "stub-1", method: "GET", path: "/b", hit_count: 0 },
    { id: "stub-2", method: "GET", path: "/a", hit_count: 2, query_params: { x: "{x}" } },
    { id: "stub-3", method: "POST", path: "/c", hit_count: 0 },
  ]);
  assert.deepEqual(report.unused_stubs, [
    { id: "stub-1", method: "GET", path: "/b" },
    { id: "stub-3", method: "POST", path: "/c" },
  ]);
  const [first, second] = report.unmatched_requests;
  assert.deepEqual(Object.keys(first), ["method", "path", "query", "timestamp"]);
  assert.deepEqual({ ...first, timestamp: 0 }, { method: "GET", path: "/nothing", query: "z=9", timestamp: 0 });
  assert.deepEqual(Object.keys(second), ["method", "path", "timestamp"]);
  assert.match(first.timestamp, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  assert.ok(first.timestamp <= second.timestamp);
});

serverTest("the unmatched list keeps the newest N, the total stays exact", async (server) => {
  for (let i = 0; i < 7; i++) await send(server, "GET", `/miss/${i}`);
  const report = await server.report();
  assert.equal(report.summary.unmatched_requests, 7);
  assert.deepEqual(report.unmatched_requests.map((u) => u.path), ["/miss/4", "/miss/5", "/miss/6"]);
}, { maxUnmatched: 3 });

serverTest("POST /__stubtool__/reset zeroes hits, clears unmatched, restarts sequences", async (server) => {
  server.routes(get("/seq").sequence({ status: 201 }, { status: 202 }));
  await send(server, "GET", "/seq");
  await send(server, "GET", "/missing");
  const reset = await send(server, "POST", "/__stubtool__/reset");
  assert.equal(reset.status, 204);
  const report = await server.report();
  assert.deepEqual(report.summary, { total_stubs: 1, matched_stubs: 0, unmatched_requests: 0 });
  assert.deepEqual(report.unmatched_requests, []);
  assert.equal((await send(server, "GET", "/seq")).status, 201);
});

serverTest("reserved endpoints are never counted; unknown ones are a 404 JSON error", async (server) => {
  server.routes(get("/{a}/{b}").body("catch-all"));
  assert.equal((await send(server, "GET", "/__stubtool__/health")).status, 200);
  const unknown = await send(server, "GET", "/__stubtool__/nope");
  assert.equal(unknown.status, 404);
  assert.equal(unknown.json.error, "unknown stubtool endpoint '/__stubtool__/nope'");
  const wrongMethod = await send(server, "GET", "/__stubtool__/reset");
  assert.equal(wrongMethod.status, 405);
  assert.equal(wrongMethod.headers.get("allow"), "POST");
  assert.equal(wrongMethod.json.error, "/__stubtool__/reset accepts POST, not GET");
  const report = await server.report();
  assert.equal(report.stubs[0].hit_count, 0);
  assert.equal(report.summary.unmatched_requests, 0);
});

serverTest("no match: 404 JSON with method, path, query and up to 3 closest stubs", async (server) => {
  server.routes(
    post("/users/{id}").status(200),
    get("/users/{id}/orders").body([]),
    get("/search?q={term}").body([]),
    get("/items/").body([]),
  );
  const method = await send(server, "GET", "/users/1");
  assert.equal(method.status, 404);
  assert.deepEqual(method.json, {
    error: "no stub matched",
    method: "GET",
    path: "/users/1",
    closest: [{
      method: "POST",
      path: "/users/{id}",
      reason: "method differs (stub is POST)",
      id: "stub-1",
      place: "api",
    }],
  });
  const segment = await send(server, "GET", "/users/1/invoices");
  assert.deepEqual(segment.json.closest, [{
    method: "GET",
    path: "/users/{id}/orders",
    reason: "segment 3 is 'invoices', stub has 'orders'",
    id: "stub-2",
    place: "api",
  }]);
  const query = await send(server, "GET", "/search?page=1");
  assert.equal(query.json.query, "page=1");
  // The stub's query is part of the entry: /search and /search?q=… must tell apart.
  const search = {
    method: "GET",
    path: "/search",
    reason: "missing query parameter 'q'",
    query_params: { q: "{term}" },
    id: "stub-3",
    place: "api",
  };
  assert.deepEqual(query.json.closest, [search]);
  const slash = await send(server, "GET", "/items");
  assert.deepEqual(slash.json.closest, [
    { method: "GET", path: "/items/", reason: "trailing slash (stub has one)", id: "stub-4", place: "api" },
  ]);
  // HEAD answers carry no body (not even from the handler itself): the journal keeps the explanation.
  const head = await send(server, "HEAD", "/search");
  assert.equal(head.status, 404);
  assert.deepEqual((await server.journal()).requests.at(-1)?.closest, [search]);
  const nothing = await send(server, "GET", "/completely/different/thing/here");
  assert.deepEqual(nothing.json.closest, []);
});

serverTest(
  "regression: two stubs of one pattern gave two identical closest entries, and a miss by scope alone gave none",
  async (server) => {
    server.handler.registry.replaceSource([
      post("/payments").withHeader("authorization", "Bearer {t}").status(201).toStub(),
      { ...post("/payments").withJson({ amount: 0 }).status(400).toStub(), place: "routes[1] of payments.yaml" },
    ], "config");
    const [scoped] = server.routes(get("/who").scope("w1").body("w1"));
    const payment = await send(server, "POST", "/payments", { body: '{"amount":1}' });
    assert.deepEqual(payment.json.closest, [
      { method: "POST", path: "/payments", reason: "missing header 'authorization'", id: "stub-1", place: "config" },
      {
        method: "POST",
        path: "/payments",
        reason: "body field /amount is 1, stub wants 0",
        id: "stub-2",
        place: "routes[1] of payments.yaml",
      },
    ]);
    const reason = (scope?: string) =>
      send(server, "GET", "/who", { headers: scope ? { "x-stubtool-scope": scope } : {} })
        .then((answer) => [answer.status, answer.json.closest]);
    const entry = { method: "GET", path: "/who", id: scoped, place: "api" };
    assert.deepEqual(await reason(), [404, [{
      ...entry,
      reason: "scope differs (stub is for scope 'w1'; the request has no x-stubtool-scope)",
    }]]);
    assert.deepEqual(await reason("w2"), [404, [{
      ...entry,
      reason: "scope differs (stub is for scope 'w1'; the request's x-stubtool-scope is 'w2')",
    }]]);
    assert.equal((await send(server, "GET", "/who", { headers: { "x-stubtool-scope": "w1" } })).json, "w1");
  },
);

// Node's HTTP parser rejects methods it does not know (400) before any handler runs, so
// this rule holds on the Deno adapter only; see README "Choices".
Deno.test("[deno] a method no stub can have is an ordinary unmatched request", async () => {
  await using server = await stubServer(0, { adapter: "deno" });
  server.routes(get("/pot").body("coffee"));
  const answer = await send(server, "BREW", "/pot");
  assert.equal(answer.status, 404);
  assert.deepEqual(answer.json.closest, [
    { method: "GET", path: "/pot", reason: "method differs (stub is GET)", id: "stub-1", place: "api" },
  ]);
  const report = await server.report();
  assert.equal(report.unmatched_requests[0].method, "BREW");
});

serverTest(
  "a repeated miss is explained the same way, and again after routes() adds a closer stub",
  async (server) => {
    server.routes(get("/items/").body([]));
    const first = await send(server, "GET", "/users/1?x=1");
    assert.deepEqual(first.json.closest, []);
    assert.deepEqual((await send(server, "GET", "/users/1?x=1")).json, first.json);
    // The explanation is kept per set of stubs: a new stub must show up for the same miss.
    server.routes(post("/users/{id}").status(201));
    assert.deepEqual((await send(server, "GET", "/users/1?x=1")).json.closest, [
      { method: "POST", path: "/users/{id}", reason: "method differs (stub is POST)", id: "stub-2", place: "api" },
    ]);
    const report = await server.report();
    assert.equal(report.summary.unmatched_requests, 3);
    assert.deepEqual(report.unmatched_requests.map((u) => u.closest?.length ?? 0), [0, 0, 1]);
  },
);

serverTest("a request body over the limit gets 413 JSON", async (server) => {
  server.routes(post("/upload").status(201), post("/fn").responseFunc(() => [200, "read"]));
  const big = new Uint8Array(2048);
  const plain = await send(server, "POST", "/upload", { body: big });
  assert.equal(plain.status, 413);
  assert.equal(plain.json.error, "request body is larger than 1024 bytes (--max-body)");
  assert.equal((await send(server, "POST", "/fn", { body: big })).status, 413);
  assert.equal((await send(server, "POST", "/fn", { body: new Uint8Array(1024) })).status, 200);
}, { maxBody: 1024 });

// ---------------------------------------------------------------- programmatic API

Deno.test('regression: stubServer("8080") said `stubServer(8080): port must be…`; it now says what was passed', async () => {
  const range = "stubServer(port): port must be an integer from 0 to 65535 (0 lets the OS choose), got";
  await assert.rejects(stubServer("8080" as unknown as number), {
    name: "TypeError",
    message: `${range} "8080" (a string)`,
  });
  await assert.rejects(stubServer(70000), { name: "RangeError", message: `${range} 70000` });
  await assert.rejects(stubServer(-1), { name: "RangeError", message: `${range} -1` });
  await assert.rejects(stubServer(80.5), { name: "RangeError", message: `${range} 80.5` });
});

Deno.test("regression: unknown stubServer options were ignored (journalsize); they are a TypeError naming the closest option", async () => {
  await assert.rejects(stubServer(0, { journalsize: 5 } as never), {
    name: "TypeError",
    message: "stubServer(port, options): unknown option 'journalsize' (did you mean 'journalSize'?)",
  });
  await assert.rejects(stubServer(0, { maxbody: 5 } as never), {
    name: "TypeError",
    message: "stubServer(port, options): unknown option 'maxbody' (did you mean 'maxBody'?)",
  });
  await assert.rejects(stubServer(0, { verbose: true } as never), {
    name: "TypeError",
    message:
      "stubServer(port, options): unknown option 'verbose' (allowed: adapter, adminToken, allowHosts, callbackCa, cors, " +
      "filesRoot, handlerTimeout, hostname, inline, journalBytes, journalSize, loopbackOnly, maxBody, maxUnmatched, onCallback, " +
      "onRequest, onWarning, " +
      "proxyTap, proxyUnmatched, scopes, source, state, stubs, tls, websocket, wiremock, wiremockDirs)",
  });
  await assert.rejects(stubServer(0, null as never), {
    name: "TypeError",
    message: "stubServer(port, options): options must be an object, got null",
  });
  // Known options given as undefined (a spread of settings) are fine.
  await using server = await stubServer(0, { journalSize: undefined, hostname: "127.0.0.1" });
  assert.ok(server.getPort() > 0);
});

Deno.test("stubServer(0) binds an OS-assigned loopback port and url matches it", async () => {
  await using server = await stubServer(0);
  assert.ok(server.getPort() > 0);
  assert.equal(server.getPort(), server.getPort());
  assert.equal(server.url, `http://127.0.0.1:${server.getPort()}`);
});

serverTest("responseFunc receives payload, lower-cased headers, params and query lists", async (server) => {
  server.routes(
    post("/users/{id}/notes/{note}").responseFunc(({ payload, headers, params, queryParams }) => [
      201,
      { payload, auth: headers.authorization, params, queryParams },
    ]),
  );
  const answer = await send(server, "POST", "/users/7/notes/n1?tag=a&tag=b&one=1", {
    body: JSON.stringify({ text: "hi" }),
    headers: { Authorization: "Bearer x", "content-type": "application/json" },
  });
  assert.equal(answer.status, 201);
  assert.deepEqual(answer.json, {
    payload: { text: "hi" },
    auth: "Bearer x",
    params: { id: "7", note: "n1" },
    queryParams: { tag: ["a", "b"], one: ["1"] },
  });
});

serverTest("responseFunc payload is null without a body or with a non-JSON body", async (server) => {
  server.routes(post("/p").responseFunc(({ payload }) => [200, { payload }]));
  assert.deepEqual((await send(server, "POST", "/p")).json, { payload: null });
  assert.deepEqual((await send(server, "POST", "/p", { body: "{not json" })).json, { payload: null });
});

serverTest("responseFunc may be async, set headers, and combine with delay", async (server) => {
  server.routes(
    get("/async").delay(100).responseFunc(async () => {
      await new Promise((resolve) => setTimeout(resolve, 10));
      return [418, { teapot: true }, { "x-kind": "async" }];
    }),
    get("/text").responseFunc(() => [200, "plain", { "content-type": "text/plain" }]),
  );
  const start = performance.now();
  const answer = await send(server, "GET", "/async");
  assert.ok(performance.now() - start >= 100);
  assert.equal(answer.status, 418);
  assert.equal(answer.headers.get("x-kind"), "async");
  assert.equal(answer.headers.get("content-type"), "application/json");
  assert.deepEqual(answer.json, { teapot: true });
  assert.equal((await send(server, "GET", "/text")).text, "plain");
});

serverTest("routes() may be called after requests; new stubs answer the next request", async (server) => {
  assert.equal((await send(server, "GET", "/late")).status, 404);
  server.routes(get("/late").body("here"));
  assert.equal((await send(server, "GET", "/late")).json, "here");
});

serverTest("report() and reset() work in-process", async (server) => {
  server.routes(get("/r").body(1));
  await send(server, "GET", "/r");
  assert.equal((await server.report()).stubs[0].hit_count, 1);
  await server.reset();
  assert.equal((await server.report()).stubs[0].hit_count, 0);
});

Deno.test("several servers in one process keep separate state", async () => {
  await using one = await stubServer(0);
  await using two = await stubServer(0);
  one.routes(get("/x").body("one"));
  two.routes(get("/x").body("two"));
  assert.equal((await send(one, "GET", "/x")).json, "one");
  assert.equal((await send(two, "GET", "/x")).json, "two");
  await send(two, "GET", "/x");
  assert.equal((await one.report()).stubs[0].hit_count, 1);
  assert.equal((await two.report()).stubs[0].hit_count, 2);
});

Deno.test("shutdown() frees the port and `await using` disposes the server", async () => {
  let port = 0;
  {
    await using server = await stubServer(0);
    port = server.getPort();
  }
  await using again = await stubServer(port);
  assert.equal(again.getPort(), port);
  await again.shutdown();
  await again.shutdown(); // a second call is harmless
});

Deno.test("a builder misuse leaves the server unchanged", async () => {
  await using server = await stubServer(0);
  assert.throws(
    () => server.routes(get("/ok").body(1), get("/seq").sequence({ status: 200 }).body(1)),
    /use either sequence or body, not both/,
  );
  assert.equal((await server.report()).summary.total_stubs, 0);
});

// ---------------------------------------------------------------- faults

serverTest("a responseFunc that throws gets 500 JSON naming the stub; the hit counts", async (server) => {
  server.routes(
    get("/boom/{id}").responseFunc(() => {
      throw new Error("kaput");
    }),
    get("/reject").responseFunc(() => Promise.reject(new Error("async kaput"))),
  );
  const answer = await send(server, "GET", "/boom/1");
  assert.equal(answer.status, 500);
  assert.deepEqual(answer.json, { error: "response function threw: kaput", stub: "GET /boom/{id}" });
  assert.equal((await send(server, "GET", "/reject")).json.error, "response function threw: async kaput");
  assert.equal((await server.report()).stubs[0].hit_count, 1);
});

serverTest("garbage from a responseFunc gets 500 JSON, each for that request only", async (server) => {
  const results: unknown[] = [
    "nope",
    [200],
    [99, {}],
    [200, {}, { "x-bad": "a\r\nb" }],
    [204, { body: "not allowed" }],
    [200, { n: 1n }],
  ];
  let call = 0;
  server.routes(get("/garbage").responseFunc(() => results[call++] as never), get("/fine").body("fine"));
  const errors = [];
  for (let i = 0; i < results.length; i++) {
    const answer = await send(server, "GET", "/garbage");
    assert.equal(answer.status, 500);
    assert.equal(answer.json.stub, "GET /garbage");
    errors.push(answer.json.error);
  }
  assert.deepEqual(errors, [
    'response function must return [status, body] or [status, body, headers], got "nope"',
    "response function must return [status, body] or [status, body, headers], got a list",
    "response function returned an invalid status: status must be an integer from 100 to 599, got 99",
    "response function returned invalid headers: headers.x-bad must not contain CR, LF, NUL or other control characters",
    "response function returned a body with status 204, which cannot carry one (return null for no body)",
    "response function returned a body that is not JSON-serializable: Do not know how to serialize a BigInt",
  ]);
  assert.equal((await send(server, "GET", "/fine")).json, "fine");
});

serverTest("a responseFunc that never answers gets 504 after the handler timeout", async (server) => {
  server.routes(get("/hang").responseFunc(() => new Promise(() => {})));
  const start = performance.now();
  const answer = await send(server, "GET", "/hang");
  assert.equal(answer.status, 504);
  assert.deepEqual(answer.json, {
    error: "response function did not answer within 150 ms (--handler-timeout)",
    stub: "GET /hang",
  });
  assert.ok(performance.now() - start >= 140);
}, { handlerTimeout: 150 });

serverTest("a captured value with CR/LF cannot split a header: 500 for that request", async (server) => {
  server.routes(
    get("/h/{v}").header("x-v", "{v}").body("ok"),
    post("/j").withJson({ v: "{v}" }).header("x-v", "{v}").body("ok"),
  );
  // Path captures go into headers as they were sent, percent-encoded: no line can be split.
  const encoded = await send(server, "GET", "/h/a%0D%0Aset-cookie:%20x=1");
  assert.equal(encoded.status, 200);
  assert.equal(encoded.headers.get("x-v"), "a%0D%0Aset-cookie:%20x=1");
  assert.equal(encoded.headers.get("set-cookie"), null);
  // A body capture has no sent form: CR/LF in it is a 500 for that request only.
  const bad = await send(server, "POST", "/j", { body: JSON.stringify({ v: "a\r\nset-cookie: x=1" }) });
  assert.equal(bad.status, 500);
  assert.deepEqual(bad.json, {
    error: "header 'x-v' would contain a control character or a character above U+00FF after substitution",
    stub: "POST /j",
  });
  assert.equal(bad.headers.get("set-cookie"), null);
  assert.equal((await send(server, "GET", "/h/fine")).headers.get("x-v"), "fine");
});

serverTest("config keys like __proto__ are plain data in bodies", async (server) => {
  const { config } = validateConfig(
    JSON.parse('{"routes":[{"method":"GET","path":"/p","body":{"__proto__":{"x":1}}}]}'),
  );
  server.routes(...config!.routes);
  assert.equal((await send(server, "GET", "/p")).text, '{"__proto__":{"x":1}}');
  assert.equal(({} as Record<string, unknown>).x, undefined);
});

serverTest(
  "a header named __proto__ is sent like any other, fixed, substituted or from a function",
  async (server) => {
    const { config } = validateConfig(JSON.parse(
      '{"routes":[{"method":"GET","path":"/f","headers":{"__proto__":"a"}},' +
        '{"method":"GET","path":"/s/{v}","headers":{"__proto__":"{v}"}}]}',
    ));
    server.routes(...config!.routes, get("/fn").responseFunc(() => [200, null, JSON.parse('{"__proto__":"c"}')]));
    assert.equal((await send(server, "GET", "/f")).headers.get("__proto__"), "a");
    assert.equal((await send(server, "GET", "/s/b")).headers.get("__proto__"), "b");
    assert.equal((await send(server, "GET", "/fn")).headers.get("__proto__"), "c");
  },
);

serverTest("a response function's headers are its own keys: inherited ones are never sent", async (server) => {
  // Inherited keys are not checked, so sending them could put a control character on the wire.
  const headers = Object.assign(Object.create({ "x-inherited": "a\u0001b" }), { "x-own": "ok" });
  server.routes(get("/fn").responseFunc(() => [200, { ok: true }, headers]));
  const answer = await send(server, "GET", "/fn");
  assert.equal(answer.status, 200);
  assert.equal(answer.headers.get("x-own"), "ok");
  assert.equal(answer.headers.get("x-inherited"), null);
  assert.equal((await send(server, "GET", "/fn")).status, 200); // still serving
});

serverTest("shutdown lets in-flight delayed responses finish", async (server) => {
  server.routes(get("/slow").delay(200).body("done"));
  const inFlight = send(server, "GET", "/slow");
  await new Promise((resolve) => setTimeout(resolve, 50));
  await server.shutdown();
  const answer = await inFlight;
  assert.equal(answer.status, 200);
  assert.equal(answer.json, "done");
});

serverTest(
  "scoped coverage: x-stubtool-scope files requests under a scope; ?scope= and report({ scope }) give that scope's report",
  async (server) => {
    server.routes(get("/users/{id}").body({ id: "{id}" }), get("/ping").body({ pong: true }));
    const scope = (name: string) => ({ headers: { "x-stubtool-scope": name } });
    await send(server, "GET", "/users/1", scope("users_test.ts"));
    await send(server, "GET", "/nope?x=1", scope("users_test.ts"));
    await send(server, "GET", "/ping", scope("ping_test.ts"));
    await send(server, "GET", "/ping");

    const http = await send(server, "GET", "/__stubtool__/report?scope=users_test.ts");
    assert.equal(http.status, 200);
    assert.deepEqual(Object.keys(http.json), ["summary", "stubs", "unused_stubs", "unmatched_requests"]);
    assert.deepEqual(http.json.summary, { total_stubs: 2, matched_stubs: 1, unmatched_requests: 1 });
    assert.deepEqual(http.json.stubs.map((s: { hit_count: number }) => s.hit_count), [1, 0]);
    assert.deepEqual(http.json.unused_stubs, [{ id: "stub-2", method: "GET", path: "/ping" }]);
    assert.deepEqual(http.json.unmatched_requests.map((r: { path: string; query: string }) => [r.path, r.query]), [
      ["/nope", "x=1"],
    ]);
    const api = await server.report({ scope: "ping_test.ts" });
    assert.deepEqual(api.stubs.map((s) => s.hit_count), [0, 1]);
    assert.deepEqual(api.summary, { total_stubs: 2, matched_stubs: 1, unmatched_requests: 0 });
    // The whole report counts every request, scoped or not; an empty ?scope= means the whole report.
    assert.deepEqual((await server.report()).stubs.map((s) => s.hit_count), [1, 2]);
    assert.deepEqual((await send(server, "GET", "/__stubtool__/report?scope=")).json, await server.report());
    // A scope nobody used: the same shape, nothing hit.
    assert.deepEqual((await server.report({ scope: "other_test.ts" })).summary, {
      total_stubs: 2,
      matched_stubs: 0,
      unmatched_requests: 0,
    });
    // Reset forgets every scope.
    assert.equal((await send(server, "POST", "/__stubtool__/reset")).status, 204);
    assert.deepEqual((await send(server, "GET", "/__stubtool__/report?scope=users_test.ts")).json.summary, {
      total_stubs: 2,
      matched_stubs: 0,
      unmatched_requests: 0,
    });
  },
  { scopes: true },
);

serverTest(
  "scoped coverage: a scope name over 200 characters is a 400 naming the header (was: ignored, counted unscoped)",
  async (server) => {
    server.routes(get("/ping").body({ pong: true }));
    const refused = await send(server, "GET", "/ping", { headers: { "x-stubtool-scope": "s".repeat(201) } });
    assert.equal(refused.status, 400);
    assert.deepEqual(refused.json, {
      error: "x-stubtool-scope: a scope name is at most 200 characters, got 201: send a shorter name",
    });
    const kept = await send(server, "GET", "/ping", { headers: { "x-stubtool-scope": "s".repeat(200) } });
    assert.equal(kept.status, 200);
    assert.deepEqual((await server.report()).summary, { total_stubs: 1, matched_stubs: 1, unmatched_requests: 0 });
    assert.deepEqual((await server.report({ scope: "s".repeat(200) })).stubs.map((s) => s.hit_count), [1]);
  },
  { scopes: true },
);

serverTest("scoped coverage is opt-in: without `scopes` a scoped report is a clear error", async (server) => {
  server.routes(get("/ping").body({ pong: true }));
  await send(server, "GET", "/ping", { headers: { "x-stubtool-scope": "ping_test.ts" } });
  const message = "scoped coverage is off: start the server with --scopes (API: stubServer(port, { scopes: true }))";
  const http = await send(server, "GET", "/__stubtool__/report?scope=ping_test.ts");
  assert.equal(http.status, 400);
  assert.deepEqual(http.json, { error: message });
  await assert.rejects(server.report({ scope: "ping_test.ts" }), { message });
  assert.equal((await server.report()).stubs[0].hit_count, 1);
});

Deno.test("routes() compiles answers at once; stubs given at start compile on first request, answering the same", async () => {
  const body = { n: 1, list: ["{id}"] };
  const { config } = validateConfig({ routes: [{ method: "GET", path: "/cfg/{id}", body: { id: "{id}" } }] });
  await using server = await stubServer(0, { stubs: config!.routes });
  server.routes(get("/api/{id}").body(body));
  body.n = 2; // a caller changing its object after routes() does not change the answer
  body.list.push("x");
  const api = await fetch(`${server.url}/api/7`);
  assert.deepEqual(await api.json(), { n: 1, list: ["7"] });
  const cfg = await fetch(`${server.url}/cfg/a%22b`);
  assert.equal(await cfg.text(), '{"id":"a\\"b"}');
});

// ---------------------------------------------------------------- ids, batches, runtime changes

serverTest(
  "routes() returns ids (given or made up); stubs() lists config form with id, source, hit_count",
  async (server) => {
    const ids = server.routes(get("/a").id("alpha").body({ a: 1 }), post("/b?x={x}").status(201));
    assert.deepEqual(ids, ["alpha", "stub-1"]);
    await send(server, "GET", "/a");
    assert.deepEqual(await server.stubs(), [
      { id: "alpha", source: "api", hit_count: 1, method: "GET", path: "/a", status: 200, body: { a: 1 } },
      {
        id: "stub-1",
        source: "api",
        hit_count: 0,
        method: "POST",
        path: "/b",
        query_params: { x: "{x}" },
        status: 201,
      },
    ]);
    assert.throws(() => server.routes(get("/c").id("alpha")), {
      message: "GET /c: id 'alpha' is already used by GET /a (api)",
    });
    assert.equal((await server.stubs()).length, 2, "a refused batch adds nothing");
  },
);

serverTest(
  "routes() refuses a Stub written by hand (it lacks what the validator compiles) and adds nothing; a copy of toStub()'s works",
  async (server) => {
    const written: Stub = {
      method: "GET",
      path: "/hand",
      responses: [],
      isSequence: false,
      sequenceMode: "repeat-last",
    };
    assert.throws(() => server.routes(get("/a"), written), {
      name: "TypeError",
      message:
        "GET /hand: not a stub stubtool checked: make it with a builder (get(…), route(…), .toStub()) or load it from a config",
    });
    assert.deepEqual(await server.stubs(), [], "a refused batch adds nothing");
    assert.throws(() => new StubHandler([written]), {
      name: "TypeError",
      message: /^GET \/hand: not a stub stubtool checked/,
    });
    server.routes({ ...get("/copy").body({ ok: 1 }).toStub(), id: "copied" });
    assert.deepEqual((await send(server, "GET", "/copy")).json, { ok: 1 });
  },
);

serverTest(
  "remove() and clear() take stubs out for the next request; the report lists the stubs that exist",
  async (server) => {
    server.routes(get("/a").id("a"), get("/b").id("b"), get("/c").id("c"));
    assert.deepEqual(await server.remove("b", "nope"), ["b"]);
    assert.equal((await send(server, "GET", "/b")).status, 404);
    assert.deepEqual((await server.report()).stubs.map((s) => s.id), ["a", "c"]);
    assert.deepEqual(await server.clear(), ["a", "c"]);
    assert.deepEqual((await server.report()).stubs, []);
    // Made-up ids are never handed out again while the server runs.
    const [first] = server.routes(get("/d"));
    await server.remove(first);
    const [second] = server.routes(get("/d"));
    assert.notEqual(first, second);
  },
);

serverTest(
  "a later routes() call wins over an earlier stub of the same pattern; removing it brings the first back",
  async (server) => {
    server.routes(get("/flag").body("off"));
    assert.equal((await send(server, "GET", "/flag")).json, "off");
    const [override] = server.routes(get("/flag").body("on"));
    assert.equal((await send(server, "GET", "/flag")).json, "on");
    await server.remove(override);
    assert.equal((await send(server, "GET", "/flag")).json, "off");
  },
);

serverTest(
  "requests(pattern) finds what the client sent, oldest first, with the router's matching",
  async (server) => {
    server.routes(post("/orders").status(201));
    await send(server, "POST", "/orders", { body: '{"sku":"a-1","qty":2}', headers: { "x-env": "ci" } });
    await send(server, "POST", "/orders", { body: '{"sku":"b-2","qty":1}' });
    await send(server, "GET", "/orders?page=2");
    const found = await server.requests({ method: "POST", path: "/orders", request: { json: { sku: "a-1" } } });
    assert.equal(found.count, 1);
    assert.equal(found.complete, true);
    assert.equal(found.requests[0].body, '{"sku":"a-1","qty":2}');
    assert.equal((await server.requests({ request: { headers: { "x-env": "ci" } } })).count, 1);
    assert.equal((await server.requests({ path: "/orders", query_params: { page: "{p}" } })).count, 1);
    assert.equal((await server.requests({ method: "DELETE" })).count, 0);
    assert.equal((await server.requests()).count, 3);
    await assert.rejects(server.requests({ status: 200 }), {
      message:
        "requests(…): unknown field 'status' (allowed: method, path, query_params, request, scope); a pattern has no answer",
    });
  },
);

// ---------------------------------------------------------------- routes() warnings

Deno.test("regression: routes() took a {{…}} body without .template() and a whenState nothing sets without a word; it warns as validate does", async () => {
  const lines: string[] = [];
  await using server = await stubServer(0, { onWarning: (line) => lines.push(line) });
  server.routes(
    get("/cart").inScenario("cart").whenState("Started").body({ items: [] }),
    get("/cart").inScenario("cart").whenState("paid").body({ paid: true }),
    get("/id").body({ id: "{{randomValue length=8}}" }),
    get("/ok").template().body({ id: "{{randomValue length=8}}" }),
  );
  // The same messages as validate gives for the same stubs in a config file.
  const { problems } = validateConfig({
    routes: [
      { method: "GET", path: "/cart", scenario: "cart", when_state: "Started", body: { items: [] } },
      { method: "GET", path: "/cart", scenario: "cart", when_state: "paid", body: { paid: true } },
      { method: "GET", path: "/id", body: { id: "{{randomValue length=8}}" } },
      { method: "GET", path: "/ok", template: true, body: { id: "{{randomValue length=8}}" } },
    ],
  });
  assert.deepEqual(problems.map((p) => p.place), ["routes[1]", "routes[2]"]);
  assert.deepEqual(lines, [
    `[WARN] routes()[1] (GET /cart): ${problems[0].message}`,
    `[WARN] routes()[2] (GET /id): ${problems[1].message}`,
  ]);
  assert.match(lines[0], /when_state 'paid' of scenario 'cart' is never reached: no stub sets it/);
  assert.match(lines[1], /holds \{\{randomValue length=8\}\}, which is sent as written/);

  // A later batch that sets the state is no surprise, and a state an earlier batch sets is reached.
  lines.length = 0;
  server.routes(post("/pay").inScenario("cart").setState("paid").status(204));
  server.routes(get("/receipt").inScenario("cart").whenState("paid").body({}));
  assert.deepEqual(lines, []);
});

Deno.test("routes() warnings go to stderr (console.warn) unless onWarning takes them", async () => {
  const seen: unknown[][] = [];
  const original = console.warn;
  console.warn = (...args: unknown[]) => void seen.push(args);
  try {
    await using server = await stubServer(0);
    server.routes(get("/x").body("{{now}}"));
  } finally {
    console.warn = original;
  }
  assert.equal(seen.length, 1);
  assert.match(
    String(seen[0][0]),
    /^\[WARN\] routes\(\)\[0\] \(GET \/x\): body holds \{\{now\}\}, which is sent as written/,
  );
});
