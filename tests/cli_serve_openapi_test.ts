// An OpenAPI description in, a mock of the whole API out, checked end to end: `stubtool import
// openapi` writes a config that `validate` accepts, the real CLI serves it (and `serve --openapi
// SPEC --mock` serves the spec directly), every operation is requested over HTTP, and every
// answer is checked with ajv against the response schema the spec declares for it. The same
// stubs run on both runtime adapters through stubServer. The specs: the classic Petstore
// (tests/fixtures/openapi/petstore.yaml) and real descriptions an npm package ships
// (@readme/oas-examples: Swagger's Petstore as 3.0 and as Swagger 2.0, the Star Trek API,
// ReadMe's own API in 3.1, Train Travel in 3.1). At the end, every JSON spec of that package (60)
// is served with --mock: one valid request per operation (its 2xx answer checked against its
// schema) and one invalid one (422 in Prism's shape), each operation left out named with why.
import assert from "node:assert/strict";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { readOpenApiDocument } from "../src/cli/loaders/openapi_document.ts";
import { openApiToConfig } from "../src/formats/openapi_import.ts";
import { validateConfig } from "../src/stubs/validate.ts";
import { stubServer } from "../mod.ts";
import { lines, ROOT, runCli, startServe, tempDir } from "./_cli.ts";
import { ADAPTERS } from "./_http.ts";
import {
  exerciseSpec,
  expectations,
  type Expected,
  isJson,
  type Json,
  LEFT_OUT_BECAUSE,
  validatorFor,
} from "./_openapi.ts";

const EXAMPLES = dirname(createRequire(join(ROOT, "package.json")).resolve("@readme/oas-examples/package.json"));

/** The specs under test, with how many operations each has and how many convert. */
const SPECS = [
  { file: join(ROOT, "tests/fixtures/openapi/petstore.yaml"), operations: 3, converted: 3 },
  { file: join(EXAMPLES, "3.0/json/petstore.json"), operations: 20, converted: 13 },
  { file: join(EXAMPLES, "2.0/json/petstore.json"), operations: 20, converted: 13 },
  { file: join(EXAMPLES, "3.0/json/star-trek.json"), operations: 120, converted: 120 },
  { file: join(EXAMPLES, "3.1/json/readme.json"), operations: 54, converted: 54 },
  { file: join(EXAMPLES, "3.1/json/train-travel.json"), operations: 7, converted: 7 },
];

/** Requests every expected operation and checks status, content type and body against the spec. */
async function checkAnswers(url: string, doc: Json, expected: readonly Expected[]): Promise<number> {
  const check = validatorFor(doc);
  const failures: string[] = [];
  let checked = 0;
  for (const { method, target, status, contentType, schema } of expected) {
    const response = await fetch(url + target, { method });
    const text = await response.text();
    const label = `${method} ${target}`;
    if (response.status !== status) failures.push(`${label}: status ${response.status}, want ${status}: ${text}`);
    if (method === "HEAD" || schema === undefined) continue;
    assert.equal(response.headers.get("content-type"), contentType, label);
    const body = isJson(contentType!) ? JSON.parse(text) : text;
    const problem = check(schema, body);
    checked++;
    if (problem) failures.push(`${label}: ${problem}: ${text.slice(0, 200)}`);
  }
  assert.deepEqual(failures, []);
  return checked;
}

for (const { file, operations, converted } of SPECS) {
  const name = file.slice(file.lastIndexOf(file.includes("oas-examples") ? "oas-examples" : "tests"));
  Deno.test(`import openapi ${name}: the config validates, the CLI serves it, every answer passes its schema`, async () => {
    await using dir = await tempDir();
    const out = join(dir.path, "stubs.yaml");
    const imported = await runCli(["import", "openapi", file, "-o", out]);
    assert.equal(imported.code, 0, imported.stderr);
    const { doc } = await readOpenApiDocument(file);
    const { expected, refused } = expectations(doc!);
    assert.equal(expected.length + refused.length, operations);
    assert.equal(expected.length, converted);
    // One [WARN] line per operation without a 2xx or default answer, and nothing else.
    const warned = lines(imported.stderr).map((line) => {
      const found = /^\[WARN\] .* paths\.(\S+)\.(\w+): 'responses' is not supported: /.exec(line);
      return found ? `${found[2]} ${found[1]}` : line;
    });
    assert.deepEqual(warned, refused);
    assert.match(imported.stdout, new RegExp(`^imported ${converted} stub\\(s\\) from ${operations} operation\\(s\\)`));
    const validated = await runCli(["validate", out]);
    assert.equal(validated.code, 0, validated.stderr);
    assert.equal(validated.stdout, `[OK] ${out} is valid (${converted} route(s) defined)\n`);

    const served = await startServe(["--port", "0", "--quiet", "--config", out]);
    await using _ = served.process;
    assert.ok(await checkAnswers(served.url, doc!, expected) > 0, "some answers have a schema to check");
  });
}

for (const { file, converted } of SPECS) {
  const name = file.slice(file.lastIndexOf(file.includes("oas-examples") ? "oas-examples" : "tests"));
  for (const adapter of ADAPTERS) {
    Deno.test(`[${adapter}] openApiToConfig ${name}: stubServer answers every operation as its schema says`, async () => {
      const { doc } = await readOpenApiDocument(file);
      const { routes, warnings } = openApiToConfig(doc!, file);
      assert.equal(routes.length, converted);
      assert.equal(warnings.every((w) => w.message.startsWith(`${w.place}: 'responses' is not supported: `)), true);
      const { config, problems } = validateConfig({ routes });
      assert.deepEqual(problems.filter((p) => p.level === "error"), []);
      await using server = await stubServer(0, { adapter, stubs: config!.routes });
      assert.ok(await checkAnswers(server.url, doc!, expectations(doc!).expected) > 0);
    });
  }
}

