import assert from "node:assert/strict";
import { parseDocument } from "yaml";
import fc from "fast-check";
import { duplicateKeyOffsets, mayHaveDuplicateKeys } from "../src/stubs/duplicate_keys.ts";

/** Where npm:yaml's JSON parser (which the scanner replaced) puts its DUPLICATE_KEY errors. */
function yamlDuplicateOffsets(text: string): number[] {
  const doc = parseDocument(text, { schema: "json", prettyErrors: false, uniqueKeys: true });
  return doc.errors.filter((e) => e.code === "DUPLICATE_KEY").map((e) => e.pos[0]);
}

/** The offset of the `n`th (0-based) occurrence of `needle` in `text`. */
function nth(text: string, needle: string, n: number): number {
  let at = -1;
  for (let i = 0; i <= n; i++) at = text.indexOf(needle, at + 1);
  return at;
}

Deno.test("duplicateKeyOffsets: a repeated key is found at its opening quote; the first one is fine", () => {
  const text = '{"routes": [],\n "routes": []}';
  assert.deepEqual(duplicateKeyOffsets(text), [16]);
  assert.deepEqual(duplicateKeyOffsets('{"a": 1, "b": 2}'), []);
  assert.deepEqual(duplicateKeyOffsets("[]"), []);
  assert.deepEqual(duplicateKeyOffsets('"a"'), []);
});

Deno.test("duplicateKeyOffsets: each object has its own keys, nested or in a list", () => {
  // The same key in a parent and a child, or in sibling objects, is not a duplicate.
  const siblings = '{"a": {"a": {"a": 1}}, "b": [{"a": 1, "b": 2}, {"a": 1, "b": 2}], "c": [[{"a": 1}], {"a": 1}]}';
  assert.deepEqual(duplicateKeyOffsets(siblings), []);
  // A duplicate deep in a list of objects, after nested objects that closed in between.
  const deep = '{"routes": [{"method": "GET", "body": {"x": {"y": 1}}, "path": "/a", "path": "/b"}]}';
  assert.deepEqual(duplicateKeyOffsets(deep), [nth(deep, '"path"', 1)]);
  // Keys of the outer object still count after a nested object closes.
  const after = '{"a": {"b": 1}, "c": [1, {"a": 2}], "a": 3}';
  assert.deepEqual(duplicateKeyOffsets(after), [nth(after, '"a"', 2)]);
});

Deno.test("duplicateKeyOffsets: keys compare decoded, so an escaped key can repeat a plain one", () => {
  const text = '{"ab": 1, "a\\u0062": 2, "\\u0061b": 3, "a\\\\b": 4, "a\\\\b": 5}';
  assert.deepEqual(JSON.parse(text), { ab: 3, "a\\b": 5 });
  assert.deepEqual(duplicateKeyOffsets(text), [
    nth(text, '"a\\u0062"', 0),
    nth(text, '"\\u0061b"', 0),
    nth(text, '"a\\\\b"', 1),
  ]);
  // `"a\\"` (ending in an escaped backslash) and `"a\""` are different keys, and both end where they should.
  assert.deepEqual(duplicateKeyOffsets('{"a\\\\": 1, "a\\"": 2, "a": 3}'), []);
});

Deno.test("duplicateKeyOffsets: text inside string values is never a key", () => {
  const text = '{"a": "\\"a\\": 1, {\\"a\\": [", "b": "}, \\"b\\": ]", "c": ["a", "a", {"a": "a"}], "d": "\\\\"}';
  assert.deepEqual(duplicateKeyOffsets(text), []);
  const value = '{"k": "{\\"k\\": 1}", "k": "[\\"k\\",]"}';
  assert.deepEqual(duplicateKeyOffsets(value), [nth(value, '"k"', 1)]);
});

Deno.test("duplicateKeyOffsets: __proto__ and other Object.prototype names are ordinary keys", () => {
  const text = '{"__proto__": 1, "constructor": 2, "__proto__": 3, "toString": 4, "constructor": 5}';
  assert.deepEqual(duplicateKeyOffsets(text), [nth(text, '"__proto__"', 1), nth(text, '"constructor"', 1)]);
});

