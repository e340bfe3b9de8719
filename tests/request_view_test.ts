/**
 * The request view's body (src/server/request_view.ts): a multipart body is split on first use
 * and kept, so every multipart condition of every stub a request reaches reads one parse.
 */
import assert from "node:assert/strict";
import { BodyView } from "../src/server/request_view.ts";

const bytes = (text: string) => new TextEncoder().encode(text);

Deno.test("BodyView.multipart: parsed once and kept; null unless multipart with a boundary; a cut body is a problem", () => {
  const body = '--B\r\nContent-Disposition: form-data; name="a"\r\n\r\nhi\r\n--B--\r\n';
  const view = new BodyView(bytes(body), true, "multipart/form-data; boundary=B");
  const first = view.multipart();
  assert.ok(first && "parts" in first);
  assert.equal(first.parts.length, 1);
  assert.equal(view.multipart(), first, "the same parse, not a second one");
  assert.equal(new BodyView(bytes(body), true, "text/plain").multipart(), null);
  assert.equal(new BodyView(bytes(body), true, "multipart/form-data").multipart(), null);
  assert.equal(new BodyView(bytes(body), true, null).multipart(), null);
  assert.deepEqual(new BodyView(bytes(body), false, "multipart/form-data; boundary=B").multipart(), {
    problem: "the body is larger than the body limit",
  });
});
