/**
 * The request view's body (src/server/request_view.ts): a multipart body is split on first use
 * and kept, so every multipart condition of every stub a request reaches reads one parse.
 */
import assert from "node:assert/strict";
import { BodyView, RequestView } from "../src/server/request_view.ts";

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

Deno.test("RequestView.repeatedHeader: the lines of a header sent more than once; a wire that says no header repeats is never walked", () => {
  const lines = ["Host", "x", "X-Tag", "a", "Accept", "*/*", "x-TAG", "b, c", "From", "p"];
  let walked = 0;
  const view = (repeats: boolean | undefined) =>
    new RequestView(
      {
        header: () => null,
        headerLines: () => {
          walked++;
          return lines;
        },
        ...(repeats === undefined ? {} : { repeatsHeaders: () => repeats }),
      },
      "GET",
      "/",
      "",
    );
  const some = view(true);
  assert.deepEqual(
    [some.repeatedHeader("x-tag"), some.repeatedHeader("accept"), some.repeatedHeader("from")],
    [["a", "b, c"], undefined, undefined],
  );
  assert.equal(walked, 1, "the lines are walked once per request");
  walked = 0;
  const none = view(false);
  assert.deepEqual([none.repeatedHeader("x-tag"), walked], [undefined, 0]);
  // A wire that keeps lines but cannot tell (a multipart part's headers) has them walked.
  assert.deepEqual(view(undefined).repeatedHeader("x-tag"), ["a", "b, c"]);
  // A wire without lines (Deno.serve) has no repeated header.
  assert.equal(new RequestView({ header: () => "a, b" }, "GET", "/", "").repeatedHeader("x-tag"), undefined);
});
