// `stubtool validate FILE` as a subprocess: every class of message, its place, and the exit code.
import assert from "node:assert/strict";
import { join } from "node:path";
import { fixture, lines, runCli, tempDir } from "./_cli.ts";

const ALLOWED = "(allowed: ANY, DELETE, GET, HEAD, OPTIONS, PATCH, POST, PUT)";

Deno.test("validate: a valid YAML or JSON file prints [OK] with the route count on stdout, exit 0", async () => {
  for (const name of ["valid.yaml", "valid.json", "merge_keys.yaml"]) {
    const file = fixture(name);
    const { code, stdout, stderr } = await runCli(["validate", file]);
    assert.equal(code, 0, stderr);
    assert.equal(stdout, `[OK] ${file} is valid (2 route(s) defined)\n`);
    assert.equal(stderr, "");
  }
});

Deno.test("validate: the file is named as given (relative paths stay relative)", async () => {
  const { stdout } = await runCli(["validate", "examples/stubs.yaml"]);
  assert.match(stdout, /^\[OK\] examples\/stubs\.yaml is valid \(\d+ route\(s\) defined\)\n$/);
  const json = await runCli(["validate", "examples/stubs.json"]);
  assert.equal(json.stdout, stdout.replace("stubs.yaml", "stubs.json"));
});

Deno.test("validate: zero routes is valid", async () => {
  const file = fixture("no_routes.yaml");
  const { code, stdout } = await runCli(["validate", file]);
  assert.equal(code, 0);
  assert.equal(stdout, `[OK] ${file} is valid (0 route(s) defined)\n`);
});

Deno.test("validate: an invalid method names the route and the allowed methods, exit 1", async () => {
  const file = fixture("invalid_method.yaml");
  const { code, stdout, stderr } = await runCli(["validate", file]);
  assert.equal(code, 1);
  assert.equal(stdout, "");
  assert.equal(stderr, `[ERROR] routes[1]: invalid method 'FETCH' ${ALLOWED} (at ${file}:4:5)\n`);
});

Deno.test("validate: every problem of every route is printed, in file order, one line each", async () => {
  const file = fixture("many_errors.yaml");
  const { code, stdout, stderr } = await runCli(["validate", file]);
  assert.equal(code, 1);
  assert.equal(stdout, "");
  assert.deepEqual(lines(stderr), [
    `[ERROR] routes[0]: path is required, for example /users/{id} (at ${file}:3:5)`,
    `[ERROR] routes[1]: method is required ${ALLOWED} (at ${file}:4:5)`,
    `[ERROR] routes[2]: path must start with '/', got "users" (at ${file}:6:5)`,
    `[ERROR] routes[3]: status must be an integer from 100 to 599, got "2OO" (at ${file}:9:5)`,
    `[ERROR] routes[4]: unknown field 'staus' (did you mean 'status'?) (at ${file}:12:5)`,
    `[ERROR] routes[5]: delay must be milliseconds from 0 to 2147483647, got -5 (at ${file}:15:5)`,
    `[ERROR] routes[6]: use either sequence or status, not both: move them into the sequence entries (at ${file}:16:5)`,
    `[ERROR] routes[7]: path '/__stubtool__/health' is under /__stubtool__/, which stubtool reserves for itself (at ${file}:22:5)`,
    `[ERROR] routes[8]: query parameter 'q' is set both in path and in query_params; keep one (at ${file}:23:5)`,
    `[ERROR] routes[9]: status 204 cannot carry a body; remove body or use another status (at ${file}:28:5)`,
    `[ERROR] routes[10]: sequence_mode must be 'repeat-last' or 'cycle', got "loop" (at ${file}:32:5)`,
    `[ERROR] routes[11]: must be a mapping with at least method and path, got "just a string" (at ${file}:35:5)`,
  ]);
});

