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
  assert.equal(stderr, `[ERROR] ${file}:4:5: routes[1]: invalid method 'FETCH' ${ALLOWED}\n`);
});

Deno.test("validate: every problem of every route is printed, in file order, one line each", async () => {
  const file = fixture("many_errors.yaml");
  const { code, stdout, stderr } = await runCli(["validate", file]);
  assert.equal(code, 1);
  assert.equal(stdout, "");
  assert.deepEqual(lines(stderr), [
    `[ERROR] ${file}:3:5: routes[0]: path is required, for example /users/{id}`,
    `[ERROR] ${file}:4:5: routes[1]: method is required ${ALLOWED}`,
    `[ERROR] ${file}:6:5: routes[2]: path must start with '/', got "users"`,
    `[ERROR] ${file}:9:5: routes[3]: status must be an integer from 100 to 599, got "2OO"`,
    `[ERROR] ${file}:12:5: routes[4]: unknown field 'staus' (did you mean 'status'?)`,
    `[ERROR] ${file}:15:5: routes[5]: delay must be milliseconds from 0 to 2147483647, got -5`,
    `[ERROR] ${file}:16:5: routes[6]: use either sequence or status, not both: move them into the sequence entries`,
    `[ERROR] ${file}:22:5: routes[7]: path '/__stubtool__/health' is under /__stubtool__/, which stubtool reserves for itself`,
    `[ERROR] ${file}:23:5: routes[8]: query parameter 'q' is set both in path and in query_params; keep one`,
    `[ERROR] ${file}:28:5: routes[9]: status 204 cannot carry a body; remove body or use another status`,
    `[ERROR] ${file}:32:5: routes[10]: sequence_mode must be 'repeat-last' or 'cycle', got "loop"`,
    `[ERROR] ${file}:35:5: routes[11]: must be a mapping with at least method and path, got "just a string"`,
  ]);
});

Deno.test("validate: problems of the file as a whole are placed at the file, a top-level key at its line", async () => {
  const file = fixture("bad_top_level.yaml");
  const { code, stderr } = await runCli(["validate", file]);
  assert.equal(code, 1);
  assert.deepEqual(lines(stderr), [
    `[ERROR] ${file}:2:1: unknown top-level key 'rotues' (did you mean 'routes'?)`,
    `[ERROR] ${file}:1:1: port: must be an integer from 0 to 65535, got 70000`,
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
    `[WARN] ${file}:4:5: routes[1]: duplicate of routes[0] (GET /users/{id}); it can never match`,
    `[WARN] ${file}:7:5: routes[2]: shadowed by routes[0] (GET /users/{id}), which matches every request it would; it can never match`,
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

Deno.test("validate: several YAML syntax errors are each a line", async () => {
  await using dir = await tempDir();
  const file = join(dir.path, "tabs.yml");
  await Deno.writeTextFile(file, "routes:\n\t- method: GET\n---\nroutes: []\n");
  const { code, stderr } = await runCli(["validate", file]);
  assert.equal(code, 1);
  const errors = lines(stderr);
  assert.ok(errors.length >= 2, stderr);
  assert.equal(errors[0], `[ERROR] ${file}:2:1: Tabs are not allowed as indentation`);
  for (const line of errors) {
    assert.match(line, new RegExp(`^\\[ERROR\\] ${file.replaceAll(".", "\\.")}:\\d+:\\d+: \\S`));
  }
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
