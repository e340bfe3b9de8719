// The programmatic API of the installed npm package, from plain JavaScript on Node,
// over real HTTP on port 0. Every test starts its own servers, so they run concurrently.
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { before, describe, it } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { installedPackage } from "./_package.mjs";

/** Waits (5 s at most) until `path`'s stub has been hit: the request reached the server and matched. */
async function untilHit(server, path) {
  const deadline = performance.now() + 5000;
  for (;;) {
    const stub = (await server.report()).stubs.find((s) => s.path === path);
    if (stub?.hit_count > 0) return;
    if (performance.now() > deadline) throw new Error(`${path} was not hit within 5 s`);
    await sleep(5);
  }
}

/** @type {typeof import("../../mod.ts")} */
let api;

before(async () => {
  ({ api } = await installedPackage());
});

/** Sends one request and reads the whole answer. */
async function send(server, method, path, init = {}) {
  const response = await fetch(server.url + path, { method, ...init });
  const text = await response.text();
  let json;
  try {
    json = JSON.parse(text);
  } catch { /* not JSON */ }
  return { status: response.status, headers: response.headers, text, json };
}

/** Writes raw bytes to the server and collects what comes back until it closes or goes quiet. */
function raw(server, data, quietMs = 500) {
  return new Promise((resolve, reject) => {
    const socket = connect(server.getPort(), "127.0.0.1");
    let received = "";
    let timer;
    const finish = () => {
      clearTimeout(timer);
      socket.destroy();
      resolve(received);
    };
    socket.setEncoding("utf8");
    socket.on("data", (chunk) => {
      received += chunk;
      clearTimeout(timer);
      timer = setTimeout(finish, quietMs);
    });
    socket.on("end", finish);
    socket.on("error", (error) => received ? finish() : reject(error));
    socket.write(data);
    timer = setTimeout(finish, quietMs * 4);
  });
}

/**
 * Uploads `size` bytes with chunked encoding on a raw socket, as fast as the socket takes
 * them, reading all along; resolves with the status the server answered (once its answer is
 * whole, or the server closed), or what went wrong.
 */
function chunkedUpload(port, path, size) {
  return new Promise((resolve) => {
    const socket = connect(port, "127.0.0.1");
    let received = "";
    let failure = "";
    socket.on("data", (chunk) => received += chunk.toString("latin1"));
    // The whole answer is in (a server may keep the connection open for the next request).
    socket.on("data", () => {
      const end = received.indexOf("\r\n\r\n");
      const length = /\r\ncontent-length: (\d+)/i.exec(received.slice(0, end))?.[1];
      if (end !== -1 && length !== undefined && received.length >= end + 4 + Number(length)) socket.destroy();
    });
    socket.on("error", (error) => failure = error.code);
    socket.on("close", () => resolve(/^HTTP\/1\.1 (\d{3}) /.exec(received)?.[1] ?? `no answer (${failure})`));
    socket.write(`POST ${path} HTTP/1.1\r\nhost: x\r\ntransfer-encoding: chunked\r\n\r\n`);
    const piece = 64 * 1024;
    const chunk = Buffer.concat([
      Buffer.from(`${piece.toString(16)}\r\n`),
      Buffer.alloc(piece, 120),
      Buffer.from("\r\n"),
    ]);
    let sent = 0;
    const pump = () => {
      while (sent < size && !socket.destroyed) {
        sent += piece;
        if (!socket.write(chunk)) return void socket.once("drain", pump);
      }
      if (!socket.destroyed) socket.write("0\r\n\r\n");
    };
    pump();
  });
}

/**
 * Uploads `size` bytes on a raw socket the way Python's http.client does: the whole body
 * first (content-length, or chunked), reading nothing meanwhile, then the answer. Resolves
 * with the status line and body once the answer is whole, or with what went wrong.
 */
function uploadThenRead(port, path, size, chunked) {
  return new Promise((resolve) => {
    const socket = connect(port, "127.0.0.1");
    let received = "";
    let failure = "";
    const guard = setTimeout(() => socket.destroy(new Error("no answer within 10 s")), 10_000);
    socket.on("error", (error) => failure ||= error.code ?? error.message);
    socket.on("close", () => {
      clearTimeout(guard);
      const end = received.indexOf("\r\n\r\n");
      const length = /\r\ncontent-length: (\d+)/i.exec(received.slice(0, end))?.[1];
      const whole = end !== -1 && length !== undefined && received.length >= end + 4 + Number(length);
      resolve(
        whole
          ? `${received.slice(0, received.indexOf("\r\n"))} ${received.slice(end + 4, end + 4 + Number(length))}`
          : `no whole answer (${failure || "closed"})`,
      );
    });
    socket.write(
      `POST ${path} HTTP/1.1\r\nhost: x\r\n${
        chunked ? "transfer-encoding: chunked" : `content-length: ${size}`
      }\r\n\r\n`,
    );
    const piece = Buffer.alloc(64 * 1024, 120);
    const chunk = Buffer.concat([Buffer.from(`${piece.length.toString(16)}\r\n`), piece, Buffer.from("\r\n")]);
    let sent = 0;
    const pump = () => {
      while (sent < size && !socket.destroyed) {
        sent += piece.length;
        if (!socket.write(chunked ? chunk : piece)) return void socket.once("drain", pump);
      }
      if (socket.destroyed) return;
      if (chunked) socket.write("0\r\n\r\n");
      socket.on("data", (data) => {
        received += data.toString("latin1");
        const end = received.indexOf("\r\n\r\n");
        const length = /\r\ncontent-length: (\d+)/i.exec(received.slice(0, end))?.[1];
        if (end !== -1 && length !== undefined && received.length >= end + 4 + Number(length)) socket.end();
      });
    };
    pump();
  });
}

