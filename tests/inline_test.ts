import assert from "node:assert/strict";
import { inlineStub, inlineStubs, parseInlineStub } from "../src/stubs/inline.ts";
import { validateStub } from "../src/stubs/validate.ts";

const ALLOWED = "(allowed: ANY, DELETE, GET, HEAD, OPTIONS, PATCH, POST, PUT)";

Deno.test("parseInlineStub: METHOD path -> STATUS json, with each part's column", async () => {
  assert.deepEqual(await parseInlineStub('GET /users/{id} -> 200 {"id": "{id}"}'), {
    raw: { method: "GET", path: "/users/{id}", status: 200, body: { id: "{id}" } },
    columns: { method: 1, path: 5, status: 20, body: 24 },
  });
});

Deno.test("parseInlineStub: the body is optional", async () => {
  assert.deepEqual(await parseInlineStub("DELETE /users/{id}/sessions/{sid} -> 204"), {
    raw: { method: "DELETE", path: "/users/{id}/sessions/{sid}", status: 204 },
    columns: { method: 1, path: 8, status: 38 },
  });
});

Deno.test("parseInlineStub: whitespace around -> is optional and flexible", async () => {
  for (const text of ["GET /x->200", "GET /x-> 200", "GET /x ->200", "  GET \t /x   ->   200  "]) {
    const parsed = await parseInlineStub(text);
    assert.ok("raw" in parsed, text);
    assert.deepEqual(parsed.raw, { method: "GET", path: "/x", status: 200 }, text);
  }
});

Deno.test("parseInlineStub: the JSON is the rest of the line, spaces and all, any JSON value", async () => {
  const parsed = await parseInlineStub('POST /echo -> 201 {"a": "x -> y", "list": [1, 2]}  ');
  assert.ok("raw" in parsed);
  assert.deepEqual(parsed.raw.body, { a: "x -> y", list: [1, 2] });
  const text = await parseInlineStub('GET /t -> 200 "plain"');
  assert.ok("raw" in text);
  assert.equal(text.raw.body, "plain");
});

Deno.test("parseInlineStub: a path may carry a query and dashes", async () => {
  const parsed = await parseInlineStub("GET /search-v2?q={term}&sort=asc->200");
  assert.ok("raw" in parsed);
  assert.equal(parsed.raw.path, "/search-v2?q={term}&sort=asc");
});

Deno.test("parseInlineStub: malformed text names the column and what to write", async () => {
  const cases: [string, number, RegExp][] = [
    ["", 1, /^expected a method/],
    ["   ", 4, /^expected a method/],
    ["GET", 4, /^expected a path after the method 'GET'/],
    ["/users -> 200", 1, /^expected a method before the path/],
    ["GET/users -> 200", 4, /^expected a space between the method and the path/],
    ["GET /users", 11, /^expected '-> STATUS' after the path$/],
    ["GET /users 200", 12, /^expected '->' after the path$/],
    ["GET /users =>", 12, /^expected '->' after the path$/],
    ["GET /users ->", 14, /^expected a status code after '->', such as 200$/],
    ["GET /users -> ok", 15, /^expected a status code after '->', such as 200, got 'ok'$/],
    ["GET /users -> 2OO", 15, /got '2OO'$/],
    ['GET /users -> 200{"a":1}', 18, /^expected a space between the status 200 and the JSON body$/],
    ['GET /users -> 200 {"a":}', 24, /^invalid JSON body: /],
    ['GET /users -> 200 {"a": 1,}', 27, /^invalid JSON body: Expected double-quoted property name$/],
    ["GET /users -> 200 {", 20, /^invalid JSON body: /],
  ];
  for (const [text, column, message] of cases) {
    const parsed = await parseInlineStub(text);
    assert.ok("error" in parsed, `should fail: ${JSON.stringify(text)}`);
    assert.equal(parsed.error.column, column, `column for ${JSON.stringify(text)}: ${parsed.error.message}`);
    assert.match(parsed.error.message, message, JSON.stringify(text));
  }
});

