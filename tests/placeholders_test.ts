import assert from "node:assert/strict";
import { compileJson, compileText, render } from "../src/stubs/placeholders.ts";
import { escapeJsonString } from "../src/util/json_string.ts";

/** Reference substitution on the value tree, to check the compiled form against. */
function substitute(value: unknown, names: readonly string[], values: readonly string[]): unknown {
  if (typeof value === "string") {
    return value.replace(/\{([A-Za-z0-9_]+)\}/g, (whole, name) => {
      const i = names.indexOf(name);
      return i === -1 ? whole : values[i];
    });
  }
  if (Array.isArray(value)) return value.map((item) => substitute(item, names, values));
  if (typeof value === "object" && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, substitute(v, names, values)]));
  }
  return value;
}

/** Compiles `body`, renders it with `values`, and returns the JSON text. */
function renderJson(body: unknown, names: readonly string[], values: readonly string[]): string {
  return render(compileJson(body, names), values);
}

// --- compileJson: structure ----------------------------------------------------------

Deno.test("compileJson: a body without placeholders compiles to its JSON text, a plain string", () => {
  const body = { a: [1, "x", true, null], b: { c: "d" } };
  const template = compileJson(body, ["id"]);
  assert.equal(typeof template, "string");
  assert.equal(template, JSON.stringify(body));
});

Deno.test("compileJson: without capture names, placeholder text is static", () => {
  const template = compileJson({ id: "{id}" }, []);
  assert.equal(template, '{"id":"{id}"}');
});

Deno.test("compileJson: placeholders compile to slots indexed by capture name, escaping set", () => {
  const template = compileJson({ a: "{q}", b: "{id}" }, ["id", "q"]);
  assert.deepEqual(template, {
    literals: ['{"a":"', '","b":"', '"}'],
    slots: [1, 0],
    escape: escapeJsonString,
  });
});

Deno.test("compileJson: a top-level string body", () => {
  assert.equal(renderJson("{id}", ["id"], ["7"]), '"7"');
  assert.equal(renderJson("user {id}!", ["id"], ["7"]), '"user 7!"');
});

Deno.test("compileJson: other top-level JSON values are static", () => {
  assert.equal(compileJson(42, ["id"]), "42");
  assert.equal(compileJson(null, ["id"]), "null");
  assert.equal(compileJson(false, ["id"]), "false");
  assert.equal(compileJson([], ["id"]), "[]");
});

// --- compileJson: substitution ------------------------------------------------

Deno.test("compileJson: substitutes into nested objects and arrays", () => {
  const body = {
    user: { id: "{id}", tags: ["{id}", "x-{id}-y", 5, null, true] },
    list: [{ a: "{b}" }, [["{b}"]]],
    fixed: { n: 1 },
  };
  const text = renderJson(body, ["id", "b"], ["42", "B"]);
  assert.equal(
    text,
    '{"user":{"id":"42","tags":["42","x-42-y",5,null,true]},"list":[{"a":"B"},[["B"]]],"fixed":{"n":1}}',
  );
});

Deno.test("compileJson: several placeholders in one string", () => {
  assert.equal(renderJson({ s: "{a}-{b}/{a}" }, ["a", "b"], ["1", "2"]), '{"s":"1-2/1"}');
  assert.equal(renderJson({ s: "{a}{b}" }, ["a", "b"], ["1", "2"]), '{"s":"12"}');
});

Deno.test("compileJson: a substituted value is always a string", () => {
  assert.deepEqual(JSON.parse(renderJson({ n: "{id}", t: "{flag}" }, ["id", "flag"], ["42", "true"])), {
    n: "42",
    t: "true",
  });
});

Deno.test("compileJson: unknown placeholders stay as written", () => {
  assert.equal(renderJson({ s: "{id} {nope} {} {a-b} {id" }, ["id"], ["7"]), '{"s":"7 {nope} {} {a-b} {id"}');
});

Deno.test("compileJson: object keys are never touched", () => {
  assert.equal(
    renderJson({ "{id}": "{id}", nested: { "{id}": 1 } }, ["id"], ["7"]),
    '{"{id}":"7","nested":{"{id}":1}}',
  );
});

Deno.test("compileJson: a __proto__ key in a body is plain data", () => {
  const body = JSON.parse('{"__proto__": "{id}", "constructor": {"prototype": "{id}"}}');
  assert.equal(renderJson(body, ["id"], ["7"]), '{"__proto__":"7","constructor":{"prototype":"7"}}');
  assert.equal(({} as Record<string, unknown>).prototype, undefined);
});

Deno.test("compileJson: undefined is left out of objects and written as null in arrays, like JSON.stringify", () => {
  const body = { a: undefined, b: "{id}", c: [undefined, "{id}"] };
  assert.equal(renderJson(body, ["id"], ["7"]), '{"b":"7","c":[null,"7"]}');
  assert.equal(compileJson({ a: undefined, c: [undefined] }, ["id"]), '{"c":[null]}');
});

Deno.test("compileJson: a captured value that looks like a placeholder is not substituted again", () => {
  assert.equal(renderJson({ s: "{a}{b}" }, ["a", "b"], ["{b}", "x"]), '{"s":"{b}x"}');
  assert.equal(renderJson({ s: "{a}" }, ["a"], ["{a}"]), '{"s":"{a}"}');
});

