/**
 * The one home of user regular expressions (`src/util/regex.ts`): JavaScript syntax read by
 * the linear-time engine with the same meaning, what it cannot run refused with its place,
 * and the attack patterns answered at once.
 */
import assert from "node:assert/strict";
import { compileRegex, type LinearRegex } from "../src/util/regex.ts";

function compiled(source: string, options = {}): LinearRegex {
  const result = compileRegex(source, options);
  if (!("regex" in result)) throw new Error(result.problem);
  return result.regex;
}

Deno.test("regex: JavaScript syntax keeps its meaning (named groups, \\s, ., \\u escapes, \\p{Script=…}, [^])", () => {
  const id = compiled("(?<kind>[a-z]+)-(?<id>\\d+)");
  assert.deepEqual(id.names, ["kind", "id"]);
  assert.deepEqual(id.match("user-42"), { numbered: ["user-42", "user", "42"], named: { kind: "user", id: "42" } });
  assert.equal(id.match("user-42x"), undefined, "the whole value");
  assert.ok(id.find("a user-42 b"), "find: a part");
  // JavaScript's \s is Unicode white space (RE2's is ASCII); \S inside a class too.
  assert.ok(compiled("a\\sb").test("a\u00a0b"));
  assert.ok(compiled("[\\S]+").test("x\u00e9"));
  assert.ok(!compiled("[\\S]+").test("x\u3000"));
  // JavaScript's . stops at every line terminator (RE2's only at \n); dotAll takes them.
  for (const end of ["\n", "\r", "\u2028"]) assert.ok(!compiled("a.").test("a" + end), JSON.stringify(end));
  assert.ok(compiled("a.", { dotAll: true }).test("a\n"));
  assert.ok(compiled(".").test("😀"), "a code point, not a UTF-16 unit");
  assert.ok(compiled("\\u{1F600}\\uD83D\\uDE00\\u0041\\x42").test("😀😀AB"));
  assert.ok(compiled("\\p{Script=Greek}+\\p{Lu}").test("αβA"));
  assert.ok(compiled("[^]").test("\n"));
  assert.ok(!compiled("[]").test(""), "an empty class matches nothing");
  assert.ok(compiled("[[]\\/").test("[/"));
  assert.ok(compiled("ab", { ignoreCase: true }).test("AB"));
  assert.ok(compiled("^b$", { multiline: true }).find("a\nb"));
});

Deno.test("regex: what the linear-time engine cannot run is refused with its offset", () => {
  const problem = (source: string) => {
    const result = compileRegex(source);
    return "problem" in result ? result.problem : "compiled";
  };
  const tail = ", which stubtool's linear-time engine (RE2) cannot run; rewrite the pattern without it";
  assert.equal(problem("(a)\\1"), "uses a backreference \\1 at offset 3" + tail);
  assert.equal(problem("(?<x>a)\\k<x>"), "uses a backreference \\k<…> at offset 7" + tail);
  assert.equal(problem("a(?=b)"), "uses a lookahead (?=…) at offset 1" + tail);
  assert.equal(problem("a(?!b)"), "uses a lookahead (?!…) at offset 1" + tail);
  assert.equal(problem("(?<=a)b"), "uses a lookbehind (?<=…) at offset 0" + tail);
  assert.equal(problem("(?<!a)b"), "uses a lookbehind (?<!…) at offset 0" + tail);
  assert.equal(problem("(?>a)"), "uses an atomic group (?>…) at offset 0" + tail);
  assert.equal(problem("a++"), "uses a possessive quantifier ++ at offset 1" + tail);
  assert.equal(problem("["), "is not a valid JavaScript regular expression: Unterminated character class");
  assert.equal(
    problem("a{2000}"),
    "cannot be read by the linear-time engine (RE2 syntax): invalid repeat count: `{2000}`",
  );
  // Escaped, the same characters are plain text.
  assert.equal(problem("\\(\\?=\\)\\\\1"), "compiled");
  assert.equal(problem("[(?=]"), "compiled");
});

Deno.test("regex: (a+)+$ and ([^]+?)x([^]+?)x([^]+?)y on a 50 KB almost-match answer at once (were exponential / cubic)", () => {
  const attacks: [string, string, boolean][] = [
    ["(a+)+$", "a".repeat(37) + "!", false],
    ["(a+)+$", "a".repeat(50_000) + "!", false],
    ["(a|aa)+", "a".repeat(50_000) + "!", true],
    ["([^]+?)x([^]+?)x([^]+?)y", "x".repeat(50_000), false],
  ];
  for (const [source, value, found] of attacks) {
    const regex = compiled(source);
    const start = performance.now();
    assert.equal(regex.test(value), false);
    assert.equal(regex.match(value), undefined);
    assert.equal(regex.find(value), found, "find: a part");
    const took = performance.now() - start;
    // The backtracking engine took 7+ s at 37 characters; a generous bound for a loaded machine.
    assert.ok(took < 2000, `${source} on ${value.length} characters took ${took.toFixed(0)} ms`);
  }
});

Deno.test("regex: a pattern compiled again with the same flags is the one compiled before; other flags compile anew", () => {
  const plain = compileRegex("ab+c") as { regex: LinearRegex };
  assert.equal(compileRegex("ab+c"), plain);
  const folded = compileRegex("ab+c", { ignoreCase: true }) as { regex: LinearRegex };
  assert.notEqual(folded, plain);
  assert.equal(plain.regex.test("ABBC"), false);
  assert.equal(folded.regex.test("ABBC"), true);
  assert.equal(compileRegex("ab+c", { ignoreCase: true }), folded);
  assert.equal((compileRegex("ab+c", { dotAll: true }) as { regex: LinearRegex }).regex.test("ABBC"), false);
  // A refusal is remembered as well, word for word.
  assert.deepEqual(compileRegex("(a)\\1"), compileRegex("(a)\\1"));
  assert.match((compileRegex("(a)\\1") as { problem: string }).problem, /backreference/);
});

Deno.test("regex: a pattern longer than 256 characters is compiled each time, not kept", () => {
  const long = `(?:${"a".repeat(300)})+`;
  const first = compileRegex(long) as { regex: LinearRegex };
  assert.notEqual(compileRegex(long), first);
  assert.equal(first.regex.test("a".repeat(600)), true);
});