Deno.test("serve --openapi SPEC --mock: the spec's operations answer, configured stubs win, their drift is warned", async () => {
  await using dir = await tempDir();
  const spec = join(ROOT, "tests/fixtures/openapi/petstore.yaml");
  const config = join(dir.path, "stubs.yaml");
  // Less specific than the spec's /pets/{petId}, yet it wins: the spec's stubs come below every configured one.
  await Deno.writeTextFile(config, "routes:\n  - method: GET\n    path: /{kind}/{id}\n    body: { id: 7 }\n");
  const served = await startServe([
    "--port",
    "0",
    "--quiet",
    "--config",
    config,
    "--openapi",
    spec,
    "--mock",
    "--stub",
    'GET /pets -> 200 [{"id": 1, "name": "Rex"}]',
  ]);
  await using _ = served.process;
  const banner = served.process.stdout.split("\n");
  assert.ok(
    banner.includes(
      `openapi: ${spec} (OpenAPI 3.0.0, 3 operation(s)): 3 mocked (configured stubs win), under /v1 too; ` +
        "2 configured stub(s) checked: 1 drift(s), see the warnings",
    ),
    served.process.stdout,
  );
  assert.ok(banner.includes(`  POST  /pets             201  ${spec} paths./pets.post`), served.process.stdout);
  assert.ok(banner.includes(`  POST  /v1/pets          201  ${spec} paths./pets.post`), served.process.stdout);
  assert.equal(
    served.process.stderr,
    "[WARN] routes[0]: GET /{kind}/{id} has no operation in the spec (no such path)\n",
  );
  const pets = await fetch(`${served.url}/pets`);
  assert.deepEqual(await pets.json(), [{ id: 1, name: "Rex" }]);
  const pet = await fetch(`${served.url}/pets/3`);
  assert.deepEqual(await pet.json(), { id: 7 });
  const created = await fetch(`${served.url}/pets`, { method: "POST", body: '{"id": 2, "name": "Tom"}' });
  assert.equal(created.status, 201);
  assert.equal(await created.text(), "");
});

Deno.test("serve --openapi SPEC --mock reads Swagger 2.0, and so does serve --openapi without --mock (its drift check); --mock needs --openapi", async () => {
  const swagger = join(EXAMPLES, "2.0/json/petstore.json");
  const served = await startServe(["--port", "0", "--quiet", "--openapi", swagger, "--mock"]);
  await using _ = served.process;
  assert.match(
    served.process.stdout,
    /^openapi: .*petstore\.json \(Swagger 2\.0, 20 operation\(s\)\): 13 mocked \(configured stubs win\), 7 left out \(see the warnings\), under \/v2 too$/m,
  );
  assert.equal(lines(served.process.stderr).length, 7, served.process.stderr);
  const refused = await fetch(`${served.url}/store/inventory`);
  await refused.body?.cancel();
  assert.deepEqual([refused.status, refused.headers.get("www-authenticate")], [401, 'ApiKey header="api_key"']);
  for (const path of ["/store/inventory", "/v2/store/inventory"]) {
    const inventory = await fetch(`${served.url}${path}`, { headers: { api_key: "k" } });
    assert.equal(inventory.status, 200, path);
    assert.deepEqual(await inventory.json(), { property1: 0, property2: 0 });
  }

  const stubs = join(ROOT, "tests/fixtures/openapi/pets-2.0-drift.yaml");
  const checked = await startServe(["--port", "0", "--config", stubs, "--openapi", PETS_2]);
  await using __ = checked.process;
  assert.deepEqual(lines(checked.process.stderr), [
    `[WARN] ${PETS_2}: a Swagger 2.0 'type: file' response has no JSON body to check; stub bodies are not checked ` +
    "for GET /pets/{petId}/photo 200",
    "[WARN] routes[1]: GET /pets/3: body at /id must be >= 1, got 0 (spec: GET /pets/{petId} 200)",
  ]);
  assert.match(
    checked.process.stdout,
    /^openapi: .*pets-2\.0\.yaml \(OpenAPI 2\.0, 2 operation\(s\)\); 2 configured stub\(s\) checked: 1 drift\(s\), see the warnings$/m,
  );
  const usage = await runCli(["serve", "--port", "0", "--mock"]);
  assert.equal(usage.code, 2);
  assert.match(usage.stderr, /^\[ERROR\] --mock answers the operations of an OpenAPI document: add --openapi SPEC/);
});

const PETS_2 = join(ROOT, "tests/fixtures/openapi/pets-2.0.yaml");

Deno.test("serve --openapi SPEC (no --mock): a stub answering the spec's own example that breaks its schema is the same [WARN] validate --openapi prints, not counted as a drift", async () => {
  const spec = join(ROOT, "tests/fixtures/openapi/own-examples.yaml");
  const stubs = join(ROOT, "tests/fixtures/openapi/own-examples-stubs.yaml");
  const served = await startServe(["--port", "0", "--config", stubs, "--openapi", spec]);
  await using _ = served.process;
  const validated = await runCli(["validate", stubs, "--openapi", spec]);
  const own = lines(validated.stderr).filter((line) => line.includes(": the spec's own example breaks its schema: "));
  assert.equal(own.length, 2);
  assert.deepEqual(lines(served.process.stderr), [
    ...own,
    '[WARN] routes[2]: POST /repos: body at /private must be boolean, got "yes" (spec: POST /repos 201)',
  ]);
  assert.match(
    served.process.stdout,
    /^openapi: .*own-examples\.yaml \(OpenAPI 3\.0\.3, 3 operation\(s\)\); 3 configured stub\(s\) checked: 1 drift\(s\), see the warnings; 2 answer the spec's own examples that break its schema \(see the warnings\)$/m,
  );
});

