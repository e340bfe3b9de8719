/**
 * Request conditions (P10) over real HTTP on both adapters: headers, JSON bodies, forms,
 * body text, value patterns (literal with captures, regex with named groups, absent),
 * `{name*}` and `ANY`, the precedence order of P10.6, captures filling answers (P10.7),
 * and near misses that explain each criterion (P10.8).
 */
import assert from "node:assert/strict";
import { get, post, route } from "../mod.ts";
import { validateConfig } from "../src/stubs/validate.ts";
import { send, serverTest } from "./_http.ts";

const json = (body: unknown) => ({ body: JSON.stringify(body), headers: { "content-type": "application/json" } });

// ---------------------------------------------------------------- headers (P10.1, P10.2)

serverTest("P10.2 a header literal with a capture matches and fills the answer; names ignore case", async (server) => {
  server.routes(
    get("/me").withHeader("Authorization", "Bearer {token}").header("x-token", "{token}").body({ token: "{token}" }),
    get("/me").status(401).body({ error: "no token" }),
  );
  const ok = await send(server, "GET", "/me", { headers: { authorization: "Bearer abc.def" } });
  assert.equal(ok.status, 200);
  assert.deepEqual(ok.json, { token: "abc.def" });
  assert.equal(ok.headers.get("x-token"), "abc.def");
  assert.equal((await send(server, "GET", "/me")).status, 401);
  // `{token}` matches one or more characters: "Bearer " alone is not a token.
  assert.equal((await send(server, "GET", "/me", { headers: { authorization: "Bearer " } })).status, 401);
  assert.equal((await send(server, "GET", "/me", { headers: { authorization: "Basic x" } })).status, 401);
});

serverTest(
  "P10.2 {regex} matches the whole value and its named groups capture; {absent} requires no header",
  async (server) => {
    server.routes(
      get("/v").withHeader("x-api-version", { regex: "v(?<major>[0-9]+)\\.[0-9]+" }).body({ major: "{major}" }),
      get("/debug").withHeader("x-debug", { absent: true }).body("quiet"),
      get("/debug").body("loud"),
    );
    assert.deepEqual((await send(server, "GET", "/v", { headers: { "x-api-version": "v12.3" } })).json, {
      major: "12",
    });
    // The whole value must match: a prefix is not enough.
    assert.equal((await send(server, "GET", "/v", { headers: { "x-api-version": "v12.3-beta" } })).status, 404);
    assert.equal((await send(server, "GET", "/debug")).json, "quiet");
    assert.equal((await send(server, "GET", "/debug", { headers: { "x-debug": "1" } })).json, "loud");
  },
);

// ---------------------------------------------------------------- bodies (P10.3, P10.4)

serverTest(
  "P10.3 json: listed keys must match (others allowed), numbers by value, arrays element by element",
  async (server) => {
    server.routes(
      post("/payments").withJson({ amount: 0 }).status(400).body({ error: "amount must be positive" }),
      post("/payments").withJson({ amount: 42, currency: "{currency}" }).status(201).body({ currency: "{currency}" }),
      post("/payments").withJson({ items: [{ sku: "a" }, { sku: "{second}" }] }).status(202).body({
        second: "{second}",
      }),
      post("/payments").status(422).body({ error: "unknown payment" }),
    );
    assert.equal((await send(server, "POST", "/payments", json({ amount: 0, note: "x" }))).status, 400);
    const created = await send(server, "POST", "/payments", json({ amount: 42.0, currency: "EUR", extra: true }));
    assert.equal(created.status, 201);
    assert.deepEqual(created.json, { currency: "EUR" });
    // A whole "{name}" takes a number or boolean too, as its text.
    assert.deepEqual((await send(server, "POST", "/payments", json({ amount: 42, currency: 978 }))).json, {
      currency: "978",
    });
    const items = await send(server, "POST", "/payments", json({ items: [{ sku: "a", n: 1 }, { sku: "b" }] }));
    assert.equal(items.status, 202);
    assert.deepEqual(items.json, { second: "b" });
    // A list of another length does not match.
    assert.equal((await send(server, "POST", "/payments", json({ items: [{ sku: "a" }] }))).status, 422);
    assert.equal((await send(server, "POST", "/payments", { body: "not json" })).status, 422);
  },
);