Deno.test("compileJson: one compiled template renders many requests independently", () => {
  const template = compileJson({ id: "{id}" }, ["id"]);
  assert.equal(render(template, ["1"]), '{"id":"1"}');
  assert.equal(render(template, ["2"]), '{"id":"2"}');
  assert.equal(render(template, ["1"]), '{"id":"1"}');
});

// --- compileJson: escaping -----------------------------------------------------------

Deno.test("compileJson: captured values are JSON-escaped and the result is valid JSON", () => {
  const hostile = [
    'quote " inside',
    "back\\slash",
    '\\"',
    "new\nline\r\ttab",
    "nul \u0000 and \u001f",
    '", "injected": "yes',
    "emoji 😀 and é",
    "\u2028\u2029",
  ];
  for (const value of hostile) {
    const text = renderJson({ v: "<{v}>", list: ["{v}"] }, ["v"], [value]);
    assert.deepEqual(JSON.parse(text), { v: `<${value}>`, list: [value] }, JSON.stringify(value));
  }
});

Deno.test("compileJson: exact escapes for quotes, backslashes and control characters", () => {
  assert.equal(renderJson("{v}", ["v"], ['a"b\\c\nd\u0001']), '"a\\"b\\\\c\\nd\\u0001"');
});

Deno.test("compileJson: a lone surrogate is escaped, so the body stays valid UTF-8 JSON", () => {
  const text = renderJson({ v: "{v}" }, ["v"], ["a\ud800b"]);
  assert.equal(text, '{"v":"a\\ud800b"}');
  assert.equal(JSON.parse(text).v, "a\ud800b");
  assert.equal(renderJson("{v}", ["v"], ["\udc00"]), '"\\udc00"');
  // A proper pair passes through as the character it encodes.
  assert.equal(renderJson("{v}", ["v"], ["😀"]), '"😀"');
});

Deno.test("compileJson: literal text around placeholders is escaped too", () => {
  const body = { s: 'say "hi"\n{name}\\' };
  const text = renderJson(body, ["name"], ["x"]);
  assert.equal(text, '{"s":"say \\"hi\\"\\nx\\\\"}');
  assert.deepEqual(JSON.parse(text), { s: 'say "hi"\nx\\' });
});

Deno.test("compileJson agrees with substituting the value tree, for many bodies and values", () => {
  const bodies: unknown[] = [
    { a: "{x}", b: ["{y}", { c: "{x}{y}{z}" }], d: 1.5, e: null, "{x}": "k" },
    ["{z}", ["{z}", ["{z}"]], "", "{}", "{x"],
    "{y} and {x} and {unknown}",
    { deep: { deeper: { deepest: ["pre {x} post", false] } } },
  ];
  const valueSets = [["1", "2", "3"], ['"', "\\", "\n"], ["", "{x}", "{y}"], ["é", "😀", "\ud83d"]];
  const names = ["x", "y", "z"];
  for (const body of bodies) {
    for (const values of valueSets) {
      assert.deepEqual(JSON.parse(renderJson(body, names, values)), substitute(body, names, values));
    }
  }
});

// --- compileText ---------------------------------------------------------------------

Deno.test("compileText: static text compiles to a plain string", () => {
  assert.equal(compileText("no placeholders", ["id"]), "no placeholders");
  assert.equal(compileText("{unknown}", ["id"]), "{unknown}");
  assert.equal(compileText("", ["id"]), "");
});

Deno.test("compileText: slots without escaping", () => {
  assert.deepEqual(compileText("a{x}b{y}c", ["x", "y"]), {
    literals: ["a", "b", "c"],
    slots: [0, 1],
    escape: undefined,
  });
  assert.deepEqual(compileText("{y}{x}", ["x", "y"]), { literals: ["", "", ""], slots: [1, 0], escape: undefined });
});

Deno.test("compileText: captured values go in as they are", () => {
  const template = compileText('Hello "{name}"\n{id}', ["id", "name"]);
  assert.equal(render(template, ["7", 'a"b\\c']), 'Hello "a"b\\c"\n7');
});

Deno.test("compileText: unknown placeholders stay; values are not substituted again", () => {
  const template = compileText("{a} {nope} {b}", ["a", "b"]);
  assert.equal(render(template, ["{b}", "B"]), "{b} {nope} B");
});

// --- render / escapeJsonString -------------------------------------------------------

Deno.test("render: a plain-string template is returned as is", () => {
  assert.equal(render("fixed", ["ignored"]), "fixed");
});

Deno.test("escapeJsonString: safe text is returned unchanged; the rest as inside a JSON string", () => {
  assert.equal(escapeJsonString("plain text é 😀"), "plain text é 😀");
  assert.equal(escapeJsonString('"'), '\\"');
  assert.equal(escapeJsonString("\\"), "\\\\");
  assert.equal(escapeJsonString("\n\t\u0000\u001f"), "\\n\\t\\u0000\\u001f");
  assert.equal(escapeJsonString("\ud800"), "\\ud800");
  assert.equal(escapeJsonString("\u007f"), "\u007f");
});
