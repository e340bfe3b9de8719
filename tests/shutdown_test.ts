/**
 * Shutdown under load: in-flight answers of every kind finish, new connections are
 * refused, idle keep-alive connections do not hold the stop open, counts are exact, and past
 * the 5 s grace pending work is cut short. The plain cases (one delayed request, signals
 * without load, a second signal) live in tests/server_test.ts and tests/cli_serve_test.ts.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { connect } from "node:net";
import { get, post, type StubServer, stubServer } from "../mod.ts";
import type { Report } from "../src/report/types.ts";
import { SHUTDOWN_GRACE_MS } from "../src/server/server.ts";
import { startServe, tempDir } from "./_cli.ts";
import { ADAPTERS } from "./_http.ts";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** GETs `url` on a connection of its own; resolves with status and body, or the error's name. */
async function fetchOwn(url: string): Promise<{ status: number; text: string } | { error: string }> {
  const client = Deno.createHttpClient({ poolMaxIdlePerHost: 0 });
  try {
    const response = await fetch(url, { client });
    return { status: response.status, text: await response.text() };
  } catch (error) {
    return { error: error instanceof Error ? error.name : String(error) };
  } finally {
    client.close();
  }
}

/** A raw keep-alive connection that has made one request and now sits idle. */
async function idleKeepAlive(port: number): Promise<Deno.TcpConn> {
  const conn = await Deno.connect({ hostname: "127.0.0.1", port });
  await conn.write(new TextEncoder().encode("GET /__stubtool__/health HTTP/1.1\r\nHost: localhost\r\n\r\n"));
  const buffer = new Uint8Array(1024);
  const n = await conn.read(buffer);
  assert.match(new TextDecoder().decode(buffer.subarray(0, n ?? 0)), /^HTTP\/1\.1 200/);
  return conn;
}

/** Does a new TCP connection to `port` get refused? */
async function refused(port: number): Promise<boolean> {
  try {
    const conn = await Deno.connect({ hostname: "127.0.0.1", port });
    conn.close();
    return false;
  } catch (error) {
    return error instanceof Deno.errors.ConnectionRefused;
  }
}

function inFlightStubs(server: StubServer): void {
  server.routes(
    get("/slow/{n}").delay(300).body({ n: "{n}" }),
    get("/seq").sequence({ status: 201, delay: 250 }, { status: 202, delay: 350 }),
    get("/fn/{n}").delay(100).responseFunc(async ({ params }) => {
      await sleep(150);
      return [200, { fn: params.n }];
    }),
  );
}

for (const adapter of ADAPTERS) {
  Deno.test(`[${adapter}] shutdown(): in-flight delays, sequences and response functions finish; new connections are refused`, async () => {
    const server = await stubServer(0, { adapter });
    inFlightStubs(server);
    const idle = await idleKeepAlive(server.getPort());
    try {
      const url = server.url;
      const requests = [
        ...Array.from({ length: 5 }, (_, n) => fetchOwn(`${url}/slow/${n}`)),
        fetchOwn(`${url}/seq`),
        fetchOwn(`${url}/seq`),
        ...Array.from({ length: 3 }, (_, n) => fetchOwn(`${url}/fn/${n}`)),
      ];
      await sleep(80); // every request has arrived and is waiting
      const start = performance.now();
      const stopped = server.shutdown();
      await sleep(20);
      assert.ok(await refused(server.getPort()), "a new connection after shutdown() began was accepted");
      const answers = await Promise.all(requests);
      await stopped;
      const ms = performance.now() - start;
      assert.ok(ms < 2_000, `shutdown took ${ms} ms with at most 400 ms of work in flight`);
      assert.deepEqual(answers.slice(0, 5), [0, 1, 2, 3, 4].map((n) => ({ status: 200, text: `{"n":"${n}"}` })));
      assert.deepEqual(answers.slice(5, 7).map((a) => "status" in a && a.status).sort(), [201, 202]);
      assert.deepEqual(answers.slice(7), [0, 1, 2].map((n) => ({ status: 200, text: `{"fn":"${n}"}` })));
      const report = await server.report();
      assert.deepEqual(report.stubs.map((s) => s.hit_count), [5, 2, 3]);
      assert.equal(report.summary.unmatched_requests, 0);
    } finally {
      idle.close();
      await server.shutdown();
    }
  });
}

Deno.test(`shutdown(): past the ${SHUTDOWN_GRACE_MS / 1000} s grace, pending delays end at once and pending response functions get 503 (both adapters)`, async () => {
  // Both adapters at once: the grace is fixed, so this costs one grace period, not two.
  await Promise.all(ADAPTERS.map(async (adapter) => {
    const server = await stubServer(0, { adapter });
    server.routes(
      get("/long").delay(60_000).body("long"),
      get("/hang").responseFunc(() => new Promise(() => {})),
      get("/fn-after-delay").delay(60_000).responseFunc(() => [200, "never called"]),
    );
    const requests = ["/long", "/hang", "/fn-after-delay"].map((path) => fetchOwn(server.url + path));
    await sleep(80);
    const start = performance.now();
    await server.shutdown();
    const ms = performance.now() - start;
    assert.ok(ms >= SHUTDOWN_GRACE_MS - 50 && ms < SHUTDOWN_GRACE_MS + 2_500, `[${adapter}] stopped after ${ms} ms`);
    const [long, hang, fnAfterDelay] = await Promise.all(requests);
    // The delay ends early: the stub's own answer goes out.
    assert.deepEqual(long, { status: 200, text: '"long"' }, adapter);
    const unavailable = '{"error":"the server shut down before the response function answered","stub":';
    assert.deepEqual(hang, { status: 503, text: `${unavailable}"GET /hang"}` }, adapter);
    assert.deepEqual(fnAfterDelay, { status: 503, text: `${unavailable}"GET /fn-after-delay"}` }, adapter);
    assert.deepEqual((await server.report()).stubs.map((s) => s.hit_count), [1, 1, 1], adapter);
  }));
});

