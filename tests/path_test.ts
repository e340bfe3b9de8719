import assert from "node:assert/strict";
import fc from "fast-check";
import {
  decodeSegment,
  displaySegment,
  parsePathTemplate,
  parseTemplateInFull,
  type PathTemplate,
  placeholderName,
  type Segment,
  splitRequestPath,
} from "../src/stubs/path.ts";

/** A static segment. */
const lit = (value: string): Segment => ({ param: false, value });
/** A placeholder segment. */
const ph = (name: string): Segment => ({ param: true, name });

/** Parses a template that must be valid. */
function parse(raw: string): PathTemplate {
  const { template, problems } = parsePathTemplate(raw);
  assert.deepEqual(problems, [], `problems for ${raw}`);
  assert.ok(template);
  return template;
}

/** The problems of a template that must be invalid (and then has no template). */
function problemsOf(raw: string): string[] {
  const { template, problems } = parsePathTemplate(raw);
  assert.equal(template, undefined);
  return problems;
}

// --- splitRequestPath -------------------------------------------------------------

Deno.test("splitRequestPath: the root path is one empty segment", () => {
  assert.deepEqual(splitRequestPath("/"), [""]);
});

Deno.test("splitRequestPath: splits on slashes", () => {
  assert.deepEqual(splitRequestPath("/users/42/posts"), ["users", "42", "posts"]);
});

Deno.test("splitRequestPath: a trailing slash is a final empty segment", () => {
  assert.deepEqual(splitRequestPath("/users/"), ["users", ""]);
  assert.deepEqual(splitRequestPath("/users"), ["users"]);
});

Deno.test("splitRequestPath: empty segments in the middle are kept", () => {
  assert.deepEqual(splitRequestPath("//a//b"), ["", "a", "", "b"]);
});

Deno.test("splitRequestPath: percent-escapes are decoded per segment", () => {
  assert.deepEqual(splitRequestPath("/a%20b/caf%C3%A9"), ["a b", "café"]);
});

Deno.test("splitRequestPath: an encoded slash stays inside its segment", () => {
  assert.deepEqual(splitRequestPath("/files/a%2Fb/c"), ["files", "a/b", "c"]);
});

Deno.test("splitRequestPath: '+' is not a space in a path", () => {
  assert.deepEqual(splitRequestPath("/a+b"), ["a+b"]);
});

Deno.test("splitRequestPath: a malformed escape keeps its segment as written", () => {
  assert.deepEqual(splitRequestPath("/100%zz/ok%21"), ["100%zz", "ok!"]);
  assert.deepEqual(splitRequestPath("/%E0%A4%A"), ["%E0%A4%A"]);
  assert.deepEqual(splitRequestPath("/50%"), ["50%"]);
});

// --- decodeSegment / placeholderName / displaySegment --------------------------------

Deno.test("decodeSegment: decodes valid escapes and keeps malformed ones", () => {
  assert.equal(decodeSegment("plain"), "plain");
  assert.equal(decodeSegment("%7Bid%7D"), "{id}");
  assert.equal(decodeSegment("%C3%A9"), "é");
  assert.equal(decodeSegment("%C3"), "%C3"); // truncated UTF-8
  assert.equal(decodeSegment("%g0"), "%g0");
});

Deno.test("placeholderName: only a whole {name} of letters, digits and _ is a placeholder", () => {
  assert.equal(placeholderName("{id}"), "id");
  assert.equal(placeholderName("{user_ID_2}"), "user_ID_2");
  assert.equal(placeholderName("{}"), undefined);
  assert.equal(placeholderName("{a-b}"), undefined);
  assert.equal(placeholderName("{a b}"), undefined);
  assert.equal(placeholderName("x{id}"), undefined);
  assert.equal(placeholderName("{id}x"), undefined);
  assert.equal(placeholderName("{{id}}"), undefined);
  assert.equal(placeholderName("id"), undefined);
});

Deno.test("displaySegment: ordinary text, even decoded, is shown as is", () => {
  assert.equal(displaySegment("users"), "users");
  assert.equal(displaySegment("a b"), "a b");
  assert.equal(displaySegment("café"), "café");
  assert.equal(displaySegment("50%"), "50%"); // reads back the same: a malformed escape
});

