import assert from "node:assert/strict";
import { del, get, head, options, patch, post, put, route } from "../mod.ts";
import type { PathParams } from "../mod.ts";

Deno.test("builders produce validated stubs with defaults", () => {
  const stub = get("/users/{id}").body({ id: "{id}" }).toStub();
  assert.equal(stub.method, "GET");
  assert.equal(stub.path, "/users/{id}");
  assert.equal(stub.isSequence, false);
  assert.equal(stub.sequenceMode, "repeat-last");
  assert.deepEqual(stub.responses, [{
    status: 200,
    headers: undefined,
    body: { id: "{id}" },
    hasBody: true,
    delay: undefined,
  }]);
});

Deno.test("route(method, path) is the generic builder; helpers set their method", () => {
  assert.deepEqual(route("GET", "/x").toStub(), get("/x").toStub());
  const methods = [post, put, patch, del, head, options].map((make) => make("/x").toStub().method);
  assert.deepEqual(methods, ["POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"]);
  assert.equal(route("patch", "/x").toStub().method, "PATCH");
});

Deno.test("a ?query in the builder path becomes required query parameters", () => {
  const stub = get("/search?q={term}&sort=asc").toStub();
  assert.equal(stub.path, "/search");
  assert.deepEqual({ ...stub.query }, { q: "{term}", sort: "asc" });
});

Deno.test("header() and headers() accumulate; delay(min, max) is a range", () => {
  const stub = get("/h").header("a", "1").headers({ b: "2" }).header("c", "3").delay(10, 20).toStub();
  assert.deepEqual({ ...stub.responses[0].headers }, { a: "1", b: "2", c: "3" });
  assert.deepEqual(stub.responses[0].delay, { min: 10, max: 20 });
});

Deno.test("builder misuse throws an Error that says what to write instead", () => {
  const cases: [() => unknown, string][] = [
    [
      () => get("/x").status("200" as unknown as number),
      'get("/x").status("200"): status must be an integer from 100 to 599, got "200"; write for example .status(404)',
    ],
    [
      () => get("/x").delay(-5),
      'get("/x").delay(-5): delay must be milliseconds from 0 to 2147483647, got -5; write .delay(250) or .delay(100, 300)',
    ],
    [
      () => get("/x").delay(300, 100),
      'get("/x").delay(300, 100): delay.min (300) must not be greater than max (100); write .delay(250) or .delay(100, 300)',
    ],
    [
      () => get("/x").body(undefined),
      'get("/x").body(…): body is undefined; pass a JSON value such as .body({ ok: true })',
    ],
    [
      () => get("/x").body({ when: new Date(0) }),
      'get("/x").body(…): body.when is a Date, which JSON cannot hold as is; convert it (for a Date, use .toISOString()); pass a JSON value such as .body({ ok: true })',
    ],
    [
      () => get("/x").header("bad name", "v"),
      `get("/x").headers(…): headers: 'bad name' is not a valid header name (letters, digits and !#$%&'*+-.^_\`|~ only); pass a map of names to strings such as { "x-id": "{id}" }`,
    ],
    [
      () => get("/x").sequence(),
      'get("/x").sequence(): a sequence needs at least one response; write .sequence({ status: 503 }, { status: 200 })',
    ],
    [
      () => get("/x").sequenceMode("loop" as "cycle"),
      'get("/x").sequenceMode("loop"): unknown mode; write .sequenceMode("cycle") or .sequenceMode("repeat-last")',
    ],
    [
      () => route("FETCH", "/x"),
      'route("FETCH", "/x"): invalid method \'FETCH\' (allowed: ANY, DELETE, GET, HEAD, OPTIONS, PATCH, POST, PUT)',
    ],
    [() => get("users"), `route("GET", "users"): path must start with '/', got "users"`],
    [
      () => get("/__stubtool__/health"),
      `route("GET", "/__stubtool__/health"): path '/__stubtool__/health' is under /__stubtool__/, which stubtool reserves for itself`,
    ],
    [
      () => get("/x").sequence({ status: 200 }).body({}).toStub(),
      'get("/x"): use either sequence or body, not both: move them into the sequence entries',
    ],
    [
      () => post("/x").status(201).responseFunc(() => [200, {}]).toStub(),
      'post("/x"): a response function computes the response; remove status',
    ],
  ];
  for (const [make, message] of cases) {
    assert.throws(make, (error: Error) => {
      assert.ok(error instanceof TypeError);
      assert.equal(error.message, message);
      return true;
    });
  }
});

Deno.test("PathParams types placeholders from the path string", () => {
  const params: PathParams<"/orgs/{org}/users/{id}?q={term}"> = { org: "a", id: "b" };
  assert.deepEqual(Object.keys(params), ["org", "id"]);
  get("/users/{id}").responseFunc(({ params }) => [200, { id: params.id.toUpperCase() }]);
  // @ts-expect-error: `name` is not a placeholder of this path
  get("/users/{id}").responseFunc(({ params }) => [200, params.name]);
});
