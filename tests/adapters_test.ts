/**
 * The runtime adapters (src/server/adapters/) send the same bytes for the same answer: the
 * head of a HEAD answer, reason phrases, the target without its fragment, a 413 every
 * uploader reads, and a stop that idle or slow clients cannot hold open. Checked over raw
 * sockets (node:net), on both adapters.
 */
import assert from "node:assert/strict";
import { STATUS_CODES } from "node:http";
import { get, head, post } from "../mod.ts";
import { rawHeader, rawRequest, serverTest } from "./_http.ts";

const close = "host: x\r\nconnection: close\r\n\r\n";

serverTest(
  "regression: HEAD answers carry the length the GET's body has (Deno sent content-length: 0, Node none)",
  async (server) => {
    server.routes(
      get("/json").body({ a: 1 }),
      get("/text").header("content-type", "text/plain").body("héllo ✓"),
      get("/bytes").bodyBase64("AAECAwQ="),
      get("/empty").status(200),
      get("/none").status(204),
      get("/users/{id}").body({ id: "{id}" }),
      get("/fn").responseFunc(() => [201, { made: true }]),
      head("/own").header("x-own", "1").body("four"),
    );
    const paths = [
      "/json",
      "/text",
      "/bytes",
      "/empty",
      "/none",
      "/users/%E2%9C%93",
      "/fn",
      "/__stubtool__/health",
      "/__stubtool__/stubs",
    ];
    for (const path of paths) {
      const got = await rawRequest(server.port, `GET ${path} HTTP/1.1\r\n${close}`);
      const headed = await rawRequest(server.port, `HEAD ${path} HTTP/1.1\r\n${close}`);
      assert.equal(headed.statusLine, got.statusLine, path);
      assert.equal(headed.body, "", path);
      const length = rawHeader(got, "content-length");
      assert.equal(rawHeader(headed, "content-length"), length, path);
      assert.equal(headed.headers.filter(([name]) => name === "content-length").length, length === undefined ? 0 : 1);
    }
    // A miss: the 404 JSON a GET gets, which names the method (HEAD is one letter longer).
    const missGet = await rawRequest(server.port, `GET /missing HTTP/1.1\r\n${close}`);
    const missHead = await rawRequest(server.port, `HEAD /missing HTTP/1.1\r\n${close}`);
    assert.equal(missHead.statusLine, "HTTP/1.1 404 Not Found");
    assert.equal(Number(rawHeader(missHead, "content-length")), missGet.body.length + 1);
    // A HEAD stub of its own: the length of the body it would send (`"four"`, JSON).
    assert.equal(rawHeader(await rawRequest(server.port, `HEAD /own HTTP/1.1\r\n${close}`), "content-length"), "6");
    assert.equal(rawHeader(await rawRequest(server.port, `HEAD /text HTTP/1.1\r\n${close}`), "content-length"), "10");
    assert.equal(rawHeader(await rawRequest(server.port, `HEAD /empty HTTP/1.1\r\n${close}`), "content-length"), "0");
    assert.equal(
      rawHeader(await rawRequest(server.port, `HEAD /none HTTP/1.1\r\n${close}`), "content-length"),
      undefined,
    );
  },
);

serverTest(
  "regression: a raw #fragment in the request target is dropped (Node matched on `/a#x`, Deno on `/a`)",
  async (server) => {
    server.routes(get("/a").body({ a: true }), get("/q?k=v").body({ q: true }));
    const plain = await rawRequest(server.port, `GET /a#x HTTP/1.1\r\n${close}`);
    assert.equal(plain.statusLine, "HTTP/1.1 200 OK");
    assert.equal(plain.body, '{"a":true}');
    const query = await rawRequest(server.port, `GET /q?k=v#frag?k=w HTTP/1.1\r\n${close}`);
    assert.equal(query.statusLine, "HTTP/1.1 200 OK");
    assert.equal(query.body, '{"q":true}');
    const miss = await rawRequest(server.port, `GET /b#x HTTP/1.1\r\n${close}`);
    assert.equal(JSON.parse(miss.body).path, "/b");
    assert.deepEqual((await server.journal()).requests.map((r) => r.target), ["/a", "/q?k=v", "/b"]);
    assert.deepEqual((await server.report()).stubs.map((s) => s.hit_count), [1, 1]);
  },
);

serverTest(
  "status lines carry the standard reason phrases, for stub statuses and the server's own errors (an error 500 must not read `500 OK`)",
  async (server) => {
    const statuses = [200, 201, 204, 301, 302, 304, 400, 401, 403, 404, 409, 422, 429, 500, 502, 503, 504];
    server.routes(
      ...statuses.map((status) => get(`/s/${status}`).status(status)),
      get("/throws").responseFunc(() => {
        throw new Error("boom");
      }),
      get("/hangs").responseFunc(() => new Promise(() => {})),
      post("/upload").body({}),
    );
    const lines: string[] = [];
    for (const status of statuses) {
      lines.push((await rawRequest(server.port, `GET /s/${status} HTTP/1.1\r\n${close}`)).statusLine);
    }
    assert.deepEqual(lines, statuses.map((status) => `HTTP/1.1 ${status} ${STATUS_CODES[status]}`));
    const own: [string, number][] = [
      [`GET /throws HTTP/1.1\r\n${close}`, 500],
      [`GET /hangs HTTP/1.1\r\n${close}`, 504],
      [`GET /missing HTTP/1.1\r\n${close}`, 404],
      [`POST /upload HTTP/1.1\r\ncontent-length: 20\r\n${close}${"x".repeat(20)}`, 413],
      [`DELETE /__stubtool__/health HTTP/1.1\r\n${close}`, 405],
    ];
    for (const [request, status] of own) {
      assert.equal((await rawRequest(server.port, request)).statusLine, `HTTP/1.1 ${status} ${STATUS_CODES[status]}`);
    }
  },
  { handlerTimeout: 50, maxBody: 10 },
);
