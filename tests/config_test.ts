import assert from "node:assert/strict";
import {
  describeReadError,
  formatOfFile,
  lineAndColumn,
  loadConfigFile,
  loadConfigText,
  parseConfigText,
  parseJson,
} from "../src/stubs/config.ts";
import { fixture, ROOT } from "./_cli.ts";

Deno.test("formatOfFile: picks JSON or YAML by extension, case-insensitively, else nothing", () => {
  assert.equal(formatOfFile("stubs.json"), "json");
  assert.equal(formatOfFile("STUBS.JSON"), "json");
  assert.equal(formatOfFile("stubs.yaml"), "yaml");
  assert.equal(formatOfFile("dir.json/stubs.yml"), "yaml");
  assert.equal(formatOfFile("stubs.conf"), undefined);
});

Deno.test("lineAndColumn: 1-based line and column of an offset", () => {
  const text = "ab\ncd\n\nef";
  assert.deepEqual(lineAndColumn(text, 0), { line: 1, col: 1 });
  assert.deepEqual(lineAndColumn(text, 2), { line: 1, col: 3 }); // the newline itself
  assert.deepEqual(lineAndColumn(text, 4), { line: 2, col: 2 });
  assert.deepEqual(lineAndColumn(text, 7), { line: 4, col: 1 });
});

Deno.test("parseJson: value, or the offset and message of a syntax error", async () => {
  assert.deepEqual(await parseJson('{"a": [1, 2]}'), { value: { a: [1, 2] } });
  // The engine names the position: its message is kept, without the echoed position.
  assert.deepEqual(await parseJson('{"a": 1,}'), {
    error: { offset: 8, message: "Expected double-quoted property name" },
  });
  assert.deepEqual(await parseJson("[1, 2"), {
    error: { offset: 5, message: "Expected ',' or ']' after array element" },
  });
  const end = await parseJson("");
  assert.ok("error" in end && end.error.offset === 0);
  // The engine gives no position for an unknown word: the YAML parser locates it.
  const word = await parseJson('{"a": tru}');
  assert.ok("error" in word);
  assert.equal(word.error.offset, 6);
  assert.match(word.error.message, /tru/);
});

Deno.test("parseConfigText: YAML syntax errors carry file:line:col and no code frame", async () => {
  const { raw, problems } = await parseConfigText("routes:\n  - method: GET\n    body: {id: 1\n  - x\n", "s.yaml");
  assert.equal(raw, undefined);
  assert.ok(problems.length >= 1);
  assert.equal(problems[0].level, "error");
  assert.match(problems[0].place!, /^s\.yaml:\d+:\d+$/);
  for (const p of problems) assert.ok(!p.message.includes("\n"), `one line: ${p.message}`);
  assert.ok(!problems[0].message.includes(" at line "), problems[0].message);
});

Deno.test("parseConfigText: a tab used as indentation points at its line and column", async () => {
  const { problems } = await parseConfigText("routes:\n\t- method: GET\n", "tabs.yaml");
  assert.equal(problems[0].place, "tabs.yaml:2:1");
  assert.match(problems[0].message, /tab/i);
});

Deno.test("parseConfigText: duplicate keys are errors in YAML and in JSON", async () => {
  const yaml = await parseConfigText("routes: []\nroutes: []\n", "d.yaml");
  assert.deepEqual(yaml.problems, [
    { level: "error", place: "d.yaml:2:1", message: "duplicate key: keys in one mapping must be unique" },
  ]);
  const json = await parseConfigText('{"routes": [],\n "routes": []}', "d.json");
  assert.deepEqual(json.problems, [
    { level: "error", place: "d.json:2:2", message: "duplicate key: keys in one mapping must be unique" },
  ]);
});

Deno.test("parseConfigText: YAML merge keys are enabled", async () => {
  const text = "base: &b {method: GET, status: 201}\nroutes:\n  - <<: *b\n    path: /x\n";
  assert.deepEqual((await parseConfigText(text, "m.yaml")).raw, {
    base: { method: "GET", status: 201 },
    routes: [{ method: "GET", status: 201, path: "/x" }],
  });
});

Deno.test("parseConfigText: an alias bomb is refused, not expanded", async () => {
  const { problems } = await parseConfigText(Deno.readTextFileSync(fixture("alias_bomb.yaml")), "bomb.yaml");
  assert.equal(problems.length, 1);
  assert.equal(problems[0].place, "bomb.yaml");
  assert.match(problems[0].message, /alias/i);
});

