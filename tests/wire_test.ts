/**
 * Wire-level abuse against a real server on both adapters, over raw TCP: malformed
 * request lines, bogus methods, huge headers and paths, truncated bodies, pipelining, many
 * idle connections and a client that reads slowly. After each attack a normal request still
 * gets the right answer, and the report counts are exactly what the attack should leave.
 */
import assert from "node:assert/strict";
import { get, post, type StubServer, stubServer } from "../mod.ts";
import { ADAPTERS, send } from "./_http.ts";

type Adapter = typeof ADAPTERS[number];

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** One HTTP/1.1 response read off the wire. */
interface WireResponse {
  status: number;
  headers: Map<string, string>;
  body: string;
}

/** Parses as many complete responses as `bytes` holds (content-length or chunked bodies). */
function parseResponses(bytes: Uint8Array): WireResponse[] {
  const out: WireResponse[] = [];
  const text = decoder.decode(bytes);
  let at = 0;
  while (at < text.length) {
    const end = text.indexOf("\r\n\r\n", at);
    if (end === -1) break;
    const [statusLine, ...lines] = text.slice(at, end).split("\r\n");
    const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine)?.[1]);
    const headers = new Map(lines.map((line) => {
      const colon = line.indexOf(":");
      return [line.slice(0, colon).toLowerCase(), line.slice(colon + 1).trim()] as [string, string];
    }));
    let bodyStart = end + 4;
    let body = "";
    if (headers.get("transfer-encoding") === "chunked") {
      for (;;) {
        const lineEnd = text.indexOf("\r\n", bodyStart);
        const size = parseInt(text.slice(bodyStart, lineEnd), 16);
        bodyStart = lineEnd + 2;
        if (size === 0) {
          bodyStart += 2;
          break;
        }
        body += text.slice(bodyStart, bodyStart + size);
        bodyStart += size + 2;
      }
    } else {
      // Bodies here are ASCII JSON, so characters and bytes agree.
      const length = Number(headers.get("content-length") ?? 0);
      body = text.slice(bodyStart, bodyStart + length);
      bodyStart += length;
    }
    out.push({ status, headers, body });
    at = bodyStart;
  }
  return out;
}

/** What a raw exchange produced: the bytes read until the server closed (or the time ran out). */
interface Exchange {
  responses: WireResponse[];
  /** The server closed the connection (EOF or reset) before the time ran out. */
  closed: boolean;
}

/**
 * Writes `data` on a fresh connection, then reads until the server closes, `expect`
 * responses have arrived, or `timeoutMs` passes. Write errors (the server may close first
 * on a huge request) are part of the outcome, not failures.
 */
async function exchange(
  port: number,
  data: string | Uint8Array,
  { expect = 1, timeoutMs = 3_000, closeAfterWrite = false } = {},
): Promise<Exchange> {
  const conn = await Deno.connect({ hostname: "127.0.0.1", port });
  const chunks: Uint8Array[] = [];
  let total = 0;
  let closed = false;
  const timer = setTimeout(() => conn.close(), timeoutMs);
  const reading = (async () => {
    const buffer = new Uint8Array(64 * 1024);
    try {
      for (;;) {
        const n = await conn.read(buffer);
        if (n === null) return void (closed = true);
        chunks.push(buffer.slice(0, n));
        total += n;
        if (parseResponses(concat(chunks, total)).length >= expect) return;
      }
    } catch (error) {
      // A reset is the server closing; a closed resource is our own timeout.
      closed = !(error instanceof Deno.errors.BadResource || error instanceof Deno.errors.Interrupted);
    }
  })();
  try {
    const bytes = typeof data === "string" ? encoder.encode(data) : data;
    for (let written = 0; written < bytes.length;) written += await conn.write(bytes.subarray(written));
    if (closeAfterWrite) conn.close();
  } catch {
    // The server closed the connection before reading everything.
  }
  await reading;
  clearTimeout(timer);
  try {
    conn.close();
  } catch {
    // already closed
  }
  return { responses: parseResponses(concat(chunks, total)), closed };
}

function concat(chunks: Uint8Array[], total: number): Uint8Array {
  const out = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    out.set(chunk, offset);
    offset += chunk.length;
  }
  return out;
}