Deno.test("regression: serve --openapi SPEC --mock answered 404 under the spec's base path (servers: .../v1, Swagger basePath: /v1); both /v1/pets/1 and /pets/1 answer now", async () => {
  for (const spec of [join(ROOT, "tests/fixtures/openapi/petstore.yaml"), PETS_2]) {
    const served = await startServe(["--port", "0", "--quiet", "--openapi", spec, "--mock"]);
    await using _ = served.process;
    assert.match(served.process.stdout, /mocked \(configured stubs win\), under \/v1 too$/m);
    for (const path of ["/v1/pets/1", "/pets/1"]) {
      const answer = await fetch(`${served.url}${path}`);
      assert.equal(answer.status, 200, `${spec} ${path}`);
      assert.equal(answer.headers.get("content-type"), "application/json");
      const body = await answer.json();
      assert.equal(typeof body.id, "number", JSON.stringify(body));
    }
    const other = await fetch(`${served.url}/v2/pets/1`);
    assert.equal(other.status, 404, "another prefix is not the base path");
    await other.body?.cancel();
  }
});

Deno.test("regression: serve --openapi SPEC --mock served the file an example's $ref named outside the spec's folder (/etc/passwd, ../private/secret.yaml); those operations are left out with a [WARN], the rest served", async () => {
  const spec = join(ROOT, "tests/fixtures/openapi/refs/api.yaml");
  const secret = join(ROOT, "tests/fixtures/openapi/private/secret.yaml");
  const served = await startServe(["--port", "0", "--quiet", "--openapi", spec, "--mock"]);
  await using _ = served.process;
  const outside = `it is outside the folder of ${spec}`;
  assert.deepEqual(lines(served.process.stderr), [
    `[WARN] ${spec}: $ref ${JSON.stringify(secret)} is not read: ${outside} (what uses it is left out)`,
    `[WARN] ${spec}: $ref "/etc/passwd" is not read: ${outside} (what uses it is left out)`,
    `[WARN] ${spec} paths./secret.get: '$ref' is not supported: $ref ${JSON.stringify(secret)} is not read: ${outside}`,
    `[WARN] ${spec} paths./passwd.get: '$ref' is not supported: $ref "/etc/passwd" is not read: ${outside}`,
  ]);
  const pet = await fetch(`${served.url}/pet`);
  assert.deepEqual(await pet.json(), { id: 1, name: "Rex" }, "a $ref inside the spec's folder is read");
  for (const path of ["/secret", "/passwd"]) {
    const answer = await fetch(`${served.url}${path}`);
    const text = await answer.text();
    assert.equal(answer.status, 404, path);
    assert.ok(!text.includes("s3cr3t") && !text.includes("root:"), text);
  }
});

Deno.test("regression: a spec of a few hundred bytes with a YAML alias bomb took 17-21 s to load (the issue's 691-byte one); refused at once with an [ERROR]", async () => {
  const spec = join(ROOT, "tests/fixtures/openapi/alias-bomb.yaml");
  const started = performance.now();
  const result = await runCli(["serve", "--port", "0", "--openapi", spec, "--mock"]);
  const seconds = (performance.now() - started) / 1000;
  assert.equal(result.code, 1);
  assert.deepEqual(lines(result.stderr), [
    `[ERROR] ${spec}: YAML aliases in ${spec} expand past 1000 nodes (an alias bomb): write the repeated parts out or use $ref`,
  ]);
  assert.ok(seconds < 8, `refused in ${seconds.toFixed(1)} s (a process start included)`);
});

Deno.test("regression: nested minItems: 1000 in a 575-byte spec made a sample of a million values (the issue measured 460 MB); that operation is left out with a [WARN], the rest served", async () => {
  const spec = join(ROOT, "tests/fixtures/openapi/huge-sample.yaml");
  const served = await startServe(["--port", "0", "--quiet", "--openapi", spec, "--mock"]);
  await using _ = served.process;
  assert.deepEqual(lines(served.process.stderr), [
    `[WARN] ${spec} paths./grid.get: 'schema' is not supported: the example generated from its schema would hold ` +
    "more than 100000 values (minItems, minLength): give the response an example",
  ]);
  const grid = await fetch(`${served.url}/grid`);
  assert.equal(grid.status, 404);
  await grid.body?.cancel();
  const pets = await fetch(`${served.url}/pets`);
  assert.deepEqual(await pets.json(), [0, 0]);
});

Deno.test("regression: near misses of stubs --openapi --mock made said place 'inline'; they name the operation and the spec", async () => {
  const spec = join(ROOT, "tests/fixtures/openapi/petstore.yaml");
  const served = await startServe(["--port", "0", "--quiet", "--openapi", spec, "--mock"]);
  await using _ = served.process;
  const answer = await fetch(`${served.url}/pets/1`, { method: "DELETE" });
  assert.equal(answer.status, 404);
  const { closest } = await answer.json();
  assert.ok(closest.length > 0);
  assert.deepEqual(closest.map((c: { place: string }) => c.place), [`openapi GET /pets/{petId} of ${spec}`]);
});

