// src/formats/har.ts: HAR entries as the exchanges `record` writes, and a warning naming
// each entry it cannot replay exactly. The fixture is shaped like Chrome's "Save all as HAR
// with content" (HTTP/2 pseudo-headers, base64 content, status 0 for blocked requests).
import assert from "node:assert/strict";
import { harExchanges } from "../src/formats/har.ts";
import { recordedConfig } from "../src/stubs/recording.ts";
import { fixture } from "./_cli.ts";

const SHOP = JSON.parse(await Deno.readTextFile(fixture("har/shop.har")));
const text = (bytes: Uint8Array | undefined) => new TextDecoder().decode(bytes);

function har(...entries: unknown[]) {
  return { log: { version: "1.2", entries } };
}

function entry(request: Record<string, unknown>, response: Record<string, unknown> | undefined, extra = {}) {
  return {
    startedDateTime: "2026-03-02T10:15:00.000Z",
    request: { method: "GET", headers: [], ...request },
    ...(response &&
      { response: { status: 200, headers: [], content: { size: 0, mimeType: "x-unknown" }, ...response } }),
    timings: { wait: 5 },
    ...extra,
  };
}

Deno.test("har: Chrome's entries become exchanges with method, path and query, headers, decoded bodies and wait time", () => {
  const { exchanges, warnings, entries, origins } = harExchanges(SHOP, "shop.har");
  assert.equal(entries, 13);
  assert.deepEqual(origins, ["https://shop.example.com", "https://cdn.example.net"]);
  assert.deepEqual(
    exchanges.map((e) => `${e.method} ${e.target} ${e.status}`),
    [
      "GET /api/products?page=1 200",
      "POST /api/orders 201",
      "POST /api/orders 201",
      "POST /api/orders 401",
      "GET /api/orders/o-1 200",
      "GET /api/orders/o-1 200",
      "POST /login 200",
      "POST /login 401",
      "GET /img/logo.png 200",
      "GET /app.js 200",
    ],
  );
  const [products, order] = exchanges;
  assert.equal(products.latency, 84.6, "timings.wait: the time the server took to answer");
  assert.equal(products.headers["content-type"], "application/json; charset=utf-8");
  assert.equal(
    products.headers["x-request-id"],
    "req-0000",
    "every response header is handed on; the writer keeps few",
  );
  assert.equal(text(products.body), '[{"sku":"b-1","name":"Book"},{"sku":"p-2","name":"Pen"}]');
  assert.equal(products.request?.headers[":path"], undefined, "HTTP/2 pseudo-headers are not headers");
  assert.equal(order.request?.headers.authorization, "Bearer tok-ada");
  assert.equal(text(order.request?.body), '{"sku":"b-1","qty":1}');
  assert.deepEqual(
    [...exchanges[8].body],
    [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0xff],
    "base64 decoded",
  );
  assert.deepEqual(warnings, [
    {
      place: "shop.har entries[9]",
      message:
        "the HAR leaves out the response body (content.size 1520, no content.text): export the HAR with content (Chrome: Save all as HAR with content)",
    },
    {
      place: "shop.har entries[10]",
      message: "is a WebSocket (wss://shop.example.com/live): stubtool stubs HTTP answers only",
    },
    {
      place: "shop.har entries[11]",
      message: "has no response (status 0: the request failed, was blocked or cancelled): nothing to replay",
    },
  ]);
});

Deno.test("har: origin keeps the entries sent there and counts the others", () => {
  const { exchanges, otherOrigin, origins } = harExchanges(SHOP, "shop.har", { origin: "https://shop.example.com" });
  assert.equal(otherOrigin, 1);
  assert.deepEqual(origins, ["https://shop.example.com"]);
  assert.ok(exchanges.every((e) => e.target !== "/app.js"));
});

Deno.test("har: entries are taken oldest first by startedDateTime, so repeats become sequences in order", () => {
  const late = entry({ url: "http://a.test/x" }, { status: 202 }, { startedDateTime: "2026-03-02T10:15:09.000Z" });
  const early = entry({ url: "http://a.test/x" }, { status: 200 }, { startedDateTime: "2026-03-02T10:15:01.000Z" });
  assert.deepEqual(harExchanges(har(late, early), "f.har").exchanges.map((e) => e.status), [200, 202]);
});

