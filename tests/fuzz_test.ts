/**
 * Fuzzing every parser: the config loader on mutated YAML/JSON, the inline stub grammar,
 * request paths and query strings through the router, path templates and the JSON
 * duplicate-key scanner. Every input must end in a result or problems within a time bound:
 * no exception escapes, nothing hangs. Each case runs in a worker (tests/_fuzz.ts), so a hang
 * is cut off and reported with its input.
 *
 * Inputs worth keeping live in tests/fixtures/fuzz/<target>/ and are replayed first. More
 * cases, another seed: `STUBTOOL_FUZZ_RUNS=20000 STUBTOOL_FUZZ_SEED=7 deno test -A
 * tests/fuzz_test.ts` (the default keeps CI to a few seconds). Inputs are kept as `.txt`
 * files, a config as `<name>.<ext>.txt`.
 */
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import fc from "fast-check";
import { fixture, ROOT } from "./_cli.ts";
import { FuzzRunner, type FuzzTarget } from "./_fuzz.ts";

const RUNS = Number(Deno.env.get("STUBTOOL_FUZZ_RUNS") ?? 1000);
/** A case gets this long in a property run; a replayed regression input gets more. */
const CASE_MS = 5_000;
const REPLAY_MS = 10_000;
const SEED = Number(Deno.env.get("STUBTOOL_FUZZ_SEED") ?? 0xf022);
const TARGETS: FuzzTarget[] = ["config", "inline", "query", "duplicate_keys", "path", "handler"];

// ---------------------------------------------------------------- replay

/** Replays every kept input; each must end in a result or problems. */
async function replay(runner: FuzzRunner): Promise<void> {
  let count = 0;
  for (const target of TARGETS) {
    const dir = fixture(`fuzz/${target}`);
    for (const name of readdirSync(dir).sort()) {
      const input = readFileSync(`${dir}/${name}`, "utf8");
      // Kept inputs end in .txt (so no formatter touches them); a config's name before it picks
      // its format. The final newline is not part of an input.
      const outcome = target === "config"
        ? await runner.run(target, input.replace(/\n$/, ""), name.replace(/\.txt$/, ""), REPLAY_MS)
        : await runner.run(target, input.replace(/\n$/, ""), undefined, REPLAY_MS);
      assert.ok(outcome.ok, `${target}/${name}: ${!outcome.ok && outcome.error}`);
      count++;
    }
  }
  assert.ok(count >= 20, `only ${count} kept inputs`);
}

// ---------------------------------------------------------------- generators

/** Mutation operations on a seed text: insert a token, delete or duplicate a range, cut the end off. */
type Mutation =
  | { at: number; op: "insert"; token: string }
  | { at: number; op: "delete" | "repeat"; length: number }
  | {
    at: number;
    op: "truncate";
  };

function mutate(seed: string, mutations: readonly Mutation[]): string {
  let text = seed;
  for (const m of mutations) {
    const at = Math.floor(m.at * (text.length + 1));
    switch (m.op) {
      case "insert":
        text = text.slice(0, at) + m.token + text.slice(at);
        break;
      case "delete":
        text = text.slice(0, at) + text.slice(at + m.length);
        break;
      case "repeat":
        text = text.slice(0, at) + text.slice(at, at + m.length).repeat(3) + text.slice(at);
        break;
      case "truncate":
        text = text.slice(0, at);
    }
  }
  return text;
}

function mutationArb(tokens: readonly string[]): fc.Arbitrary<Mutation[]> {
  const at = fc.double({ min: 0, max: 1, noNaN: true });
  return fc.array(
    fc.oneof(
      {
        weight: 4,
        arbitrary: fc.record({ at, op: fc.constant("insert" as const), token: fc.constantFrom(...tokens) }),
      },
      {
        weight: 1,
        arbitrary: fc.record({
          at,
          op: fc.constant("insert" as const),
          token: fc.string({ unit: "binary", maxLength: 6 }),
        }),
      },
      {
        weight: 2,
        arbitrary: fc.record({ at, op: fc.constantFrom("delete" as const, "repeat" as const), length: fc.nat(40) }),
      },
      { weight: 1, arbitrary: fc.record({ at, op: fc.constant("truncate" as const) }) },
    ),
    { minLength: 1, maxLength: 6 },
  );
}

