// `validate --openapi` and `report --openapi` as subprocesses: drift in each direction
// against the OpenAPI 3.0 and 3.1 fixtures (tests/fixtures/openapi/), exact output.
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import type { Report } from "../src/report/types.ts";
import { readOpenApiDocument } from "../src/cli/loaders/openapi_document.ts";
import { get, lines, ROOT, runCli, startServe, tempDir } from "./_cli.ts";
import { at, follow, type Json, token, validatorFor } from "./_openapi.ts";

const DIR = "tests/fixtures/openapi";

for (const version of ["3.0", "3.1"]) {
  Deno.test(`validate --openapi (${version}): each stub the spec does not describe is an [ERROR] line, exit 1`, async () => {
    const { code, stdout, stderr } = await runCli([
      "validate",
      `${DIR}/drift.yaml`,
      "--openapi",
      `${DIR}/users-${version}.yaml`,
    ]);
    assert.equal(code, 1);
    assert.equal(stdout, "");
    assert.deepEqual(lines(stderr), [
      `[ERROR] routes[1]: GET /users/{id}: body at /id must be integer, got the placeholder "{id}" (captured values` +
      ` are always strings: write a literal value, or use a response function) (spec: GET /users/{userId} 200) (at ${DIR}/drift.yaml:9:5)`,
      `[ERROR] routes[2]: POST /users: body has the property 'nickname', which the schema does not allow` +
      ` (spec: POST /users 201) (at ${DIR}/drift.yaml:13:5)`,
      `[ERROR] routes[2]: POST /users: body at /email must match format "email", got "bo-at-example"` +
      ` (spec: POST /users 201) (at ${DIR}/drift.yaml:13:5)`,
      `[ERROR] routes[2]: POST /users: body at /role must be one of "admin", "member", got "owner"` +
      ` (spec: POST /users 201) (at ${DIR}/drift.yaml:13:5)`,
      `[ERROR] routes[3]: DELETE /users/{id}: status 200 is not declared for DELETE /users/{userId} in the spec` +
      ` (declared: 204) (at ${DIR}/drift.yaml:16:5)`,
      `[ERROR] routes[4]: GET /users/{id}/invoices: sequence[0].body at /0/amount must be > 0, got 0` +
      ` (spec: GET /users/{userId}/invoices 200) (at ${DIR}/drift.yaml:20:9)`,
      `[ERROR] routes[5]: GET /users/{id}/avatar has no operation in the spec (no such path) (at ${DIR}/drift.yaml:22:5)`,
      `[ERROR] routes[6]: PUT /users/{id} has no operation in the spec (it has this path for GET, DELETE, PATCH only) (at ${DIR}/drift.yaml:25:5)`,
    ]);
  });
}

Deno.test("validate --openapi: stubs that agree print two [OK] lines, exit 0; a bad spec or config is [ERROR], exit 1", async () => {
  const clean = await runCli(["validate", `${DIR}/clean.yaml`, "--openapi", `${DIR}/users-3.1.yaml`]);
  assert.equal(clean.code, 0, clean.stderr);
  assert.equal(clean.stderr, "");
  assert.deepEqual(lines(clean.stdout), [
    `[OK] ${DIR}/clean.yaml is valid (6 route(s) defined)`,
    `[OK] every stub agrees with ${DIR}/users-3.1.yaml (OpenAPI 3.1.0, 8 operation(s))`,
  ]);

  const missing = await runCli(["validate", `${DIR}/clean.yaml`, "--openapi", "missing.yaml"]);
  assert.deepEqual([missing.code, missing.stdout, lines(missing.stderr)], [1, "", [
    "[ERROR] missing.yaml: no such file",
  ]]);

  // The config is checked first: an invalid one never gets to the spec.
  const invalid = await runCli([
    "validate",
    "tests/fixtures/invalid_method.yaml",
    "--openapi",
    `${DIR}/users-3.0.yaml`,
  ]);
  assert.equal(invalid.code, 1);
  assert.match(
    invalid.stderr,
    /^\[ERROR\] routes\[1\]: invalid method .* \(at tests\/fixtures\/invalid_method\.yaml:4:5\)$/m,
  );
  assert.ok(!invalid.stderr.includes("spec"), invalid.stderr);
});

