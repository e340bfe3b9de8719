/**
 * Request conditions over real HTTP on both adapters: headers, JSON bodies, forms,
 * body text, value patterns (literal with captures, regex with named groups, absent),
 * `{name*}` and `ANY`, the precedence order, captures filling answers,
 * and near misses that explain each criterion.
 */
import assert from "node:assert/strict";
import { get, post, route } from "../mod.ts";
import { denoWireWarnings, validateConfig } from "../src/stubs/validate.ts";
import { rawRequest, send, serverTest } from "./_http.ts";
import { runCli, startServe, tempDir } from "./_cli.ts";
import { type StubServer, stubServer } from "../mod.ts";

const json = (body: unknown) => ({ body: JSON.stringify(body), headers: { "content-type": "application/json" } });

// ---------------------------------------------------------------- headers

serverTest("a header literal with a capture matches and fills the answer; names ignore case", async (server) => {
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
  "{regex} matches the whole value and its named groups capture; {absent} requires no header",
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

// ---------------------------------------------------------------- bodies

serverTest(
  "json: listed keys must match (others allowed), numbers by value, arrays element by element",
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

serverTest("form fields (application/x-www-form-urlencoded) and body_contains", async (server) => {
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

// ---------------------------------------------------------------- paths and methods

serverTest("{name*} takes one or more remaining segments; ANY matches every method", async (server) => {
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

Deno.test("':id' and '*' segments are errors that say what to write; a catch-all must be last", () => {
  const errors = (path: string) => validateConfig({ routes: [{ method: "GET", path }] }).problems.map((p) => p.message);
  assert.deepEqual(errors("/files/{rest*}/x"), [
    "path segment '{rest*}' must be the last one: {rest*} takes every segment after it",
  ]);
  assert.deepEqual(validateConfig({ routes: [{ method: "ANY", path: "/a" }] }).problems, []);
});

// ---------------------------------------------------------------- precedence

serverTest(
  "precedence: scope, then priority, then path specificity and ANY, then conditions, then batch, then declaration",
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
    // A later batch wins a tie: the same pattern again overrides.
    server.routes(get("/users/{id}").priority(5).body("override"));
    assert.equal((await send(server, "GET", "/users/7")).json, "override");
    // A scoped stub wins for requests of its scope, and only for them.
    server.routes(get("/users/{id}").scope("w1").body("scoped"));
    assert.equal((await send(server, "GET", "/users/7", { headers: { "x-stubtool-scope": "w1" } })).json, "scoped");
    assert.equal((await send(server, "GET", "/users/7", { headers: { "x-stubtool-scope": "w2" } })).json, "override");
    assert.equal((await send(server, "GET", "/users/7")).json, "override");
  },
);

serverTest("two conditions capturing the same name is an error naming both", (server) => {
  assert.throws(
    () => server.routes(get("/u/{id}").withHeader("x-id", "{id}")),
    { message: /placeholder \{id\} is captured twice \(the path and request\.headers\.x-id\)/ },
  );
  assert.deepEqual(server.handler.registry.stubs, [], "nothing was added");
  return Promise.resolve();
});

// ---------------------------------------------------------------- near misses

serverTest("misses explain headers, JSON fields, absent headers, form fields and body text", async (server) => {
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

// ---------------------------------------------------------------- exact query, path and URL regexes

serverTest("query_string: the query exactly as sent (order and encoding count); empty means none", async (server) => {
  server.routes(
    get("/u").withQueryString("a=1&b=2").body("with query"),
    get("/u").withQueryString("").body("no query"),
    get("/s").withQueryString("q=a%20b").body("encoded"),
  );
  assert.equal((await send(server, "GET", "/u?a=1&b=2")).json, "with query");
  assert.equal((await send(server, "GET", "/u")).json, "no query");
  assert.equal((await send(server, "GET", "/u?")).json, "no query", "a bare ? is no query");
  assert.equal((await send(server, "GET", "/s?q=a%20b")).json, "encoded");
  const reasons = async (path: string) =>
    (await send(server, "GET", path)).json.closest.map((c: { reason: string }) => c.reason);
  assert.deepEqual(await reasons("/u?b=2&a=1"), [
    "query is 'b=2&a=1', stub wants exactly 'a=1&b=2'",
    "query must be empty, is 'b=2&a=1'",
  ]);
  assert.deepEqual(await reasons("/s?q=a+b"), ["query is 'q=a+b', stub wants exactly 'q=a%20b'"]);
  assert.deepEqual(await reasons("/s"), ["query is empty, stub wants exactly 'q=a%20b'"]);
});

serverTest(
  "path_regex and url_regex match the whole path (and query) as sent; named groups capture",
  async (server) => {
    server.routes(
      get("/users/{rest*}").withPathRegex("/users/(?<id>[0-9]+)").body({ id: "{id}" }),
      get("/search/{rest*}").withUrlRegex("/search/[a-z]+\\?q=[0-9]+").body("url regex"),
      get("/enc/{rest*}").withPathRegex("/enc/a%20b").body("raw path"),
    );
    assert.deepEqual((await send(server, "GET", "/users/42?x=1")).json, { id: "42" });
    assert.equal((await send(server, "GET", "/users/42a")).status, 404, "anchored");
    assert.equal((await send(server, "GET", "/search/abc?q=12")).json, "url regex");
    assert.equal((await send(server, "GET", "/search/abc?q=12&z=1")).status, 404, "the query counts");
    assert.equal((await send(server, "GET", "/search/abc")).status, 404, "no query: no ?");
    assert.equal((await send(server, "GET", "/enc/a%20b")).json, "raw path");
    const miss = await send(server, "GET", "/users/x");
    assert.deepEqual(miss.json.closest.map((c: { reason: string }) => c.reason), [
      "path '/users/x' does not match the regex /users/(?<id>[0-9]+)",
    ]);
    assert.equal(
      (await send(server, "GET", "/search/abc?q=x")).json.closest[0].reason,
      "path and query '/search/abc?q=x' do not match the regex /search/[a-z]+\\?q=[0-9]+",
    );
  },
);

serverTest(
  "value operators: contains, equals_ignore_case, and negations that a missing value meets",
  async (server) => {
    server.routes(
      get("/h").withHeader("accept", { contains: "json" }).body("json"),
      get("/ci").withHeader("x-mode", { equals_ignore_case: "Fast" }).body("fast"),
      get("/neg").withHeader("x-debug", { not_contains: "on" }).queryParams({ v: { not_regex: "[0-9]+" } }).body("neg"),
    );
    assert.equal((await send(server, "GET", "/h", { headers: { accept: "application/json" } })).json, "json");
    assert.equal((await send(server, "GET", "/ci", { headers: { "x-mode": "fAST" } })).json, "fast");
    assert.equal((await send(server, "GET", "/neg")).json, "neg", "both values missing");
    assert.equal((await send(server, "GET", "/neg?v=x", { headers: { "x-debug": "off" } })).json, "neg");
    const reasons = async (path: string, headers: Record<string, string> = {}) =>
      (await send(server, "GET", path, { headers })).json.closest.map((c: { reason: string }) => c.reason);
    assert.deepEqual(await reasons("/neg?v=12"), [
      "query parameter 'v' is '12', stub wants a value not matching /[0-9]+/",
    ]);
    assert.deepEqual(await reasons("/neg", { "x-debug": "on" }), [
      "header 'x-debug' is 'on', stub wants text not containing 'on'",
    ]);
    assert.deepEqual(await reasons("/h", { accept: "text/html" }), [
      "header 'accept' is 'text/html', stub wants text containing 'json'",
    ]);
    assert.deepEqual(await reasons("/ci", { "x-mode": "slow" }), [
      "header 'x-mode' is 'slow', stub wants 'Fast' in any letter case",
    ]);
  },
);

serverTest("json_equals: exact keys, numbers by value, types strict; json_ignore relaxes it", async (server) => {
  server.routes(
    post("/strict").withJsonEquals({ id: 1, tags: ["a", "b"] }).body("strict"),
    post("/loose").withJsonEquals([{ id: 1 }, { id: 2 }], ["array_order", "extra_items", "extra_fields"]).body("loose"),
  );
  assert.equal((await send(server, "POST", "/strict", json({ tags: ["a", "b"], id: 1.0 }))).json, "strict");
  assert.equal((await send(server, "POST", "/loose", json([{ id: 2, x: 0 }, { id: 3 }, { id: 1 }]))).json, "loose");
  const reasons = async (path: string, body: string) =>
    (await send(server, "POST", path, { body })).json.closest.map((c: { reason: string }) => c.reason);
  assert.deepEqual(await reasons("/strict", '{"id":1,"tags":["a","b"],"x":0}'), [
    "body has a field the stub does not list: /x",
  ]);
  assert.deepEqual(await reasons("/strict", '{"id":"1","tags":["a","b"]}'), ["body field /id is '1', stub wants 1"]);
  assert.deepEqual(await reasons("/strict", '{"id":1,"tags":["b","a"]}'), [
    "body field /tags/0 is 'b', stub wants 'a'",
  ]);
  assert.deepEqual(await reasons("/loose", '[{"id":2},{"id":3}]'), [
    "body field / has no item for /0 of the stub's list (in any order)",
  ]);
  assert.deepEqual(await reasons("/strict", "nope"), ["body is not JSON"]);
});

serverTest(
  "json_placeholders: ${json-unit.*} strings in json_equals are placeholders (type, any value, a regex)",
  async (server) => {
    // Added over the admin API, as a config file or a WireMock import writes them.
    for (
      const stub of [
        {
          method: "POST",
          path: "/ju",
          request: {
            json_equals: {
              id: "${json-unit.any-string}",
              n: "${json-unit.any-number}",
              ok: "${json-unit.any-boolean}",
              x: "${json-unit.ignore}",
              code: "${json-unit.regex}[a-z]+",
            },
            json_placeholders: true,
          },
          body: "placeholders",
        },
        {
          method: "POST",
          path: "/literal",
          request: { json_equals: { id: "${json-unit.any-string}" } },
          body: "literal",
        },
      ]
    ) assert.equal((await send(server, "POST", "/__stubtool__/stubs", json(stub))).status, 201);
    const hit = { id: "a", n: 1.5, ok: false, x: null, code: "abc" };
    assert.equal((await send(server, "POST", "/ju", json(hit))).json, "placeholders");
    assert.equal((await send(server, "POST", "/ju", json({ ...hit, x: [1] }))).json, "placeholders");
    const reasons = async (path: string, body: unknown) =>
      (await send(server, "POST", path, json(body))).json.closest.map((c: { reason: string }) => c.reason);
    assert.deepEqual(await reasons("/ju", { ...hit, id: 1 }), [
      "body field /id is 1, stub wants ${json-unit.any-string}",
    ]);
    assert.deepEqual(await reasons("/ju", { ...hit, n: "1" }), [
      "body field /n is '1', stub wants ${json-unit.any-number}",
    ]);
    assert.deepEqual(await reasons("/ju", { ...hit, ok: "true" }), [
      "body field /ok is 'true', stub wants ${json-unit.any-boolean}",
    ]);
    assert.deepEqual(await reasons("/ju", { ...hit, code: "ABC" }), [
      "body field /code is 'ABC', stub wants ${json-unit.regex}[a-z]+",
    ]);
    const { x: _, ...noX } = hit;
    assert.deepEqual(await reasons("/ju", noX), ["body has no field /x"]);
    // Without json_placeholders the text is a literal string.
    assert.equal((await send(server, "POST", "/literal", json({ id: "${json-unit.any-string}" }))).json, "literal");
    assert.deepEqual(await reasons("/literal", { id: "a" }), [
      "body field /id is 'a', stub wants '${json-unit.any-string}'",
    ]);
  },
);

serverTest(
  "json_path with {json_equals}: the one value found equals the document (json_ignore, json_placeholders)",
  async (server) => {
    for (
      const stub of [
        {
          method: "POST",
          path: "/eq",
          request: { json_path: { "$.user": { json_equals: { name: "ada", age: 36 } } } },
        },
        {
          method: "POST",
          path: "/loose",
          request: {
            json_path: {
              "$['user']": {
                json_equals: { name: "${json-unit.any-string}" },
                json_ignore: ["extra_fields"],
                json_placeholders: true,
              },
            },
          },
        },
      ]
    ) assert.equal((await send(server, "POST", "/__stubtool__/stubs", json({ ...stub, body: stub.path }))).status, 201);
    assert.equal((await send(server, "POST", "/eq", json({ user: { age: 36.0, name: "ada" }, other: 1 }))).json, "/eq");
    assert.equal((await send(server, "POST", "/loose", json({ user: { age: 36, name: "x" } }))).json, "/loose");
    const reasons = async (path: string, body: unknown) =>
      (await send(server, "POST", path, json(body))).json.closest.map((c: { reason: string }) => c.reason);
    assert.deepEqual(await reasons("/eq", { user: { age: 36, name: "ada", x: 1 } }), [
      "at $.user: body has a field the stub does not list: /x",
    ]);
    assert.deepEqual(await reasons("/eq", { user: null }), ["body has nothing at $.user"]);
    assert.deepEqual(await reasons("/loose", { user: { name: 1 } }), [
      "at $['user']: body field /name is 1, stub wants ${json-unit.any-string}",
    ]);
  },
);

serverTest(
  "json_path: found and not null, or a value pattern on what it finds (Jayway root filters)",
  async (server) => {
    server.routes(
      post("/exists").withJsonPath("$.user.id").body("exists"),
      post("/filter").withJsonPath("$[?(@.kind == 'order')]").body("root filter"),
      post("/num").withJsonPath("$.id", { regex: "[0-9]+" }).body("number text"),
      post("/tags").withJsonPath("$.tags", { contains: "blue" }).body("list text"),
      post("/absent").withJsonPath("$.debug", { absent: true }).body("absent"),
    );
    const answer = async (path: string, body: unknown) => (await send(server, "POST", path, json(body))).json;
    assert.equal(await answer("/exists", { user: { id: 7 } }), "exists");
    assert.equal(await answer("/filter", { kind: "order" }), "root filter");
    assert.equal(await answer("/filter", [{ kind: "refund" }, { kind: "order" }]), "root filter");
    assert.equal(await answer("/num", { id: 123 }), "number text");
    assert.equal(await answer("/tags", { tags: ["red", "blue"] }), "list text");
    assert.equal(await answer("/absent", { x: 1 }), "absent");
    const reason = async (path: string, body: unknown) => (await answer(path, body)).closest[0].reason;
    assert.equal(await reason("/exists", { user: { id: null } }), "body has nothing at $.user.id");
    assert.equal(await reason("/num", { id: "12a" }), "body at $.id is '12a', stub wants /[0-9]+/");
    assert.equal(await reason("/absent", { debug: true }), "body has a value at $.debug, stub wants none");
    assert.equal(await reason("/filter", { kind: "refund" }), "body has nothing at $[?(@.kind == 'order')]");
  },
);

serverTest(
  "cookies: by name (case-sensitive) across Cookie lines, any of a repeated cookie, quotes stripped; a missing cookie meets only absent",
  async (server) => {
    server.routes(
      get("/c").withCookie("session", "abc").withCookie("theme", { regex: "[a-z]+" }).body("both"),
      get("/neg").withCookie("session", { not_contains: "x" }).body("neg"),
      get("/gone").withCookie("session", { absent: true }).body("gone"),
      get("/cap").withCookie("user", "u-{id}").body({ id: "{id}" }),
    );
    const at = (path: string, cookie?: string) =>
      send(server, "GET", path, cookie === undefined ? {} : { headers: { cookie } });
    assert.equal((await at("/c", "theme=dark; session=abc")).json, "both");
    assert.equal((await at("/c", 'session="abc";theme = dark ')).json, "both");
    assert.equal((await at("/c", "session=zzz; session=abc; theme=dark")).json, "both");
    assert.equal((await at("/c", "Session=abc; theme=dark")).status, 404);
    assert.equal((await at("/neg", "session=ok")).json, "neg");
    assert.equal((await at("/neg")).status, 404, "a negation needs the cookie");
    assert.equal((await at("/gone", "other=1; session")).json, "gone", "a piece without = is no cookie");
    assert.equal((await at("/gone", "session=")).status, 404);
    assert.deepEqual((await at("/cap", "user=u-7")).json, { id: "7" });
    // Two Cookie lines: each line's cookies count (Deno joins them with ", ", Node with "; ").
    const two = await rawRequest(
      server.getPort(),
      "GET /c HTTP/1.1\r\nhost: x\r\ncookie: theme=dark\r\ncookie: session=abc\r\nconnection: close\r\n\r\n",
    );
    assert.equal(two.statusLine, "HTTP/1.1 200 OK");
    const reasons = async (path: string, cookie?: string) =>
      (await at(path, cookie)).json.closest.map((c: { reason: string }) => c.reason);
    assert.deepEqual(await reasons("/c", "theme=dark"), ["missing cookie 'session'"]);
    assert.deepEqual(await reasons("/c", "session=abc; theme=Dark"), ["cookie 'theme' is 'Dark', stub wants /[a-z]+/"]);
    assert.deepEqual(await reasons("/gone", "session=1"), ["cookie 'session' must be absent"]);
  },
);

serverTest(
  "regression: the near misses of a stub whose header pattern is not literal were cached across header values",
  async (server) => {
    server.routes(get("/h").withHeader("accept", { contains: "json" }).body("json"));
    const reasons = async (accept: string) =>
      (await send(server, "GET", "/h", { headers: { accept } })).json.closest.map((c: { reason: string }) => c.reason);
    assert.deepEqual(await reasons("text/html"), ["header 'accept' is 'text/html', stub wants text containing 'json'"]);
    assert.deepEqual(await reasons("text/xml"), ["header 'accept' is 'text/xml', stub wants text containing 'json'"]);
  },
);

serverTest(
  "all / any on one value; has_exactly / includes on all the values of a repeated query parameter",
  async (server) => {
    server.routes(
      get("/all").queryParams({ q: { all: [{ contains: "a" }, { contains: "b" }] } }).body("all"),
      get("/any").withHeader("x-mode", { any: ["fast", { absent: true }] }).body("any"),
      get("/exactly").queryParams({ tag: { has_exactly: ["a", { regex: "b+" }] } }).body("exactly"),
      get("/includes").queryParams({ tag: { includes: ["a"] } }).body("includes"),
    );
    const status = async (path: string, headers: Record<string, string> = {}) =>
      (await send(server, "GET", path, { headers })).status;
    assert.equal(await status("/all?q=ab"), 200);
    assert.equal(await status("/all?q=a&q=b"), 404, "each value on its own");
    assert.equal(await status("/all?q=b&q=ba"), 200);
    assert.equal(await status("/any"), 200, "absent meets a missing header");
    assert.equal(await status("/any", { "x-mode": "fast" }), 200);
    assert.equal(await status("/any", { "x-mode": "slow" }), 404);
    assert.equal(await status("/exactly?tag=bb&tag=a"), 200, "any order");
    assert.equal(await status("/exactly?tag=a&tag=b&tag=b"), 404);
    assert.equal(await status("/exactly?tag=a"), 404);
    assert.equal(await status("/includes?tag=c&tag=a"), 200);
    assert.equal(await status("/includes"), 404);
    const reasons = async (path: string, headers: Record<string, string> = {}) =>
      (await send(server, "GET", path, { headers })).json.closest.map((c: { reason: string }) => c.reason);
    assert.deepEqual(await reasons("/exactly?tag=a&tag=c"), [
      "query parameter 'tag' has 'a', 'c', stub wants exactly 2 values matching 'a', /b+/",
    ]);
    assert.deepEqual(await reasons("/any", { "x-mode": "slow" }), [
      "header 'x-mode' is 'slow', stub wants a value matching any of 'fast', no value",
    ]);
  },
);

// ---------------------------------------------------------------- linear-time regexes (P23.2)

/** Sends `attack` and, while it runs, a health check; both must answer within the bounds. */
async function underAttack(server: { url: string }, attack: () => Promise<{ status: number }>, status: number) {
  const start = performance.now();
  const answer = attack().then((a) => ({ ...a, took: performance.now() - start }));
  const health = fetch(server.url + "/__stubtool__/health").then(async (r) => {
    await r.body?.cancel();
    return { status: r.status, took: performance.now() - start };
  });
  const [a, h] = await Promise.all([answer, health]);
  assert.equal(a.status, status);
  assert.equal(h.status, 200);
  // The backtracking engine took 7+ s at 37 characters (and doubled per character).
  assert.ok(a.took < 2000, `the attack took ${a.took.toFixed(0)} ms`);
  assert.ok(h.took < 2000, `the concurrent health check took ${h.took.toFixed(0)} ms`);
}

serverTest(
  "regression: {regex: '(a+)+$'} on a 37-character header or a 50 KB JSON field froze the server for seconds; it answers at once",
  async (server) => {
    server.routes(
      get("/h").withHeader("x-name", { regex: "(a+)+$" }).body("matched"),
      post("/j").withJsonPath("$.name", { regex: "(a+)+$" }).body("matched"),
      post("/t").withJson({ name: "{a}x{b}x{c}y" }).body("matched"),
      post("/f").withJsonPath("$[?(@.name =~ /^(a+)+$/)]").body("matched"),
    );
    const almost = "a".repeat(37) + "!";
    await underAttack(server, () => send(server, "GET", "/h", { headers: { "x-name": almost } }), 404);
    assert.equal((await send(server, "GET", "/h", { headers: { "x-name": "aaa" } })).json, "matched");
    const big = JSON.stringify({ name: "a".repeat(50_000) + "!" });
    await underAttack(server, () => send(server, "POST", "/j", json({ name: JSON.parse(big).name })), 404);
    await underAttack(server, () => send(server, "POST", "/f", json({ name: JSON.parse(big).name })), 404);
    // Several {name} captures were polynomial on the backtracking engine.
    await underAttack(server, () => send(server, "POST", "/t", json({ name: "x".repeat(50_000) })), 404);
    assert.equal((await send(server, "POST", "/t", json({ name: "1x2x3y" }))).json, "matched");
  },
);

serverTest(
  "regression: a json_path '$..id' condition on a 1 MB body nested 999 deep had no work limit (templates had one); it is a miss with the reason, at once",
  async (server) => {
    server.routes(
      post("/deep").withJsonPath("$..id", "x").body("matched"),
      post("/deep-absent").withJsonPath("$..id", { absent: true }).body("matched"),
    );
    let nested: unknown = { id: "y", pad: "p".repeat(1000) };
    for (let i = 0; i < 999; i++) nested = { id: i, pad: "p".repeat(1000), child: nested };
    const body = JSON.stringify(nested);
    assert.ok(body.length > 1_000_000);
    await underAttack(server, () => send(server, "POST", "/deep", { body }), 404);
    const miss = await send(server, "POST", "/deep", { body });
    assert.match(
      miss.json.closest[0].reason,
      /^body is too large to search with \$\.\.id: the path would do .*more than 1000000 units of work/,
    );
    // Over the limit is never read as "nothing there": an absent condition does not match either.
    assert.equal((await send(server, "POST", "/deep-absent", { body })).status, 404);
    // A small body is searched as before.
    assert.equal((await send(server, "POST", "/deep", json({ a: { id: "x" } }))).json, "matched");
  },
);

serverTest("named groups of {regex} and path_regex still fill answers on the linear-time engine", async (server) => {
  server.routes(
    get("/v").withHeader("x-v", { regex: "v(?<major>\\d+)\\.(?<minor>\\d+)\\s*" }).body({ v: "{major}/{minor}" }),
    get("/u/{rest*}").withPathRegex("/u/(?<id>\\p{Lu}[a-z]+)").body({ id: "{id}" }),
  );
  assert.deepEqual((await send(server, "GET", "/v", { headers: { "x-v": "v2.17" } })).json, { v: "2/17" });
  assert.deepEqual((await send(server, "GET", "/u/Bob")).json, { id: "Bob" });
});

Deno.test("a backreference or lookahead in {regex}, {not_regex} or path_regex is an error at its place", () => {
  const { problems } = validateConfig({
    routes: [
      { method: "GET", path: "/a", request: { headers: { "x-a": { regex: "(a)\\1" } } } },
      { method: "GET", path: "/b", request: { headers: { "x-b": { not_regex: "a(?=b)" } } } },
      { method: "GET", path: "/c/{rest*}", request: { path_regex: "/c/(?<!x)y" } },
    ],
  });
  const tail = "which stubtool's linear-time engine (RE2) cannot run; rewrite the pattern without it";
  assert.deepEqual(problems.map((p) => [p.place, p.message]), [
    ["routes[0]", `request.headers.x-a regex "(a)\\\\1" uses a backreference \\1 at offset 3, ${tail}`],
    ["routes[1]", `request.headers.x-b not_regex "a(?=b)" uses a lookahead (?=…) at offset 1, ${tail}`],
    ["routes[2]", `request.path_regex "/c/(?<!x)y" uses a lookbehind (?<!…) at offset 3, ${tail}`],
  ]);
});

serverTest(
  "request.body: a value pattern on the whole body text (equals, regex, not_regex, any, absent)",
  async (server) => {
    const { config, problems } = validateConfig({
      routes: [
        { method: "POST", path: "/exact", request: { body: "hello world" } },
        { method: "POST", path: "/ci", request: { body: { equals_ignore_case: "HELLO" } } },
        { method: "POST", path: "/re", request: { body: { regex: "id=[0-9]+" } } },
        { method: "POST", path: "/not", request: { body: { not_regex: "[\\s\\S]*error[\\s\\S]*" } } },
        { method: "POST", path: "/any", request: { body: { any: ["a", "b"] } } },
        { method: "POST", path: "/empty", request: { body: { absent: true } } },
      ],
    });
    assert.deepEqual(problems, []);
    server.handler.registry.replaceSource(config!.routes, "config");
    const status = async (path: string, body?: string) => (await send(server, "POST", path, { body })).status;
    assert.equal(await status("/exact", "hello world"), 200);
    assert.equal(await status("/exact", "hello world\n"), 404);
    assert.equal(await status("/ci", "hElLo"), 200);
    assert.equal(await status("/re", "id=42"), 200);
    assert.equal(await status("/re", "xid=42"), 404, "anchored");
    assert.equal(await status("/not", "all fine"), 200);
    assert.equal(await status("/not", "an\nerror"), 404);
    assert.equal(await status("/not"), 200, "no body is empty text");
    assert.equal(await status("/any", "b"), 200);
    assert.equal(await status("/any", "c"), 404);
    assert.equal(await status("/empty"), 200);
    const full = await send(server, "POST", "/empty", { body: "x" });
    assert.equal(full.status, 404);
    assert.deepEqual(full.json.closest.map((c: { reason: string }) => c.reason), ["body must be empty"]);
    const miss = await send(server, "POST", "/re", { body: "nope" });
    assert.deepEqual(miss.json.closest.map((c: { reason: string }) => c.reason), [
      "body is 'nope', stub wants /id=[0-9]+/",
    ]);
  },
);

Deno.test("request.body takes no captures and no has_exactly", () => {
  const { problems } = validateConfig({
    routes: [
      { method: "POST", path: "/a", request: { body: "{name}" } },
      { method: "POST", path: "/b", request: { body: { has_exactly: ["a"] } } },
    ],
  });
  assert.deepEqual(problems.map((p) => p.message), [
    "request.body captures nothing: leave out {name} placeholders and named groups",
    "request.body cannot use has_exactly or includes: a body is one value",
  ]);
});

// ---------------------------------------------------------------- multipart

/** Serves `routes` (config form) on `server`, failing on any validation problem. */
function serveConfig(server: StubServer, routes: unknown[]): void {
  const { config, problems } = validateConfig({ routes });
  assert.deepEqual(problems, []);
  server.handler.registry.replaceSource(config!.routes, "config");
}

serverTest(
  "multipart: a FormData upload sent by fetch meets part patterns on its headers and body (any, all); a miss says which",
  async (server) => {
    serveConfig(server, [{
      method: "POST",
      path: "/upload",
      request: {
        multipart: [
          {
            headers: { "Content-Disposition": { contains: 'name="file"' }, "content-type": "text/plain" },
            body: { contains: "hello" },
          },
          { match: "all", body: { not_contains: "secret" } },
        ],
      },
      status: 201,
      body: { stored: true },
    }]);
    const upload = (note: string, file: string, type = "text/plain") => {
      const form = new FormData();
      form.append("note", note);
      form.append("file", new Blob([file], { type }), "a.txt");
      return fetch(`${server.url}/upload`, { method: "POST", body: form });
    };
    const ok = await upload("hi", "hello world");
    assert.equal(ok.status, 201);
    assert.deepEqual(await ok.json(), { stored: true });
    const bye = await upload("hi", "bye");
    assert.equal(bye.status, 404);
    assert.equal(
      (await bye.json()).closest[0].reason,
      "multipart[0] wants some part: none matches ('note': header 'content-disposition' is 'form-data; name=\"note\"', " +
        "stub wants text containing 'name=\"file\"'; 'file': body is 'bye', stub wants text containing 'hello')",
    );
    const typed = await upload("hi", "hello", "application/octet-stream");
    assert.equal(typed.status, 404);
    await typed.body?.cancel();
    const secret = await upload("secret", "hello");
    assert.equal(secret.status, 404);
    assert.equal(
      (await secret.json()).closest[0].reason,
      "multipart[1] wants every part: part 'note': body is 'secret', stub wants text not containing 'secret'",
    );
    // A form that is not multipart meets no part pattern.
    const plain = await send(server, "POST", "/upload", {
      body: "file=hello",
      headers: { "content-type": "application/x-www-form-urlencoded" },
    });
    assert.equal(plain.status, 404);
    assert.equal(
      plain.json.closest[0].reason,
      "body is not multipart (content-type is 'application/x-www-form-urlencoded')",
    );
  },
);

serverTest(
  "multipart: a raw multipart/mixed body with a quoted boundary, a preamble and JSON parts; malformed bodies miss and the server goes on",
  async (server) => {
    serveConfig(server, [{
      method: "POST",
      path: "/batch",
      request: {
        multipart: [
          { json_equals: { op: "add", n: 1 }, json_ignore: ["extra_fields"] },
          { json_path: { "$.op": { any: ["add", "remove"] } }, match: "all" },
        ],
      },
      headers: { "content-type": "text/plain" },
      body: "batch ok",
    }]);
    const raw = (type: string, body: string) =>
      rawRequest(
        server.getPort(),
        `POST /batch HTTP/1.1\r\nhost: x\r\nconnection: close\r\ncontent-type: ${type}\r\n` +
          `content-length: ${new TextEncoder().encode(body).byteLength}\r\n\r\n${body}`,
      );
    const part = (name: string, json: string) =>
      `Content-Disposition: form-data; name="${name}"\r\nContent-Type: application/json\r\n\r\n${json}\r\n`;
    const good = `ignored preamble\r\n--a b\r\n${part("one", '{"op": "add", "n": 1, "x": 2}')}--a b\r\n` +
      `${part("two", '{"op": "remove"}')}--a b--\r\nignored epilogue`;
    const ok = await raw('Multipart/Mixed; boundary="a b"', good);
    assert.equal(ok.statusLine, "HTTP/1.1 200 OK");
    assert.equal(ok.body, "batch ok");
    const bad = [
      // No closing delimiter.
      [`--a b\r\n${part("one", '{"op": "add", "n": 1}')}`, "part 1 does not end with a --a b line"],
      // A delimiter-like line inside the data: the JSON is then not a document.
      [`--a b\r\n${part("one", '{"op": "add", "n": 1}\r\n--a bc')}--a b--`, undefined],
      // More parts than the bound (10,000).
      [
        `--a b\r\n${part("one", '{"op": "add", "n": 1}')}${`--a b\r\n${part("n", "{}")}`.repeat(10_000)}--a b--`,
        "the body has more than 1000 parts",
      ],
    ] as const;
    for (const [body, problem] of bad) {
      const answer = await raw('multipart/form-data; boundary="a b"', body);
      assert.equal(answer.statusLine, "HTTP/1.1 404 Not Found");
      if (problem) {
        assert.equal(JSON.parse(answer.body).closest[0].reason, `multipart body is not well formed: ${problem}`);
      }
    }
    const again = await raw('multipart/mixed; boundary="a b"', good);
    assert.equal(again.statusLine, "HTTP/1.1 200 OK");
  },
);

serverTest(
  "multipart: parts without a form-data name are not seen (as WireMock reads them); all needs at least one part",
  async (server) => {
    serveConfig(server, [
      { method: "POST", path: "/any", request: { multipart: [{ body: "hello" }] }, body: "any" },
      { method: "POST", path: "/all", request: { multipart: [{ match: "all", body: "hello" }] }, body: "all" },
    ]);
    const post = (path: string, body: string) =>
      send(server, "POST", path, { body, headers: { "content-type": "multipart/mixed; boundary=B" } });
    const unnamed = "--B\r\nContent-Type: text/plain\r\n\r\nhello\r\n--B--\r\n";
    assert.equal(
      (await post("/any", unnamed)).json.closest[0].reason,
      "multipart body has no form-data part with a name",
    );
    assert.equal((await post("/all", "--B--\r\n")).status, 404);
    const mixed = '--B\r\nContent-Disposition: attachment; name="x"\r\n\r\nbye\r\n--B\r\n' +
      'Content-Disposition: form-data; name="a"\r\n\r\nhello\r\n--B--\r\n';
    assert.equal((await post("/all", mixed)).json, "all");
    assert.equal((await post("/any", mixed)).json, "any");
  },
);

Deno.test("multipart: each entry is checked where it is written, with one-line errors", () => {
  const errors = (multipart: unknown) =>
    validateConfig({ routes: [{ method: "POST", path: "/u", request: { multipart } }] }).problems.map((p) => p.message);
  assert.deepEqual(errors([{}, { match: "all", headers: { "x-a": "1" }, body: "b" }]), []);
  assert.deepEqual(errors({ body: "x" }), [
    "request.multipart must be a non-empty list of part patterns ({match: any or all, headers, body, …}), got a mapping",
  ]);
  assert.deepEqual(errors([]), [
    "request.multipart must be a non-empty list of part patterns ({match: any or all, headers, body, …}), got a list",
  ]);
  assert.deepEqual(errors(["x"]), [
    'request.multipart[0] must be a mapping of part conditions (match, headers, body, body_contains, json, json_equals, json_ignore, json_placeholders, json_path), got "x"',
  ]);
  assert.deepEqual(errors([{ match: "every" }]), [
    'request.multipart[0].match must be any (at least one part meets it, the default) or all (every part does), got "every"',
  ]);
  assert.deepEqual(errors([{ body: "a" }, { headers: { "x-a": { regex: "(" } } }]).length, 1);
  assert.match(
    errors([{ body: "a" }, { headers: { "x-a": { regex: "(" } } }])[0],
    /^request\.multipart\[1\]\.headers\.x-a regex /,
  );
  assert.deepEqual(errors([{ json_ignore: ["extra_fields"] }]), [
    "request.multipart[0].json_ignore relaxes request.multipart[0].json_equals; add json_equals or remove json_ignore",
  ]);
  assert.deepEqual(errors([{ headers: { "x-a": "{who}" } }]), [
    "request.multipart[0] captures nothing: leave out {name} placeholders and named groups",
  ]);
  assert.match(errors([{ form: { a: "1" } }])[0], /^request\.multipart\[0\]: unknown part condition 'form'/);
});

// ---------------------------------------------------------------- path_params

serverTest(
  "path_params: value patterns on {name} captures, tested as sent; a miss says which parameter",
  async (server) => {
    server.routes(
      get("/contacts/{id}").withPathParam("id", "123").body("contact 123"),
      get("/contacts/{id}/addresses/{a}").withPathParam("id", { regex: "[0-9]+" })
        .withPathParam("a", { not_regex: "x.*" }).body({ id: "{id}", a: "{a}" }),
      get("/raw/{name}").withPathParam("name", "a%20b").body("as sent"),
      get("/files/{rest*}").withPathParam("rest", { regex: "[a-z]+/[a-z]+\\.txt" }).body("a text file"),
    );
    assert.equal((await send(server, "GET", "/contacts/123")).json, "contact 123");
    const miss = await send(server, "GET", "/contacts/124");
    assert.equal(miss.status, 404);
    assert.match(miss.text, /path parameter 'id' is '124', stub wants '123'/);
    assert.deepEqual((await send(server, "GET", "/contacts/7/addresses/home")).json, { id: "7", a: "home" });
    assert.equal((await send(server, "GET", "/contacts/x7/addresses/home")).status, 404);
    assert.equal((await send(server, "GET", "/contacts/7/addresses/xhome")).status, 404);
    assert.equal((await send(server, "GET", "/raw/a%20b")).json, "as sent");
    assert.equal((await send(server, "GET", "/files/docs/a.txt")).json, "a text file");
    assert.equal((await send(server, "GET", "/files/docs/a.png")).status, 404);
  },
);

Deno.test("path_params: each name must be a placeholder of the path, capture nothing and be one value", () => {
  const errors = (path_params: unknown) =>
    validateConfig({ routes: [{ method: "GET", path: "/u/{id}", request: { path_params } }] }).problems.map((p) =>
      p.message
    );
  assert.deepEqual(errors({ id: { regex: "[0-9]+" } }), []);
  assert.deepEqual(errors({ other: "1" }), [
    "request.path_params.other: the path has no {other} (its placeholders are {id})",
  ]);
  assert.deepEqual(errors({ id: "{x}" }), [
    "request.path_params.id captures nothing (the path captures {id}): leave out placeholders and named groups",
  ]);
  assert.deepEqual(errors({ id: { has_exactly: ["1"] } }), [
    "request.path_params.id cannot use has_exactly or includes: a path segment is one value",
  ]);
  assert.deepEqual(errors({ id: { absent: true } }), [
    "request.path_params.id cannot be absent: the path always has {id}",
  ]);
  assert.deepEqual(errors([]), [
    "request.path_params must be a mapping of the path's placeholder names to value patterns, got a list",
  ]);
});

// ---------------------------------------------------------------- header lines (P19.4)

Deno.test("validate with STUBTOOL_ADAPTER=deno prints the header-lines [WARN] at the stub's place; the default wire none", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const file = `${dir}/stubs.yaml`;
    await Deno.writeTextFile(
      file,
      "routes:\n  - {method: GET, path: /a, request: {headers: {x-tag: {contains: a}}}}\n",
    );
    const deno = await runCli(["validate", file], { env: { STUBTOOL_ADAPTER: "deno" } });
    assert.match(
      deno.stderr,
      /^\[WARN\] .*routes\[0\].*: request\.headers\.x-tag with --adapter deno reads a header sent on several lines as one value/m,
    );
    const node = await runCli(["validate", file]);
    assert.doesNotMatch(node.stdout + node.stderr, /WARN/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("--adapter deno warns for each stub with a header pattern that reads lines (not for absent alone)", () => {
  const { config } = validateConfig({
    routes: [
      { method: "GET", path: "/a", request: { headers: { "x-debug": { absent: true }, "x-tag": "a" } } },
      { method: "GET", path: "/b", request: { headers: { "x-tag": { has_exactly: ["a", "b"] } } } },
      { method: "GET", path: "/c", request: { headers: { "x-debug": { absent: true } } } },
      { method: "GET", path: "/d" },
    ],
  });
  const deno = "with --adapter deno";
  const joined = "a header sent on several lines as one value, the lines joined by commas " +
    "(Deno.serve keeps no header lines apart); --adapter node (the default)";
  assert.deepEqual(denoWireWarnings(config!.routes, (i) => `routes[${i}]`), [
    {
      level: "warn",
      place: "routes[0]",
      message: `request.headers.x-tag ${deno} reads ${joined} tests each line (the header matches when one line does)`,
    },
    { level: "warn", place: "routes[1]", message: `request.headers.x-tag ${deno} counts ${joined} counts each line` },
  ]);
});

for (const adapter of ["node", "deno"] as const) {
  Deno.test(`[${adapter}] has_exactly / includes on a header count its lines: two lines are not one comma-joined line`, async () => {
    await using server = await stubServer(0, { adapter });
    server.routes(
      get("/exactly").withHeader("x-tag", { has_exactly: ["a", "b"] }).body("exactly"),
      get("/includes").withHeader("x-tag", { includes: ["a"] }).body("includes"),
      get("/joined").withHeader("x-tag", "a, b").body("joined"),
    );
    const ask = async (path: string, lines: string[]) => {
      const answer = await rawRequest(
        server.getPort(),
        `GET ${path} HTTP/1.1\r\nhost: x\r\n${lines.map((l) => `${l}\r\n`).join("")}connection: close\r\n\r\n`,
      );
      return answer.statusLine.split(" ")[1];
    };
    // Deno.serve joins the lines before stubtool sees them (a [WARN] says so at load).
    const lines = adapter === "node";
    assert.equal(await ask("/exactly", ["X-Tag: b", "x-tag: a"]), lines ? "200" : "404");
    assert.equal(await ask("/exactly", ["X-Tag: a, b"]), "404");
    assert.equal(await ask("/exactly", ["X-Tag: a", "X-Tag: b", "X-Tag: c"]), "404");
    assert.equal(await ask("/includes", ["X-Tag: b", "X-Tag: a"]), lines ? "200" : "404");
    assert.equal(await ask("/includes", ["X-Tag: a, b"]), "404");
    assert.equal(await ask("/includes", []), "404");
    // Other patterns test each line (node): no line is 'a, b'; Deno.serve gives the joined value.
    assert.equal(await ask("/joined", ["X-Tag: a", "X-Tag: b"]), lines ? "404" : "200");
    assert.equal(await ask("/joined", ["X-Tag: a, b"]), "200");
    const miss = await send(server, "GET", "/exactly", { headers: { "x-tag": "a" } });
    assert.match(miss.text, /header 'x-tag' has 'a', stub wants/);
  });

  Deno.test(`[${adapter}] a header sent on two lines matches when one line does (node), negations too; one comma-joined line is one value`, async () => {
    await using server = await stubServer(0, { adapter });
    server.routes(
      get("/eq").withHeader("x-tag", "a").body("eq"),
      get("/cap").withHeader("x-tag", "v{n}").body("{n}"),
      get("/contains").withHeader("x-tag", { contains: "a" }).body("contains"),
      get("/space").withHeader("x-tag", { contains: " a" }).body("space"),
      get("/regex").withHeader("x-tag", { regex: "a[0-9]" }).body("regex"),
      get("/not-contains").withHeader("x-tag", { not_contains: "a" }).body("not_contains"),
      get("/not-regex").withHeader("x-tag", { not_regex: "a.*" }).body("not_regex"),
      get("/absent").withHeader("x-tag", { absent: true }).body("absent"),
      get("/all").withHeader("x-tag", { all: [{ contains: "a" }, { contains: "b" }] }).body("all"),
      get("/from").withHeader("from", "b").body("from"),
    );
    const ask = async (path: string, lines: string[]) => {
      const answer = await rawRequest(
        server.getPort(),
        `GET ${path} HTTP/1.1\r\nhost: x\r\n${lines.map((l) => `${l}\r\n`).join("")}connection: close\r\n\r\n`,
      );
      return answer.statusLine.split(" ")[1] === "200" ? JSON.parse(answer.body) : "404";
    };
    const node = adapter === "node";
    // On Deno.serve the two lines arrive as one value 'a, b' (a [WARN] says so at load).
    const cases: [string, string[], string, string][] = [
      ["/eq", ["X-Tag: b", "X-Tag: a"], "eq", "404"],
      ["/eq", ["X-Tag: a", "X-Tag: b"], "eq", "404"],
      ["/eq", ["X-Tag: b, a"], "404", "404"],
      ["/eq", ["X-Tag: b", "X-Tag: c"], "404", "404"],
      ["/cap", ["X-Tag: x", "X-Tag: v7"], "7", "404"],
      ["/contains", ["X-Tag: b", "X-Tag: xa"], "contains", "contains"],
      ["/contains", ["X-Tag: b", "X-Tag: c"], "404", "404"],
      ["/space", ["X-Tag: x", "X-Tag: a"], "404", "space"],
      ["/space", ["X-Tag: x, a"], "space", "space"],
      ["/regex", ["X-Tag: b", "X-Tag: a1"], "regex", "404"],
      ["/regex", ["X-Tag: a1, b"], "404", "404"],
      ["/not-contains", ["X-Tag: a", "X-Tag: b"], "not_contains", "404"],
      ["/not-contains", ["X-Tag: a", "X-Tag: xa"], "404", "404"],
      ["/not-contains", ["X-Tag: a, b"], "404", "404"],
      ["/not-contains", [], "not_contains", "not_contains"],
      ["/not-regex", ["X-Tag: a1", "X-Tag: b"], "not_regex", "404"],
      ["/not-regex", ["X-Tag: a1", "X-Tag: a2"], "404", "404"],
      ["/not-regex", ["X-Tag: b, a"], "not_regex", "not_regex"],
      ["/absent", ["X-Tag: a", "X-Tag: b"], "404", "404"],
      ["/all", ["X-Tag: a", "X-Tag: b"], "404", "all"],
      ["/all", ["X-Tag: ab", "X-Tag: c"], "all", "all"],
      // node:http keeps only the first From line in its header object; each line is still tested.
      ["/from", ["From: a", "From: b"], "from", "404"],
    ];
    const seen = [];
    for (const [path, lines] of cases) seen.push(await ask(path, lines));
    assert.deepEqual(seen, cases.map(([, , onNode, onDeno]) => node ? onNode : onDeno));
    const miss = await rawRequest(
      server.getPort(),
      "GET /eq HTTP/1.1\r\nhost: x\r\nX-Tag: b\r\nX-Tag: c\r\nconnection: close\r\n\r\n",
    );
    assert.match(
      miss.body,
      node ? /header 'x-tag' has 'b', 'c' \(2 lines\), stub wants 'a'/ : /header 'x-tag' is 'b, c'/,
    );
  });

  Deno.test(`[${adapter}] the literal-header index finds a stub by one line of a header sent on two lines`, async () => {
    await using server = await stubServer(0, { adapter });
    // Enough stubs on the same header for the router to index them by its literal.
    server.routes(
      ...["a", "b", "c", "d", "e", "f", "g", "h", "i"].map((v) => get("/i").withHeader("x-env", v).body(v)),
    );
    const answer = await rawRequest(
      server.getPort(),
      "GET /i HTTP/1.1\r\nhost: x\r\nX-Env: zz\r\nX-Env: c\r\nconnection: close\r\n\r\n",
    );
    assert.equal(answer.statusLine.split(" ")[1], adapter === "node" ? "200" : "404");
    if (adapter === "node") assert.equal(answer.body, '"c"');
  });

  Deno.test(`[${adapter}] the journal keeps each header line and its name's case as sent (node); Deno.serve keeps neither`, async () => {
    await using server = await stubServer(0, { adapter });
    server.routes(get("/j").body("ok"));
    await rawRequest(
      server.getPort(),
      "GET /j HTTP/1.1\r\nHost: x\r\nX-Tag: a\r\nx-TAG: b\r\nX-One: a, b\r\nConnection: close\r\n\r\n",
    );
    const [entry] = (await send(server, "GET", "/__stubtool__/requests")).json.requests;
    assert.equal(entry.headers["x-tag"], "a, b");
    assert.equal(entry.headers["x-one"], "a, b");
    if (adapter === "node") {
      assert.deepEqual(entry.header_lines, [
        ["Host", "x"],
        ["X-Tag", "a"],
        ["x-TAG", "b"],
        ["X-One", "a, b"],
        ["Connection", "close"],
      ]);
    } else assert.equal(entry.header_lines, undefined);
  });

  Deno.test(`[${adapter}] requests/find reads a journaled header's lines as a live request's (node); Deno.serve's joined value`, async () => {
    await using server = await stubServer(0, { adapter });
    server.routes(get("/j").body("ok"));
    const port = server.getPort();
    await rawRequest(port, "GET /j HTTP/1.1\r\nHost: x\r\nX-Tag: a\r\nX-Tag: b\r\nConnection: close\r\n\r\n");
    await rawRequest(port, "GET /j HTTP/1.1\r\nHost: x\r\nX-Tag: a, b\r\nConnection: close\r\n\r\n");
    const count = async (pattern: unknown) =>
      (await send(server, "POST", "/__stubtool__/requests/find", { body: JSON.stringify(pattern) })).json.count;
    const twoLines = { path: "/j", request: { headers: { "x-tag": { has_exactly: ["a", "b"] } } } };
    const oneLine = { path: "/j", request: { headers: { "x-tag": "a, b" } } };
    // node: the first request sent two lines (a, b), the second one line "a, b"; Deno.serve joins both the same way.
    assert.deepEqual([await count(twoLines), await count(oneLine)], adapter === "node" ? [1, 1] : [0, 2]);
  });
}

serverTest(
  "request.body_base64: the body's exact bytes match (not UTF-8 text); one byte more, other bytes or a body for '' miss",
  async (server) => {
    const { config, problems } = validateConfig({
      routes: [
        { method: "POST", path: "/bin", request: { body_base64: "AAECA/8=" }, body: "bytes" },
        { method: "POST", path: "/empty", request: { body_base64: "" }, body: "empty" },
      ],
    });
    assert.deepEqual(problems, []);
    server.routes(...config!.routes);
    const bytes = (...b: number[]) => new Uint8Array(b);
    assert.equal((await send(server, "POST", "/bin", { body: bytes(0, 1, 2, 3, 255) })).text, '"bytes"');
    const longer = await send(server, "POST", "/bin", { body: bytes(0, 1, 2, 3, 255, 0) });
    assert.equal(longer.status, 404);
    assert.match(longer.text, /body is 6 bytes, stub wants exactly 5 \(body_base64\)/);
    const other = await send(server, "POST", "/bin", { body: bytes(0, 1, 2, 3, 254) });
    assert.equal(other.status, 404);
    assert.match(other.text, /body differs from body_base64 at byte 4/);
    assert.equal((await send(server, "POST", "/empty")).text, '"empty"');
    assert.equal((await send(server, "POST", "/empty", { body: "x" })).status, 404);
  },
);

Deno.test("request.body_base64 must be base64 text", () => {
  const check = (value: unknown) =>
    validateConfig({ routes: [{ method: "POST", path: "/b", request: { body_base64: value } }] }).problems.map((p) =>
      p.message
    );
  assert.deepEqual(check("A"), [
    'request.body_base64 must be base64 text (A-Z a-z 0-9 + /, = padding; the exact body bytes), got "A"',
  ]);
  assert.deepEqual(check(7), [
    "request.body_base64 must be base64 text (A-Z a-z 0-9 + /, = padding; the exact body bytes), got 7",
  ]);
});

Deno.test("--adapter deno: a WireMock folder's mapping with a header pattern gets the header-lines [WARN] at its file (serve and validate)", async () => {
  await using dir = await tempDir();
  await Deno.mkdir(`${dir.path}/mappings`);
  await Deno.writeTextFile(
    `${dir.path}/mappings/tag.json`,
    JSON.stringify({
      request: { method: "GET", url: "/a", headers: { "X-Tag": { contains: "a" } } },
      response: { status: 200 },
    }),
  );
  const warning =
    /^\[WARN\] .*tag\.json mappings\[0\].*: request\.headers\.x-tag with --adapter deno reads a header sent on several lines as one value/m;
  const served = await startServe(["--port", "0", "--adapter", "deno", "--wiremock", dir.path]);
  await using _ = served.process;
  assert.match(served.process.stderr, warning);
  const validated = await runCli(["validate", "--wiremock", dir.path], { env: { STUBTOOL_ADAPTER: "deno" } });
  assert.equal(validated.code, 0);
  assert.match(validated.stderr, warning);
  const node = await runCli(["validate", "--wiremock", dir.path]);
  assert.doesNotMatch(node.stdout + node.stderr, /WARN/);
});