/** YAML and JSON syntax, and values that have broken parsers before. */
const CONFIG_TOKENS = [
  "{",
  "}",
  "[",
  "]",
  ":",
  ": ",
  ",",
  "- ",
  "\n",
  "\n  ",
  "\n- ",
  "\t",
  "&a ",
  "*a",
  "&b [*a, *a, *a]",
  "<<: *a\n",
  "<<: [*a, *a]\n",
  "<<: ",
  "? ",
  "|\n  ",
  ">-\n  ",
  "'",
  '"',
  "\\",
  "#",
  "!!binary aGk=",
  "!!str ",
  "!!map ",
  "!!set ",
  "!!timestamp 2001-12-14 ",
  "!custom ",
  "%YAML 1.2\n---\n",
  "---\n",
  "\n...\n",
  "__proto__: ",
  '"__proto__": ',
  "constructor: ",
  "prototype: ",
  "{__proto__: {polluted: 1}}",
  '{"__proto__": {"polluted": 1}}',
  "1e400",
  "-1e400",
  "-0",
  "0x1F",
  "0o17",
  "99999999999999999999999",
  "1.7976931348623157e309",
  ".nan",
  ".inf",
  "~",
  "null",
  "true",
  "\u0000",
  "\uFEFF",
  "\u2028",
  "\r\n",
  "\\u0000",
  "\\ud800",
  "{id}",
  "${x}",
  "routes:",
  "method: GET",
  "path: /x/{id}",
  "status: 200",
  "delay: {min: 5, max: 1}",
  "sequence: []",
  "port: 70000",
];

const CONFIG_SEEDS: { name: string; text: string }[] = [
  ...readdirSync(fixture("")).filter((name) => /\.(ya?ml|json|conf)$/.test(name) && !name.startsWith("report_"))
    .map((name) => ({ name, text: readFileSync(fixture(name), "utf8") })),
  ...["stubs.yaml", "stubs.json"].map((name) => ({ name, text: readFileSync(`${ROOT}examples/${name}`, "utf8") })),
];

const fileArb = fc.constantFrom("fuzz.yaml", "fuzz.json", "fuzz.conf");

/** Text nested `depth` deep in one of several ways, optionally left unclosed. */
const deepArb = fc.record({
  depth: fc.integer({ min: 1, max: 3_000 }),
  open: fc.constantFrom("[", "{a: ", '{"a": ', "- ", "[{a: "),
  closed: fc.boolean(),
}).map(({ depth, open, closed }) => {
  if (open === "- ") {
    return "routes:\n" + Array.from({ length: depth }, (_, i) => " ".repeat(i) + "- ").join("\n") + "x";
  }
  const close = open === "[" ? "]" : open === "[{a: " ? "}]" : "}";
  return `{"routes": ${open.repeat(depth)}1${closed ? close.repeat(depth) : ""}}`;
});

/** Anchors, aliases and merge keys in random arrangements (including self-reference and fan-out). */
const aliasArb = fc.record({
  layers: fc.integer({ min: 1, max: 8 }),
  fanOut: fc.integer({ min: 1, max: 12 }),
  merge: fc.boolean(),
  self: fc.boolean(),
}).map(({ layers, fanOut, merge, self }) => {
  const lines = ["a0: &a0 {method: GET, path: /x, __proto__: {polluted: 1}}"];
  for (let i = 1; i < layers; i++) {
    lines.push(
      merge
        ? `a${i}: &a${i} {${Array.from({ length: fanOut }, () => `<<: *a${i - 1}`)[0]}, k${i}: ${
          self ? `*a${i - 1}` : i
        }}`
        : `a${i}: &a${i} [${Array.from({ length: fanOut }, () => `*a${i - 1}`).join(", ")}]`,
    );
  }
  lines.push(`routes: [${merge ? `{<<: *a${layers - 1}}` : `*a${layers - 1}`}]`);
  return lines.join("\n");
});

const configInputArb = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.tuple(fc.constantFrom(...CONFIG_SEEDS), mutationArb(CONFIG_TOKENS)).map(([seed, m]) =>
      mutate(seed.text, m)
    ),
  },
  { weight: 2, arbitrary: fc.string({ unit: "binary", maxLength: 300 }) },
  { weight: 1, arbitrary: fc.string({ unit: "grapheme", maxLength: 300 }) },
  { weight: 1, arbitrary: deepArb },
  { weight: 1, arbitrary: aliasArb },
  {
    weight: 1,
    arbitrary: fc.jsonValue({ maxDepth: 6 }).map((value) => JSON.stringify({ routes: [value], port: value })),
  },
);

const INLINE_SEEDS = [
  'GET /users/{id} -> 200 {"id": "{id}"}',
  "DELETE /users/{id}->204",
  'POST /a?b={c}&d=e -> 201 [1, "two", {"three": 3}]',
  "  PUT \t /x   ->   200  ",
  'GET /text -> 200 "plain"',
];
const INLINE_TOKENS = [
  "->",
  "-",
  ">",
  " ",
  "\t",
  "\n",
  "{",
  "}",
  "{id}",
  "{id}{id}",
  "/",
  "//",
  "?",
  "=",
  "&",
  "#",
  "%",
  "%zz",
  "%2F",
  "%2E%2E",
  "..",
  '"',
  "\\",
  "[",
  "]",
  "0",
  "999999999999999999999999",
  "1e3",
  "-1",
  "é",
  "😀",
  "\u0000",
  "__proto__",
  "/__stubtool__/health",
  '{"__proto__": {"polluted": 1}}',
  "[".repeat(600),
];
const inlineInputArb = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.tuple(fc.constantFrom(...INLINE_SEEDS), mutationArb(INLINE_TOKENS)).map(([s, m]) => mutate(s, m)),
  },
  { weight: 1, arbitrary: fc.string({ unit: "binary", maxLength: 120 }) },
  {
    weight: 1,
    arbitrary: fc.tuple(fc.constantFrom("GET", "get", "FETCH", ""), fc.string({ maxLength: 30 }), fc.nat(1000)).map((
      [method, path, status],
    ) => `${method} /${path} -> ${status}`),
  },
);