Deno.test("validate: problems of the file as a whole are placed at the file, a top-level key at its line", async () => {
  const file = fixture("bad_top_level.yaml");
  const { code, stderr } = await runCli(["validate", file]);
  assert.equal(code, 1);
  assert.deepEqual(lines(stderr), [
    `[ERROR] ${file}: unknown top-level key 'rotues' (did you mean 'routes'?) (at ${file}:2:1)`,
    `[ERROR] port: must be an integer from 0 to 65535, got 70000 (at ${file}:1:1)`,
    `[ERROR] ${file}: routes is required: a list of stubs, each with method and path`,
  ]);
  const list = fixture("not_a_mapping.yaml");
  assert.equal(
    (await runCli(["validate", list])).stderr,
    `[ERROR] ${list}: the config must be a mapping with a routes list, got a list\n`,
  );
});

Deno.test("validate: shadowed and duplicate stubs are [WARN] lines on stderr, then [OK], exit 0", async () => {
  const file = fixture("warnings.yaml");
  const { code, stdout, stderr } = await runCli(["validate", file]);
  assert.equal(code, 0);
  assert.deepEqual(lines(stderr), [
    `[WARN] routes[1]: duplicate of routes[0] (GET /users/{id}); it can never match (at ${file}:4:5)`,
    `[WARN] routes[2]: shadowed by routes[0] (GET /users/{id}), which matches every request it would; it can never match (at ${file}:7:5)`,
  ]);
  assert.equal(stdout, `[OK] ${file} is valid (3 route(s) defined)\n`);
});

Deno.test("validate: YAML syntax errors print file:line:col and the parser's message without its code frame", async () => {
  await using dir = await tempDir();
  const file = join(dir.path, "broken.yaml");
  await Deno.writeTextFile(file, "routes:\n  - method: GET\n    path: /users\n    body: { id: 1\n  - method: POST\n");
  const { code, stdout, stderr } = await runCli(["validate", file]);
  assert.equal(code, 1);
  assert.equal(stdout, "");
  assert.equal(
    stderr,
    `[ERROR] ${file}:5:3: Flow map in block collection must be sufficiently indented and end with a }\n`,
  );
});

Deno.test("validate: of several YAML syntax errors the first is printed, with a hint, and the rest counted", async () => {
  await using dir = await tempDir();
  const file = join(dir.path, "tabs.yml");
  await Deno.writeTextFile(file, "routes:\n\t- method: GET\n---\nroutes: []\n");
  const { code, stderr } = await runCli(["validate", file]);
  assert.equal(code, 1);
  assert.equal(
    stderr,
    `[ERROR] ${file}:2:1: Tabs are not allowed as indentation; YAML indents with spaces only: replace the tab with ` +
      "spaces (1 later error follows from it; fix this one first)\n",
  );
});

Deno.test("regression: validate printed 46 [ERROR] lines of parser tokens for one unquoted /users/{id} in a {…} stub", async () => {
  await using dir = await tempDir();
  const file = join(dir.path, "stubs.yaml");
  const stubs = ["/users/{id}", "/users/{id}/orders", "/teams/{team}"].map((path) =>
    `  - {method: GET, path: ${path}, status: 200, body: {ok: true}}`
  );
  await Deno.writeTextFile(file, `routes:\n${stubs.join("\n")}\n`);
  const { code, stderr } = await runCli(["validate", file]);
  assert.equal(code, 1);
  assert.equal(lines(stderr).length, 1, stderr);
  assert.match(
    stderr,
    new RegExp(
      `^\\[ERROR\\] ${file.replaceAll(".", "\\.")}:2:32: Unexpected flow-map-start at node end; a "\\{" in an ` +
        `unquoted value inside a \\{…\\} mapping starts another mapping: quote the value, path: "/users/\\{id\\}" ` +
        `\\(\\d+ later errors follow from it; fix this one first\\)\n$`,
    ),
  );
});

Deno.test("validate: JSON syntax errors print file:line:col, exit 1", async () => {
  await using dir = await tempDir();
  const file = join(dir.path, "broken.json");
  await Deno.writeTextFile(file, '{\n  "routes": [\n    { "method": "GET", "path": "/users", }\n  ]\n}\n');
  const { code, stderr } = await runCli(["validate", file]);
  assert.equal(code, 1);
  assert.equal(stderr, `[ERROR] ${file}:3:42: Expected double-quoted property name\n`);
});