/** The counts a test expects: hits per stub in declaration order, and the unmatched total. */
interface Counts {
  hits: number[];
  unmatched: number;
}

async function counts(server: StubServer): Promise<Counts> {
  const report = await server.report();
  return { hits: report.stubs.map((s) => s.hit_count), unmatched: report.summary.unmatched_requests };
}

/** A normal request still gets the right answer (and is counted: the caller's expected counts include it). */
async function stillServes(server: StubServer): Promise<void> {
  const answer = await send(server, "GET", "/ok");
  assert.equal(answer.status, 200);
  assert.equal(answer.json, "ok");
}

/** Stubs every wire test serves: /ok is stubs[0], the normal request after each attack. */
function stubs(server: StubServer): void {
  server.routes(
    get("/ok").body("ok"),
    post("/plain").status(201).body({ created: true }),
    post("/fn").responseFunc(({ payload }) => [200, { payload }]),
    get("/seq").sequence({ status: 201 }, { status: 202 }, { status: 203 }),
    get("/big").header("content-type", "text/plain").body("x".repeat(4 * 1024 * 1024)),
    get("/slow").delay(150).body("slow"),
  );
}

const NO_HITS = () => [0, 0, 0, 0, 0, 0];

function wireTest(name: string, fn: (server: StubServer, adapter: Adapter) => Promise<void>): void {
  for (const adapter of ADAPTERS) {
    Deno.test({
      name: `[${adapter}] wire: ${name}`,
      // Raw sockets closed by the server and a worker-free runtime: the sanitizers stay on.
      fn: async () => {
        await using server = await stubServer(0, { adapter, maxUnmatched: 50 });
        stubs(server);
        await fn(server, adapter);
      },
    });
  }
}

// ---------------------------------------------------------------- malformed requests

/** Inputs no HTTP/1.1 parser should take as a request: each gets a 400 (or a closed connection), and counts nothing. */
const MALFORMED: [name: string, data: string | Uint8Array][] = [
  ["garbage line", "GARBAGE\r\n\r\n"],
  ["unknown version", "GET /ok HTTP/9.9\r\nHost: x\r\n\r\n"],
  ["method with a non-token character", "G@T /ok HTTP/1.1\r\nHost: x\r\n\r\n"],
  ["target without a leading slash", "GET ok HTTP/1.1\r\nHost: x\r\n\r\n"],
  ["header line without a colon", "GET /ok HTTP/1.1\r\nHost: x\r\nbroken header\r\n\r\n"],
  ["obsolete header folding", "GET /ok HTTP/1.1\r\nHost: x\r\nX-A: a\r\n b\r\n\r\n"],
  ["NUL in the target", "GET /ok\0 HTTP/1.1\r\nHost: x\r\n\r\n"],
  ["binary noise", new Uint8Array([0, 1, 2, 3, 255, 254, 13, 10, 13, 10])],
  ["a TLS ClientHello", new Uint8Array([0x16, 0x03, 0x01, 0x02, 0x00, 0x01, 0x00, 0x01, 0xfc, 0x03, 0x03])],
  ["content-length that is not a number", "POST /plain HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n"],
  ["negative content-length", "POST /plain HTTP/1.1\r\nHost: x\r\nContent-Length: -1\r\n\r\n"],
  [
    "two different content-lengths",
    "POST /plain HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nab",
  ],
  [
    "content-length and chunked together (request smuggling)",
    "POST /plain HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
  ],
];

wireTest("malformed request lines and headers get 400 and change no count", async (server, adapter) => {
  let served = 0;
  for (const [name, data] of MALFORMED) {
    const { responses, closed } = await exchange(server.getPort(), data);
    assert.ok(responses.length > 0 || closed, `${name}: neither an answer nor a closed connection`);
    if (responses.length) {
      assert.equal(responses[0].status, 400, name);
      // Node's parser errors go through the adapter's JSON answer; Deno's HTTP layer answers
      // them itself with an empty body before any handler runs.
      if (adapter === "node") assert.equal(typeof JSON.parse(responses[0].body).error, "string", name);
    }
    await stillServes(server);
    served++;
    assert.deepEqual(await counts(server), { hits: [served, 0, 0, 0, 0, 0], unmatched: 0 }, name);
  }
});