Deno.test("duplicateKeyOffsets: every duplicate where npm:yaml reported it, in text order", () => {
  const texts = [
    '{"routes": [],\n "routes": []}',
    '{ "routes": [{ "method": "GET", "path": "/a", "path": "/b" }] }',
    '{"a": 1, "a": 2, "a": 3, "b": {"c": 1, "c": 2}, "b": [ {"d": 1, "d": 2} ]}',
    '{\n  "x": "\\"x\\"",\n  "y": {"z": "}{]["},\n  "x\\u0000": 1,\n  "x": 2\n}',
    ' [ {"a\\u00e9": 1, "aé": 2}, {"\\ud83d\\ude00": 1, "😀": 2} ] ',
  ];
  for (const text of texts) {
    JSON.parse(text); // the scanner's precondition
    const offsets = duplicateKeyOffsets(text);
    assert.deepEqual(offsets, offsets.toSorted((x, y) => x - y), text);
    // npm:yaml reported a key after the duplicates inside its value; the set is the same.
    assert.deepEqual(offsets, yamlDuplicateOffsets(text).sort((x, y) => x - y), text);
  }
});

Deno.test("regression: an unterminated string no longer makes duplicateKeyOffsets loop forever", () => {
  // stringEnd got -1 from indexOf, the scan restarted at offset 0 and never ended.
  assert.deepEqual(duplicateKeyOffsets('"unterminated'), []);
  assert.deepEqual(duplicateKeyOffsets('{"a": 1, "a'), [9]);
  assert.deepEqual(duplicateKeyOffsets('{"\\'), []);
});

Deno.test("regression: a key with a bad escape no longer makes duplicateKeyOffsets throw", () => {
  // Decoding the key with JSON.parse threw a SyntaxError out of the scanner.
  assert.deepEqual(duplicateKeyOffsets('{"a\\x": 1, "a\\x": 2}'), [11]);
});

Deno.test("mayHaveDuplicateKeys: false only where there is no duplicate; true for one, or when it cannot tell", () => {
  const may = (text: string) => mayHaveDuplicateKeys(text, JSON.parse(text));
  assert.equal(may('{"routes": [{"method": "GET", "path": "/a", "body": {"n": 1}}], "port": 1}'), false);
  assert.equal(may(JSON.stringify({ a: [{ b: 1 }, { b: 2, c: { b: 3 } }] }, null, 2)), false);
  assert.equal(may('{"a": 1, "b": {"a": 2, "a": 3}}'), true);
  assert.equal(may('{"__proto__": 1, "__proto__": 2}'), true);
  assert.equal(may('{"ab": 1, "a\\u0062": 2}'), true);
  assert.equal(may('{"a" : 1, "a": 2}'), true); // whitespace before a colon: cannot count, so maybe
  assert.equal(may('{"a": "x\\":y"}'), true); // a string holding `":`: counts more, so maybe
  assert.equal(may("[1, 2]"), false);
});

Deno.test("property: mayHaveDuplicateKeys never says no where duplicateKeyOffsets finds a duplicate", () => {
  const key = fc.constantFrom("a", "b", "a\\u0062", "ab", "__proto__", '\\"', ":", '\\":');
  const scalar = fc.constantFrom("1", "null", '"x"', '":"', '"\\":"', "[]", "{}");
  const json: fc.Arbitrary<string> = fc.letrec<{ value: string }>((tie) => ({
    value: fc.oneof(
      { depthSize: "small", withCrossShrink: true },
      scalar,
      fc.array(tie("value"), { maxLength: 3 }).map((items) => `[${items.join(",")}]`),
      fc.array(fc.tuple(key, fc.constantFrom(":", " :", ": ", ":\n"), tie("value")), { maxLength: 4 })
        .map((pairs) => `{${pairs.map(([k, colon, v]) => `"${k}"${colon}${v}`).join(",")}}`),
    ),
  })).value;
  let duplicates = 0;
  fc.assert(
    fc.property(json, (text) => {
      const found = duplicateKeyOffsets(text).length > 0;
      if (found) duplicates++;
      if (!mayHaveDuplicateKeys(text, JSON.parse(text))) assert.equal(found, false, text);
    }),
    { numRuns: 3000, seed: 0x5eed },
  );
  assert.ok(duplicates > 100, `only ${duplicates} texts with a duplicate`);
});
