// The config file's JSON Schema (src/stubs/schema.ts, `stubtool schema`): the committed copy is
// current, and the schema is never stricter than `validate`: every config validate accepts
// (examples, README, fixtures, what record writes, generated stubs) passes it.
import assert from "node:assert/strict";
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import fc from "fast-check";
import { Ajv2020 } from "ajv/dist/2020.js";
import { parse, stringify } from "yaml";
import { loadConfigText } from "../src/stubs/config.ts";
import { recordedConfig } from "../src/stubs/recording.ts";
import { configSchema } from "../src/stubs/schema.ts";
import { STUB_METHODS, validateConfig } from "../src/stubs/validate.ts";
import { ROOT, runCli } from "./_cli.ts";

const ajv = new Ajv2020({ allErrors: true, strict: true, allowUnionTypes: true });
const check = ajv.compile(configSchema());

/** Why the schema rejects `config`, or "" when it passes. */
function schemaErrors(config: unknown): string {
  return check(config) ? "" : ajv.errorsText(check.errors);
}

Deno.test("stubtool schema prints schema/stubtool.schema.json exactly (regenerate it with: stubtool schema > schema/stubtool.schema.json)", async () => {
  const { code, stdout, stderr } = await runCli(["schema"]);
  assert.equal(code, 0, stderr);
  assert.equal(stderr, "");
  assert.equal(stdout, await readFile(join(ROOT, "schema/stubtool.schema.json"), "utf8"));
  assert.deepEqual(JSON.parse(stdout), configSchema());
});

Deno.test("schema: every config in examples/ passes it", async () => {
  // Folders there (examples/wiremock/) are not configs.
  const entries = await readdir(join(ROOT, "examples"), { withFileTypes: true });
  for (const name of entries.filter((e) => e.isFile()).map((e) => e.name)) {
    const text = await readFile(join(ROOT, "examples", name), "utf8");
    const { config } = await loadConfigText(text, join(ROOT, "examples", name));
    assert.ok(config, `${name} is valid`);
    assert.equal(schemaErrors(parse(text)), "", name);
  }
});

Deno.test("schema: every YAML config block of README passes it", async () => {
  const readme = await readFile(join(ROOT, "README.md"), "utf8");
  const blocks = [...readme.matchAll(/^([ \t]*)```yaml\n([\s\S]*?)^[ \t]*```/gm)]
    .map(([, indent, body]) => body.split("\n").map((line) => line.slice(indent.length)).join("\n"))
    .filter((body) => /^routes:/m.test(body));
  assert.ok(blocks.length >= 5, `found ${blocks.length} config blocks`);
  for (const body of blocks) assert.equal(schemaErrors(parse(body, { merge: true })), "", body);
});

/** Every `.yaml`/`.json` file under `dir`. */
async function configFiles(dir: string): Promise<string[]> {
  const found: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile() && /\.(ya?ml|json|conf)$/.test(entry.name)) found.push(join(entry.parentPath, entry.name));
  }
  return found.sort();
}

Deno.test("schema: never stricter than validate: each fixture validate accepts passes it; the invalid ones it can see fail it", async () => {
  let accepted = 0;
  for (const file of await configFiles(join(ROOT, "tests/fixtures"))) {
    const text = await readFile(file, "utf8");
    const { config } = await loadConfigText(text, file);
    if (!config) continue;
    accepted++;
    assert.equal(schemaErrors(parse(text, { merge: true })), "", file);
  }
  assert.ok(accepted >= 8, `${accepted} valid fixtures`);
  for (const name of ["invalid_method.yaml", "bad_top_level.yaml", "many_errors.yaml", "not_a_mapping.yaml"]) {
    const text = await readFile(join(ROOT, "tests/fixtures", name), "utf8");
    assert.notEqual(schemaErrors(parse(text)), "", `${name} fails the schema too`);
  }
});

Deno.test("schema: what record writes passes it (JSON, text and binary bodies, sequences, queries, cookie lists, body files)", () => {
  const bytes = (text: string) => new TextEncoder().encode(text);
  const { config } = recordedConfig([
    {
      method: "GET",
      target: "/users/1?fields=name",
      status: 200,
      headers: { "content-type": "application/json" },
      body: bytes('{"id":1}'),
    },
    { method: "GET", target: "/users/1?fields=name", status: 503, headers: {}, body: new Uint8Array() },
    {
      method: "POST",
      target: "/login",
      status: 204,
      headers: { "set-cookie": ["a=1", "b=2"] },
      body: new Uint8Array(),
    },
    { method: "GET", target: "/page", status: 200, headers: { "content-type": "text/html" }, body: bytes("<p>hi</p>") },
    {
      method: "GET",
      target: "/logo.png",
      status: 200,
      headers: { "content-type": "image/png" },
      body: new Uint8Array([137, 80, 78, 71]),
    },
    {
      method: "GET",
      target: "/pretty",
      status: 200,
      headers: { "content-type": "application/json" },
      body: bytes('{ "a": 1 }'),
    },
    { method: "DELETE", target: "/a%20b/:x/*", status: 404, headers: {}, body: bytes("gone") },
  ], { keep: ["set-cookie"] });
  const written = parse(stringify(config));
  assert.ok(written.routes.some((r: Record<string, unknown>) => r.sequence), "a sequence was recorded");
  assert.equal(
    validateConfig(written, { readFile: () => new Uint8Array() }).problems.filter((p) => p.level === "error").length,
    0,
  );
  assert.equal(schemaErrors(written), "");
});

