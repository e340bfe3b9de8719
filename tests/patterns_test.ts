/**
 * Value patterns and JSON patterns: what each form matches, what it
 * captures, and the problems it reports.
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import {
  compileJsonPattern,
  compileValuePattern,
  jsonLeaves,
  matchJson,
  matchMulti,
  wants,
} from "../src/stubs/patterns.ts";

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

Deno.test("value pattern operators: contains, not_contains, not_regex, equals_ignore_case; only the negations take a missing value", () => {
  const contains = pattern({ contains: "json" });
  assert.deepEqual(contains.match("application/json; charset=utf-8"), []);
  assert.equal(contains.match("text/plain"), undefined);
  assert.equal(contains.missingMatches, undefined);
  assert.equal(contains.literal, undefined);
  assert.equal(wants(contains), "text containing 'json'");

  const notContains = pattern({ not_contains: "debug" });
  assert.deepEqual(notContains.match("info"), []);
  assert.equal(notContains.match("x-debug-y"), undefined);
  assert.equal(notContains.missingMatches, true);
  assert.equal(wants(notContains), "text not containing 'debug'");

  const notRegex = pattern({ not_regex: "[0-9]+" });
  assert.deepEqual(notRegex.match("12a"), [], "anchored: a value that is not all digits does not match the regex");
  assert.equal(notRegex.match("12"), undefined);
  assert.equal(notRegex.missingMatches, true);
  assert.equal(wants(notRegex), "a value not matching /[0-9]+/");

  const ci = pattern({ equals_ignore_case: "Straße" });
  assert.deepEqual(ci.match("STRAßE"), []);
  assert.equal(ci.match("STRASSE"), undefined, "ß has no one-letter upper case: Java does not fold it to SS");
  assert.equal(ci.missingMatches, undefined);
  assert.equal(wants(ci), "'Straße' in any letter case");
  assert.deepEqual(pattern({ contains: 5 }).match("150"), [], "a number is its text");
});

Deno.test("value pattern all / any: every / some part matches one value; a missing value is met as the parts meet it", () => {
  const all = pattern({ all: [{ contains: "a" }, { not_contains: "z" }] });
  assert.deepEqual(all.match("ab"), []);
  assert.equal(all.match("az"), undefined);
  assert.equal(all.missingMatches, false, "contains needs a value");
  assert.equal(wants(all), "a value matching all of text containing 'a', text not containing 'z'");
  const any = pattern({ any: ["a", { absent: true }] });
  assert.deepEqual(any.match("a"), []);
  assert.equal(any.match("b"), undefined, "absent never matches a present value");
  assert.equal(any.missingMatches, true);
  assert.equal(pattern({ all: [{ absent: true }, { not_regex: "x" }] }).missingMatches, true);
  assert.equal(any.literal, undefined);
});

Deno.test("value pattern all / any nest to any depth up to 16 levels; deeper is refused with the place", () => {
  // (a or b) and not z, or exactly "q"
  const nested = pattern({
    any: [{ all: [{ any: [{ contains: "a" }, { contains: "b" }] }, { not_contains: "z" }] }, "q"],
  });
  assert.deepEqual(nested.match("xa"), []);
  assert.deepEqual(nested.match("bb"), []);
  assert.deepEqual(nested.match("q"), []);
  assert.equal(nested.match("az"), undefined, "the inner all fails on z, and it is not q");
  assert.equal(nested.match("c"), undefined);
  assert.equal(nested.missingMatches, false);
  assert.equal(
    wants(nested),
    "a value matching any of a value matching all of a value matching any of text containing 'a', text containing 'b', text not containing 'z', 'q'",
  );
  // A missing value meets the nested parts as they meet it.
  assert.equal(pattern({ any: [{ all: [{ absent: true }, { not_regex: "x" }] }, "a"] }).missingMatches, true);
  // Inside has_exactly, an all of two parts is one value's test.
  const exactly = pattern({ has_exactly: [{ all: [{ contains: "a" }, { contains: "b" }] }, "c"] }).multi!;
  assert.equal(matchMulti(exactly, ["c", "ab"]), true);
  assert.equal(matchMulti(exactly, ["a", "b"]), false);
  const deep = (levels: number): unknown => levels === 0 ? "x" : { [levels % 2 ? "all" : "any"]: [deep(levels - 1)] };
  assert.deepEqual(pattern(deep(16)).match("x"), []);
  assert.equal(
    compileValuePattern(deep(17)).problem,
    "all[0] any[0] all[0] any[0] all[0] any[0] all[0] any[0] all[0] any[0] all[0] any[0] all[0] any[0] all[0] any[0] nests all, any, has_exactly and includes more than 16 levels deep: flatten it",
  );
});

Deno.test("value pattern has_exactly / includes: each part matches one of the values; has_exactly counts them", () => {
  const exactly = pattern({ has_exactly: ["a", { regex: "b+" }] }).multi!;
  assert.equal(matchMulti(exactly, ["bb", "a"]), true, "any order");
  assert.equal(matchMulti(exactly, ["a", "b", "b"]), false, "one value too many");
  assert.equal(matchMulti(exactly, ["a", "a"]), false, "no value for b+");
  // As in WireMock: each pattern needs a value, not each value a pattern of its own.
  assert.equal(matchMulti(pattern({ has_exactly: [{ contains: "a" }, "ab"] }).multi!, ["ab", "zz"]), true);
  const includes = pattern({ includes: ["a"] }).multi!;
  assert.equal(matchMulti(includes, ["b", "a", "c"]), true);
  assert.equal(matchMulti(includes, ["b"]), false);
  assert.equal(pattern({ includes: ["a"] }).match("a"), undefined, "never matches one value");
});

Deno.test("value pattern lists: problems name the part", () => {
  const problem = (spec: unknown) => compileValuePattern(spec).problem;
  assert.equal(problem({ all: [] }), "all must be a non-empty list of value patterns, got a list");
  assert.equal(problem({ any: "a" }), "any must be a non-empty list of value patterns, got string");
  assert.equal(
    problem({ any: ["a", "{x}"] }),
    "any[1] captures nothing: leave out {name} placeholders and named groups",
  );
  assert.equal(problem({ includes: [{ absent: true }] }), "includes[0] cannot be absent (a value is there to match)");
  assert.equal(
    problem({ all: [{ includes: ["a"] }] }),
    "all[0] cannot be has_exactly or includes (they test a whole field)",
  );
  assert.match(
    problem({ all: [{ regex: "(" }] })!,
    /^all\[0\] regex "\(" is not a valid JavaScript regular expression/,
  );
});

Deno.test("equals_ignore_case follows Java's equalsIgnoreCase: per letter, simple case mappings, same length", () => {
  const equalsIgnoreCase = (a: string, b: string) => pattern({ equals_ignore_case: a }).match(b) !== undefined;
  assert.equal(equalsIgnoreCase("Bearer", "bEARER"), true);
  assert.equal(equalsIgnoreCase("k", "\u212A"), true, "the Kelvin sign lower-cases to k");
  assert.equal(equalsIgnoreCase("s", "\u017F"), true, "long s upper-cases to S");
  assert.equal(equalsIgnoreCase("i", "\u0130"), true, "İ lower-cases to i in Java's simple mapping");
  assert.equal(equalsIgnoreCase("\u1F80", "\u1F88"), true, "ᾀ upper-cases to the title-case ᾈ");
  assert.equal(equalsIgnoreCase("ﬀ", "FF"), false);
  assert.equal(equalsIgnoreCase("\u{10428}", "\u{10400}"), true, "Deseret letters outside the BMP");
  assert.equal(equalsIgnoreCase("ab", "abc"), false);
  assert.equal(equalsIgnoreCase("a", "b"), false);
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
    "must be text or one of {regex: PATTERN}, {absent: true}, {contains: TEXT}, {not_contains: TEXT}, {not_regex: PATTERN}, {equals_ignore_case: TEXT}, {all: [PATTERNS]}, {any: [PATTERNS]}, {has_exactly: [PATTERNS]}, {includes: [PATTERNS]}, {date: {before|after|equals: DATE}}, got a mapping with 'regex', 'absent'",
  );
  assert.equal(
    problem(null),
    "must be text (with {name} captures) or one of {regex: PATTERN}, {absent: true}, {contains: TEXT}, {not_contains: TEXT}, {not_regex: PATTERN}, {equals_ignore_case: TEXT}, {all: [PATTERNS]}, {any: [PATTERNS]}, {has_exactly: [PATTERNS]}, {includes: [PATTERNS]}, {date: {before|after|equals: DATE}}, got null",
  );
  assert.equal(problem({ contains: null }), "contains must be a string, got null");
  assert.match(problem({ not_regex: "[" })!, /^not_regex "\[" is not a valid JavaScript regular expression: /);
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