wireTest(
  "bogus methods: unknown tokens are unmatched on Deno, a JSON 400 on Node; never a hit",
  async (server, adapter) => {
    const methods = ["BREW", "get", "X".repeat(8_000)];
    for (const method of methods) {
      const { responses } = await exchange(server.getPort(), `${method} /ok HTTP/1.1\r\nHost: x\r\n\r\n`);
      assert.equal(responses.length, 1, method.slice(0, 10));
      const [response] = responses;
      if (adapter === "deno") {
        assert.equal(response.status, 404);
        // The 404 echoes what the report keeps: at most 2 KiB of the method.
        const answer = JSON.parse(response.body);
        assert.deepEqual([answer.method, answer.truncated], [method.slice(0, 2048), method.length > 2048 || undefined]);
      } else {
        assert.equal(response.status, 400);
        assert.match(JSON.parse(response.body).error, /^malformed request/);
      }
    }
    await stillServes(server);
    const report = await server.report();
    assert.deepEqual(await counts(server), {
      hits: [1, 0, 0, 0, 0, 0],
      unmatched: adapter === "deno" ? methods.length : 0,
    });
    if (adapter === "deno") {
      assert.deepEqual(report.unmatched_requests.map((u) => u.method), methods.map((m) => m.slice(0, 2048)));
    }
  },
);

wireTest("a 1 MB header is refused without counting; the next request is fine", async (server, adapter) => {
  const { responses, closed } = await exchange(
    server.getPort(),
    `GET /ok HTTP/1.1\r\nHost: x\r\nX-Big: ${"a".repeat(1 << 20)}\r\n\r\n`,
  );
  assert.ok(responses.length === 1 || closed);
  if (responses.length) assert.equal(responses[0].status, adapter === "deno" ? 400 : 431);
  if (adapter === "node") assert.equal(JSON.parse(responses[0].body).error, "request headers are too large");
  await stillServes(server);
  assert.deepEqual(await counts(server), { hits: [1, 0, 0, 0, 0, 0], unmatched: 0 });
});

wireTest("a 64 KB path is refused without counting; a 12 KB one is one unmatched request", async (server, adapter) => {
  const huge = await exchange(server.getPort(), `GET /${"a".repeat(64 * 1024)} HTTP/1.1\r\nHost: x\r\n\r\n`);
  assert.equal(huge.responses.length, 1);
  assert.equal(huge.responses[0].status, adapter === "deno" ? 400 : 431);
  assert.deepEqual(await counts(server), { hits: NO_HITS(), unmatched: 0 });

  const long = "/" + "b".repeat(12 * 1024);
  const accepted = await exchange(server.getPort(), `GET ${long}?q=1 HTTP/1.1\r\nHost: x\r\n\r\n`);
  assert.equal(accepted.responses[0].status, 404);
  // The 404 and the report keep the path's first 2 KiB (memory bounded in bytes).
  const answer = JSON.parse(accepted.responses[0].body);
  assert.deepEqual([answer.path, answer.query, answer.truncated], [long.slice(0, 2048), "q=1", true]);
  await stillServes(server);
  assert.deepEqual(await counts(server), { hits: [1, 0, 0, 0, 0, 0], unmatched: 1 });
  const [entry] = (await server.report()).unmatched_requests;
  assert.equal(entry.path, long.slice(0, 2048));
  assert.equal(entry.truncated, true);
  // The journal keeps the whole target.
  const journaled = await send(server, "GET", "/__stubtool__/requests?unmatched=true");
  assert.equal(journaled.json.requests.at(-1).target, `${long}?q=1`);
});

// ---------------------------------------------------------------- bodies