Deno.test(`regression: a client still uploading a body kept shutdown() pending forever on Deno; the stop ends within the grace plus a second (both adapters, with TLS too)`, async () => {
  // Every case at once: the grace is fixed, so this costs one grace period.
  const cases = ADAPTERS.flatMap((adapter) => [false, true].map((tls) => ({ adapter, tls })));
  await Promise.all(cases.map(async ({ adapter, tls }) => {
    const name = `[${adapter}]${tls ? " TLS" : ""}`;
    const server = await stubServer(0, { adapter, ...(tls ? { tls: "self-signed" as const } : {}) });
    server.routes(post("/upload").responseFunc(({ body }) => [200, { length: body.length }]));
    // Over TLS: a connection that never starts its handshake (Deno.serve waited for it forever too).
    const socket = connect(server.getPort(), "127.0.0.1");
    socket.on("error", () => {});
    await new Promise<void>((resolve) => socket.once("connect", () => resolve()));
    if (!tls) socket.write(`POST /upload HTTP/1.1\r\nhost: x\r\ncontent-length: 1000000\r\n\r\n${"x".repeat(1000)}`);
    await sleep(100);
    let timer: ReturnType<typeof setTimeout> | undefined;
    const never = new Promise<string>((resolve) => timer = setTimeout(() => resolve("still stopping"), 15_000));
    const outcome = await Promise.race([server.shutdown().then(() => "stopped"), never]);
    clearTimeout(timer);
    socket.destroy();
    assert.equal(outcome, "stopped", name);
  }));
  // Deno.serve lets go of the connections left behind once their clients are gone.
  await sleep(100);
});

Deno.test("serve: SIGTERM with many in-flight answers and an idle keep-alive client: all finish, the report file is exact, exit 0 well within the grace", async () => {
  await using dir = await tempDir();
  const config = join(dir.path, "inflight.yaml");
  await Deno.writeTextFile(
    config,
    [
      "routes:",
      "  - {method: GET, path: '/slow/{n}', delay: 400, body: {n: '{n}'}}",
      "  - {method: GET, path: /seq, sequence: [{status: 201, delay: 300}, {status: 202, delay: 450}]}",
      "  - {method: GET, path: /quick, body: quick}",
      "",
    ].join("\n"),
  );
  const reportFile = join(dir.path, "report.json");
  const served = await startServe(["--port", "0", "--quiet", "--config", config, "--report-file", reportFile]);
  await using _ = served.process;
  const idle = await idleKeepAlive(served.port);
  try {
    assert.deepEqual(await fetchOwn(`${served.url}/quick`), { status: 200, text: '"quick"' });
    assert.equal("status" in await fetchOwn(`${served.url}/missing`) ? 1 : 0, 1);
    const requests = [
      ...Array.from({ length: 6 }, (_, n) => fetchOwn(`${served.url}/slow/${n}`)),
      fetchOwn(`${served.url}/seq`),
      fetchOwn(`${served.url}/seq`),
    ];
    await sleep(150);
    const start = performance.now();
    served.process.kill("SIGTERM");
    await served.process.waitForStdout(/^stopping \(SIGTERM\)/m);
    // The line is printed just before the listener closes: allow the child a moment.
    let closed = false;
    for (let i = 0; i < 50 && !closed; i++) closed = await refused(served.port) || (await sleep(10), false);
    assert.ok(closed, "new connections were still accepted 500 ms after SIGTERM");
    const answers = await Promise.all(requests);
    const { code, stdout, stderr } = await served.process.result();
    const ms = performance.now() - start;
    assert.equal(code, 0, stderr);
    assert.ok(ms < 2_500, `exited ${ms} ms after SIGTERM with at most 450 ms of work in flight`);
    assert.deepEqual(answers.slice(0, 6), [0, 1, 2, 3, 4, 5].map((n) => ({ status: 200, text: `{"n":"${n}"}` })));
    assert.deepEqual(answers.slice(6).map((a) => "status" in a && a.status).sort(), [201, 202]);
    assert.match(stdout, /^stopped: 3\/3 stubs exercised, 1 unmatched request\(s\)$/m);
    const report = JSON.parse(await Deno.readTextFile(reportFile)) as Report;
    assert.deepEqual(report.stubs.map((s) => [s.path, s.hit_count]), [["/slow/{n}", 6], ["/seq", 2], ["/quick", 1]]);
    assert.deepEqual(report.summary, { total_stubs: 3, matched_stubs: 3, unmatched_requests: 1 });
  } finally {
    idle.close();
  }
});