Deno.test("validate: duplicate keys are errors with their position, in YAML and JSON", async () => {
  const yaml = fixture("duplicate_key.yaml");
  const json = fixture("duplicate_key.json");
  const [a, b] = await Promise.all([runCli(["validate", yaml]), runCli(["validate", json])]);
  assert.equal(a.code, 1);
  assert.equal(a.stderr, `[ERROR] ${yaml}:5:5: duplicate key: keys in one mapping must be unique\n`);
  assert.equal(b.code, 1);
  assert.match(b.stderr, new RegExp(`^\\[ERROR\\] ${json.replaceAll(".", "\\.")}:1:\\d+: duplicate key`));
});

Deno.test("validate: an alias bomb is refused quickly, exit 1", async () => {
  const file = fixture("alias_bomb.yaml");
  const { code, stderr, ms } = await runCli(["validate", file]);
  assert.equal(code, 1);
  assert.equal(stderr, `[ERROR] ${file}: Excessive alias count indicates a resource exhaustion attack\n`);
  assert.ok(ms < 5_000, `${ms} ms`);
});

Deno.test("validate: an unreadable file names the file and the reason, exit 1", async () => {
  await using dir = await tempDir();
  const missing = join(dir.path, "missing.yaml");
  const { code, stdout, stderr } = await runCli(["validate", missing]);
  assert.equal(code, 1);
  assert.equal(stdout, "");
  assert.equal(stderr, `[ERROR] ${missing}: no such file\n`);
  assert.equal((await runCli(["validate", dir.path])).stderr, `[ERROR] ${dir.path}: is a directory, not a file\n`);
});

Deno.test("validate: files with other extensions are read as JSON or YAML by content", async () => {
  for (const name of ["sniffed_json.conf", "sniffed_yaml.conf"]) {
    const { code, stdout } = await runCli(["validate", fixture(name)]);
    assert.equal(code, 0, name);
    assert.equal(stdout, `[OK] ${fixture(name)} is valid (1 route(s) defined)\n`);
  }
});

Deno.test("regression: duplicate ids in one config passed validate and serve; now an [ERROR] naming the other stub", async () => {
  await using dir = await tempDir();
  const file = join(dir.path, "ids.yaml");
  await Deno.writeTextFile(
    file,
    "routes:\n  - {id: user, method: GET, path: /a}\n  - {method: GET, path: /b}\n  - {id: user, method: POST, path: /c}\n",
  );
  const expected = [
    `[ERROR] routes[2]: id 'user' is already used by routes[0] (GET /a); give each stub its own id (at ${file}:4:6)`,
  ];
  const validated = await runCli(["validate", file]);
  assert.deepEqual([validated.code, validated.stdout, lines(validated.stderr)], [1, "", expected]);
  const served = await runCli(["serve", "--port", "0", "--config", file]);
  assert.deepEqual([served.code, served.stdout, lines(served.stderr)], [1, "", expected]);
});

Deno.test('regression: validate hid status "2OO" when the same stub also had a sequence conflict; both are reported', async () => {
  await using dir = await tempDir();
  const file = join(dir.path, "both.yaml");
  await Deno.writeTextFile(
    file,
    "routes:\n  - method: GET\n    path: /a\n    status: 2OO\n    sequence: [{status: 503}]\n",
  );
  const { code, stderr } = await runCli(["validate", file]);
  assert.equal(code, 1);
  assert.deepEqual(lines(stderr), [
    `[ERROR] routes[0]: use either sequence or status, not both: move them into the sequence entries (at ${file}:2:5)`,
    `[ERROR] routes[0]: status must be an integer from 100 to 599, got "2OO" (at ${file}:4:5)`,
  ]);
});