Deno.test("inlineStub: the stub equals what validateStub makes of the same config fields", async () => {
  const { stub, errors } = await inlineStub('post /orders -> 201 {"id": "o-1"}');
  assert.deepEqual(errors, []);
  assert.deepEqual(stub, validateStub({ method: "post", path: "/orders", status: 201, body: { id: "o-1" } }).stub);
  assert.equal(stub?.method, "POST");
});

Deno.test("inlineStub: validation rules apply, each message at the column of its part", async () => {
  assert.deepEqual((await inlineStub("FETCH /x -> 200")).errors, [`column 1: invalid method 'FETCH' ${ALLOWED}`]);
  assert.deepEqual((await inlineStub("GET x -> 200")).errors, [`column 5: path must start with '/', got "x"`]);
  assert.deepEqual((await inlineStub("GET /x -> 999")).errors, [
    "column 11: status must be an integer from 100 to 599, got 999",
  ]);
  assert.deepEqual((await inlineStub('GET /x -> 204 {"a": 1}')).errors, [
    "column 11: status 204 cannot carry a body; remove body or use another status",
  ]);
  assert.deepEqual((await inlineStub("GET /__stubtool__/health -> 200")).errors, [
    "column 5: path '/__stubtool__/health' is under /__stubtool__/, which stubtool reserves for itself",
  ]);
  // Several problems: every one is reported.
  assert.equal((await inlineStub("BREW /{a}/{a} -> 200")).errors.length, 2);
});

Deno.test("inlineStubs: places are --stub[i]; errors mean no stubs", async () => {
  const ok = await inlineStubs(["GET /a -> 200", "DELETE /a -> 204"]);
  assert.deepEqual(ok.problems, []);
  assert.deepEqual(ok.stubs.map((s) => `${s.method} ${s.path}`), ["GET /a", "DELETE /a"]);

  const bad = await inlineStubs(["GET /a -> 200", "GET /b", "PUT /c -> 2000"]);
  assert.deepEqual(bad.stubs, []);
  assert.deepEqual(bad.problems, [
    { level: "error", place: "--stub[1]", message: "column 7: expected '-> STATUS' after the path" },
    {
      level: "error",
      place: "--stub[2]",
      message: "column 11: status must be an integer from 100 to 599, got 2000",
    },
  ]);
});

Deno.test("inlineStubs: an inline stub that overrides a config stub, or one an earlier inline stub shadows, is a warning", async () => {
  const before = await inlineStubs(["GET /users/{id} -> 200"]);
  const { stubs, problems } = await inlineStubs(
    ["GET /users/{name} -> 404", "GET /other -> 200", "GET /other -> 500"],
    {
      stubs: before.stubs,
      places: ["routes[0]"],
    },
  );
  assert.equal(stubs.length, 3);
  assert.deepEqual(problems, [
    // --stub is a later batch: it wins ties with the config, whose stub can then never answer.
    {
      level: "warn",
      place: "routes[0]",
      message: "shadowed by --stub[0] (GET /users/{name}), which matches every request it would; it can never match",
    },
    { level: "warn", place: "--stub[2]", message: "duplicate of --stub[1] (GET /other); it can never match" },
  ]);
});

Deno.test("inline stubs as one YAML flow mapping in config form: request conditions, response headers, a scope", async () => {
  const { stub, errors } = await inlineStub(
    "{method: GET, path: /a, request: {headers: {x-env: prod}}, headers: {x-served-by: stubtool}, body: {env: prod}}",
  );
  assert.deepEqual(errors, []);
  assert.equal(stub?.method, "GET");
  assert.equal(stub?.path, "/a");
  assert.deepEqual({ ...stub?.responses[0].headers }, { "x-served-by": "stubtool" });
  assert.deepEqual(stub?.responses[0].body, { env: "prod" });
  assert.ok(stub?.request, "the header condition is kept");
  // Problems of the mapping form are the config's messages, at the mapping's opening brace.
  assert.deepEqual((await inlineStub("  {method: GET, path: /b, status: 2OO}")).errors, [
    'column 3: status must be an integer from 100 to 599, got "2OO"',
  ]);
  assert.deepEqual((await inlineStub("{method: GET, path: /b} trailing")).errors.length, 1);
  assert.match((await inlineStub("{method: GET, path: [")).errors[0], /^column \d+: invalid YAML mapping: /);
});