serverTest("P10.4 form fields (application/x-www-form-urlencoded) and body_contains", async (server) => {
  server.routes(
    post("/oauth/token").withForm({ grant_type: "client_credentials", client_id: "{client}" }).body({
      access_token: "t-{client}",
    }),
    post("/notes").withBodyContaining("urgent").status(202),
    post("/notes").status(201),
  );
  const form = { "content-type": "application/x-www-form-urlencoded" };
  const token = await send(server, "POST", "/oauth/token", {
    body: "grant_type=client_credentials&client_id=my+app",
    headers: form,
  });
  assert.deepEqual(token.json, { access_token: "t-my app" });
  const wrong = await send(server, "POST", "/oauth/token", { body: "grant_type=password", headers: form });
  assert.equal(wrong.status, 404);
  assert.deepEqual(wrong.json.closest.map((c: { reason: string }) => c.reason), [
    "form field 'grant_type' is 'password', stub wants 'client_credentials'",
  ]);
  assert.equal((await send(server, "POST", "/notes", { body: "this is URGENT? no: urgent!" })).status, 202);
  assert.equal((await send(server, "POST", "/notes", { body: "later" })).status, 201);
});

// ---------------------------------------------------------------- paths and methods (P10.5)

serverTest("P10.5 {name*} takes one or more remaining segments; ANY matches every method", async (server) => {
  server.routes(
    get("/files/{rest*}").body({ rest: "{rest}" }),
    route("ANY", "/echo/{what}").body({ what: "{what}" }),
  );
  assert.deepEqual((await send(server, "GET", "/files/a/b%20c/d.txt")).json, { rest: "a/b c/d.txt" });
  assert.deepEqual((await send(server, "GET", "/files/x")).json, { rest: "x" });
  assert.equal((await send(server, "GET", "/files/")).status, 404);
  assert.equal((await send(server, "GET", "/files")).status, 404);
  for (const method of ["GET", "POST", "PUT", "DELETE", "PATCH"]) {
    assert.deepEqual((await send(server, method, "/echo/x")).json, { what: "x" }, method);
  }
});

Deno.test("P10.5 ':id' and '*' segments are errors that say what to write; a catch-all must be last", () => {
  const errors = (path: string) => validateConfig({ routes: [{ method: "GET", path }] }).problems.map((p) => p.message);
  assert.deepEqual(errors("/files/{rest*}/x"), [
    "path segment '{rest*}' must be the last one: {rest*} takes every segment after it",
  ]);
  assert.deepEqual(validateConfig({ routes: [{ method: "ANY", path: "/a" }] }).problems, []);
});

// ---------------------------------------------------------------- precedence (P10.6)

serverTest(
  "P10.6 precedence: scope, then priority, then path specificity and ANY, then conditions, then batch, then declaration",
  async (server) => {
    server.routes(
      get("/users/{id}").body("placeholder"),
      get("/users/me").body("static"),
      route("ANY", "/users/me").body("any"),
      get("/users/me").withHeader("x-env", "prod").body("static+header"),
    );
    assert.equal((await send(server, "GET", "/users/me")).json, "static", "static beats placeholder; GET beats ANY");
    assert.equal((await send(server, "POST", "/users/me")).json, "any");
    assert.equal(
      (await send(server, "GET", "/users/me", { headers: { "x-env": "prod" } })).json,
      "static+header",
      "more conditions win",
    );
    // A higher priority wins over a more specific path.
    server.routes(get("/users/{id}").priority(5).body("priority"));
    assert.equal((await send(server, "GET", "/users/me")).json, "priority");
    // A later batch wins a tie (P9.3): the same pattern again overrides.
    server.routes(get("/users/{id}").priority(5).body("override"));
    assert.equal((await send(server, "GET", "/users/7")).json, "override");
    // A scoped stub wins for requests of its scope, and only for them (P9.5).
    server.routes(get("/users/{id}").scope("w1").body("scoped"));
    assert.equal((await send(server, "GET", "/users/7", { headers: { "x-stubtool-scope": "w1" } })).json, "scoped");
    assert.equal((await send(server, "GET", "/users/7", { headers: { "x-stubtool-scope": "w2" } })).json, "override");
    assert.equal((await send(server, "GET", "/users/7")).json, "override");
  },
);

