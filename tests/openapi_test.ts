import assert from "node:assert/strict";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { loadConfigFile } from "../src/stubs/config.ts";
import type { OpenApiSpec } from "../src/report/openapi.ts";
import { loadOpenApi } from "../src/cli/loaders/openapi_document.ts";
import type { Report } from "../src/report/types.ts";
import { fixture, tempDir } from "./_cli.ts";
import { get } from "../mod.ts";
import { checkedStubs } from "../src/server/registry.ts";

async function spec(name: string): Promise<OpenApiSpec> {
  const { spec, problems } = await loadOpenApi(fixture(`openapi/${name}`));
  assert.deepEqual(problems, []);
  return spec!;
}

async function stubsOf(name: string) {
  const { config, problems } = await loadConfigFile(fixture(`openapi/${name}`));
  assert.deepEqual(problems, []);
  return config!.routes;
}

/** What validate --openapi prints for drift.yaml, the same for the 3.0 and the 3.1 spec. */
const DRIFT = [
  'routes[1]: GET /users/{id}: body at /id must be integer, got the placeholder "{id}" (captured values are always ' +
  "strings: write a literal value, or use a response function) (spec: GET /users/{userId} 200)",
  "routes[2]: POST /users: body has the property 'nickname', which the schema does not allow (spec: POST /users 201)",
  'routes[2]: POST /users: body at /email must match format "email", got "bo-at-example" (spec: POST /users 201)',
  'routes[2]: POST /users: body at /role must be one of "admin", "member", got "owner" (spec: POST /users 201)',
  "routes[3]: DELETE /users/{id}: status 200 is not declared for DELETE /users/{userId} in the spec (declared: 204)",
  "routes[4]: GET /users/{id}/invoices: sequence[0].body at /0/amount must be > 0, got 0 " +
  "(spec: GET /users/{userId}/invoices 200)",
  "routes[5]: GET /users/{id}/avatar has no operation in the spec (no such path)",
  "routes[6]: PUT /users/{id} has no operation in the spec (it has this path for GET, DELETE, PATCH only)",
];

for (const version of ["3.0", "3.1"]) {
  Deno.test(`OpenAPI ${version}: every kind of stub drift is an error at the stub, with the JSON pointer`, async () => {
    const problems = (await spec(`users-${version}.yaml`)).checkStubs(
      await stubsOf("drift.yaml"),
      (i) => `routes[${i}]`,
    );
    assert.ok(problems.every((p) => p.level === "error"));
    assert.deepEqual(problems.map((p) => `${p.place}: ${p.message}`), DRIFT);
  });

  Deno.test(`OpenAPI ${version}: stubs that agree with the spec pass (nullable, recursive $ref, 2XX, default, +json)`, async () => {
    const users = await spec(`users-${version}.yaml`);
    assert.deepEqual(users.checkStubs(await stubsOf("clean.yaml"), (i) => `routes[${i}]`), []);
    assert.equal(users.operations.length, 8);
    assert.deepEqual(users.operations[0], { method: "GET", path: "/users", operationId: "listUsers" });
  });
}

Deno.test("OpenAPI: a placeholder passes any string rule (format, pattern, enum) but not a non-string type", async () => {
  const users = await spec("users-3.0.yaml");
  const stubs = [
    // role must be admin or member: "{role}" is only known per request, so it is not judged.
    get("/users?role={role}").body([{ id: 1, name: "{role}", role: "{role}", email: "{role}" }]).toStub(),
    // A brace that names no capture stays as written: it is judged like any string.
    get("/users/{id}").body({ id: 1, name: "x", role: "{nobody}" }).toStub(),
  ];
  assert.deepEqual(users.checkStubs(checkedStubs(stubs), (i) => `s${i}`).map((p) => p.message), [
    'GET /users/{id}: body at /role must be one of "admin", "member", got "{nobody}" (spec: GET /users/{userId} 200)',
  ]);
});