Deno.test("regression: real specs failed whole (issue #32: Jira/Asana's 204 with content, Box's $id in examples and '#' paths, an undeclared path parameter); each problem is one [WARN], the rest served", async () => {
  const spec = join(ROOT, "tests/fixtures/openapi/real-world.yaml");
  const served = await startServe(["--port", "0", "--quiet", "--openapi", spec, "--mock"]);
  await using _ = served.process;
  assert.deepEqual(lines(served.process.stderr), [
    `[WARN] ${spec}: \`/paths/users/{userId}/notes/get\` is missing path parameter(s) for \`{userId}\`. (read anyway)`,
    `[WARN] ${spec} paths./items/{itemId}.delete: status 204 carries no body: the application/json content is dropped`,
    `[WARN] ${spec} paths./files/{file_id}#get_shared_link.get: '#' is not supported: a request never carries the ` +
    'fragment, so this operation cannot be told from "/files/{file_id}"',
  ]);
  assert.match(
    served.process.stdout,
    /\(OpenAPI 3\.0\.3, 7 operation\(s\)\): 6 mocked \(configured stubs win\), 1 left out/,
  );
  const deleted = await fetch(`${served.url}/items/1`, { method: "DELETE" });
  assert.deepEqual([deleted.status, await deleted.text()], [204, ""]);
  // The example's `{thingId}` is data: the request's text is not echoed into it.
  const thing = await fetch(`${served.url}/things/%7B%22x%22%3A1%7D`);
  assert.deepEqual(await thing.json(), {
    $id: "https://example.com/things/1",
    id: "1",
    note: "call /things/{thingId} for more",
  });
  const notes = await fetch(`${served.url}/users/7/notes`);
  assert.deepEqual([notes.status, await notes.json()], [200, []]);
  // The stub sets text/plain, so it goes out exactly as written (no charset added).
  for (const path of ["/readme", "/blob"]) {
    const text = await fetch(`${served.url}${path}`);
    assert.deepEqual([text.status, text.headers.get("content-type"), await text.text()], [200, "text/plain", ""], path);
  }
});

const CHECKED = join(ROOT, "tests/fixtures/openapi/checked.yaml");

for (const adapter of ADAPTERS) {
  Deno.test(`[${adapter}] serve --openapi SPEC --mock checks requests against the spec: 422 with each violation (Prism's shape), 400 for a body that is not JSON, 401 without credentials`, async () => {
    const { openApiServe } = await import("../src/cli/serve_openapi.ts");
    const mocked = await openApiServe({ openapi: CHECKED, mock: true }, [], (i) => `routes[${i}]`);
    assert.deepEqual(mocked!.problems, []);
    await using server = await stubServer(0, { adapter, stubs: mocked!.stubs });
    const ask = async (path: string, init: RequestInit = {}) => {
      const answer = await fetch(`${server.url}${path}`, init);
      const text = await answer.text();
      return {
        status: answer.status,
        type: answer.headers.get("content-type"),
        challenge: answer.headers.get("www-authenticate"),
        body: text && JSON.parse(text),
      };
    };
    const invalid = (detail: string, validation: unknown[]) => ({
      status: 422,
      type: "application/problem+json",
      challenge: null,
      body: { type: "UNPROCESSABLE_ENTITY", title: "Invalid request", status: 422, detail, validation },
    });
    const error = (location: string[], code: string, message: string) => ({
      location,
      severity: "Error",
      code,
      message,
    });
    const trace = { headers: { "x-trace": "abcdef12" } };
    assert.deepEqual(await ask("/pets/1?fields=name&fields=tag", trace), {
      status: 200,
      type: "application/json",
      challenge: null,
      body: { id: 1, name: "Rex" },
    });
    assert.deepEqual(
      await ask("/v1/pets/0?fields=name&fields=color"),
      invalid("the request does not match GET /pets/{petId} in the spec", [
        error(["path", "petId"], "minimum", "must be >= 1"),
        error(["query", "fields", "1"], "enum", "must be equal to one of the allowed values"),
        error(["header"], "required", "must have required property 'x-trace'"),
      ]),
    );
    assert.deepEqual(
      await ask("/pets/abc", { headers: { "x-trace": "nothex!!" } }),
      invalid("the request does not match GET /pets/{petId} in the spec", [
        error(["path", "petId"], "type", "must be integer"),
        error(["header", "x-trace"], "pattern", 'must match pattern "^[a-f0-9]{8}$"'),
      ]),
    );
    const json = { "content-type": "application/json" };
    assert.deepEqual(
      await ask("/pets", { method: "POST", headers: json, body: '{"name": "", "age": "x"}' }),
      invalid("the request does not match POST /pets in the spec", [
        error(["body", "name"], "minLength", "must NOT have fewer than 1 characters"),
        error(["body", "age"], "type", "must be integer,null"),
      ]),
    );
    assert.deepEqual(
      await ask("/pets", { method: "POST", headers: json, body: "{}" }),
      invalid("the request does not match POST /pets in the spec", [
        error(["body", "name"], "required", "must have required property 'name'"),
      ]),
    );
    assert.deepEqual(
      await ask("/pets", { method: "POST" }),
      invalid("the request does not match POST /pets in the spec", [error(["body"], "required", "must have a body")]),
    );
    assert.deepEqual(
      (await ask("/pets", { method: "POST", headers: json, body: '{"name":"Rex","age":null}' })).status,
      201,
    );
    assert.deepEqual(await ask("/pets", { method: "POST", headers: json, body: "{nope" }), {
      status: 400,
      type: "application/problem+json",
      challenge: null,
      body: {
        type: "BAD_REQUEST",
        title: "The request body is not valid JSON",
        status: 400,
        detail: "POST /pets takes a JSON body",
        validation: [error(["body"], "json", "must be valid JSON")],
      },
    });
    assert.deepEqual(await ask("/me"), {
      status: 401,
      type: "application/problem+json",
      challenge: 'Bearer, ApiKey header="X-Api-Key"',
      body: {
        type: "UNAUTHORIZED",
        title: "Invalid security scheme used",
        status: 401,
        detail: "GET /me requires credentials the request does not carry",
      },
    });
    assert.equal((await ask("/me", { headers: { authorization: "Bearer t0ken" } })).status, 200);
    assert.equal((await ask("/v1/me", { headers: { "x-api-key": "k" } })).status, 200);
    assert.equal(
      (await ask("/me", { headers: { authorization: "Basic eDp5" } })).status,
      401,
      "not the scheme asked for",
    );
  });
}