Deno.test("displaySegment: characters URL parsing would rewrite stay encoded", () => {
  assert.equal(displaySegment("a\\b"), "a%5Cb");
  assert.equal(displaySegment("a\tb"), "a%09b");
  assert.equal(displaySegment("\r\n"), "%0D%0A");
});

Deno.test("displaySegment: characters the template syntax would misread stay encoded", () => {
  assert.equal(displaySegment("a/b"), "a%2Fb");
  assert.equal(displaySegment("what?"), "what%3F");
  assert.equal(displaySegment("x#y"), "x%23y");
  assert.equal(displaySegment("{id}"), "%7Bid%7D");
  assert.equal(displaySegment("100%41"), "100%2541");
  assert.equal(displaySegment("50%/x"), "50%25%2Fx");
});

// --- parsePathTemplate ---------------------------------------------------------------

Deno.test("parsePathTemplate: static and placeholder segments", () => {
  assert.deepEqual(parse("/users/{id}/posts/{post_id}"), {
    path: "/users/{id}/posts/{post_id}",
    segments: [lit("users"), ph("id"), lit("posts"), ph("post_id")],
    query: undefined,
  });
});

Deno.test("parsePathTemplate: the root template is one empty static segment, like the root request", () => {
  assert.deepEqual(parse("/"), { path: "/", segments: [lit("")], query: undefined });
  assert.deepEqual(parse("/").segments.map((s) => s.param ? null : s.value), splitRequestPath("/"));
});

Deno.test("parsePathTemplate: a trailing slash is kept as an empty segment", () => {
  assert.deepEqual(parse("/users/").segments, [lit("users"), lit("")]);
  assert.equal(parse("/users/").path, "/users/");
});

Deno.test("parsePathTemplate: segments are percent-decoded and the display path shows them decoded", () => {
  const template = parse("/caf%C3%A9/a%20b/{id}");
  assert.deepEqual(template.segments, [lit("café"), lit("a b"), ph("id")]);
  assert.equal(template.path, "/café/a b/{id}");
});

Deno.test("parsePathTemplate: a malformed escape in a template is kept as written", () => {
  const template = parse("/100%zz");
  assert.deepEqual(template.segments, [lit("100%zz")]);
  assert.equal(template.path, "/100%zz");
});

Deno.test("parsePathTemplate: an encoded brace is a literal segment, not a placeholder", () => {
  assert.deepEqual(parse("/%7Bid%7D").segments, [lit("{id}")]);
});

Deno.test("regression: the display path of an encoded '/', '?', '#', '{', '}' or '%' parsed back to other segments", () => {
  // The display path used to show these decoded, so re-parsing it (as the handler does to
  // build the route) split `a%2Fb` into two segments, read `%7Bid%7D` as a placeholder,
  // cut `what%3F` at a query, decoded `%2541` twice, and failed outright on `%23`.
  const cases: [raw: string, path: string, segments: Segment[]][] = [
    ["/files/a%2Fb", "/files/a%2Fb", [lit("files"), lit("a/b")]],
    ["/%7Bid%7D", "/%7Bid%7D", [lit("{id}")]],
    ["/what%3F", "/what%3F", [lit("what?")]],
    ["/x%23y", "/x%23y", [lit("x#y")]],
    ["/100%2541", "/100%2541", [lit("100%41")]],
    ["/50%25%2Fx/{id}", "/50%25%2Fx/{id}", [lit("50%/x"), ph("id")]],
  ];
  for (const [raw, path, segments] of cases) {
    const first = parse(raw);
    assert.equal(first.path, path, raw);
    assert.deepEqual(first.segments, segments, raw);
    const again = parse(first.path);
    assert.equal(again.path, path, `re-parse of ${raw}`);
    assert.deepEqual(again.segments, segments, `re-parse of ${raw}`);
  }
});

Deno.test("parsePathTemplate: a ?query part becomes the query map; the path has no query", () => {
  const template = parse("/search?q={term}&sort=asc");
  assert.equal(template.path, "/search");
  assert.deepEqual(template.segments, [lit("search")]);
  assert.deepEqual({ ...template.query }, { q: "{term}", sort: "asc" });
  assert.equal(Object.getPrototypeOf(template.query), null);
});

Deno.test("parsePathTemplate: query values are form-decoded", () => {
  assert.deepEqual({ ...parse("/s?q=a+b&r=%7Bx%7D&e=").query }, { q: "a b", r: "{x}", e: "" });
});