serverTest("P10.7 two conditions capturing the same name is an error naming both", (server) => {
  assert.throws(
    () => server.routes(get("/u/{id}").withHeader("x-id", "{id}")),
    { message: /placeholder \{id\} is captured twice \(the path and request\.headers\.x-id\)/ },
  );
  assert.deepEqual(server.handler.registry.stubs, [], "nothing was added");
  return Promise.resolve();
});

// ---------------------------------------------------------------- near misses (P10.8)

serverTest("P10.8 misses explain headers, JSON fields, absent headers, form fields and body text", async (server) => {
  server.routes(
    get("/a").withHeader("authorization", "Bearer {t}"),
    get("/b").withHeader("x-env", "prod"),
    get("/c").withHeader("x-debug", { absent: true }),
    post("/d").withJson({ amount: 42, currency: "EUR" }),
    post("/e").withBodyContaining("urgent"),
  );
  const reasons = async (method: string, path: string, init = {}) =>
    (await send(server, method, path, init)).json.closest.map((c: { reason: string }) => c.reason);
  assert.deepEqual(await reasons("GET", "/a"), ["missing header 'authorization'"]);
  assert.deepEqual(await reasons("GET", "/b", { headers: { "x-env": "dev" } }), [
    "header 'x-env' is 'dev', stub wants 'prod'",
  ]);
  assert.deepEqual(await reasons("GET", "/c", { headers: { "x-debug": "1" } }), ["header 'x-debug' must be absent"]);
  assert.deepEqual(await reasons("POST", "/d", { body: "{" }), ["body is not JSON"]);
  assert.deepEqual(await reasons("POST", "/d", json({ amount: 41 })), ["body field /amount is 41, stub wants 42"]);
  assert.deepEqual(await reasons("POST", "/d", json({ amount: 42 })), ["body has no field /currency"]);
  assert.deepEqual(await reasons("POST", "/e", { body: "later" }), ["body does not contain 'urgent'"]);
});

// ---------------------------------------------------------------- response functions see everything

serverTest("response functions get every capture in params and the raw body text beside payload", async (server) => {
  server.routes(
    post("/charges/{id}").withForm({ amount: "{amount}" }).responseFunc((
      { params, body, payload },
    ) => [200, { params, body, payload }]),
  );
  const answer = await send(server, "POST", "/charges/ch_1", {
    body: "amount=500&currency=usd",
    headers: { "content-type": "application/x-www-form-urlencoded" },
  });
  assert.deepEqual(answer.json, {
    params: { id: "ch_1", amount: "500" },
    body: "amount=500&currency=usd",
    payload: null,
  });
});

serverTest(
  "regression: a GET with a JSON body reaches a response function's payload (Elasticsearch-style search)",
  async (server) => {
    server.routes(post("/_search").responseFunc(({ payload }) => [200, payload]));
    const query = { query: { match: { title: "mock" } } };
    assert.deepEqual((await send(server, "POST", "/_search", json(query))).json, query);
  },
);

serverTest("a response function returning [204, null] sends no body (null means none)", async (server) => {
  server.routes(post("/x").responseFunc(() => [204, null]), post("/y").responseFunc(() => [200, null]));
  const none = await send(server, "POST", "/x");
  assert.equal(none.status, 204);
  assert.equal(none.text, "");
  const empty = await send(server, "POST", "/y");
  assert.equal(empty.status, 200);
  assert.equal(empty.text, "");
  assert.equal(empty.headers.get("content-type"), null);
});
