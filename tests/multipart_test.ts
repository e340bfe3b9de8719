/**
 * The multipart parser (src/util/multipart.ts): the boundary of a content type, splitting a
 * body into parts (preamble, epilogue, CRLF rules, folded headers, a boundary-like line inside
 * a part's data), and the bounds: malformed bodies and too many parts give a problem, never an
 * exception.
 */
import assert from "node:assert/strict";
import {
  formFieldName,
  MAX_MULTIPART_PARTS,
  MAX_PART_HEADER_BYTES,
  multipartBoundary,
  type MultipartParse,
  parseMultipart,
} from "../src/util/multipart.ts";

const bytes = (text: string) => new TextEncoder().encode(text);
const decode = (body: Uint8Array) => new TextDecoder().decode(body);
/** The parse with each part's body as text, for exact comparisons. */
function parsed(text: string, boundary = "B"): unknown {
  const result: MultipartParse = parseMultipart(bytes(text), boundary);
  if ("problem" in result) return result;
  return result.parts.map((p) => ({ headers: p.headers, body: decode(p.body) }));
}

Deno.test("multipartBoundary: any multipart type in any case, a quoted boundary with its escapes, other parameters", () => {
  assert.equal(multipartBoundary("multipart/form-data; boundary=XyZ123"), "XyZ123");
  assert.equal(multipartBoundary('multipart/form-data; boundary="q b"'), "q b");
  assert.equal(multipartBoundary('multipart/mixed; charset=utf-8; BOUNDARY="a\\"b"; x=1'), 'a"b');
  assert.equal(multipartBoundary("Multipart/Related;boundary=abc;type=text/html"), "abc");
  assert.equal(multipartBoundary('multipart/form-data; name="boundary=no"; boundary=yes'), "yes");
  assert.equal(multipartBoundary("multipart/form-data"), undefined);
  assert.equal(multipartBoundary("multipart/form-data; boundary="), undefined);
  assert.equal(multipartBoundary(`multipart/form-data; boundary=${"x".repeat(201)}`), undefined);
  assert.equal(multipartBoundary("text/plain; boundary=B"), undefined);
  assert.equal(multipartBoundary("application/x-www-form-urlencoded"), undefined);
  assert.equal(multipartBoundary(null), undefined);
});

Deno.test("parseMultipart: parts with their headers (names lower-cased) and bodies; preamble and epilogue ignored", () => {
  const body = 'preamble\r\n--B\r\nContent-Disposition: form-data; name="a"\r\n\r\nhello\r\n' +
    '--B\r\ncontent-disposition: form-data; name="f"; filename="x.txt"\r\nContent-Type: text/plain\r\n\r\n' +
    "two\r\nlines\r\n--B--\r\nepilogue --B\r\n";
  assert.deepEqual(parsed(body), [
    { headers: [["content-disposition", 'form-data; name="a"']], body: "hello" },
    {
      headers: [["content-disposition", 'form-data; name="f"; filename="x.txt"'], ["content-type", "text/plain"]],
      body: "two\r\nlines",
    },
  ]);
});

Deno.test("parseMultipart: a boundary-like text inside a part's data is data; only CRLF --B then CRLF, -- or the end delimits", () => {
  const body = "--B\r\nX: 1\r\n\r\nhello--B\r\n--Bx\r\n--B-\r\nend\r\n--B--";
  assert.deepEqual(parsed(body), [{ headers: [["x", "1"]], body: "hello--B\r\n--Bx\r\n--B-\r\nend" }]);
  // The last delimiter may stop at the end of the body without its `--` (as WireMock reads it).
  assert.deepEqual(parsed("--B\r\nX: 1\r\n\r\nhi\r\n--B"), [{ headers: [["x", "1"]], body: "hi" }]);
});

Deno.test("parseMultipart: empty parts, a part without headers, folded header lines, binary bytes kept", () => {
  assert.deepEqual(parsed("--B\r\nX: 1\r\n\r\n\r\n--B\r\n\r\nno headers\r\n--B--"), [
    { headers: [["x", "1"]], body: "" },
    { headers: [], body: "no headers" },
  ]);
  assert.deepEqual(parsed('--B\r\nContent-Disposition: form-data;\r\n\tname="a"\r\nbad line\r\n\r\nv\r\n--B--'), [
    { headers: [["content-disposition", 'form-data; name="a"']], body: "v" },
  ]);
  const raw = new Uint8Array([...bytes("--B\r\n\r\n"), 0xff, 0x00, 0xe9, ...bytes("\r\n--B--")]);
  const result = parseMultipart(raw, "B");
  assert.ok("parts" in result);
  assert.deepEqual([...result.parts[0].body], [0xff, 0x00, 0xe9]);
});