/** A field's usual values most of the time, anything else sometimes (a number, a list, a typo'd word). */
const mostly = <T>(usual: fc.Arbitrary<T>) =>
  fc.oneof({ weight: 9, arbitrary: usual }, { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 2 }) });
const anyValue = fc.jsonValue({ maxDepth: 2 });
const text = fc.string({ maxLength: 8 });
const token = fc.stringMatching(/^[a-z][a-z0-9-]{0,8}$/);
const valuePattern = fc.oneof(
  text,
  fc.integer(),
  fc.boolean(),
  fc.constant({ absent: true }),
  fc.record({ regex: fc.constantFrom("[0-9]+", "a|b", "(") }),
);
const delay = fc.oneof(fc.integer({ min: -5, max: 3_000 }), fc.record({ min: fc.nat(50), max: fc.nat(50) }));
const headerValue = fc.oneof(text, fc.integer(), fc.array(text, { maxLength: 2 }));
const method = mostly(fc.oneof(fc.constantFrom(...STUB_METHODS), fc.constantFrom("get", "Post", "any", "FETCH")));
const path = mostly(fc.constantFrom("/", "/a", "/users/{id}", "/search?q={term}", "/files/{rest*}", "a", "/x/:id"));
/** The other fields of a stub: a few of them per stub, so that many generated stubs are valid. */
const optional: Record<string, fc.Arbitrary<unknown>> = {
  status: mostly(fc.integer({ min: 100, max: 600 })),
  headers: mostly(fc.dictionary(token, headerValue, { maxKeys: 2 })),
  body: anyValue,
  query_params: mostly(fc.dictionary(token, valuePattern, { maxKeys: 2 })),
  delay: mostly(delay),
  sequence: mostly(fc.array(
    fc.record({ status: fc.integer({ min: 199, max: 599 }), body: anyValue, delay }, { requiredKeys: [] }),
    { maxLength: 2 },
  )),
  sequence_mode: mostly(fc.constantFrom("repeat-last", "cycle", "loop")),
  id: mostly(fc.oneof(fc.stringMatching(/^[A-Za-z0-9_.:-]{1,12}$/), text)),
  scope: mostly(text),
  priority: mostly(fc.oneof(fc.integer(), fc.double())),
  request: mostly(fc.record({
    headers: fc.dictionary(token, valuePattern, { maxKeys: 2 }),
    json: anyValue,
    form: fc.dictionary(token, valuePattern, { maxKeys: 2 }),
    body_contains: text,
  }, { requiredKeys: [] })),
  body_base64: mostly(fc.constantFrom("aGk=", "not base64!", "", " aGk=\n")),
  proxy: mostly(fc.constantFrom("http://127.0.0.1:1", " HTTPS://x.example/v1", "http:/x", "ftp://x", "http://x?q=1")),
  fault: mostly(fc.constantFrom("disconnect", "truncate")),
  throttle: mostly(fc.integer({ min: -1, max: 5_000 })),
};
const stub = fc.tuple(method, path, fc.shuffledSubarray(Object.keys(optional), { maxLength: 3 })).chain((
  [method, path, keys],
) =>
  // sequence_mode needs a sequence beside it to be valid at all.
  fc.record(
    Object.fromEntries(
      (keys.includes("sequence_mode") && !keys.includes("sequence") ? [...keys, "sequence"] : keys)
        .map((key) => [key, optional[key]]),
    ),
  ).map((rest) => ({ method, path, ...rest }))
);

Deno.test("schema: never stricter than validate, for generated stubs: whatever validate accepts passes the schema", () => {
  const seen = new Set<string>();
  let accepted = 0;
  fc.assert(
    fc.property(
      fc.array(stub, { minLength: 1, maxLength: 2 }),
      fc.option(mostly(fc.integer({ min: -1, max: 70_000 })), { nil: undefined }),
      fc.option(
        mostly(fc.oneof(
          fc.boolean(),
          fc.record({
            origins: fc.array(fc.constantFrom("http://a.example:3000", "https://b.example", "b.example/x"), {
              maxLength: 2,
            }),
          }),
        )),
        { nil: undefined },
      ),
      (routes, port, cors) => {
        const config: Record<string, unknown> = { routes };
        if (port !== undefined) config.port = port;
        if (cors !== undefined) config.cors = cors;
        const { config: valid } = validateConfig(config, { uniqueIds: true });
        if (!valid) return;
        accepted++;
        for (const route of routes) for (const key of Object.keys(route)) seen.add(key);
        for (const key of Object.keys(config)) seen.add(key);
        assert.equal(schemaErrors(config), "", JSON.stringify(config));
      },
    ),
    { numRuns: 4_000 },
  );
  // About one generated config in eight is valid (497–560 of 4,000 seen); fewer than 400 means the generator drifted.
  assert.ok(accepted >= 400, `only ${accepted} generated configs were valid`);
  // Every field showed up in some valid config, so each of its schemas was tried.
  assert.deepEqual([...seen].sort(), [...Object.keys(optional), "method", "path", "routes", "port", "cors"].sort());
});
