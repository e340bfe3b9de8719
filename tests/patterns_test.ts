/**
 * Value patterns and JSON patterns (P10.2, P10.3): what each form matches, what it
 * captures, and the problems it reports.
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import { compileJsonPattern, compileValuePattern, jsonLeaves, matchJson } from "../src/stubs/patterns.ts";

function pattern(spec: unknown) {
  const { pattern, problem } = compileValuePattern(spec);
  assert.equal(problem, undefined);
  return pattern!;
}

Deno.test("value pattern: literal text must be equal, and is the literal the router indexes", () => {
  const p = pattern("prod");
  assert.deepEqual(p.match("prod"), []);
  assert.equal(p.match("Prod"), undefined);
  assert.equal(p.match("prod "), undefined);
  assert.equal(p.literal, "prod");
});

Deno.test("value pattern: a whole {name} takes any value, an empty one too, and captures it", () => {
  const p = pattern("{v}");
  assert.deepEqual(p.match(""), [""]);
  assert.deepEqual(p.match("a b"), ["a b"]);
  assert.equal(p.anyValue, true);
  assert.equal(p.literal, undefined);
});

Deno.test("regression: a capture at the end of a text pattern matched one character only ('Bearer {token}')", () => {
  assert.deepEqual(pattern("Bearer {token}").match("Bearer abc.def"), ["abc.def"]);
  assert.equal(pattern("Bearer {token}").match("Bearer "), undefined, "one or more characters");
});

Deno.test("value pattern: text with captures: each takes one or more characters, literal parts are literal", () => {
  assert.deepEqual(pattern("{a}-{b}").match("x-y-z"), ["x", "y-z"]);
  assert.deepEqual(pattern("v{major}.{minor}").match("v1.22"), ["1", "22"]);
  assert.equal(pattern("a.{x}").match("abc"), undefined, "a dot in the text is a dot, not any character");
  assert.deepEqual(pattern("(x){y}").match("(x)1"), ["1"]);
});

Deno.test("value pattern: {regex} matches the whole value; named groups capture in order", () => {
  const p = pattern({ regex: "(?<major>\\d+)\\.(?<minor>\\d+)" });
  assert.deepEqual(p.names, ["major", "minor"]);
  assert.deepEqual(p.match("12.3"), ["12", "3"]);
  assert.equal(p.match("v12.3"), undefined);
  assert.equal(p.match("12.3.4"), undefined);
  assert.deepEqual(pattern({ regex: "a|b" }).match("b"), [], "alternatives are anchored as a whole");
  assert.equal(pattern({ regex: "a|b" }).match("ab"), undefined);
});

Deno.test("value pattern: {absent: true} never matches a value", () => {
  const p = pattern({ absent: true });
  assert.equal(p.absent, true);
  assert.equal(p.match(""), undefined);
});

Deno.test("value pattern problems say what to write", () => {
  const problem = (spec: unknown) => compileValuePattern(spec).problem;
  assert.equal(
    problem("{a}{b}"),
    'has two placeholders side by side in "{a}{b}"; put literal text between them (a capture cannot tell where one ends)',
  );
  assert.equal(problem("{a}-{a}"), 'uses placeholder {a} twice in "{a}-{a}"; give each its own name');
  assert.match(problem({ regex: "(" })!, /^regex "\(" is not a valid JavaScript regular expression: /);
  assert.equal(problem({ absent: false }), "absent must be true (leave the condition out to allow any value)");
  assert.equal(
    problem({ regex: "a", absent: true }),
    "must be text, {regex: PATTERN} or {absent: true}, got a mapping with 'regex', 'absent'",
  );
  assert.equal(problem(null), "must be text (with {name} captures), {regex: PATTERN} or {absent: true}, got null");
  assert.equal(problem(5), undefined, "a number is its text");
});

Deno.test("property: a text pattern with captures matches the text it describes and gives back the parts", () => {
  const part = fc.string({ minLength: 1, maxLength: 5 }).filter((s) => !s.includes("{") && !s.includes("}"));
  fc.assert(
    fc.property(
      fc.array(part, { minLength: 1, maxLength: 3 }),
      fc.array(part, { minLength: 3, maxLength: 3 }),
      (values, seps) => {
        // `{c0}<sep0>{c1}<sep1>…`: separators that do not occur in the values, so the split is unique.
        const literals = seps.map((s, i) => `§${i}${s.replaceAll("§", "")}§`);
        const spec = values.map((_, i) => `{c${i}}${i < values.length - 1 ? literals[i] : ""}`).join("");
        const text = values.map((v, i) => `${v.replaceAll("§", "")}${i < values.length - 1 ? literals[i] : ""}`).join(
          "",
        );
        const expected = values.map((v) => v.replaceAll("§", ""));
        if (expected.some((v) => v === "")) return;
        assert.deepEqual(pattern(spec).match(text), expected, `${spec} ~ ${text}`);
      },
    ),
    { numRuns: 500, seed: 0x5eed },
  );
});

Deno.test("json pattern: leaves count as conditions; objects allow other keys; arrays match by length and element", () => {
  const names: string[] = [];
  const problems: string[] = [];
  const p = compileJsonPattern(
    { amount: 42, currency: "{c}", tags: ["a", "{t}"], ok: true, none: null },
    names,
    problems,
  );
  assert.deepEqual(problems, []);
  assert.deepEqual(names, ["c", "t"]);
  assert.equal(jsonLeaves(p), 6);
  const captured: string[] = [];
  assert.equal(
    matchJson(p, { amount: 42.0, currency: "EUR", tags: ["a", "b"], ok: true, none: null, x: 1 }, captured),
    undefined,
  );
  assert.deepEqual(captured, ["EUR", "b"]);
  assert.equal(matchJson(p, { amount: "42" }, []), "body field /amount is '42', stub wants 42");
  assert.equal(
    matchJson(p, { amount: 42, currency: "EUR", tags: ["a"] }, []),
    "body field /tags is a list of 1, stub wants a list of 2",
  );
  assert.equal(matchJson(p, [], []), "body field / is a list, stub wants an object");
  assert.equal(
    matchJson(compileJsonPattern({ "a/b": { "c~d": 1 } }), { "a/b": {} }, []),
    "body has no field /a~1b/c~0d",
    "JSON pointers escape / and ~",
  );
});