Deno.test("parseConfigText: .json is strict JSON (a trailing comma is an error YAML would accept)", async () => {
  const { problems } = await parseConfigText('{"routes": [],\n}', "t.json");
  assert.equal(problems.length, 1);
  assert.equal(problems[0].place, "t.json:2:1");
  assert.equal(problems[0].message, "Expected double-quoted property name");
  // The same text as .yaml is fine (a flow mapping may end with a comma).
  assert.deepEqual((await parseConfigText('{"routes": [],\n}', "t.yaml")).raw, { routes: [] });
});

Deno.test("parseConfigText: other extensions are JSON when the text is JSON, else YAML", async () => {
  assert.deepEqual((await parseConfigText('{"routes": []}', "stubs.conf")).raw, { routes: [] });
  assert.deepEqual((await parseConfigText("routes: []", "stubs.conf")).raw, { routes: [] });
  // YAML 1.2 core schema: `yes` stays a string, `0x10` is a number.
  assert.deepEqual((await parseConfigText("a: yes\nb: 0x10", "x")).raw, { a: "yes", b: 16 });
});

Deno.test("parseConfigText: a byte-order mark is ignored", async () => {
  assert.deepEqual((await parseConfigText('\uFEFF{"routes": []}', "bom.json")).raw, { routes: [] });
});

Deno.test("parseConfigText: __proto__ keys stay plain data (no prototype pollution)", async () => {
  for (const [text, file] of [['{"__proto__": {"polluted": 1}}', "p.json"], ["__proto__: {polluted: 1}", "p.yaml"]]) {
    const { raw } = await parseConfigText(text, file);
    assert.ok(Object.hasOwn(raw as object, "__proto__"), file);
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
  }
});

Deno.test("loadConfigText: validation problems are placed at the line and column of routes[i]'s field, port, or the file", async () => {
  const text = "port: 99999\nroutes:\n  - {method: FETCH, path: /x}\n  - {method: GET, path: /y, staus: 1}\n";
  const { config, problems } = await loadConfigText(text, "c.yaml");
  assert.equal(config, undefined);
  assert.deepEqual(problems, [
    { level: "error", place: "port", message: "must be an integer from 0 to 65535, got 99999 (at c.yaml:1:1)" },
    {
      level: "error",
      place: "routes[0]",
      message: "invalid method 'FETCH' (allowed: ANY, DELETE, GET, HEAD, OPTIONS, PATCH, POST, PUT) (at c.yaml:3:6)",
    },
    { level: "error", place: "routes[1]", message: "unknown field 'staus' (did you mean 'status'?) (at c.yaml:4:29)" },
  ]);
  const topLevel = (await loadConfigText("rotues: []", "c.yaml")).problems;
  assert.deepEqual(topLevel.map((p) => [p.place, p.message]), [
    ["c.yaml", "unknown top-level key 'rotues' (did you mean 'routes'?) (at c.yaml:1:1)"],
    ["c.yaml", "routes is required: a list of stubs, each with method and path"],
  ]);
});

Deno.test("loadConfigText: a valid config with warnings returns the config and [WARN] problems", async () => {
  const { config, problems } = await loadConfigText(
    "port: 0\nroutes:\n  - {method: GET, path: /a}\n  - {method: get, path: /a}\n",
    "w.yaml",
  );
  assert.equal(config?.routes.length, 2);
  assert.equal(config?.port, 0);
  assert.deepEqual(problems, [
    {
      level: "warn",
      place: "routes[1]",
      message: "duplicate of routes[0] (GET /a); it can never match (at w.yaml:4:5)",
    },
  ]);
});

Deno.test("loadConfigFile: unreadable files name the file and the reason", async () => {
  assert.deepEqual((await loadConfigFile("/no/such/stubs.yaml")).problems, [
    { level: "error", place: "/no/such/stubs.yaml", message: "no such file" },
  ]);
  assert.deepEqual((await loadConfigFile(ROOT + "tests")).problems, [
    { level: "error", place: ROOT + "tests", message: "is a directory, not a file" },
  ]);
  assert.equal(describeReadError(Object.assign(new Error("x"), { code: "EACCES" })), "permission denied");
});