Deno.test("report --openapi: operations no stub covers and unmatched requests the spec describes, in every format", async () => {
  const served = await startServe(["--port", "0", "--quiet", "--config", `${DIR}/clean.yaml`]);
  await using _ = served.process;
  await get(`${served.url}/users/1`);
  await get(`${served.url}/users/1/orders`); // a real endpoint nobody stubbed
  await get(`${served.url}/nope`); // not in the spec either
  await get(`${served.url}/v1/users/2/orders?page=2`); // under the server URL's path
  const report = JSON.parse((await get(`${served.url}/__stubtool__/report`)).text) as Report;
  const [orders, nope, v1] = report.unmatched_requests.map((r) => r.timestamp);
  const [closest] = report.unmatched_requests[0].closest!;
  const spec = `${DIR}/users-3.0.yaml`;

  const text = await runCli(["report", "--url", served.url, "--openapi", spec]);
  assert.equal(text.code, 0, text.stderr);
  assert.deepEqual(
    lines(text.stdout).slice(-15),
    [
      "Requests that matched no stub:",
      `  GET /users/1/orders [${orders}]`,
      `    closest: GET /users/{id}/invoices [stub-5, routes[4] of ${DIR}/clean.yaml] (${closest.reason})`,
      `  GET /nope [${nope}]`,
      `  GET /v1/users/2/orders?page=2 [${v1}]`,
      `OpenAPI drift against ${spec} (OpenAPI 3.0.3, 8 operation(s))`,
      "Operations no stub covers:",
      "  POST /users (createUser)",
      "  PATCH /users/{userId} (updateUser)",
      "  GET /users/{userId}/orders (listOrders)",
      "Unmatched requests the spec describes (a real endpoint nobody stubbed):",
      `  GET /users/1/orders [${orders}]`,
      "    spec: GET /users/{userId}/orders",
      `  GET /v1/users/2/orders?page=2 [${v1}]`,
      "    spec: GET /users/{userId}/orders",
    ],
  );

  const json = await runCli(["report", "--url", served.url, "--openapi", spec, "--format", "json"]);
  const parsed = JSON.parse(json.stdout);
  assert.deepEqual(Object.keys(parsed), ["summary", "stubs", "unused_stubs", "unmatched_requests", "openapi"]);
  assert.deepEqual(parsed.openapi.unstubbed_requests.map((r: { path: string }) => r.path), [
    "/users/1/orders",
    "/v1/users/2/orders",
  ]);

  const markdown = await runCli(["report", "--url", served.url, "--openapi", spec, "--format", "github-summary"]);
  assert.ok(markdown.stdout.includes("| GET | `/users/{userId}/orders` | `listOrders` |"), markdown.stdout);
  assert.ok(markdown.stdout.includes(`| GET | \`/users/1/orders\` | ${orders} | \`GET /users/{userId}/orders\` |`));

  await using dir = await tempDir();
  const page = join(dir.path, "report.html");
  const html = await runCli(["report", "--url", served.url, "--openapi", spec, "--format", "html", "--output", page]);
  assert.equal(html.code, 0, html.stderr);
  const written = await readFile(page, "utf8");
  assert.ok(written.includes('<h2 id="openapi-heading">OpenAPI drift</h2>'));
  assert.ok(written.includes("<code>/users/{userId}/orders</code></th><td><code>listOrders</code></td>"));
});

Deno.test("report --openapi: a spec that cannot be used is [ERROR] at the spec, exit 2, nothing printed", async () => {
  const { code, stdout, stderr } = await runCli([
    "report",
    "--from",
    "tests/fixtures/report_shard1.json",
    "--openapi",
    "tests/fixtures/valid.yaml",
  ]);
  assert.deepEqual([code, stdout, lines(stderr)], [2, "", [
    "[ERROR] tests/fixtures/valid.yaml: not an OpenAPI document: it has no 'openapi' version field",
  ]]);
});

Deno.test("regression: validate --openapi refused a Swagger 2.0 spec that import openapi accepted; it checks against it now (definitions, x-nullable, shared responses), a [WARN] for the type: file response it cannot check", async () => {
  await using dir = await tempDir();
  const spec = `${DIR}/pets-2.0.yaml`;
  const out = join(dir.path, "pets.yaml");
  const imported = await runCli(["import", "openapi", spec, "-o", out]);
  assert.equal(imported.code, 0, imported.stderr);
  const warning =
    `[WARN] ${spec}: a Swagger 2.0 'type: file' response has no JSON body to check; stub bodies are not ` +
    "checked for GET /pets/{petId}/photo 200";
  const agreed = await runCli(["validate", out, "--openapi", spec]);
  assert.deepEqual([agreed.code, lines(agreed.stderr), lines(agreed.stdout)], [0, [warning], [
    `[OK] ${out} is valid (2 route(s) defined)`,
    `[OK] every stub agrees with ${spec} (OpenAPI 2.0, 2 operation(s))`,
  ]]);
  const drift = await runCli(["validate", `${DIR}/pets-2.0-drift.yaml`, "--openapi", spec]);
  assert.deepEqual([drift.code, drift.stdout, lines(drift.stderr)], [1, "", [
    warning,
    `[ERROR] routes[1]: GET /pets/3: body at /id must be >= 1, got 0 (spec: GET /pets/{petId} 200) (at ${DIR}/pets-2.0-drift.yaml:4:35)`,
  ]]);
});