Deno.test("serve --openapi SPEC --mock --no-validate-requests answers whatever the request; the flag needs --mock", async () => {
  const served = await startServe(["--port", "0", "--quiet", "--openapi", CHECKED, "--mock", "--no-validate-requests"]);
  await using _ = served.process;
  const pet = await fetch(`${served.url}/pets/abc`);
  assert.deepEqual([pet.status, await pet.json()], [200, { id: 1, name: "Rex" }]);
  const me = await fetch(`${served.url}/me`);
  assert.deepEqual([me.status, await me.json()], [200, { id: 1 }]);
  const usage = await runCli(["serve", "--port", "0", "--openapi", CHECKED, "--no-validate-requests"]);
  assert.equal(usage.code, 2);
  assert.match(usage.stderr, /^\[ERROR\] --no-validate-requests is for the stubs --mock makes: add --mock/);
});

for (const adapter of ADAPTERS) {
  Deno.test(`[${adapter}] serve --openapi SPEC --mock answers Prism's Prefer: code=NNN (else its range), example=NAME (as written, never filled in), 500 when the operation has no such answer`, async () => {
    const { openApiServe } = await import("../src/cli/serve_openapi.ts");
    const mocked = await openApiServe({ openapi: CHECKED, mock: true }, [], (i) => `routes[${i}]`);
    await using server = await stubServer(0, { adapter, stubs: mocked!.stubs });
    const ask = async (prefer: string, path = "/pets/1") => {
      const answer = await fetch(`${server.url}${path}`, { headers: { "x-trace": "abcdef12", prefer } });
      return [answer.status, answer.headers.get("content-type"), await answer.text()];
    };
    assert.deepEqual(await ask("code=404"), [404, "application/json", '{"message":"string"}']);
    assert.deepEqual(await ask("code=409"), [409, "text/plain", "try again"], "4XX covers 409");
    assert.deepEqual(await ask("example=cat"), [200, "application/json", '{"id":2,"name":"{petId} the cat"}']);
    assert.deepEqual(await ask("code=200, example=dog", "/v1/pets/7"), [
      200,
      "application/json",
      '{"id":1,"name":"Rex"}',
    ]);
    assert.deepEqual(
      await ask("wait=5"),
      [200, "application/json", '{"id":1,"name":"Rex"}'],
      "no preference of Prism's",
    );
    const problem = (detail: string) => [
      500,
      "application/problem+json",
      JSON.stringify({
        type: "NO_RESPONSE_DEFINED",
        title: "No response fits the request's Prefer header",
        status: 500,
        detail,
      }),
    ];
    assert.deepEqual(
      await ask("code=503"),
      problem("the operation declares no 503 response (declared: 200, 404, 4XX)"),
    );
    assert.deepEqual(await ask("example=bird"), problem('no response of the operation has an example named "bird"'));
    // The request is checked first: a violation wins over a preference.
    const invalid = await fetch(`${server.url}/pets/0`, { headers: { "x-trace": "abcdef12", prefer: "code=404" } });
    await invalid.body?.cancel();
    assert.equal(invalid.status, 422);
    const created = await fetch(`${server.url}/pets`, {
      method: "POST",
      headers: { "content-type": "application/json", prefer: "code=201" },
      body: '{"name": "Rex"}',
    });
    assert.deepEqual([created.status, await created.json()], [201, { id: 2 }]);
  });
}

for (const adapter of ADAPTERS) {
  Deno.test(`[${adapter}] serve --openapi SPEC --mock records every violation: the report's violations key counts each operation + location + message; without checks there is no key`, async () => {
    const { openApiServe } = await import("../src/cli/serve_openapi.ts");
    const mocked = await openApiServe({ openapi: CHECKED, mock: true }, [], (i) => `routes[${i}]`);
    await using server = await stubServer(0, { adapter, stubs: mocked!.stubs });
    assert.deepEqual((await server.report()).violations, [], "the key is there before any request");
    const send = async (path: string, init: RequestInit = {}) => (await fetch(`${server.url}${path}`, init)).status;
    const json = { "content-type": "application/json" };
    assert.equal(await send("/pets", { method: "POST", headers: json, body: "{}" }), 422);
    assert.equal(await send("/v1/pets", { method: "POST", headers: json, body: '{"age": "x"}' }), 422);
    assert.equal(await send("/pets", { method: "POST", headers: json, body: "{nope" }), 400);
    assert.equal(await send("/me"), 401);
    assert.equal(await send("/pets/0", { headers: { "x-trace": "abcdef12" } }), 422);
    assert.equal(await send("/pets/1", { headers: { "x-trace": "abcdef12" } }), 200, "a valid request is no violation");
    assert.deepEqual((await server.report()).violations, [
      { operation: "POST /pets", location: "body.name", message: "must have required property 'name'", count: 2 },
      { operation: "POST /pets", location: "body.age", message: "must be integer,null", count: 1 },
      { operation: "POST /pets", location: "body", message: "must be valid JSON", count: 1 },
      {
        operation: "GET /me",
        location: "security",
        message: 'no credentials (Bearer, ApiKey header="X-Api-Key")',
        count: 1,
      },
      { operation: "GET /pets/{petId}", location: "path.petId", message: "must be >= 1", count: 1 },
    ]);
    await fetch(`${server.url}/__stubtool__/reset`, { method: "POST" }).then((r) => r.body?.cancel());
    assert.deepEqual((await server.report()).violations, []);

    const unchecked = await openApiServe(
      { openapi: CHECKED, mock: true, "no-validate-requests": true },
      [],
      (i) => `routes[${i}]`,
    );
    await using plain = await stubServer(0, { adapter, stubs: unchecked!.stubs });
    await fetch(`${plain.url}/me`).then((r) => r.body?.cancel());
    assert.deepEqual(Object.keys(await plain.report()), ["summary", "stubs", "unused_stubs", "unmatched_requests"]);
  });
}

