/**
 * Faults and throttling, seen by a raw socket and by fetch on both adapters: a
 * client must see a network error or a cut body, never a complete answer.
 */
import assert from "node:assert/strict";
import { connect } from "node:net";
import { get, stubServer } from "../mod.ts";
import { validateConfig } from "../src/stubs/validate.ts";
import { ADAPTERS } from "./_http.ts";

/** Sends one request over a raw socket and returns everything until the server closes it. */
function raw(port: number, path: string): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect(port, "127.0.0.1", () => socket.write(`GET ${path} HTTP/1.1\r\nHost: x\r\n\r\n`));
    let data = "";
    socket.on("data", (chunk) => data += chunk);
    socket.on("close", () => resolve(data));
    socket.on("error", () => {});
  });
}

const BODY = { text: "x".repeat(1000) };
const BODY_TEXT = JSON.stringify(BODY);

for (const adapter of ADAPTERS) {
  Deno.test(`[${adapter}] fault: disconnect closes the connection before a complete answer`, async () => {
    await using server = await stubServer(0, { adapter });
    server.routes(get("/gone").fault("disconnect").body(BODY), get("/fine").body("ok"));
    const seen = await raw(server.getPort(), "/gone");
    if (adapter === "node") assert.equal(seen, "", "on Node not a byte of the answer goes out");
    else {
      // Deno.serve cannot drop a connection before answering: status and headers, then the end.
      assert.match(seen, /^HTTP\/1\.1 200 OK\r\n/);
      assert.ok(!seen.includes(BODY_TEXT));
      assert.ok(!seen.endsWith("0\r\n\r\n"), "no last chunk: the answer never completes");
    }
    await assert.rejects(async () => await (await fetch(`${server.url}/gone`)).text());
    assert.equal(await (await fetch(`${server.url}/fine`)).json(), "ok", "the server goes on");
    assert.equal((await server.report()).stubs[0].hit_count, 2);
  });

  Deno.test(`[${adapter}] fault: truncate sends the whole body's length, then half the body, then closes`, async () => {
    await using server = await stubServer(0, { adapter });
    server.routes(get("/half").fault("truncate").body(BODY));
    const seen = await raw(server.getPort(), "/half");
    const [head, body] = seen.split("\r\n\r\n");
    assert.match(head, /^HTTP\/1\.1 200 OK\r\n/);
    assert.match(head.toLowerCase(), new RegExp(`\r\ncontent-length: ${BODY_TEXT.length}(\r\n|$)`));
    assert.equal(body, BODY_TEXT.slice(0, BODY_TEXT.length / 2));
    await assert.rejects(async () => await (await fetch(`${server.url}/half`)).text());
  });

  Deno.test(`[${adapter}] throttle sends the body at the rate given`, async () => {
    await using server = await stubServer(0, { adapter });
    const big = "y".repeat(20_000);
    server.routes(get("/slow").throttle(40_000).header("content-type", "text/plain").body(big));
    const start = performance.now();
    const response = await fetch(`${server.url}/slow`);
    assert.equal(await response.text(), big);
    const seconds = (performance.now() - start) / 1000;
    // 20,000 bytes at 40,000 B/s: half a second (the first piece leaves at once).
    assert.ok(seconds > 0.35 && seconds < 2, `took ${seconds.toFixed(2)} s`);
    assert.equal(response.headers.get("content-length"), "20000");
  });
}

Deno.test("fault and throttle are checked; disconnect on Deno is a [WARN] that says what Deno sends", () => {
  const check = (raw: Record<string, unknown>) =>
    validateConfig({ routes: [{ method: "GET", path: "/a", ...raw }] }).problems;
  assert.deepEqual(check({ fault: "explode" }), [
    { level: "error", place: "routes[0]", message: `fault must be 'disconnect' or 'truncate', got "explode"` },
  ]);
  assert.deepEqual(check({ throttle: 0.5 }), [
    {
      level: "error",
      place: "routes[0]",
      message: "throttle must be a whole number of bytes per second (1 or more), got 0.5",
    },
  ]);
  assert.deepEqual(check({ proxy: "http://x.test", fault: "truncate" }), [
    { level: "error", place: "routes[0]", message: "fault applies to a stub's own answer, not to a proxy" },
  ]);
  assert.deepEqual(check({ fault: "disconnect" }).map((p) => [p.level, p.message.split(" (")[0]]), [
    ["warn", "fault: disconnect on Deno sends the status line and headers before the connection closes"],
  ]);
});