Deno.test("OpenAPI: matching is structural, literal segments fit templates, HEAD falls back to GET", async () => {
  const users = await spec("users-3.1.yaml");
  const stubs = [
    get("/users/{name}/orders").body([]).toStub(), // placeholder names need not agree
    get("/users/me").body({ id: 1, name: "me" }).toStub(), // a literal fills the spec's {userId}
    get("/v1/users").body([]).toStub(), // under the server URL's path
    get("/v2/users").body([]).toStub(), // no server has /v2
    get("/users/{id}/orders/").body([]).toStub(), // a trailing slash is another path
    { ...get("/users").toStub(), method: "HEAD" as const }, // no HEAD operation: the GET one
    get("/health").status(299).toStub(), // 2XX
    get("/users/{id}/invoices").status(418).body({ error: "teapot" }).toStub(), // default
    get("/users/{id}/invoices").status(500).body({ nope: 1 }).toStub(), // default, schema Problem
  ];
  assert.deepEqual(users.checkStubs(checkedStubs(stubs), (i) => `s${i}`).map((p) => `${p.place}: ${p.message}`), [
    "s3: GET /v2/users has no operation in the spec (no such path)",
    "s4: GET /users/{id}/orders/ has no operation in the spec (no such path)",
    "s8: GET /users/{id}/invoices: body lacks the required property 'error' (spec: GET /users/{userId}/invoices default)",
  ]);
});

Deno.test("OpenAPI drift of a report: operations no stub covers, unmatched requests the spec describes", async () => {
  const users = await spec("users-3.0.yaml");
  const report: Report = {
    summary: { total_stubs: 3, matched_stubs: 0, unmatched_requests: 4 },
    stubs: [
      { method: "GET", path: "/users", hit_count: 0 }, // also covers a HEAD operation, were there one
      { method: "GET", path: "/users/{id}", hit_count: 0 },
      { method: "GET", path: "/health", hit_count: 0, query_params: { verbose: "1" } },
    ],
    unused_stubs: [],
    unmatched_requests: [
      { method: "GET", path: "/users/1/orders", timestamp: "t1" },
      { method: "GET", path: "/nope", timestamp: "t2" },
      { method: "DELETE", path: "/v1/users/%32", query: "hard=1", timestamp: "t3" },
      { method: "HEAD", path: "/users/2/invoices", timestamp: "t4" },
    ],
  };
  assert.deepEqual(users.drift(report), {
    spec: fixture("openapi/users-3.0.yaml"),
    version: "3.0.3",
    operations: 8,
    uncovered_operations: [
      { method: "POST", path: "/users", operation_id: "createUser" },
      { method: "PATCH", path: "/users/{userId}", operation_id: "updateUser" },
      { method: "DELETE", path: "/users/{userId}", operation_id: "deleteUser" },
      { method: "GET", path: "/users/{userId}/invoices", operation_id: "listInvoices" },
      { method: "GET", path: "/users/{userId}/orders", operation_id: "listOrders" },
    ],
    unstubbed_requests: [
      { method: "GET", path: "/users/1/orders", timestamp: "t1", operation: "GET /users/{userId}/orders" },
      {
        method: "DELETE",
        path: "/v1/users/%32",
        query: "hard=1",
        timestamp: "t3",
        operation: "DELETE /users/{userId}",
      },
      { method: "HEAD", path: "/users/2/invoices", timestamp: "t4", operation: "GET /users/{userId}/invoices" },
    ],
  });
});

Deno.test("OpenAPI: partial path templates ({name}.json) and JSON specs", async () => {
  await using dir = await tempDir();
  const file = join(dir.path, "files.json");
  await writeFile(
    file,
    JSON.stringify({
      openapi: "3.1.0",
      info: { title: "files", version: "1" },
      paths: {
        "/files/{name}.json": {
          get: {
            parameters: [{ name: "name", in: "path", required: true, schema: { type: "string" } }],
            responses: { "200": { description: "a file" } },
          },
        },
        "/files/index.json": { get: { responses: { "200": { description: "the index" } } } },
      },
    }),
  );
  const files = (await loadOpenApi(file)).spec!;
  const stubs = [get("/files/a.json").toStub(), get("/files/a.txt").toStub(), get("/files/{name}").toStub()];
  assert.deepEqual(files.checkStubs(checkedStubs(stubs), (i) => `s${i}`).map((p) => p.place), ["s1", "s2"]);
  const drift = files.drift({
    summary: { total_stubs: 1, matched_stubs: 0, unmatched_requests: 0 },
    stubs: [{ method: "GET", path: "/files/index.json", hit_count: 0 }],
    unused_stubs: [],
    unmatched_requests: [],
  });
  // The literal /files/index.json takes its own operation, not the template's.
  assert.deepEqual(drift.uncovered_operations, [{ method: "GET", path: "/files/{name}.json" }]);
});