/** Runs `fn` with a fresh server on port 0 and always shuts it down. */
/** Runs `fn` with a fresh server on port 0 and always shuts it down. */
async function withServer(fn, options) {
  const server = await api.stubServer(0, options);
  try {
    await fn(server);
  } finally {
    await server.shutdown();
  }
}

describe("npm package: stubServer() on Node", { concurrency: true }, () => {
  it("binds port 0 to an OS-assigned port and reports it as getPort() and url", async () => {
    await withServer((server) => {
      assert.ok(Number.isInteger(server.getPort()) && server.getPort() > 0);
      assert.equal(server.url, `http://127.0.0.1:${server.getPort()}`);
    });
  });

  it("answers health on the reserved endpoint", async () => {
    await withServer(async (server) => {
      const health = await send(server, "GET", "/__stubtool__/health");
      assert.equal(health.status, 200);
      assert.deepEqual(health.json, { status: "ok" });
    });
  });

  it("serves status, JSON body and path placeholders", async () => {
    await withServer(async (server) => {
      const { get, post } = api;
      server.routes(
        get("/users/{id}").status(200).body({ id: "{id}", label: "user {id}", keep: "{unknown}", n: 1 }),
        post("/orders").status(201).body({ created: true }),
        get("/empty").status(204),
      );
      const user = await send(server, "GET", "/users/42");
      assert.equal(user.status, 200);
      assert.equal(user.headers.get("content-type"), "application/json");
      assert.deepEqual(user.json, { id: "42", label: "user 42", keep: "{unknown}", n: 1 });
      const decoded = await send(server, "GET", "/users/a%20b");
      assert.equal(decoded.json.id, "a b");
      const order = await send(server, "POST", "/orders", { body: "{}" });
      assert.equal(order.status, 201);
      assert.deepEqual(order.json, { created: true });
      const empty = await send(server, "GET", "/empty");
      assert.equal(empty.status, 204);
      assert.equal(empty.text, "");
    });
  });

  it("every method helper and route() build stubs for their method", async () => {
    await withServer(async (server) => {
      const { del, head, options, patch, put, route } = api;
      server.routes(
        put("/r").body({ m: "PUT" }),
        patch("/r").body({ m: "PATCH" }),
        del("/r").body({ m: "DELETE" }),
        options("/r").status(204).header("allow", "GET"),
        head("/r").header("x-head", "yes"),
        route("post", "/r").body({ m: "POST" }),
      );
      for (const method of ["PUT", "PATCH", "DELETE", "POST"]) {
        assert.deepEqual((await send(server, method, "/r")).json, { m: method });
      }
      assert.equal((await send(server, "OPTIONS", "/r")).headers.get("allow"), "GET");
      assert.equal((await send(server, "HEAD", "/r")).headers.get("x-head"), "yes");
    });
  });

  it("captures query parameters and requires literal ones", async () => {
    await withServer(async (server) => {
      const { get } = api;
      server.routes(
        get("/search?q={term}").body({ term: "{term}" }),
        get("/list?sort=asc").body({ sorted: true }),
      );
      assert.deepEqual((await send(server, "GET", "/search?q=shoes&page=2")).json, { term: "shoes" });
      assert.equal((await send(server, "GET", "/search")).status, 404);
      assert.deepEqual((await send(server, "GET", "/list?sort=asc")).json, { sorted: true });
      assert.equal((await send(server, "GET", "/list?sort=desc")).status, 404);
    });
  });

  it("sets headers (with placeholders) and sends text bodies as is", async () => {
    await withServer(async (server) => {
      const { get } = api;
      server.routes(
        get("/files/{name}")
          .header("x-name", "{name}")
          .headers({ "cache-control": "no-store", "content-type": "text/plain" })
          .body("file {name}"),
        get("/cookies").headers({ "set-cookie": "a=1" }).body({}),
      );
      const file = await send(server, "GET", "/files/report.txt");
      assert.equal(file.headers.get("x-name"), "report.txt");
      assert.equal(file.headers.get("cache-control"), "no-store");
      assert.equal(file.headers.get("content-type"), "text/plain");
      assert.equal(file.text, "file report.txt");
      assert.deepEqual((await fetch(server.url + "/cookies")).headers.getSetCookie(), ["a=1"]);
    });
  });

  it("answers HEAD from the GET stub without a body, counting the GET stub's hit", async () => {
    await withServer(async (server) => {
      server.routes(api.get("/users/{id}").body({ id: "{id}" }));
      const answer = await send(server, "HEAD", "/users/1");
      assert.equal(answer.status, 200);
      assert.equal(answer.text, "");
      assert.equal((await server.report()).stubs[0].hit_count, 1);
    });
  });

  it("delays fixed and ranged", async () => {
    await withServer(async (server) => {
      const { get } = api;
      server.routes(get("/slow").delay(200).body({ slow: true }), get("/range").delay(50, 120).body({}));
      let started = performance.now();
      assert.deepEqual((await send(server, "GET", "/slow")).json, { slow: true });
      assert.ok(performance.now() - started >= 190, "fixed delay");
      started = performance.now();
      await send(server, "GET", "/range");
      const elapsed = performance.now() - started;
      assert.ok(elapsed >= 45 && elapsed < 1000, `ranged delay took ${elapsed} ms`);
    });
  });

  it("plays sequences: repeat-last by default, cycle on request", async () => {
    await withServer(async (server) => {
      const { get } = api;
      server.routes(
        get("/flaky").sequence({ status: 503 }, { status: 200, body: { ok: true } }),
        get("/cycle").sequence({ body: { n: 1 } }, { body: { n: 2 } }).sequenceMode("cycle"),
      );
      const statuses = [];
      for (let i = 0; i < 3; i++) statuses.push((await send(server, "GET", "/flaky")).status);
      assert.deepEqual(statuses, [503, 200, 200]);
      const ns = [];
      for (let i = 0; i < 3; i++) ns.push((await send(server, "GET", "/cycle")).json.n);
      assert.deepEqual(ns, [1, 2, 1]);
    });
  });

  it("responseFunc receives payload, lower-cased headers, params and query lists", async () => {
    await withServer(async (server) => {
      const { post } = api;
      server.routes(
        post("/orders/{id}").responseFunc(({ payload, headers, params, queryParams }) => [
          201,
          { payload, auth: headers.authorization, id: params.id, tags: queryParams.tag },
          { "x-order": params.id },
        ]),
        post("/login").responseFunc(({ headers }) =>
          headers.authorization ? [200, { ok: true }] : [401, { error: "unauthorized" }]
        ),
      );
      const order = await send(server, "POST", "/orders/7?tag=a&tag=b", {
        body: JSON.stringify({ n: 1 }),
        headers: { Authorization: "Bearer t", "content-type": "application/json" },
      });
      assert.equal(order.status, 201);
      assert.equal(order.headers.get("x-order"), "7");
      assert.deepEqual(order.json, { payload: { n: 1 }, auth: "Bearer t", id: "7", tags: ["a", "b"] });
      assert.equal((await send(server, "POST", "/login")).status, 401);
      assert.equal((await send(server, "POST", "/login", { headers: { authorization: "x" } })).status, 200);
      const notJson = await send(server, "POST", "/orders/8", { body: "not json" });
      assert.equal(notJson.json.payload, null);
    });
  });

  it("responseFunc may be async and combined with delay", async () => {
    await withServer(async (server) => {
      server.routes(
        api.get("/async/{id}").delay(150).responseFunc(async ({ params }) => {
          await sleep(30);
          return [202, { id: params.id, async: true }];
        }),
      );
      const started = performance.now();
      const answer = await send(server, "GET", "/async/9");
      assert.ok(performance.now() - started >= 170, "delay and the function's own wait both count");
      assert.equal(answer.status, 202);
      assert.deepEqual(answer.json, { id: "9", async: true });
    });
  });

  it("a responseFunc that throws or returns garbage yields 500 JSON, counts the hit, and the server goes on", async () => {
    await withServer(async (server) => {
      const { get } = api;
      server.routes(
        get("/boom").responseFunc(() => {
          throw new Error("boom");
        }),
        get("/garbage").responseFunc(() => "nope"),
        get("/ok").body({ ok: true }),
      );
      const boom = await send(server, "GET", "/boom");
      assert.equal(boom.status, 500);
      assert.match(boom.json.error, /boom/);
      assert.equal(boom.json.stub, "GET /boom");
      assert.equal((await send(server, "GET", "/garbage")).status, 500);
      assert.equal((await send(server, "GET", "/ok")).status, 200);
      const hits = Object.fromEntries((await server.report()).stubs.map((s) => [s.path, s.hit_count]));
      assert.deepEqual(hits, { "/boom": 1, "/garbage": 1, "/ok": 1 });
    });
  });

  it("no match: 404 JSON naming the closest stubs and why, recorded as unmatched", async () => {
    await withServer(async (server) => {
      const { get, post } = api;
      server.routes(get("/items"), post("/orders"), get("/search?q={term}"));
      const wrongMethod = await send(server, "POST", "/items?x=1");
      assert.equal(wrongMethod.status, 404);
      assert.equal(wrongMethod.json.error, "no stub matched");
      assert.equal(wrongMethod.json.method, "POST");
      assert.equal(wrongMethod.json.path, "/items");
      assert.equal(wrongMethod.json.query, "x=1");
      assert.ok(wrongMethod.json.closest.length <= 3);
      assert.deepEqual(wrongMethod.json.closest[0], {
        method: "GET",
        path: "/items",
        reason: "method differs (stub is GET)",
        id: "stub-1",
        place: "api",
      });
      const missing = await send(server, "GET", "/search");
      assert.ok(missing.json.closest.some((c) => c.path === "/search" && /missing query parameter 'q'/.test(c.reason)));
      const report = await server.report();
      assert.equal(report.summary.unmatched_requests, 2);
    });
  });

  it("report(): exactly the documented keys, stubs in declaration order, equal to the HTTP report", async () => {
    await withServer(async (server) => {
      const { get, post } = api;
      server.routes(get("/a").body({}), post("/b"), get("/q?x={x}"));
      await send(server, "GET", "/a");
      await send(server, "GET", "/a");
      await send(server, "GET", "/nowhere?z=1");
      await send(server, "DELETE", "/gone");
      const report = await server.report();
      assert.deepEqual(Object.keys(report).sort(), ["stubs", "summary", "unmatched_requests", "unused_stubs"]);
      assert.deepEqual(report.summary, { total_stubs: 3, matched_stubs: 1, unmatched_requests: 2 });
      assert.deepEqual(report.stubs, [
        { id: "stub-1", method: "GET", path: "/a", hit_count: 2 },
        { id: "stub-2", method: "POST", path: "/b", hit_count: 0 },
        { id: "stub-3", method: "GET", path: "/q", hit_count: 0, query_params: { x: "{x}" } },
      ]);
      assert.deepEqual(report.unused_stubs, [
        { id: "stub-2", method: "POST", path: "/b" },
        { id: "stub-3", method: "GET", path: "/q", query_params: { x: "{x}" } },
      ]);
      const [first, second] = report.unmatched_requests;
      assert.deepEqual(Object.keys(first).sort(), ["method", "path", "query", "timestamp"]);
      assert.deepEqual({ ...first, timestamp: 0 }, { method: "GET", path: "/nowhere", query: "z=1", timestamp: 0 });
      assert.match(first.timestamp, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      assert.deepEqual(Object.keys(second).sort(), ["method", "path", "timestamp"]);
      assert.deepEqual((await send(server, "GET", "/__stubtool__/report")).json, report);
    });
  });

  it("reset() zeroes hits, clears unmatched and restarts sequences; so does POST /__stubtool__/reset", async () => {
    await withServer(async (server) => {
      server.routes(api.get("/seq").sequence({ body: { n: 1 } }, { body: { n: 2 } }));
      await send(server, "GET", "/seq");
      await send(server, "GET", "/missing");
      await server.reset();
      let report = await server.report();
      assert.equal(report.stubs[0].hit_count, 0);
      assert.equal(report.summary.unmatched_requests, 0);
      assert.deepEqual(report.unmatched_requests, []);
      assert.equal((await send(server, "GET", "/seq")).json.n, 1);
      assert.equal((await send(server, "POST", "/__stubtool__/reset")).status, 204);
      report = await server.report();
      assert.equal(report.stubs[0].hit_count, 0);
    });
  });

  it("resetStubs() and POST /__stubtool__/stubs/reset bring back the stubs the server started with", async () => {
    const stubs = [api.get("/flags").id("flags").body({ beta: false }).toStub()];
    await withServer(async (server) => {
      server.routes(api.get("/flags").body({ beta: true }));
      assert.deepEqual((await send(server, "GET", "/flags")).json, { beta: true });
      await server.resetStubs();
      assert.deepEqual((await send(server, "GET", "/flags")).json, { beta: false });
      assert.equal((await send(server, "DELETE", "/__stubtool__/stubs/flags")).status, 204);
      assert.equal((await send(server, "POST", "/__stubtool__/stubs/reset")).status, 204);
      const listed = (await send(server, "GET", "/__stubtool__/stubs")).json.stubs;
      assert.deepEqual(listed.map((s) => [s.id, s.source, s.hit_count]), [["flags", "config", 0]]);
    }, { stubs });
  });

  it("the admin API reads body_file only inside filesRoot; without it, not at all", async () => {
    const top = mkdtempSync(join(tmpdir(), "stubtool-files-"));
    try {
      writeFileSync(join(top, "in.txt"), "inside");
      const add = (server, body_file) =>
        send(server, "POST", "/__stubtool__/stubs", {
          body: JSON.stringify({ method: "GET", path: "/f", body_file }),
          headers: { "content-type": "application/json" },
        });
      await withServer(async (server) => {
        const refused = await add(server, join(top, "in.txt"));
        assert.equal(refused.status, 400);
        assert.match(refused.json.problems[0].message, /^body_file is not read over the admin API/);
      });
      mkdirSync(join(top, "root"));
      await withServer(async (server) => {
        assert.equal((await add(server, "../in.txt")).status, 400);
        writeFileSync(join(top, "root", "in.txt"), "inside");
        assert.equal((await add(server, "in.txt")).status, 201);
        assert.equal((await send(server, "GET", "/f")).text, "inside");
      }, { filesRoot: join(top, "root") });
    } finally {
      rmSync(top, { recursive: true });
    }
  });

  it("routes() after start take effect for the next request", async () => {
    await withServer(async (server) => {
      assert.equal((await send(server, "GET", "/late")).status, 404);
      // routes() returns the new stubs' ids.
      assert.deepEqual(server.routes(api.get("/late").body({ late: true })), ["stub-1"]);
      assert.deepEqual((await send(server, "GET", "/late")).json, { late: true });
    });
  });

  it("builders reject bad input at once with a TypeError that says what to write", async () => {
    const { get, route } = api;
    assert.throws(
      () => get("/x").status(999),
      (error) => error instanceof TypeError && /status\(999\)/.test(error.message),
    );
    assert.throws(() => route("FETCH", "/x"), /invalid method 'FETCH'/);
    assert.throws(() => get("/x").delay(-1), TypeError);
    await withServer((server) => {
      assert.throws(() => server.routes(get("/__stubtool__/mine")), TypeError);
      assert.equal(server.handler.registry.stubs.length, 0, "a rejected routes() call adds nothing");
    });
  });

  it("runs two servers in one process, each with its own state", async () => {
    const { get } = api;
    const a = await api.stubServer(0);
    const b = await api.stubServer(0);
    try {
      assert.notEqual(a.getPort(), b.getPort());
      a.routes(get("/who").body({ server: "a" }));
      b.routes(get("/who").body({ server: "b" }));
      assert.deepEqual((await send(a, "GET", "/who")).json, { server: "a" });
      assert.deepEqual((await send(a, "GET", "/who")).json, { server: "a" });
      assert.deepEqual((await send(b, "GET", "/who")).json, { server: "b" });
      assert.equal((await a.report()).stubs[0].hit_count, 2);
      assert.equal((await b.report()).stubs[0].hit_count, 1);
      await a.shutdown();
      assert.deepEqual((await send(b, "GET", "/who")).json, { server: "b" }, "b outlives a");
    } finally {
      await a.shutdown();
      await b.shutdown();
    }
  });

  it("rejects a port that is in use, and a port out of range", async () => {
    await withServer(async (server) => {
      await assert.rejects(api.stubServer(server.getPort()), /EADDRINUSE/);
    });
    await assert.rejects(api.stubServer(70000), RangeError);
  });

  it("plain JavaScript gets told about a port given as a string and a misspelt option", async () => {
    await assert.rejects(api.stubServer("8080"), {
      name: "TypeError",
      message:
        'stubServer(port): port must be an integer from 0 to 65535 (0 lets the OS choose), got "8080" (a string)',
    });
    await assert.rejects(api.stubServer(0, { journalsize: 5 }), {
      name: "TypeError",
      message: "stubServer(port, options): unknown option 'journalsize' (did you mean 'journalSize'?)",
    });
  });

  it("shutdown lets in-flight responses finish, frees the port, and is safe to call twice", async () => {
    const server = await api.stubServer(0);
    server.routes(api.get("/slow").delay(1000).body({ done: true }), api.get("/fast").body({}));
    await send(server, "GET", "/fast"); // leaves an idle keep-alive connection behind
    const sent = performance.now();
    const pending = fetch(server.url + "/slow");
    await untilHit(server, "/slow"); // in flight: matched, waiting out its delay
    const started = performance.now();
    await server.shutdown();
    const done = performance.now();
    const answer = await pending;
    assert.equal(answer.status, 200);
    assert.deepEqual(await answer.json(), { done: true });
    // The stop waited for the answer: it ended no sooner than the answer's 1 s delay allows.
    assert.ok(done - sent >= 950 && done - started < 3000, `shutdown ended ${done - sent} ms after the request`);
    await assert.rejects(fetch(server.url + "/fast"));
    await server.shutdown();
  });

  it("shutdown cuts delays and hanging response functions short after the 5 s grace", async () => {
    const server = await api.stubServer(0);
    server.routes(
      api.get("/hang").responseFunc(() => new Promise(() => {})),
      api.get("/long").delay(60_000).body({ long: true }),
    );
    const hang = fetch(server.url + "/hang");
    const long = fetch(server.url + "/long");
    await sleep(100);
    const started = performance.now();
    await server.shutdown();
    const elapsed = performance.now() - started;
    assert.ok(elapsed >= 4_900 && elapsed < 8_000, `shutdown took ${elapsed} ms`);
    assert.equal((await hang).status, 503);
    const longAnswer = await long;
    assert.equal(longAnswer.status, 200);
    assert.deepEqual(await longAnswer.json(), { long: true });
  });

  it("Symbol.asyncDispose shuts the server down (what `await using` calls)", async () => {
    const server = await api.stubServer(0);
    assert.equal(typeof Symbol.asyncDispose, "symbol");
    assert.equal(typeof server[Symbol.asyncDispose], "function");
    await server[Symbol.asyncDispose]();
    await assert.rejects(fetch(server.url + "/"));
  });

  it("journal() and GET /__stubtool__/requests list recent requests; GET /__stubtool__/ serves the dashboard", async () => {
    await withServer(async (server) => {
      server.routes(api.get("/a").status(204));
      await send(server, "GET", "/a");
      await send(server, "GET", "/b?x=1");
      const journal = await server.journal();
      assert.equal(journal.capacity, 3);
      assert.deepEqual(journal.requests.map((r) => [r.target, r.status, r.stub ?? null]), [
        ["/a", 204, "GET /a"],
        ["/b?x=1", 404, null],
      ]);
      assert.deepEqual((await send(server, "GET", "/__stubtool__/requests")).json, journal);
      // The page module ships in the package and loads on the first visit.
      const page = await send(server, "GET", "/__stubtool__/");
      assert.equal(page.status, 200);
      assert.equal(page.headers.get("content-type"), "text/html; charset=utf-8");
      assert.match(page.text, /<strong>1 of 1<\/strong> stub exercised \(100%\)/);
      assert.match(page.text, /<code>\/b\?x=1<\/code>/);
    }, { journalSize: 3 });
  });
});

describe("npm package: Node adapter robustness", { concurrency: true }, () => {
  it("a client that aborts during a delay neither crashes the server nor corrupts counts", async () => {
    await withServer(async (server) => {
      server.routes(api.get("/slow").delay(300).body({}), api.get("/ok").body({ ok: true }));
      const controller = new AbortController();
      const aborted = fetch(server.url + "/slow", { signal: controller.signal });
      await untilHit(server, "/slow"); // the server took it and is waiting out the delay
      controller.abort();
      await assert.rejects(aborted);
      await sleep(400);
      assert.equal((await send(server, "GET", "/ok")).status, 200);
      const hits = Object.fromEntries((await server.report()).stubs.map((s) => [s.path, s.hit_count]));
      assert.deepEqual(hits, { "/slow": 1, "/ok": 1 });
    });
  });

  it("a client that aborts while uploading to a response function leaves the server serving", async () => {
    await withServer(async (server) => {
      server.routes(api.post("/upload").responseFunc(({ payload }) => [200, { payload }]));
      const answer = await raw(
        server,
        'POST /upload HTTP/1.1\r\nhost: x\r\ncontent-length: 1000\r\n\r\n{"partial":',
        100,
      );
      assert.equal(answer, "");
      const ok = await send(server, "POST", "/upload", { body: '{"n":1}' });
      assert.deepEqual(ok.json, { payload: { n: 1 } });
    });
  });

  it("malformed requests get a JSON 400, oversized headers a JSON 431", async () => {
    await withServer(async (server) => {
      const garbage = await raw(server, "THIS IS NOT HTTP\r\n\r\n");
      assert.match(garbage, /^HTTP\/1\.1 400 /);
      assert.match(garbage, /content-type: application\/json/i);
      assert.ok(JSON.parse(garbage.slice(garbage.indexOf("\r\n\r\n") + 4)).error);
      const huge = await raw(server, `GET / HTTP/1.1\r\nhost: x\r\nx-big: ${"a".repeat(32 * 1024)}\r\n\r\n`);
      assert.match(huge, /^HTTP\/1\.1 431 /);
      assert.equal((await send(server, "GET", "/__stubtool__/health")).status, 200);
    });
  });

  it("odd request targets: absolute-form keeps its path, bad escapes are answered, not thrown", async () => {
    await withServer(async (server) => {
      server.routes(api.get("/users/{id}").body({ id: "{id}" }));
      const absolute = await raw(server, "GET http://elsewhere.example/users/5 HTTP/1.1\r\nhost: x\r\n\r\n");
      assert.match(absolute, /^HTTP\/1\.1 200 /);
      assert.match(absolute, /\{"id":"5"\}/);
      const badEscape = await send(server, "GET", "/users/%E0%A4%A");
      assert.ok([200, 400, 404].includes(badEscape.status), `got ${badEscape.status}`);
      assert.equal(badEscape.headers.get("content-type"), "application/json");
      assert.equal((await send(server, "GET", "/users/6")).json.id, "6");
    });
  });

  it("an unread request body does not break the keep-alive connection", async () => {
    await withServer(async (server) => {
      server.routes(api.post("/static").body({ static: true }));
      const answer = await raw(
        server,
        "POST /static HTTP/1.1\r\nhost: x\r\ncontent-length: 5\r\n\r\nhello" +
          "POST /static HTTP/1.1\r\nhost: x\r\ncontent-length: 0\r\n\r\n",
      );
      assert.equal(answer.match(/HTTP\/1\.1 200 /g)?.length, 2, answer);
    });
  });

  it("wire details match Deno: standard reason phrases, HEAD carries the GET's length, a raw #fragment is dropped", async () => {
    await withServer(async (server) => {
      server.routes(
        api.get("/a").body({ a: "é" }),
        api.get("/throws").responseFunc(() => {
          throw new Error("boom");
        }),
      );
      const close = "host: x\r\nconnection: close\r\n\r\n";
      assert.match(await raw(server, `GET /throws HTTP/1.1\r\n${close}`), /^HTTP\/1\.1 500 Internal Server Error\r\n/);
      assert.match(await raw(server, `GET /missing HTTP/1.1\r\n${close}`), /^HTTP\/1\.1 404 Not Found\r\n/);
      const headed = await raw(server, `HEAD /a HTTP/1.1\r\n${close}`);
      assert.match(headed, /^HTTP\/1\.1 200 OK\r\n/);
      assert.match(headed, /\r\ncontent-length: 10\r\n/i);
      assert.ok(headed.endsWith("\r\n\r\n"), headed);
      const fragment = await raw(server, `GET /a#x HTTP/1.1\r\n${close}`);
      assert.match(fragment, /^HTTP\/1\.1 200 OK\r\n/);
    });
  });

  it("regression: 30 clients each uploading 2x maxBody all read the 413 (half got EPIPE: the socket was reset with unread data)", async () => {
    // The default limit, 10 MiB: what is left of each upload after the 413 outgrows the
    // socket buffers, so the client is still writing when the server closes.
    const maxBody = 10 * 1024 * 1024;
    await withServer(async (server) => {
      server.routes(api.post("/upload").responseFunc(() => [200, { read: true }]));
      const statuses = await Promise.all(
        Array.from({ length: 30 }, () => chunkedUpload(server.getPort(), "/upload", 2 * maxBody)),
      );
      assert.deepEqual(statuses, Array(30).fill("413"));
      assert.equal((await send(server, "GET", "/__stubtool__/health")).status, 200);
    }, { maxBody });
  });

  it("regression: a client that writes its whole 12 MB body before reading gets the 413 JSON, declared or chunked (it got a broken pipe)", async () => {
    await withServer(async (server) => {
      server.routes(api.post("/upload").body({}), api.post("/fn").responseFunc(() => [200, { read: true }]));
      const tooLarge =
        'HTTP/1.1 413 Payload Too Large {"error":"request body is larger than 10485760 bytes (--max-body)"}';
      assert.equal(await uploadThenRead(server.getPort(), "/upload", 12_000_000, false), tooLarge);
      assert.equal(await uploadThenRead(server.getPort(), "/fn", 12_000_000, true), tooLarge);
    });
  });

  it("regression: a connection that sent nothing does not hold shutdown for the 5 s grace", async () => {
    for (const options of [{}, { tls: "self-signed" }]) {
      const server = await api.stubServer(0, options);
      const socket = connect(server.getPort(), "127.0.0.1");
      socket.on("error", () => {});
      await new Promise((resolve) => socket.once("connect", resolve));
      let timer;
      const late = new Promise((resolve) => timer = setTimeout(() => resolve("still stopping after 2 s"), 2_000));
      const outcome = await Promise.race([server.shutdown().then(() => "stopped"), late]);
      clearTimeout(timer);
      socket.destroy();
      await server.shutdown();
      assert.equal(outcome, "stopped", JSON.stringify(options));
    }
  });

  it("bodies over maxBody get a JSON 413, declared or streamed", async () => {
    await withServer(async (server) => {
      server.routes(api.post("/upload").responseFunc(({ payload }) => [200, { payload }]), api.post("/static"));
      const big = "x".repeat(4096);
      const declared = await send(server, "POST", "/upload", { body: big });
      assert.equal(declared.status, 413);
      assert.match(declared.json.error, /larger than 1024 bytes/);
      assert.equal((await send(server, "POST", "/static", { body: big })).status, 413);
      const stream = new ReadableStream({
        start(controller) {
          for (let i = 0; i < 8; i++) controller.enqueue(new TextEncoder().encode(big.slice(0, 512)));
          controller.close();
        },
      });
      const streamed = await send(server, "POST", "/upload", { body: stream, duplex: "half" });
      assert.equal(streamed.status, 413);
      assert.deepEqual((await send(server, "POST", "/upload", { body: '{"small":1}' })).json, {
        payload: { small: 1 },
      });
    }, { maxBody: 1024 });
  });
});

describe("npm package: scenarios, templates and callbacks on Node", { concurrency: true }, () => {
  it("walks a scenario per x-stubtool-scope and answers the scenarios endpoints", async () => {
    await withServer(async (server) => {
      const { get, post } = api;
      server.routes(
        get("/cart").inScenario("cart").whenState("Started").body({ items: [] }),
        post("/cart").inScenario("cart").whenState("Started").setState("has-item").status(201),
        get("/cart").inScenario("cart").whenState("has-item").body({ items: ["book"] }),
      );
      const scoped = (scope) => ({ headers: { "x-stubtool-scope": scope } });
      assert.equal((await send(server, "POST", "/cart", scoped("w1"))).status, 201);
      assert.deepEqual((await send(server, "GET", "/cart", scoped("w1"))).json, { items: ["book"] });
      assert.deepEqual((await send(server, "GET", "/cart", scoped("w2"))).json, { items: [] });
      assert.deepEqual((await send(server, "GET", "/cart")).json, { items: [] });
      assert.deepEqual((await send(server, "GET", "/__stubtool__/scenarios")).json, {
        scenarios: [
          { name: "cart", state: "Started", states: ["Started", "has-item"] },
          { name: "cart", state: "has-item", states: ["Started", "has-item"], scope: "w1" },
        ],
      });
      const put = await send(server, "PUT", "/__stubtool__/scenarios/cart", { body: '{"state":"has-item"}' });
      assert.deepEqual([put.status, put.text], [200, '{"name":"cart","state":"has-item"}']);
      assert.equal((await send(server, "PUT", "/__stubtool__/scenarios/nope", { body: '{"state":"x"}' })).status, 404);
      assert.equal((await send(server, "PUT", "/__stubtool__/scenarios/cart", { body: '{"state":"x"}' })).status, 422);
      assert.deepEqual((await send(server, "GET", "/cart")).json, { items: ["book"] });
      assert.equal((await send(server, "POST", "/__stubtool__/scenarios/reset")).status, 204);
      assert.deepEqual((await send(server, "GET", "/cart", scoped("w1"))).json, { items: [] });
      assert.deepEqual(await server.scenarios(), [{ name: "cart", state: "Started", states: ["Started", "has-item"] }]);
    });
  });

  it("renders a template stub (request model, helpers, status) and answers 500 naming a failing helper", async () => {
    await withServer(async (server) => {
      const { get, post } = api;
      server.routes(
        post("/shops/{shop}/orders").template().status("{{#if request.json.sku}}201{{else}}400{{/if}}")
          .header("x-shop", "{{params.shop}}")
          .body({
            shop: "{{params.shop}}",
            sku: "{{upper request.json.sku}}",
            q: "{{request.query.a.[1]}}",
            plain: "{shop}",
          }),
        get("/ratio").template().body({ r: "{{math request.query.a '/' request.query.b}}" }),
      );
      const made = await send(server, "POST", "/shops/paris/orders?a=1&a=2", { body: '{"sku":"a-1"}' });
      assert.deepEqual([made.status, made.headers.get("x-shop"), made.json], [201, "paris", {
        shop: "paris",
        sku: "A-1",
        q: "2",
        plain: "{shop}",
      }]);
      assert.equal((await send(server, "POST", "/shops/paris/orders", { body: "{}" })).status, 400);
      const failed = await send(server, "GET", "/ratio?a=1&b=0");
      assert.equal(failed.status, 500);
      assert.deepEqual(failed.json, {
        error: "template failed: math: division by zero",
        stub: "GET /ratio",
        helper: "math",
      });
    });
  });

  it("callbackCa: a callback to an https receiver with a self-signed certificate goes out; without it the error names --callback-ca", async () => {
    const receiver = await api.stubServer(0, { tls: "self-signed" });
    try {
      receiver.routes(api.post("/hook").status(202));
      for (const [options, expected] of [[{ callbackCa: receiver.certificate }, 202], [{}, "untrusted"]]) {
        await withServer(async (server) => {
          server.routes(api.get("/go").callback("POST", `${receiver.url}/hook`, { body: "hi" }));
          assert.equal((await send(server, "GET", "/go")).status, 200);
          let records = [];
          while (records.length === 0) {
            await sleep(10);
            records = (await send(server, "GET", "/__stubtool__/callbacks")).json.callbacks;
          }
          if (expected === 202) assert.equal(records[0].status, 202, records[0].error);
          else assert.match(records[0].error, /pass its PEM certificate with serve --callback-ca FILE\)$/);
        }, options);
      }
    } finally {
      await receiver.shutdown();
    }
  });

  it("sends a callback to a second server after the answer and records it", async () => {
    const received = [];
    const receiver = createServer((req, res) => {
      let body = "";
      req.on("data", (chunk) => body += chunk);
      req.on("end", () => {
        received.push({ method: req.method, url: req.url, body });
        res.writeHead(204).end();
      });
    });
    await new Promise((resolve) => receiver.listen(0, "127.0.0.1", resolve));
    try {
      const base = `http://127.0.0.1:${receiver.address().port}`;
      await withServer(async (server) => {
        server.routes(
          api.post("/orders/{id}").id("order-created").status(202)
            .callback("POST", `${base}/hooks/{id}?e=created`, { body: { id: "{id}" } }),
        );
        assert.equal((await send(server, "POST", "/orders/o-1")).status, 202);
        let records = [];
        while (records.length === 0) {
          await sleep(10);
          records = (await send(server, "GET", "/__stubtool__/callbacks")).json.callbacks;
        }
        assert.deepEqual(received, [{ method: "POST", url: "/hooks/o-1?e=created", body: '{"id":"o-1"}' }]);
        assert.deepEqual(Object.keys(records[0]), [
          "stub",
          "method",
          "url",
          "headers",
          "body",
          "status",
          "duration_ms",
          "at",
        ]);
        assert.deepEqual([records[0].stub, records[0].method, records[0].url, records[0].status], [
          "order-created",
          "POST",
          `${base}/hooks/o-1?e=created`,
          204,
        ]);
      });
    } finally {
      receiver.close();
    }
  });
});