Deno.test("har: what cannot be replayed exactly is a warning naming the entry, never a guess", () => {
  const { exchanges, warnings } = harExchanges(
    har(
      "not an entry",
      entry({ url: "data:text/plain,hi" }, { status: 200 }),
      entry({ url: "/relative" }, { status: 200 }),
      entry({ url: "http://a.test/x" }, undefined),
      entry({ url: "http://a.test/x" }, { status: 700 }),
      entry({ url: "http://a.test/x" }, {
        content: { size: 3, mimeType: "text/plain", text: "abc", encoding: "gzip" },
      }),
      entry({ url: "http://a.test/x" }, {
        content: { size: 3, mimeType: "text/plain", text: "@@@", encoding: "base64" },
      }),
      entry({ url: "http://a.test/x", method: "GET /" }, { status: 200 }),
    ),
    "f.har",
  );
  assert.deepEqual(exchanges, []);
  assert.deepEqual(warnings.map((w) => `${w.place}: ${w.message}`), [
    "f.har entries[0]: has no request: nothing to convert",
    "f.har entries[1]: 'data:' requests are not supported: only http:// and https:// requests become stubs",
    'f.har entries[2]: request.url must be an absolute URL, got "/relative"',
    "f.har entries[3]: has no response: nothing to replay",
    "f.har entries[4]: response.status must be an HTTP status from 100 to 599, got 700",
    'f.har entries[5]: response.content.encoding "gzip" is not supported (only base64)',
    "f.har entries[6]: response.content.text is not valid base64 (response.content.encoding is base64)",
    'f.har entries[7]: request.method must be an HTTP method, got "GET /"',
  ]);
});

Deno.test("har: a request body the HAR leaves out is warned about and makes no body condition", () => {
  const { exchanges, warnings } = harExchanges(
    har(
      entry({ url: "http://a.test/x", method: "POST", bodySize: 12 }, { status: 201 }),
      entry(
        {
          url: "http://a.test/x",
          method: "POST",
          postData: { mimeType: "application/x-www-form-urlencoded", params: [] },
        },
        { status: 201 },
      ),
    ),
    "f.har",
  );
  assert.deepEqual(exchanges.map((e) => e.request?.body.byteLength), [0, 0]);
  assert.deepEqual(exchanges[1].request?.headers, { "content-type": "application/x-www-form-urlencoded" });
  assert.deepEqual(warnings.map((w) => w.message), [
    "the HAR leaves out the request body (bodySize 12); written without a body condition",
    "request.postData has no text (params alone do not give the bytes sent); written without a body condition",
  ]);
});

Deno.test("har: content.mimeType stands in for a missing content-type header; repeated headers are kept as a list", () => {
  const [exchange] = harExchanges(
    har(entry({ url: "http://a.test/x" }, {
      headers: [{ name: "Set-Cookie", value: "a=1" }, { name: "set-cookie", value: "b=2" }],
      content: { size: 2, mimeType: "text/plain", text: "hi" },
    })),
    "f.har",
  ).exchanges;
  assert.deepEqual(exchange.headers, { "set-cookie": ["a=1", "b=2"], "content-type": "text/plain" });
  assert.equal(text(exchange.body), "hi");
});

Deno.test("har: a document without log.entries is refused with what to give instead", () => {
  assert.throws(
    () => harExchanges({ entries: [] }, "f.har"),
    new TypeError(
      "is not a HAR recording: it needs log.entries, a list (export one from the browser's network tab)",
    ),
  );
});

Deno.test("regression: import har wrote a query value '{q}' as a capture; it is a literal (a regex matching exactly it)", () => {
  const { exchanges } = harExchanges(
    har(entry(
      {
        url: "https://shop.example/search?q={q}",
        queryString: [{ name: "q", value: "{q}" }],
      },
      { status: 200, content: { size: 2, mimeType: "text/html", text: "{q}" } },
    )),
    "search.har",
  );
  const { config } = recordedConfig(exchanges, {});
  assert.deepEqual(config.routes[0].query_params, { q: { regex: "\\{q\\}" } });
});