Deno.test("validate: a problem deep in a stub points at its field's line and column, in YAML and in JSON", async () => {
  await using dir = await tempDir();
  const yaml = join(dir.path, "deep.yaml");
  await Deno.writeTextFile(
    yaml,
    [
      "routes:",
      "  - method: GET",
      "    path: /a",
      "    sequence:",
      "      - status: 200",
      "      - status: 99",
      "        headers: { x-a: ok, 'bad name': x }",
      "  - method: GET",
      "    path: /b",
      "    request:",
      "      header: { x: y }",
      "",
    ].join("\n"),
  );
  const { code, stderr } = await runCli(["validate", yaml]);
  assert.equal(code, 1);
  assert.deepEqual(lines(stderr), [
    `[ERROR] routes[0]: sequence[1].status must be an integer from 100 to 599, got 99 (at ${yaml}:6:9)`,
    `[ERROR] routes[0]: sequence[1].headers: 'bad name' is not a valid header name (letters, digits and !#$%&'*+-.^_\`|~ only) (at ${yaml}:7:29)`,
    `[ERROR] routes[1]: request: unknown condition 'header' (did you mean 'headers'?) (at ${yaml}:11:7)`,
  ]);
  const json = join(dir.path, "deep.json");
  await Deno.writeTextFile(
    json,
    '{\n  "routes": [\n    {"method": "GET", "path": "/a"},\n    {"method": "GET",\n     "path": "/b", "delay": -1}\n  ]\n}\n',
  );
  const fromJson = await runCli(["validate", json]);
  assert.deepEqual(lines(fromJson.stderr), [
    `[ERROR] routes[1]: delay must be milliseconds from 0 to 2147483647, got -1 (at ${json}:5:20)`,
  ]);
});

Deno.test("validate: {uuid}, {now} and {{…}} in an answer are sent as written, so they warn and point to response templates; captures do not", async () => {
  await using dir = await tempDir();
  const file = join(dir.path, "placeholders.yaml");
  await Deno.writeTextFile(
    file,
    [
      "routes:",
      "  - method: POST",
      "    path: /users/{id}",
      "    body: { id: '{id}', token: '{uuid}' }",
      "  - method: GET",
      "    path: /time",
      "    headers: { x-at: '{now}' }",
      "  - method: GET",
      "    path: /hello",
      "    request: { headers: { x-name: '{name}' } }",
      "    sequence:",
      "      - body: 'hello {name}'",
      "      - body: 'hello {{request.query.name}}'",
      "",
    ].join("\n"),
  );
  const { code, stdout, stderr } = await runCli(["validate", file]);
  assert.equal(code, 0, stderr);
  assert.equal(stdout, `[OK] ${file} is valid (3 route(s) defined)\n`);
  const later = "values made per request (ids, times) are for response templates (template: true)";
  assert.deepEqual(lines(stderr), [
    `[WARN] routes[0]: body.token holds {uuid}, which names no capture of this stub (its captures are {id}), so it is sent as written; ${later} (at ${file}:4:25)`,
    `[WARN] routes[1]: headers.x-at holds {now}, which names no capture of this stub (it captures none), so it is sent as written; ${later} (at ${file}:7:16)`,
    `[WARN] routes[2].sequence[1]: body holds {{request.query.name}}, which is sent as written: {{…}} is template syntax, rendered only in a stub with template: true; {name} fills in a capture of the stub (at ${file}:13:9)`,
  ]);
});

Deno.test("regression: validate --wiremock of a folder with no mappings said [OK] 0 stub(s) and nothing more; now a [WARN] says where WireMock looks", async () => {
  await using dir = await tempDir();
  const result = await runCli(["validate", "--wiremock", dir.path]);
  assert.equal(result.code, 0);
  assert.deepEqual(lines(result.stderr), [
    `[WARN] --wiremock ${dir.path}: no mappings found in ${dir.path} (WireMock reads ${
      join(dir.path, "mappings")
    }/**/*.json; give the folder that holds mappings/)`,
  ]);
  assert.equal(result.stdout, `[OK] ${dir.path}: 0 stub(s) from 0 mapping file(s)\n`);
});
