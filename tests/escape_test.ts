// src/report/escape.ts: text from requests and saved reports cannot drive a terminal, nor break out of HTML.
import assert from "node:assert/strict";
import { escapeControls, escapeHtml, escapeJsonControls } from "../src/report/escape.ts";

Deno.test("escapeControls: C0, DEL, C1, bidi controls and line separators are written out; the rest stays", () => {
  assert.equal(escapeControls("\x00\x07\t\n\r\x1b[31m"), "\\x00\\x07\\x09\\x0a\\x0d\\x1b[31m");
  assert.equal(escapeControls("\x7f\x80\x9b\x9f"), "\\x7f\\x80\\x9b\\x9f");
  assert.equal(
    escapeControls("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u2028\u2029"),
    "\\u061c\\u200e\\u200f\\u202a\\u202b\\u202c\\u202d\\u202e\\u2066\\u2067\\u2068\\u2069\\u2028\\u2029",
  );
  const plain = "GET /café/日本?q=a+b&x=%1b \\ ✓ \u00a0\u200b";
  assert.equal(escapeControls(plain), plain);
});

Deno.test("escapeJsonControls: JSON.stringify output keeps its layout and value; what it left raw becomes \\u escapes", () => {
  const value = { path: "/\x1b\x7f\x9b\u202e\u2066\u2028\u2029", list: ["\n"] };
  const json = escapeJsonControls(JSON.stringify(value, null, 2));
  assert.deepEqual(JSON.parse(json), value);
  assert.equal(
    json,
    '{\n  "path": "/\\u001b\\u007f\\u009b\\u202e\\u2066\\u2028\\u2029",\n  "list": [\n    "\\n"\n  ]\n}',
  );
});

Deno.test("escapeHtml: the five characters that matter in content and quoted attributes", () => {
  assert.equal(
    escapeHtml(`<a href="x" title='y'>&</a>`),
    "&lt;a href=&quot;x&quot; title=&#39;y&#39;&gt;&amp;&lt;/a&gt;",
  );
  assert.equal(escapeHtml("/users/{id}?q=1"), "/users/{id}?q=1");
});