Deno.test("parsePathTemplate: an empty ?query part means no query", () => {
  assert.equal(parse("/a?").query, undefined);
  assert.equal(parse("/a?").path, "/a");
});

Deno.test("parsePathTemplate: a '__proto__' query key is plain data", () => {
  const template = parse("/a?__proto__=x&constructor=y");
  assert.deepEqual(Object.keys(template.query!), ["__proto__", "constructor"]);
  assert.equal(template.query!["__proto__"], "x");
  assert.equal(({} as Record<string, unknown>).x, undefined);
});

Deno.test("parsePathTemplate: a query key given twice is an error", () => {
  assert.deepEqual(problemsOf("/a?x=1&x=2"), ["path query parameter 'x' appears twice"]);
});

Deno.test("parsePathTemplate: an empty query parameter name is an error", () => {
  assert.deepEqual(problemsOf("/a?=x"), ["path query part has an empty parameter name"]);
});

Deno.test("parsePathTemplate: the path must start with '/'", () => {
  assert.deepEqual(problemsOf("users/{id}"), [`path must start with '/', got "users/{id}"`]);
  assert.deepEqual(problemsOf(""), [`path must start with '/', got ""`]);
});

Deno.test("parsePathTemplate: a '#' fragment is an error", () => {
  assert.deepEqual(problemsOf("/a#b"), ["path must not contain '#' (fragments never reach a server)"]);
});

Deno.test("parsePathTemplate: partial placeholders are errors", () => {
  for (const piece of ["id{x}", "{x}id", "{a-b}", "{}", "x}", "{x"]) {
    assert.deepEqual(problemsOf(`/users/${piece}`), [
      `path segment '${piece}' is not a placeholder: write a whole segment as {name} (letters, digits, _)`,
    ]);
  }
});

Deno.test("parsePathTemplate: a placeholder name used twice is an error", () => {
  assert.deepEqual(problemsOf("/{id}/x/{id}"), ["path uses placeholder {id} twice; give each one its own name"]);
});

Deno.test("parsePathTemplate: the reserved /__stubtool__/ prefix is an error, also when encoded", () => {
  const message = (path: string) => `path '${path}' is under /__stubtool__/, which stubtool reserves for itself`;
  assert.deepEqual(problemsOf("/__stubtool__/health"), [message("/__stubtool__/health")]);
  assert.deepEqual(problemsOf("/__stubtool__"), [message("/__stubtool__")]);
  assert.deepEqual(problemsOf("/__stubtool__/"), [message("/__stubtool__/")]);
  assert.deepEqual(problemsOf("/%5F_stubtool__/x"), [message("/__stubtool__/x")]);
  assert.deepEqual(problemsOf("/__stubtool__/{x}?q=1"), [message("/__stubtool__/{x}")]);
});

Deno.test("parsePathTemplate: paths that only resemble the reserved prefix are fine", () => {
  assert.equal(parse("/__stubtool__x").path, "/__stubtool__x");
  assert.equal(parse("/api/__stubtool__/x").path, "/api/__stubtool__/x");
});

Deno.test("parsePathTemplate: every problem is returned, in order", () => {
  assert.deepEqual(problemsOf("/{a}/{a}/b{c}?x=1&x=2"), [
    "path uses placeholder {a} twice; give each one its own name",
    "path segment 'b{c}' is not a placeholder: write a whole segment as {name} (letters, digits, _)",
    "path query parameter 'x' appears twice",
  ]);
});

Deno.test("regression: '.' and '..' segments were accepted, though URLs resolve them and no request can match", () => {
  const message = (piece: string) =>
    `path segment '${piece}' can never match: URLs resolve '.' and '..' segments before a request arrives`;
  assert.deepEqual(problemsOf("/a/../b"), [message("..")]);
  assert.deepEqual(problemsOf("/a/./b"), [message(".")]);
  assert.deepEqual(problemsOf("/a/%2e%2E"), [message("%2e%2E")]);
  assert.deepEqual(problemsOf("/%2e/x"), [message("%2e")]);
  assert.deepEqual(parse("/a/.../.x/x..").segments, [lit("a"), lit("..."), lit(".x"), lit("x..")]);
});

