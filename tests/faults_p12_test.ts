/**
 * Faults and throttling, seen by a raw socket and by fetch on both adapters: a
 * client must see a network error or a cut body, never a complete answer.
 */
import assert from "node:assert/strict";
import { connect } from "node:net";
import { get, stubServer } from "../mod.ts";
import { denoWireWarnings, validateConfig } from "../src/stubs/validate.ts";
import { ADAPTERS } from "./_http.ts";

/** Sends one request over a raw socket and returns everything until the server closes it. */
async function raw(port: number, path: string): Promise<string> {
  return (await rawSeen(port, path)).text;
}

/** Sends one request over a raw socket: every byte (as Latin-1) until the server closes it, and the socket's error code. */
function rawSeen(port: number, path: string): Promise<{ text: string; error: string | undefined }> {
  return new Promise((resolve) => {
    const socket = connect(port, "127.0.0.1", () => socket.write(`GET ${path} HTTP/1.1\r\nHost: x\r\n\r\n`));
    let text = "";
    let error: string | undefined;
    socket.on("data", (chunk) => text += chunk.toString("latin1"));
    socket.on("close", () => resolve({ text, error }));
    socket.on("error", (e: Error & { code?: string }) => error = e.code);
  });
}

/** WireMock's bytes for MALFORMED_RESPONSE_CHUNK and RANDOM_DATA_THEN_CLOSE. */
const GARBAGE = "lskdu018973t09sylgasjkfg1][]'./.sdlv";

Deno.test("[node] fault: reset is a TCP reset before any byte (the client sees ECONNRESET)", async () => {
  await using server = await stubServer(0);
  server.routes(get("/reset").fault("reset").body(BODY), get("/fine").body("ok"));
  assert.deepEqual(await rawSeen(server.getPort(), "/reset"), { text: "", error: "ECONNRESET" });
  assert.equal(await (await fetch(`${server.url}/fine`)).json(), "ok", "the server goes on");
});

Deno.test("[node] fault: empty closes the connection cleanly before any byte", async () => {
  await using server = await stubServer(0);
  server.routes(get("/empty").fault("empty").body(BODY));
  assert.deepEqual(await rawSeen(server.getPort(), "/empty"), { text: "", error: undefined });
});

Deno.test("[node] fault: malformed_chunk sends the status line and headers of a chunked answer, then a broken chunk", async () => {
  await using server = await stubServer(0);
  server.routes(get("/bad").fault("malformed_chunk").status(503).header("x-a", "1").body(BODY));
  assert.deepEqual(await rawSeen(server.getPort(), "/bad"), {
    text: `HTTP/1.1 503 Service Unavailable\r\ncontent-type: application/json\r\nx-a: 1\r\n` +
      `transfer-encoding: chunked\r\n\r\n${GARBAGE}`,
    error: undefined,
  });
});

Deno.test("[node] fault: random_then_close sends bytes that are not HTTP, then closes", async () => {
  await using server = await stubServer(0);
  server.routes(get("/junk").fault("random_then_close").body(BODY));
  assert.deepEqual(await rawSeen(server.getPort(), "/junk"), { text: GARBAGE, error: undefined });
});

Deno.test("[deno] the wire faults send the status line and headers, then close (Deno.serve cannot do more)", async () => {
  await using server = await stubServer(0, { adapter: "deno" });
  server.routes(
    ...["reset", "empty", "malformed_chunk", "random_then_close"].map((fault) =>
      get(`/${fault}`).fault(fault as "reset").body(BODY)
    ),
  );
  for (const fault of ["reset", "empty", "malformed_chunk", "random_then_close"]) {
    const { text } = await rawSeen(server.getPort(), `/${fault}`);
    assert.match(text, /^HTTP\/1\.1 200 OK\r\n[^]*transfer-encoding: chunked\r\n[^]*\r\n\r\n$/, fault);
  }
});

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

Deno.test("fault and throttle are checked; what --adapter deno cannot send is a [WARN] naming --adapter node", () => {
  const check = (raw: Record<string, unknown>) =>
    validateConfig({ routes: [{ method: "GET", path: "/a", ...raw }] }).problems;
  assert.deepEqual(check({ fault: "explode" }), [
    {
      level: "error",
      place: "routes[0]",
      message:
        `fault must be one of 'disconnect', 'truncate', 'reset', 'empty', 'malformed_chunk', 'random_then_close', got "explode"`,
    },
  ]);
  assert.deepEqual(check({ fault: "reset", throttle: 10 }), [
    {
      level: "error",
      place: "routes[0]",
      message: "fault and throttle are given; an answer goes out one way: keep one of them",
    },
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
  // The default wire sends every fault: no warning from validate.
  assert.deepEqual(check({ fault: "disconnect" }), []);
  const { config } = validateConfig({
    routes: [
      { method: "GET", path: "/a", fault: "reset", status_message: "Yo", headers: { "x-a": ["1", "2"] } },
      { method: "GET", path: "/b", fault: "truncate", headers: { "set-cookie": ["a=1", "b=2"] }, body: "x" },
    ],
  });
  assert.deepEqual(denoWireWarnings(config!.routes, (i) => `routes[${i}]`), [
    {
      level: "warn",
      place: "routes[0]",
      message: "fault: reset with --adapter deno sends the status line and headers, then closes the connection " +
        "(Deno.serve cannot drop a connection before answering nor write raw bytes); --adapter node (the default) " +
        "resets it (TCP RST) before any byte",
    },
    {
      level: "warn",
      place: "routes[0]",
      message: "status_message with --adapter deno is not sent (Deno.serve sends the standard reason phrase); " +
        '--adapter node (the default) sends "Yo"',
    },
    {
      level: "warn",
      place: "routes[0]",
      message: "headers.x-a with --adapter deno goes out as one line, its values joined by commas " +
        "(Deno.serve keeps only set-cookie lines apart); --adapter node (the default) sends one line per value",
    },
  ]);
});