Deno.test("report --fail-on-violations: violations in every format, exit 1 when any (a clean server exits 0); --from merges them", async () => {
  const served = await startServe(["--port", "0", "--quiet", "--openapi", CHECKED, "--mock"]);
  await using _ = served.process;
  const clean = await runCli(["report", "--url", served.url, "--fail-on-violations"]);
  assert.equal(clean.code, 0, clean.stderr);
  assert.ok(lines(clean.stdout).includes("Requests that broke the spec: none"));
  const json = { "content-type": "application/json" };
  for (let i = 0; i < 2; i++) {
    await fetch(`${served.url}/pets`, { method: "POST", headers: json, body: '{"name": ""}' }).then((r) =>
      r.body?.cancel()
    );
  }
  const text = await runCli(["report", "--url", served.url, "--fail-on-violations"]);
  assert.equal(text.code, 1);
  assert.deepEqual(lines(text.stdout).slice(-2), [
    "Requests that broke the spec: 2",
    "  POST /pets body.name: must NOT have fewer than 1 characters (2x)",
  ]);
  assert.equal(
    text.stderr,
    "[ERROR] report check failed: 2 request(s) broke the OpenAPI spec the server checks them against (--fail-on-violations)\n",
  );
  const saved = await runCli(["report", "--url", served.url, "--format", "json"]);
  assert.equal(saved.code, 0, "without the flag, violations do not fail");
  const report = JSON.parse(saved.stdout);
  assert.deepEqual(report.violations, [
    { operation: "POST /pets", location: "body.name", message: "must NOT have fewer than 1 characters", count: 2 },
  ]);
  const summary = await runCli(["report", "--url", served.url, "--format", "github-summary"]);
  assert.deepEqual(lines(summary.stdout).slice(-7), [
    "### Requests that broke the spec",
    "",
    "Violations: **2**",
    "",
    "| Operation | Location | Message | Count |",
    "| --- | --- | --- | --- |",
    "| `POST /pets` | `body.name` | must NOT have fewer than 1 characters | 2 |",
  ]);
  const html = await runCli(["report", "--url", served.url, "--format", "html"]);
  assert.match(
    html.stdout,
    /<section id="violations" aria-labelledby="violations-heading"><h2 id="violations-heading">Requests that broke the spec<\/h2>/,
  );
  assert.match(html.stdout, /<td>must NOT have fewer than 1 characters<\/td><td class="num">2<\/td>/);

  await using dir = await tempDir();
  const one = join(dir.path, "one.json");
  const two = join(dir.path, "two.json");
  await Deno.writeTextFile(one, saved.stdout);
  const other = {
    ...report,
    violations: [
      { operation: "GET /me", location: "security", message: "no credentials (Bearer)", count: 1 },
      { operation: "POST /pets", location: "body.name", message: "must NOT have fewer than 1 characters", count: 3 },
    ],
  };
  await Deno.writeTextFile(two, JSON.stringify(other));
  const merged = await runCli(["report", "--from", one, two, "--format", "json", "--fail-on-violations"]);
  assert.equal(merged.code, 1);
  assert.deepEqual(JSON.parse(merged.stdout).violations, [
    { operation: "POST /pets", location: "body.name", message: "must NOT have fewer than 1 characters", count: 5 },
    { operation: "GET /me", location: "security", message: "no credentials (Bearer)", count: 1 },
  ]);
  await Deno.writeTextFile(two, JSON.stringify({ ...report, violations: [{ operation: "GET /me" }] }));
  const broken = await runCli(["report", "--from", two]);
  assert.equal(broken.code, 2);
  assert.match(broken.stderr, /violations\[0\] needs operation, location, message and count/);
});

for (const { file } of SPECS) {
  const name = file.slice(file.lastIndexOf(file.includes("oas-examples") ? "oas-examples" : "tests"));
  for (const adapter of ADAPTERS) {
    Deno.test(`[${adapter}] serve --openapi ${name} --mock --dynamic: every generated answer passes its schema, for 3 seeds`, async () => {
      const { openApiServe } = await import("../src/cli/serve_openapi.ts");
      const { doc } = await readOpenApiDocument(file);
      const { expected } = expectations(doc!);
      for (const seed of ["1", "2", "3"]) {
        const mocked = await openApiServe(
          { openapi: file, mock: true, dynamic: true, seed, "no-validate-requests": true },
          [],
          (i) => `routes[${i}]`,
        );
        await using server = await stubServer(0, { adapter, stubs: mocked!.stubs });
        assert.ok(await checkAnswers(server.url, doc!, expected) > 0);
      }
    });
  }
}

const DYNAMIC = join(ROOT, "tests/fixtures/openapi/dynamic.yaml");