Deno.test("parseMultipart: a body of no parts, and a first delimiter after a preamble on the same line", () => {
  assert.deepEqual(parsed("--B--\r\n"), []);
  assert.deepEqual(parsed("junk--B\r\nX: 1\r\n\r\nv\r\n--B--"), [{ headers: [["x", "1"]], body: "v" }]);
});

Deno.test("parseMultipart: malformed bodies are problems, not exceptions", () => {
  assert.deepEqual(parsed(""), { problem: "the body has no --B line" });
  assert.deepEqual(parsed("hello"), { problem: "the body has no --B line" });
  // The boundary must be followed by CRLF or `--`: a line with transport padding or an LF line end
  // is preamble, so these bodies are a preamble and a closing delimiter: no parts.
  assert.deepEqual(parsed("--B  \r\nX: 1\r\n\r\nv\r\n--B--"), []);
  assert.deepEqual(parsed("--B\nX: 1\n\nv\n--B--\n"), []);
  assert.deepEqual(parsed("--B\nX: 1\n\nv\n--B\n"), { problem: "the body has no --B line" });
  assert.deepEqual(parsed("--B\r\nX: 1\r\n\r\nv\r\n"), { problem: "part 1 does not end with a --B line" });
  assert.deepEqual(parsed("--B\r\nX: 1\r\n\r\nv\r\n--B\r\nY: 2\r\n\r\nw"), {
    problem: "part 2 does not end with a --B line",
  });
  assert.deepEqual(parsed("--B\r\nX: 1\r\n--B--"), { problem: "part 1 has no blank line after its headers" });
  // Another boundary does not delimit.
  assert.deepEqual(parsed("--B\r\nX: 1\r\n\r\nv\r\n--B--", "C"), { problem: "the body has no --C line" });
});

Deno.test("parseMultipart: 10,000 parts stop at the part bound; a header block over its bound is refused", () => {
  const many = "--B\r\n" + "X: 1\r\n\r\nv\r\n--B\r\n".repeat(10_000) + "X: 1\r\n\r\nv\r\n--B--";
  assert.deepEqual(parsed(many), { problem: `the body has more than ${MAX_MULTIPART_PARTS} parts` });
  const exactly = "--B\r\n" + "X: 1\r\n\r\nv\r\n--B\r\n".repeat(MAX_MULTIPART_PARTS - 1) + "X: 1\r\n\r\nv\r\n--B--";
  const result = parseMultipart(bytes(exactly), "B");
  assert.equal("parts" in result && result.parts.length, MAX_MULTIPART_PARTS);
  const long = `--B\r\nX: ${"a".repeat(MAX_PART_HEADER_BYTES)}\r\n\r\nv\r\n--B--`;
  assert.deepEqual(parsed(long), { problem: `part 1 has more than ${MAX_PART_HEADER_BYTES} bytes of headers` });
});

Deno.test("parseMultipart: 1 MB of near-delimiters (CRLF --B then another byte) delimits nothing", () => {
  // Every `\r\n--B` here is followed by `x`: none delimits, and the part never ends.
  const body = "--B\r\n\r\n" + "\r\n--Bx".repeat(150_000);
  assert.deepEqual(parsed(body), { problem: "part 1 does not end with a --B line" });
});

Deno.test("formFieldName: a form-data disposition with a non-empty name, quoted or not", () => {
  assert.equal(formFieldName('form-data; name="file"; filename="a.txt"'), "file");
  assert.equal(formFieldName("FORM-DATA; NAME=a"), "a");
  assert.equal(formFieldName('form-data; filename="a.txt"'), undefined);
  assert.equal(formFieldName('form-data; name=""'), undefined);
  assert.equal(formFieldName('attachment; name="a"'), undefined);
  assert.equal(formFieldName(undefined), undefined);
});