wireTest("truncated bodies: the matched stub counts one hit per request, the server goes on", async (server) => {
  // A plain stub answers without reading the body; the client then vanishes mid-body.
  const plain = await exchange(
    server.getPort(),
    'POST /plain HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{"a":',
    { timeoutMs: 500 },
  );
  assert.ok(plain.responses.length <= 1);
  if (plain.responses.length) assert.equal(plain.responses[0].status, 201);
  // A response function waits for the body, which never comes: the client closes first.
  await exchange(server.getPort(), 'POST /fn HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{"a":', {
    closeAfterWrite: true,
    timeoutMs: 500,
  });
  // The same with a chunked body cut off after its first chunk.
  await exchange(server.getPort(), 'POST /fn HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n5\r\n{"a":', {
    closeAfterWrite: true,
    timeoutMs: 500,
  });
  // Each request reached its stub: one hit each (the handler counts on match, as for a 413).
  const deadline = performance.now() + 2_000;
  while ((await counts(server)).hits[2] < 2 && performance.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  await stillServes(server);
  assert.deepEqual(await counts(server), { hits: [1, 1, 2, 0, 0, 0], unmatched: 0 });
  // A whole body still reaches the response function.
  const whole = await send(server, "POST", "/fn", { body: '{"a":1}' });
  assert.deepEqual(whole.json, { payload: { a: 1 } });
});

wireTest("a malformed chunked body is refused; nothing answers twice", async (server, adapter) => {
  const { responses } = await exchange(
    server.getPort(),
    "POST /fn HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nabc\r\n0\r\n\r\n",
    { timeoutMs: 1_000 },
  );
  assert.ok(responses.length <= 1);
  if (responses.length) assert.equal(responses[0].status, 400);
  await stillServes(server);
  // Node hands the request to the handler before its parser meets the bad chunk (the stub was
  // called: one hit); Deno's HTTP layer drops it first.
  assert.deepEqual(await counts(server), { hits: [1, 0, adapter === "node" ? 1 : 0, 0, 0, 0], unmatched: 0 });
});

// ---------------------------------------------------------------- connections

wireTest("pipelined requests are answered in order; sequences and counts stay exact", async (server) => {
  const requests = [
    "GET /seq HTTP/1.1\r\nHost: x\r\n\r\n",
    "GET /ok HTTP/1.1\r\nHost: x\r\n\r\n",
    'POST /fn HTTP/1.1\r\nHost: x\r\nContent-Length: 7\r\n\r\n{"n":1}',
    "GET /seq HTTP/1.1\r\nHost: x\r\n\r\n",
    "GET /missing?x=1 HTTP/1.1\r\nHost: x\r\n\r\n",
    'POST /plain HTTP/1.1\r\nHost: x\r\nContent-Length: 7\r\n\r\n{"n":2}',
    "GET /seq HTTP/1.1\r\nHost: x\r\n\r\n",
    "GET /seq HTTP/1.1\r\nHost: x\r\n\r\n",
    'POST /fn HTTP/1.1\r\nHost: x\r\nContent-Length: 7\r\n\r\n{"n":3}',
    "GET /ok HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
  ];
  const { responses } = await exchange(server.getPort(), requests.join(""), { expect: requests.length });
  assert.deepEqual(responses.map((r) => r.status), [201, 200, 200, 202, 404, 201, 203, 203, 200, 200]);
  assert.deepEqual(JSON.parse(responses[2].body), { payload: { n: 1 } });
  assert.deepEqual(JSON.parse(responses[8].body), { payload: { n: 3 } });
  assert.equal(JSON.parse(responses[4].body).path, "/missing");
  await stillServes(server);
  assert.deepEqual(await counts(server), { hits: [3, 1, 2, 4, 0, 0], unmatched: 1 });
});

wireTest("2,000 idle connections do not stop a normal request; closing them changes nothing", async (server) => {
  const idle: Deno.TcpConn[] = [];
  try {
    for (let batch = 0; batch < 20; batch++) {
      idle.push(
        ...await Promise.all(
          Array.from({ length: 100 }, () => Deno.connect({ hostname: "127.0.0.1", port: server.getPort() })),
        ),
      );
    }
    assert.equal(idle.length, 2_000);
    const start = performance.now();
    await stillServes(server);
    assert.ok(performance.now() - start < 2_000, `answered after ${performance.now() - start} ms`);
    // Half of them send half a request line and stall.
    await Promise.all(idle.slice(0, 1_000).map((conn) => conn.write(encoder.encode("GET /o")).catch(() => 0)));
    await stillServes(server);
  } finally {
    for (const conn of idle) {
      try {
        conn.close();
      } catch {
        // the server may have closed it
      }
    }
  }
  await stillServes(server);
  assert.deepEqual(await counts(server), { hits: [3, 0, 0, 0, 0, 0], unmatched: 0 });
});

wireTest("a client that reads a 4 MB answer slowly does not hold up others", async (server) => {
  const conn = await Deno.connect({ hostname: "127.0.0.1", port: server.getPort() });
  try {
    await conn.write(encoder.encode("GET /big HTTP/1.1\r\nHost: x\r\n\r\n"));
    const buffer = new Uint8Array(4 * 1024);
    let read = 0;
    // Read 4 KB every 10 ms while other clients are served.
    const slow = (async () => {
      for (let i = 0; i < 30; i++) {
        const n = await conn.read(buffer);
        if (n === null) break;
        read += n;
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    })();
    const start = performance.now();
    for (let i = 0; i < 20; i++) await stillServes(server);
    assert.ok(performance.now() - start < 2_000, `20 requests took ${performance.now() - start} ms`);
    await slow;
    assert.ok(read > 0 && read < 4 * 1024 * 1024, `read ${read} bytes`);
  } finally {
    conn.close();
  }
  await stillServes(server);
  assert.deepEqual(await counts(server), { hits: [21, 0, 0, 0, 1, 0], unmatched: 0 });
});

wireTest("a client that sends its request a byte at a time is answered; others are not held up", async (server) => {
  const request = encoder.encode("GET /seq HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
  const conn = await Deno.connect({ hostname: "127.0.0.1", port: server.getPort() });
  try {
    const dribble = (async () => {
      for (const byte of request) {
        await conn.write(new Uint8Array([byte]));
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      const buffer = new Uint8Array(1024);
      let text = "";
      for (;;) {
        const n = await conn.read(buffer);
        if (n === null) break;
        text += decoder.decode(buffer.subarray(0, n));
      }
      return parseResponses(encoder.encode(text));
    })();
    for (let i = 0; i < 10; i++) await stillServes(server);
    const responses = await dribble;
    assert.equal(responses[0]?.status, 201);
  } finally {
    conn.close();
  }
  assert.deepEqual(await counts(server), { hits: [10, 0, 0, 1, 0, 0], unmatched: 0 });
});

wireTest("clients that vanish during a delayed answer are counted once and cost nothing", async (server) => {
  await Promise.all(
    Array.from(
      { length: 20 },
      () =>
        exchange(server.getPort(), "GET /slow HTTP/1.1\r\nHost: x\r\n\r\n", { closeAfterWrite: true, timeoutMs: 300 }),
    ),
  );
  // Let the delays end and their writes to closed sockets fail quietly.
  await new Promise((resolve) => setTimeout(resolve, 300));
  await stillServes(server);
  assert.deepEqual(await counts(server), { hits: [1, 0, 0, 0, 0, 20], unmatched: 0 });
});

wireTest("regression: an HTTP/1.1 request without Host got Node's empty, non-JSON 400", async (server) => {
  // Node's requireHostHeader answered before the handler with `400` and no JSON body;
  // both adapters now answer it like any other request.
  const { responses } = await exchange(server.getPort(), "GET /ok HTTP/1.1\r\n\r\n");
  assert.equal(responses[0].status, 200);
  assert.equal(responses[0].body, '"ok"');
  assert.deepEqual(await counts(server), { hits: [1, 0, 0, 0, 0, 0], unmatched: 0 });
});

// ---------------------------------------------------------------- Java's java.net.http (P19.1)

/**
 * What Java 17's `java.net.http.HttpClient` sends on `http://` with its defaults (captured off
 * the wire): every request, also the later ones on a kept-alive connection, asks for an h2c
 * upgrade and says `Content-Length` (0 for a GET).
 */
function javaRequest(port: number, method: "GET" | "POST", path: string, body = ""): string {
  return `${method} ${path} HTTP/1.1\r\nConnection: Upgrade, HTTP2-Settings\r\nContent-Length: ${body.length}\r\n` +
    `Host: 127.0.0.1:${port}\r\nHTTP2-Settings: AAEAAEAAAAIAAAAAAAMAAAAAAAQBAAAAAAUAAEAAAAYABgAA\r\nUpgrade: h2c\r\n` +
    `User-Agent: Java-http-client/17.0.15\r\n${body ? "Content-Type: application/json\r\n" : ""}\r\n${body}`;
}

/**
 * Sends each request on one connection after the answer to the one before (as Java does: it
 * does not pipeline), and returns the answers; stops at a closed connection.
 */
async function oneByOne(port: number, requests: string[]): Promise<{ responses: WireResponse[]; closed: boolean }> {
  const conn = await Deno.connect({ hostname: "127.0.0.1", port });
  const responses: WireResponse[] = [];
  const buffer = new Uint8Array(64 * 1024);
  try {
    for (const request of requests) {
      await conn.write(encoder.encode(request));
      const chunks: Uint8Array[] = [];
      let total = 0;
      for (;;) {
        const n = await conn.read(buffer);
        if (n === null) return { responses, closed: true };
        chunks.push(buffer.slice(0, n));
        total += n;
        const parsed = parseResponses(concat(chunks, total));
        if (parsed.length > 0) {
          responses.push(...parsed);
          break;
        }
      }
    }
    return { responses, closed: false };
  } finally {
    conn.close();
  }
}

Deno.test("regression: the default stubServer() answered Java's java.net.http GET and POST with an empty 400", async () => {
  // Deno.serve refuses a request with Upgrade and a body length before any handler runs; the
  // default wire answers it over HTTP/1.1 (no 101), on one kept-alive connection as Java uses it.
  await using server = await stubServer(0, { maxUnmatched: 50 });
  stubs(server);
  const port = server.getPort();
  const { responses, closed } = await oneByOne(port, [
    javaRequest(port, "GET", "/ok"),
    javaRequest(port, "POST", "/fn", '{"a":1}'),
    javaRequest(port, "GET", "/ok"),
  ]);
  assert.equal(closed, false);
  assert.deepEqual(responses.map((r) => [r.status, r.body, r.headers.get("upgrade")]), [
    [200, '"ok"', undefined],
    [200, '{"payload":{"a":1}}', undefined],
    [200, '"ok"', undefined],
  ]);
  assert.deepEqual(await counts(server), { hits: [2, 0, 1, 0, 0, 0], unmatched: 0 });
  const { requests } = await server.journal();
  assert.deepEqual(requests.map((r) => [r.method, r.target, r.headers?.upgrade, r.body]), [
    ["GET", "/ok", "h2c", undefined],
    ["POST", "/fn", "h2c", '{"a":1}'],
    ["GET", "/ok", "h2c", undefined],
  ]);
});

Deno.test("while a WebSocket stub exists, the default wire refuses an h2c upgrade with a JSON 400 naming it; without one it answers (README: Runtimes)", async () => {
  await using server = await stubServer(0);
  stubs(server);
  const port = server.getPort();
  const ws = server.routes(get("/ws").websocket({ onConnect: [{ send: "hi" }] }));
  const refused = await exchange(port, javaRequest(port, "GET", "/ok"));
  assert.deepEqual(refused.responses.map((r) => [r.status, r.body]), [
    [400, `{"error":"upgrade to 'h2c' is not supported (only websocket)"}`],
  ]);
  await server.remove(...ws);
  const answered = await exchange(port, javaRequest(port, "GET", "/ok"));
  assert.deepEqual(answered.responses.map((r) => [r.status, r.body]), [[200, '"ok"']]);
});

Deno.test("[deno] the Deno.serve wire answers Java's upgrade requests with an empty 400 before any handler runs (README: Runtimes)", async () => {
  await using server = await stubServer(0, { adapter: "deno" });
  stubs(server);
  const port = server.getPort();
  for (const request of [javaRequest(port, "GET", "/ok"), javaRequest(port, "POST", "/fn", '{"a":1}')]) {
    const { responses } = await exchange(port, request);
    assert.deepEqual(responses.map((r) => [r.status, r.body]), [[400, ""]]);
  }
  assert.deepEqual(await counts(server), { hits: NO_HITS(), unmatched: 0 });
});