Deno.test("regression: import openapi wrote stubs validate refused (status: 204 with a body, a '#' path) and validate --openapi failed on $id keys in example data ('resolves to more than one schema'); the import validates against the spec it came from", async () => {
  await using dir = await tempDir();
  const spec = `${DIR}/real-world.yaml`;
  const out = join(dir.path, "real.yaml");
  const imported = await runCli(["import", "openapi", spec, "-o", out]);
  assert.equal(imported.code, 0, imported.stderr);
  assert.equal(lines(imported.stderr).length, 3, imported.stderr);
  const checked = await runCli(["validate", out, "--openapi", spec]);
  assert.equal(checked.code, 0, checked.stderr);
  assert.deepEqual(lines(checked.stdout), [
    `[OK] ${out} is valid (6 route(s) defined)`,
    `[OK] every stub agrees with ${spec} (OpenAPI 3.0.3, 7 operation(s))`,
  ]);
  // The example text's {thingId} is sent as written: validate says so, the spec's warning follows.
  assert.deepEqual(lines(checked.stderr).map((line) => line.replace(/ \(at .*\)$/, "")), [
    "[WARN] routes[1]: body.note holds {thingId}, which names no capture of this stub (its captures are {thingId_2}), " +
    "so it is sent as written; values made per request (ids, times) are for response templates (template: true)",
    `[WARN] ${spec}: \`/paths/users/{userId}/notes/get\` is missing path parameter(s) for \`{userId}\`. (read anyway)`,
  ]);
});

Deno.test("validate --openapi: a stub answering the spec's own example that breaks its schema is a [WARN] naming that example (the spec's fault); a stub that drifted from the spec stays an [ERROR]", async () => {
  const spec = `${DIR}/own-examples.yaml`;
  const both = await runCli(["validate", `${DIR}/own-examples-stubs.yaml`, "--openapi", spec]);
  assert.equal(both.code, 1);
  assert.equal(both.stdout, "");
  assert.deepEqual(lines(both.stderr), [
    `[WARN] ${spec} paths./repos/{id}.get responses.200 application/json examples.default: the spec's own example ` +
    `breaks its schema: body at /id must be integer, got "12,"; body at /private must be boolean, got "false," ` +
    "(routes[0] answers it as written: not a drift)",
    `[WARN] ${spec} paths./repos.get responses.200 application/json example: the spec's own example breaks its ` +
    "schema: body must be array, got an object (routes[1] answers it as written: not a drift)",
    `[ERROR] routes[2]: POST /repos: body at /private must be boolean, got "yes" (spec: POST /repos 201) ` +
    `(at ${DIR}/own-examples-stubs.yaml:13:5)`,
  ]);

  // Without the drifted stub, only the spec is at fault: exit 0.
  await using dir = await tempDir();
  const stubs = join(dir.path, "stubs.yaml");
  const text = await readFile(`${DIR}/own-examples-stubs.yaml`, "utf8");
  await Deno.writeTextFile(stubs, text.slice(0, text.indexOf("  - method: POST")));
  const own = await runCli(["validate", stubs, "--openapi", spec]);
  assert.equal(own.code, 0, own.stderr);
  assert.equal(lines(own.stderr).length, 2);
  assert.deepEqual(lines(own.stdout), [
    `[OK] ${stubs} is valid (2 route(s) defined)`,
    `[OK] every stub agrees with ${spec} (OpenAPI 3.0.3, 3 operation(s)); 2 stub(s) answer the spec's own ` +
    "examples that break its schema (see the warnings)",
  ]);
});

Deno.test("import openapi then validate --openapi on GitHub's spec (13 MB): the spec's own broken examples are [WARN] lines, each checked to break its schema, no [ERROR], exit 0", async () => {
  const spec = join(ROOT, "node_modules/@octokit/openapi/generated/api.github.com.json");
  await using dir = await tempDir();
  const out = join(dir.path, "github.yaml");
  const imported = await runCli(["import", "openapi", spec, "-o", out]);
  assert.equal(imported.code, 0, imported.stderr);
  assert.match(imported.stdout, /^imported 1214 stub\(s\) from 1223 operation\(s\) of .* \(9 operation\(s\) left out/);
  assert.equal(lines(imported.stderr).length, 9);
  const validated = await runCli(["validate", out, "--openapi", spec]);
  assert.equal(validated.code, 0, validated.stderr.slice(0, 2000));
  const errors = lines(validated.stderr).filter((line) => line.startsWith("[ERROR]"));
  assert.deepEqual(errors, []);
  const own = lines(validated.stderr).filter((line) => line.includes(": the spec's own example breaks its schema: "));
  assert.equal(own.length, 195);
  assert.deepEqual(lines(validated.stdout), [
    `[OK] ${out} is valid (1214 route(s) defined)`,
    `[OK] every stub agrees with ${spec} (OpenAPI 3.0.3, 1223 operation(s)); 195 stub(s) answer the spec's own ` +
    "examples that break its schema (see the warnings)",
  ]);
  // Each example named is the spec's, and breaks its schema by the test's own ajv (not the product's).
  const { doc } = await readOpenApiDocument(spec);
  const check = validatorFor(doc!);
  for (const line of own) {
    const found = /^\[WARN\] \S+ paths\.(\S+)\.(\w+) responses\.(\d+) (\S+) examples\.(\S+): /.exec(line);
    assert.ok(found, line);
    const [, path, method, status, type, name] = found;
    const response = follow(doc!, `/paths/${token(path)}/${method}/responses/${status}`);
    const media = `${response}/content/${token(type)}`;
    const example = at(doc!, follow(doc!, `${media}/examples/${token(name)}`)) as Json;
    assert.notEqual(check(follow(doc!, `${media}/schema`), example.value), undefined, line);
  }
});