for (const adapter of ADAPTERS) {
  Deno.test(`[${adapter}] serve --openapi SPEC --mock: Prefer: dynamic=true generates data per request, --dynamic for every request, --seed N repeats it; Accept picks the media type, 406 when none fits`, async () => {
    const { openApiServe } = await import("../src/cli/serve_openapi.ts");
    const { doc } = await readOpenApiDocument(DYNAMIC);
    const check = validatorFor(doc!);
    const serve = async (values: Record<string, unknown>) => {
      const mocked = await openApiServe({ openapi: DYNAMIC, mock: true, ...values }, [], (i) => `routes[${i}]`);
      assert.deepEqual(mocked!.problems, []);
      return await stubServer(0, { adapter, stubs: mocked!.stubs });
    };
    const ask = async (url: string, headers: Record<string, string> = {}) => {
      const answer = await fetch(`${url}/pets`, { headers });
      return { status: answer.status, type: answer.headers.get("content-type"), text: await answer.text() };
    };
    await using fixed = await serve({});
    const example = { status: 200, type: "application/json", text: '[{"id":1,"name":"Rex","status":"available"}]' };
    assert.deepEqual(await ask(fixed.url), example);
    assert.deepEqual(await ask(fixed.url, { prefer: "dynamic=false" }), example);
    const bodies = new Set<string>();
    for (let i = 0; i < 20; i++) {
      const answer = await ask(fixed.url, { prefer: "dynamic=true" });
      assert.equal(answer.status, 200);
      assert.equal(answer.type, "application/json");
      assert.equal(
        check("/paths/~1pets/get/responses/200/content/application~1json/schema", JSON.parse(answer.text)),
        undefined,
      );
      bodies.add(answer.text);
    }
    assert.equal(bodies.size, 20, "a new body per request");
    const notFound = await ask(fixed.url, { prefer: "code=404, dynamic=true" });
    assert.equal(notFound.status, 404);
    assert.equal(typeof JSON.parse(notFound.text).message, "string");

    // Accept: the operation's other media type, the example as written; none that fits: 406 in Prism's shape.
    assert.deepEqual(await ask(fixed.url, { accept: "text/plain" }), { status: 200, type: "text/plain", text: "Rex" });
    assert.deepEqual(await ask(fixed.url, { accept: "text/html;q=0.9, application/*" }), example);
    assert.deepEqual(await ask(fixed.url, { accept: "image/png, text/plain;q=0" }), {
      status: 406,
      type: "application/problem+json",
      text: JSON.stringify({
        type: "NOT_ACCEPTABLE",
        title: "The server cannot produce a representation for your accept header",
        status: 406,
        detail: "Accept: image/png, text/plain;q=0 fits none of application/json, text/plain",
      }),
    });

    // --dynamic --seed N: every request generated, the same sequence for the same seed.
    const run = async (seed: string) => {
      await using server = await serve({ dynamic: true, seed });
      const texts = [];
      for (let i = 0; i < 5; i++) texts.push((await ask(server.url)).text);
      return texts;
    };
    const first = await run("7");
    assert.equal(new Set(first).size, 5);
    assert.deepEqual(await run("7"), first);
    assert.notDeepEqual(await run("8"), first);
  });
}

Deno.test("serve --dynamic and --seed need --openapi SPEC --mock; --seed is a whole number", async () => {
  const cases: [string[], RegExp][] = [
    [["--dynamic"], /^\[ERROR\] --dynamic and --seed shape the answers of --openapi SPEC --mock: add them/],
    [
      ["--openapi", DYNAMIC, "--seed", "1"],
      /^\[ERROR\] --dynamic and --seed shape the answers --mock makes: add --mock/,
    ],
    [
      ["--openapi", DYNAMIC, "--mock", "--seed", "x1"],
      /^\[ERROR\] --seed: must be a whole number from 0 to 4294967295, got "x1"/,
    ],
  ];
  for (const [args, message] of cases) {
    const { code, stderr } = await runCli(["serve", "--port", "0", ...args]);
    assert.equal(code, 2, args.join(" "));
    assert.match(stderr, message);
  }
});

// ------------------------------------------------------------------ every spec of @readme/oas-examples

/** Every JSON spec @readme/oas-examples ships (2.0, 3.0, 3.1), served with --mock. */
const ALL_EXAMPLES = ["2.0", "3.0", "3.1"].flatMap((version) =>
  [...Deno.readDirSync(join(EXAMPLES, version, "json"))]
    .filter((entry) => entry.isFile && entry.name.endsWith(".json"))
    .map((entry) => `${version}/json/${entry.name}`)
    .sort()
);

/**
 * Every spec of @readme/oas-examples: its operations, how many answered a valid request (2xx,
 * body passing its schema), how many answered an invalid one 422 in Prism's shape, and the known
 * differences (answers that fail their schema): readme-legacy's `baseUrl` sampled as "string"
 * for `format: url`, the response-schemas oneOf sampled as "string" (the mock's samples), and
 * request-examples' examples written as JSON text where the schema wants an object (the spec's).
 */