Deno.test("loadOpenApi: a missing, broken, foreign, Swagger 1.2, OpenAPI 4 or invalid document is one [ERROR] at the file", async () => {
  await using dir = await tempDir();
  const write = async (name: string, text: string) => {
    const file = join(dir.path, name);
    await writeFile(file, text);
    return file;
  };
  const cases: [string, string][] = [
    [join(dir.path, "missing.yaml"), "no such file"],
    [dir.path, "is a directory, not a file"],
    [await write("stubs.yaml", "routes: []\n"), "not an OpenAPI document: it has no 'openapi' version field"],
    [
      await write("swagger.yaml", 'swagger: "1.2"\ninfo: {title: x, version: "1"}\npaths: {}\n'),
      "Swagger 1.2 is not supported: stubtool reads 2.0",
    ],
    [
      await write("v4.yaml", "openapi: 4.0.0\n"),
      "OpenAPI 4.0.0 is not supported: stubtool reads OpenAPI 3.0 and 3.1 (and Swagger 2.0)",
    ],
    [
      await write("noinfo.yaml", "openapi: 3.0.3\npaths: {}\n"),
      "not a valid OpenAPI document: REQUIRED must have required property 'info'",
    ],
  ];
  for (const [file, message] of cases) {
    const { spec, problems } = await loadOpenApi(file);
    assert.equal(spec, undefined, file);
    assert.deepEqual(problems, [{ level: "error", place: file, message }]);
  }
  const broken = await write("broken.yaml", "openapi: 3.0.3\ninfo: {title: x\n  version: 1\n");
  const { problems } = await loadOpenApi(broken);
  assert.equal(problems.length, 1);
  assert.match(`${problems[0].place}: ${problems[0].message}`, /broken\.yaml:3:\d+: .+/);
});

Deno.test('OpenAPI request check: a path parameter of oneOf [integer, string] took no number ("0" matched both branches once coerced); each text is read as each type', async () => {
  await using dir = await tempDir();
  const file = join(dir.path, "workflows.json");
  const parameter = (name: string, schema: unknown) => ({ name, in: "path", required: true, schema });
  await writeFile(
    file,
    JSON.stringify({
      openapi: "3.0.3",
      info: { title: "workflows", version: "1" },
      paths: {
        "/workflows/{id}": {
          get: {
            parameters: [parameter("id", { oneOf: [{ type: "integer" }, { type: "string" }] })],
            responses: { "200": { description: "a workflow" } },
          },
        },
        "/runs/{id}": {
          get: {
            parameters: [
              parameter("id", { oneOf: [{ type: "integer", minimum: 0 }, { type: "string", pattern: "^[a-z]+$" }] }),
            ],
            responses: { "200": { description: "a run" } },
          },
        },
        "/names/{id}": {
          get: {
            // Two string branches a digit string fits both ways: truly ambiguous, so refused.
            parameters: [parameter("id", { oneOf: [{ type: "string" }, { type: "string", pattern: "^\\d+$" }] })],
            responses: { "200": { description: "a name" } },
          },
        },
      },
    }),
  );
  const spec = (await loadOpenApi(file)).spec!;
  const status = (path: string, id: string) => {
    const check = spec.requestCheck(path, "get", { id: "id" })!;
    const request = { params: { id }, query: () => undefined, header: () => null };
    return check.check(request)?.status ?? 200;
  };
  assert.deepEqual(["0", "42", "-7", "main.yml", ""].map((id) => status("/workflows/{id}", id)), [
    200,
    200,
    200,
    200,
    200,
  ]);
  assert.deepEqual(["0", "5", "abc", "-1", "Abc", "1.5"].map((id) => status("/runs/{id}", id)), [
    200,
    200,
    200,
    422,
    422,
    422,
  ]);
  assert.deepEqual(["abc", "123"].map((id) => status("/names/{id}", id)), [200, 422]);
});