const TARGET_PIECES = [
  "/",
  "search",
  "é",
  "%C3%A9",
  "x",
  "?",
  "&",
  "=",
  "q",
  "sort",
  "asc",
  "%",
  "%zz",
  "%F0",
  "%ED%A0%80",
  "%00",
  "+",
  "__proto__",
  "constructor",
  "toString",
  "hasOwnProperty",
  "a%20b",
  "#",
  ";",
  "..",
  "",
];
const queryInputArb = fc.oneof(
  { weight: 4, arbitrary: fc.array(fc.constantFrom(...TARGET_PIECES), { maxLength: 20 }).map((p) => "/" + p.join("")) },
  { weight: 1, arbitrary: fc.string({ unit: "binary", maxLength: 200 }) },
  {
    weight: 1,
    arbitrary: fc.tuple(
      fc.constantFrom("/search?", "/a/b?", "/é/x?"),
      fc.constantFrom("q=", "&", "%", "a=1&"),
      fc.integer({ min: 1, max: 5_000 }),
    )
      .map(([base, piece, n]) => base + piece.repeat(n)),
  },
);

const duplicateKeysInputArb = fc.oneof(
  { weight: 2, arbitrary: fc.string({ unit: "binary", maxLength: 200 }) },
  {
    weight: 2,
    arbitrary: fc.tuple(
      fc.jsonValue({ maxDepth: 4 }),
      mutationArb(['"', "\\", "{", "}", "[", "]", ",", ":", '"a":1,', '"\\u0061":']),
    ).map((
      [value, m],
    ) => mutate(JSON.stringify({ a: value, b: [value] }), m)),
  },
);

const pathInputArb = fc.oneof(
  fc.array(fc.constantFrom(...TARGET_PIECES, "{id}", "{", "}", "{a b}", "{__proto__}", "/__stubtool__/", "\\", "\t"), {
    maxLength: 16,
  }).map((p) => "/" + p.join("")),
  fc.string({ unit: "binary", maxLength: 100 }),
);

/** `METHOD target` lines: real and bogus methods, reserved paths, encoded and broken escapes, long queries. */
const handlerInputArb = fc.tuple(
  fc.constantFrom("GET", "HEAD", "POST", "PUT", "BREW", "get", "", "X".repeat(300)),
  fc.oneof(
    {
      weight: 3,
      arbitrary: fc.array(fc.constantFrom(...TARGET_PIECES, "users", "echo", "42", "%0D%0A", "%01", "%7B"), {
        maxLength: 12,
      }).map((p) => "/" + p.join("")),
    },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        "/__stubtool__/health",
        "/__stubtool__/report",
        "/__stubtool__/reset",
        "/__stubtool__",
        "/__stubtool__/x?y",
      ),
    },
    { weight: 1, arbitrary: fc.string({ unit: "binary", maxLength: 80 }) },
  ),
).map(([method, target]) => `${method} ${target}`);

// ---------------------------------------------------------------- properties

async function fuzz(
  runner: FuzzRunner,
  target: FuzzTarget,
  input: fc.Arbitrary<string>,
  file?: fc.Arbitrary<string>,
): Promise<void> {
  await fc.assert(
    fc.asyncProperty(input, file ?? fc.constant(undefined), async (text, name) => {
      const outcome = await runner.run(target, text, name);
      assert.ok(outcome.ok, `${target} ${name ?? ""}: ${!outcome.ok && outcome.error}\ninput: ${JSON.stringify(text)}`);
    }),
    // A failing input is reported as found: shrinking a hang would cost a timeout per step.
    { numRuns: RUNS, seed: SEED, endOnFailure: true },
  );
}

// One worker for every step: starting (and type-checking) a worker costs more than a step's cases.
Deno.test("fuzz: every parser ends every input in a result or problems, within a time bound", async (t) => {
  using runner = new FuzzRunner(CASE_MS);
  await t.step("kept inputs under tests/fixtures/fuzz/ (regressions)", () => replay(runner));
  await t.step(
    "config loader: mutated YAML/JSON, noise, deep nesting, aliases, merge keys",
    () => fuzz(runner, "config", configInputArb, fileArb),
  );
  await t.step("inline stub grammar: errors always name a column", () => fuzz(runner, "inline", inlineInputArb));
  await t.step("request paths and query strings through the router", () => fuzz(runner, "query", queryInputArb));
  await t.step(
    "duplicate-key scanner, on valid JSON or not",
    () => fuzz(runner, "duplicate_keys", duplicateKeysInputArb),
  );
  await t.step("path templates", () => fuzz(runner, "path", pathInputArb));
  await t.step(
    "whole requests through the handler: JSON errors, exact counts",
    () => fuzz(runner, "handler", handlerInputArb),
  );
});