Deno.test("examples/stubs.yaml and examples/stubs.json are valid and define the same stubs", async () => {
  const yaml = await loadConfigFile(ROOT + "examples/stubs.yaml");
  const json = await loadConfigFile(ROOT + "examples/stubs.json");
  assert.deepEqual(yaml.problems, []);
  assert.deepEqual(json.problems, []);
  assert.ok(yaml.config && json.config);
  assert.equal(yaml.config.port, undefined, "the example leaves the port to --port / STUBTOOL_PORT");
  assert.ok(yaml.config.routes.length >= 8);
  // Compiled query patterns hold closures: compare what they are made of.
  const plain = (routes: unknown[]) =>
    JSON.parse(JSON.stringify(routes.map((r) => ({ ...r as object, place: 0, line: 0 }))));
  assert.deepEqual(plain(json.config.routes), plain(yaml.config.routes));
  assert.equal(yaml.config.routes[1].place, `routes[1] of ${ROOT}examples/stubs.yaml`, "each stub knows its place");
  // …and its line: where its entry starts in each file.
  const yamlText = await Deno.readTextFile(ROOT + "examples/stubs.yaml");
  const jsonText = await Deno.readTextFile(ROOT + "examples/stubs.json");
  for (
    const [routes, text, start] of [[yaml.config.routes, yamlText, /^ *- /], [
      json.config.routes,
      jsonText,
      /^ *\{/,
    ]] as const
  ) {
    const lines = text.split("\n");
    for (const stub of routes) assert.match(lines[stub.line! - 1], start, `line ${stub.line} starts an entry`);
    assert.equal(new Set(routes.map((s) => s.line)).size, routes.length, "one line per entry");
  }
  // It shows every feature the README points to.
  const routes = yaml.config.routes;
  assert.ok(routes.some((s) => s.path.includes("{")), "placeholders");
  const texts = (s: (typeof routes)[number]) => Object.values(s.query ?? {}).map(String);
  assert.ok(routes.some((s) => texts(s).some((v) => v.startsWith("{"))), "?q={term}");
  assert.ok(routes.some((s) => texts(s).some((v) => !v.startsWith("{"))), "query_params");
  assert.ok(routes.some((s) => s.responses.some((r) => r.headers)), "headers");
  assert.ok(routes.some((s) => s.responses.some((r) => r.delay !== undefined)), "delay");
  assert.ok(routes.some((s) => s.isSequence && s.sequenceMode === "cycle"), "sequence_mode: cycle");
  assert.ok(routes.some((s) => s.isSequence && s.sequenceMode === "repeat-last"), "sequence");
});

Deno.test("regression: a YAML error after a broken flow collection was placed past the end of its line", async () => {
  // npm:yaml's LineCounter missed the line break inside `delete\n    path` (a plain scalar in a
  // flow mapping that never closed), so every later error was a line too early: fuzz.yaml:5:28 for the ':' at 6:9.
  const text = '{!custom routes:\n  - method: GET\n    path: /users/{id}\n    body: { id: "{id}" }\n' +
    "  - method: delete\n    path: /users/{id}\n    status: 204\n";
  const { problems } = await loadConfigText(text, "fuzz.yaml");
  const lines = text.split("\n");
  for (const problem of problems) {
    const [, line, col] = /:(\d+):(\d+)$/.exec(problem.place!)!.map(Number);
    assert.ok(col <= lines[line - 1].length + 1, `${problem.place} is past the end of line ${line}`);
  }
  // Only the first error is printed now (the rest follow from it and are counted).
  assert.deepEqual(problems, [{
    level: "error",
    place: "fuzz.yaml:2:13",
    message: "Nested mappings are not allowed in compact mappings (23 later errors follow from it; fix this one first)",
  }]);
});

Deno.test("regression: one `{id}` in a flow mapping printed 46 parser errors; now the first, placed, with a hint", async () => {
  const stubs = Array.from({ length: 3 }, (_, i) => `  - {method: GET, path: /users/{id}/n${i}, status: 200}`);
  const { problems } = await loadConfigText(`routes:\n${stubs.join("\n")}\n`, "stubs.yaml");
  assert.equal(problems.length, 1, JSON.stringify(problems));
  assert.equal(problems[0].place, "stubs.yaml:2:32");
  assert.match(
    problems[0].message,
    /^Unexpected flow-map-start at node end; a "\{" in an unquoted value inside a \{…\} mapping starts another mapping: quote the value, path: "\/users\/\{id\}\/n0" \((\d+) later errors follow from it; fix this one first\)$/,
  );
  assert.ok(Number(/\((\d+) later/.exec(problems[0].message)![1]) >= 20, "the cascade is counted");
});

Deno.test("YAML syntax errors: a hint for a tab and for an unquoted ': ', none for other mistakes", async () => {
  const tab = await loadConfigText("routes:\n  - method: GET\n\tpath: /x\n", "tab.yaml");
  assert.deepEqual(tab.problems, [{
    level: "error",
    place: "tab.yaml:3:1",
    message: "Tabs are not allowed as indentation; YAML indents with spaces only: replace the tab with spaces",
  }]);
  const colon = await loadConfigText("routes:\n  - method: GET\n    path: /x\n    body: error: not found\n", "c.yaml");
  assert.deepEqual(colon.problems, [{
    level: "error",
    place: "c.yaml:4:11",
    message: 'Nested mappings are not allowed in compact mappings; ": " inside an unquoted value reads as a new key: ' +
      'quote the value, body: "error: not found"',
  }]);
  const other = await loadConfigText('routes:\n  - method: GET\n    path: "/x\n', "q.yaml");
  assert.equal(other.problems.length, 1, JSON.stringify(other.problems));
  assert.doesNotMatch(other.problems[0].message, /; (YAML indents|a "\{"|": ")/);
});

Deno.test("regression: YAML's duplicate-key check compared each key with every earlier one (30,000 keys took 5.6 s); one set per mapping finds the same duplicates", async () => {
  const keys = Array.from({ length: 30_000 }, (_, i) => `      k${i}: ${i}`);
  const text = `routes:\n  - method: GET\n    path: /a\n    body:\n${keys.join("\n")}\n      k7: again\n`;
  const { problems } = await parseConfigText(text, "big.yaml");
  assert.deepEqual(problems, [{
    level: "error",
    place: `big.yaml:${30_005}:7`,
    message: "duplicate key: keys in one mapping must be unique",
  }]);
  // Keys repeat freely across mappings, and a merge key may repeat what it merges.
  const ok = await parseConfigText(
    "base: &b {status: 200}\nroutes:\n  - {<<: *b, method: GET, path: /a, status: 201}\n  - {method: GET, path: /b}\n",
    "ok.yaml",
  );
  assert.deepEqual(ok.problems, []);
});

Deno.test('regression: an unquoted {id} in a YAML flow mapping was served as {"id":{"id":null}} and validated OK; it is an error that says to quote it', async () => {
  const text = "routes:\n  - method: GET\n    path: /users/{id}\n    body: { id: {id} }\n    headers: {x-id: {id}}\n";
  const { problems } = await parseConfigText(text, "stubs.yaml");
  assert.deepEqual(problems, [
    {
      level: "error",
      place: "stubs.yaml:4:18",
      message: '{id} is read by YAML as a mapping, not a placeholder: write "{id}" in quotes',
    },
    {
      level: "error",
      place: "stubs.yaml:5:22",
      message: '{id} is read by YAML as a mapping, not a placeholder: write "{id}" in quotes',
    },
  ]);
  // Quoted, or an explicit null, is what the user wrote.
  const quoted = await parseConfigText(
    'routes:\n  - {method: GET, path: "/u/{id}", body: {id: "{id}", n: null}}\n',
    "ok.yaml",
  );
  assert.deepEqual(quoted.problems, []);
});

Deno.test("regression: a comment in a .json config got the parser's 'Expected property name' message; it says JSON has no comments", async () => {
  for (
    const [text, place] of [['{\n  // routes below\n  "routes": []\n}\n', "stubs.json:2:3"], [
      '{"routes": [ /* none */ ]}',
      "stubs.json:1:14",
    ]]
  ) {
    const { problems } = await parseConfigText(text, "stubs.json");
    assert.deepEqual(problems, [{
      level: "error",
      place,
      message: "JSON has no comments: remove it (or write the file as YAML, where # starts a comment)",
    }]);
  }
});

Deno.test("regression: a config nested thousands of levels deep crashed its readers; an [ERROR] placed, for JSON and YAML", async () => {
  const deep = "[".repeat(5000) + "]".repeat(5000);
  const json = await loadConfigText(`{"routes":[{"method":"GET","path":"/x","json":${deep}}]}`, "c.json");
  assert.deepEqual(json.problems, [{
    level: "error",
    place: "c.json routes[0].json[0][0][0][0][0]…",
    message: "nests objects and arrays more than 128 levels deep, which stubtool does not read: flatten the document",
  }]);
  // npm:yaml runs out of stack on its own: its problem keeps its line and column, with the rule's words.
  const yaml = await loadConfigText(`routes:\n  - method: GET\n    path: /x\n    body: ${deep}\n`, "c.yaml");
  assert.equal(yaml.config, undefined);
  assert.match(yaml.problems[0].place!, /^c\.yaml:4:\d+$/);
  assert.equal(yaml.problems[0].message, json.problems[0].message);
  // Within the limit, YAML reads as usual.
  const ok = await loadConfigText(
    `routes:\n  - method: GET\n    path: /x\n    body: ${"[".repeat(100)}1${"]".repeat(100)}\n`,
    "c.yaml",
  );
  assert.deepEqual(ok.problems, []);
});