Deno.test("regression: a raw backslash, tab or line break was accepted, though URLs rewrite them", () => {
  const message = (piece: string) =>
    `path segment ${
      JSON.stringify(piece)
    } can never match: URLs turn '\\' into '/' and drop tabs and line breaks; write %5C, %09, %0A or %0D`;
  assert.deepEqual(problemsOf("/a\\b"), [message("a\\b")]);
  assert.deepEqual(problemsOf("/a\tb"), [message("a\tb")]);
  assert.deepEqual(problemsOf("/x/\n"), [message("\n")]);
  // Encoded, they are ordinary characters, and the display path keeps them encoded.
  assert.deepEqual(parse("/a%5Cb/c%09d"), {
    path: "/a%5Cb/c%09d",
    segments: [lit("a\\b"), lit("c\td")],
    query: undefined,
  });
  assert.deepEqual(parse(parse("/a%5Cb/c%09d").path).segments, [lit("a\\b"), lit("c\td")]);
});

Deno.test("a template's segments equal those of a request sent to the same URL", () => {
  for (
    const template of ["/a b/é", "/caf%C3%A9", "/a%2Fb", "/%7Bid%7D", "/a%5Cb", "/a%09b", "/.../x", "/users/", "/"]
  ) {
    const segments = parse(template).segments.map((s) => s.param ? null : s.value);
    const pathname = new URL(template, "http://stub.test").pathname;
    assert.deepEqual(splitRequestPath(pathname), segments, template);
  }
});

Deno.test("property: the shortcut for plain templates gives what the full parse gives", () => {
  // Characters the shortcut accepts, and each kind it must hand to the full parse.
  const piece = fc.constantFrom(
    "a",
    "Z",
    "9",
    "_",
    "-",
    ".",
    "..",
    "~",
    "@",
    ":",
    "é",
    "%41",
    "%",
    "{",
    "}",
    "{id}",
    "?",
    "?q=1",
    "#",
    "\\",
    " ",
    "\t",
    "",
    "__stubtool__",
    "__stubtool__x",
  );
  let plain = 0;
  fc.assert(
    fc.property(
      fc.array(fc.array(piece, { maxLength: 3 }).map((p) => p.join("")), { minLength: 1, maxLength: 4 }),
      (segments) => {
        const raw = "/" + segments.join("/");
        const quick = parsePathTemplate(raw);
        if (quick.problems.length === 0 && quick.template?.path === raw && !/[%{}]/.test(raw)) plain++;
        assert.deepEqual(quick, parseTemplateInFull(raw), raw);
      },
    ),
    { numRuns: 2000, seed: 0x5eed },
  );
  assert.ok(plain > 200, `only ${plain} plain templates generated`);
});

Deno.test("regression: other routers' ':id' and '*' segments were accepted as literals; they are errors that say what to write", () => {
  assert.deepEqual(parsePathTemplate("/users/:id").problems, [
    "path segment ':id' is not a placeholder here: write {id}",
  ]);
  assert.deepEqual(parsePathTemplate("/files/*").problems, [
    "path segment '*' is not a wildcard here: write {rest*} as the last segment (it matches one or more segments)",
  ]);
  // A colon or star inside a segment stays literal (Google-style custom methods, glob-like names).
  assert.deepEqual(parsePathTemplate("/v1/users:batchGet").problems, []);
  assert.deepEqual(parsePathTemplate("/files/a*b").problems, []);
  assert.deepEqual(parsePathTemplate("/a/:").problems, []);
});

Deno.test("parsePathTemplate: {name**} is a last-segment catch-all that may take nothing; {name*} takes one or more", () => {
  assert.deepEqual(parsePathTemplate("/{all**}").template?.segments, [
    { param: true, name: "all", rest: true, orNone: true },
  ]);
  const { template } = parsePathTemplate("/api/{rest**}");
  assert.equal(template?.path, "/api/{rest**}");
  assert.deepEqual(template?.segments.at(-1), { param: true, name: "rest", rest: true, orNone: true });
  assert.deepEqual(parsePathTemplate("/api/{rest*}").template?.segments.at(-1), {
    param: true,
    name: "rest",
    rest: true,
  });
  assert.deepEqual(parsePathTemplate("/{all**}/x").problems, [
    "path segment '{all**}' must be the last one: {all**} takes every segment after it",
  ]);
  assert.deepEqual(parsePathTemplate("/{all***}").problems, [
    "path segment '{all***}' is not a placeholder: write a whole segment as {name} (letters, digits, _)",
  ]);
});