const EXAMPLE_TABLE: [spec: string, operations: number, answered: number, faulted: number, known: string[]][] = [
  ["2.0/json/api-with-examples.json", 2, 2, 0, []],
  ["2.0/json/petstore-expanded.json", 4, 4, 1, []],
  ["2.0/json/petstore-minimal.json", 1, 1, 0, []],
  ["2.0/json/petstore-simple.json", 3, 1, 0, []],
  ["2.0/json/petstore-with-external-docs.json", 4, 4, 1, []],
  ["2.0/json/petstore.json", 20, 13, 7, []],
  ["2.0/json/schema-circular.json", 1, 1, 1, []],
  ["3.0/json/callbacks.json", 1, 1, 1, []],
  ["3.0/json/circular-paths.json", 3, 3, 1, []],
  ["3.0/json/circular-request-bodies.json", 4, 2, 2, []],
  ["3.0/json/circular.json", 1, 1, 0, []],
  ["3.0/json/complex-nesting.json", 5, 2, 2, []],
  ["3.0/json/discriminators.json", 10, 1, 1, []],
  ["3.0/json/file-uploads.json", 3, 3, 0, []],
  ["3.0/json/form-data.json", 1, 1, 0, []],
  ["3.0/json/http-status-codes.json", 89, 11, 0, []],
  ["3.0/json/link-example.json", 6, 6, 0, []],
  ["3.0/json/parameters-common.json", 5, 4, 0, []],
  ["3.0/json/parameters-cookies.json", 1, 1, 0, []],
  ["3.0/json/parameters-extreme.json", 1, 1, 1, []],
  ["3.0/json/parameters-style.json", 25, 16, 0, []], // its two "#" operations are left out, not asked
  ["3.0/json/petstore-expanded.json", 4, 4, 1, []],
  ["3.0/json/petstore-simple-no-tags.json", 2, 0, 0, []],
  ["3.0/json/petstore-simple.json", 2, 0, 0, []],
  ["3.0/json/petstore.json", 20, 13, 7, []],
  ["3.0/json/polymorphism.json", 13, 5, 5, []],
  ["3.0/json/readme-extensions.json", 12, 12, 3, []],
  ["3.0/json/readme-legacy.json", 36, 34, 13, ["GET /"]],
  ["3.0/json/request-examples.json", 11, 9, 9, [
    "PATCH /requestBody-primitive-example",
    "PUT /requestBody-primitive-example",
  ]],
  ["3.0/json/response-empty-examples.json", 1, 1, 0, []],
  ["3.0/json/response-examples.json", 2, 2, 0, []],
  ["3.0/json/response-http-behavior.json", 3, 3, 0, []],
  ["3.0/json/response-multiple-mediatypes.json", 4, 4, 2, []],
  ["3.0/json/response-schemas.json", 8, 6, 0, ["GET /anything/polymorphism"]],
  ["3.0/json/schema-additional-properties.json", 1, 0, 0, []],
  ["3.0/json/schema-circular.json", 3, 3, 2, []],
  ["3.0/json/schema-deprecated.json", 1, 0, 0, []],
  ["3.0/json/schema-encoding-style.json", 1, 1, 0, []],
  ["3.0/json/schema-enums.json", 3, 0, 0, []],
  ["3.0/json/schema-types.json", 21, 14, 14, []],
  ["3.0/json/schema-validation.json", 5, 2, 2, []],
  ["3.0/json/schema-visibility.json", 1, 1, 1, []],
  ["3.0/json/security-multiple.json", 4, 0, 0, []],
  ["3.0/json/security.json", 15, 14, 0, []],
  ["3.0/json/server-path-level.json", 6, 6, 0, []],
  ["3.0/json/server-variables.json", 4, 4, 0, []],
  ["3.0/json/star-trek.json", 120, 120, 40, []],
  ["3.0/json/uspto.json", 3, 3, 0, []],
  ["3.1/json/parameters-style.json", 25, 0, 0, []],
  ["3.1/json/petstore-simple.json", 2, 0, 0, []],
  ["3.1/json/petstore.json", 20, 13, 7, []],
  ["3.1/json/readme-extensions.json", 10, 0, 0, []],
  ["3.1/json/readme.json", 54, 42, 7, []],
  ["3.1/json/schema-encoding-style.json", 1, 0, 0, []],
  ["3.1/json/schema-types.json", 23, 0, 0, []],
  ["3.1/json/schema-validation-local.json", 5, 3, 3, []],
  ["3.1/json/schema-validation-top-level.json", 1, 0, 0, []],
  ["3.1/json/security.json", 15, 14, 0, []],
  ["3.1/json/train-travel.json", 7, 6, 2, []],
  ["3.1/json/webhooks.json", 0, 0, 0, []],
];

Deno.test("the table names every JSON spec of @readme/oas-examples", () => {
  assert.deepEqual(EXAMPLE_TABLE.map(([spec]) => spec), ALL_EXAMPLES);
});

for (const [spec, operations, answered, faulted, known] of EXAMPLE_TABLE) {
  Deno.test(`serve --openapi oas-examples/${spec} --mock: valid requests answer as the schema says, invalid ones 422 as Prism does`, async () => {
    const result = await exerciseSpec(join(EXAMPLES, spec));
    // Known differences, the mock's and the spec's own examples alike, in the order asked.
    const differences = [...result.failures, ...result.own].map((f) => f.split(/ \(|: /)[0]).sort();
    assert.deepEqual(differences, [...known].sort(), [...result.failures, ...result.own].join("\n"));
    assert.deepEqual(
      [result.operations, result.valid, result.invalid],
      [operations, answered, faulted],
      result.leftOut.join("\n"),
    );
    assert.deepEqual(result.leftOut.filter((why) => !LEFT_OUT_BECAUSE.some((reason) => reason.test(why))), []);
  });
}

Deno.test("regression: serve --openapi SPEC --mock threw at start on a schema ajv cannot compile (ReadMe's 3.1 API: nullable without type; a pattern the linear-time engine refuses); those operations are answered unchecked, each with a [WARN]", async () => {
  const { openApiServe } = await import("../src/cli/serve_openapi.ts");
  const unchecked = async (spec: string) => {
    const file = join(EXAMPLES, spec);
    const mocked = await openApiServe({ openapi: file, mock: true }, [], (i) => `routes[${i}]`);
    return mocked!.problems.filter((p) => p.message.startsWith("requests are not checked: "))
      .map((p) => `${p.place?.slice(file.length + 1)}: ${p.message.slice(0, 70)}`);
  };
  assert.deepEqual(await unchecked("3.1/json/readme.json"), [
    'paths./branches/{branch}/reference.post: requests are not checked: "nullable" cannot be used without "type"',
    'paths./branches/{branch}/reference/{slug}.patch: requests are not checked: "nullable" cannot be used without "type"',
  ]);
  assert.deepEqual(await unchecked("3.0/json/schema-validation.json"), [
    'paths./anything/strings.get: requests are not checked: pattern "^(?:{[0-9a-fA-F]{4}(?:-?[0-9a-fA-F]',
  ]);
});
