/**
 * Concurrency: 50 keep-alive clients send 2,000 requests each (100,000 per adapter)
 * over 20 stubs — static, placeholder, query, delayed, sequence and response-function stubs,
 * plus misses. Every answer is checked against its request, every hit count in the report
 * equals the number sent, the unmatched total is exact, and sequences hand out their entries
 * in order: exactly, for a stub one client calls alone; as exact counts per entry, for
 * stubs all clients share.
 */
import assert from "node:assert/strict";
import { get, post, type StubServer, stubServer } from "../mod.ts";
import { ADAPTERS } from "./_http.ts";

const CLIENTS = 50;
const REQUESTS_PER_CLIENT = 2_000;
/**
 * The whole run per adapter must finish within this, or the test fails rather than stalls CI. A
 * guard against a hang, not a speed goal (those live in bench/): a run takes 2–3 s alone, and
 * past 30 s on a machine busy with the whole suite.
 */
const BUDGET_MS = 120_000;

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** A keep-alive HTTP/1.1 client on one connection, one request at a time. */
class Client implements Disposable {
  #conn: Deno.TcpConn;
  #buffer = new Uint8Array(64 * 1024);
  #pending = "";

  private constructor(conn: Deno.TcpConn) {
    this.#conn = conn;
  }

  static async open(port: number): Promise<Client> {
    const conn = await Deno.connect({ hostname: "127.0.0.1", port });
    conn.setNoDelay(true);
    return new Client(conn);
  }

  /** Sends one request and reads its response: status and body (bodies here are ASCII). */
  async request(method: string, target: string, body = ""): Promise<{ status: number; body: string }> {
    const length = body ? `content-length: ${body.length}\r\ncontent-type: application/json\r\n` : "";
    await this.#write(`${method} ${target} HTTP/1.1\r\nhost: x\r\n${length}\r\n${body}`);
    for (;;) {
      const answer = this.#take();
      if (answer) return answer;
      const n = await this.#conn.read(this.#buffer);
      if (n === null) throw new Error(`connection closed while waiting for ${method} ${target}`);
      this.#pending += decoder.decode(this.#buffer.subarray(0, n));
    }
  }

  /** One whole response off the front of what was read, if it is all there: content-length or chunked. */
  #take(): { status: number; body: string } | undefined {
    const pending = this.#pending;
    const end = pending.indexOf("\r\n\r\n");
    if (end === -1) return undefined;
    const head = pending.slice(0, end);
    const status = Number(head.slice(9, 12));
    let at = end + 4;
    let body = "";
    if (/\r\ntransfer-encoding: *chunked/i.test(head)) {
      for (;;) {
        const lineEnd = pending.indexOf("\r\n", at);
        if (lineEnd === -1) return undefined;
        const size = parseInt(pending.slice(at, lineEnd), 16);
        if (pending.length < lineEnd + 2 + size + 2) return undefined;
        body += pending.slice(lineEnd + 2, lineEnd + 2 + size);
        at = lineEnd + 2 + size + 2;
        if (size === 0) break;
      }
    } else {
      const size = Number(/\r\ncontent-length: *(\d+)/i.exec(head)?.[1] ?? 0);
      if (pending.length < at + size) return undefined;
      body = pending.slice(at, at + size);
      at += size;
    }
    this.#pending = pending.slice(at);
    return { status, body };
  }

  async #write(text: string): Promise<void> {
    const bytes = encoder.encode(text);
    for (let written = 0; written < bytes.length;) written += await this.#conn.write(bytes.subarray(written));
  }

  [Symbol.dispose](): void {
    this.#conn.close();
  }
}

/** The 20 stubs, in declaration order. */
function routes(server: StubServer): void {
  server.routes(
    ...Array.from({ length: 8 }, (_, i) => get(`/s/${i}`).body({ s: i })), // 0-7
    get("/u/{id}").body({ id: "{id}" }), // 8
    get("/u/{id}/o/{order}").header("x-o", "{order}").body({ id: "{id}", order: "{order}" }), // 9
    get("/u/me").body({ me: true }), // 10: static beats the placeholder of 8
    get("/q?k=fixed").body({ fixed: true }), // 11: a literal, declared before the capture of the same shape
    get("/q?k={v}").body({ v: "{v}" }), // 12
    get("/d/fixed").delay(1).body({ d: "fixed" }), // 13
    get("/d/range").delay(0, 3).body({ d: "range" }), // 14
    get("/seq/cycle").sequence(...[201, 202, 203, 206].map((status) => ({ status, body: { status } })))
      .sequenceMode("cycle"), // 15
    get("/seq/last").sequence(...[211, 212, 213].map((status) => ({ status, delay: 1 }))), // 16
    get("/seq/solo").sequence(...[221, 222, 223, 224, 225, 226, 227].map((status) => ({ status })))
      .sequenceMode("cycle"), // 17: one client only
    post("/echo/{n}").responseFunc(({ payload, params }) => [200, { payload, n: params.n }]), // 18
    post("/async").delay(0, 2).responseFunc(async ({ payload }) => {
      await Promise.resolve();
      return [201, payload];
    }), // 19
  );
}

/** One planned request, the stub it must hit (or -1 for a miss), and how to check the answer. */
interface Planned {
  method: string;
  target: string;
  body?: string;
  stub: number;
  check?: (status: number, body: string) => void;
}

/** Request `i` of client `c`: a fixed mix, so the expected counts are known in advance. */
function plan(c: number, i: number): Planned {
  const n = (c * 7919 + i * 104_729) % 1_000;
  const k = n % 20;
  const json = (expected: unknown, status = 200) => (s: number, b: string) => {
    assert.equal(s, status);
    assert.deepEqual(JSON.parse(b), expected);
  };
  if (k < 8) return { method: "GET", target: `/s/${k}`, stub: k, check: json({ s: k }) };
  switch (k) {
    case 8:
      return { method: "GET", target: `/u/${n}`, stub: 8, check: json({ id: String(n) }) };
    case 9:
      return { method: "GET", target: `/u/${c}/o/${i}`, stub: 9, check: json({ id: String(c), order: String(i) }) };
    case 10:
      return { method: "GET", target: "/u/me", stub: 10, check: json({ me: true }) };
    case 11:
      return { method: "GET", target: `/q?k=${n}&x=1`, stub: 12, check: json({ v: String(n) }) };
    case 12:
      return { method: "GET", target: "/q?x=1&k=fixed", stub: 11, check: json({ fixed: true }) };
    case 13:
      return { method: "GET", target: "/d/fixed", stub: 13, check: json({ d: "fixed" }) };
    case 14:
      return { method: "GET", target: "/d/range", stub: 14, check: json({ d: "range" }) };
    case 15:
      return { method: "GET", target: "/seq/cycle", stub: 15 };
    case 16:
      return { method: "GET", target: "/seq/last", stub: 16 };
    case 17: {
      const body = JSON.stringify({ c, i });
      return { method: "POST", target: `/echo/${n}`, body, stub: 18, check: json({ payload: { c, i }, n: String(n) }) };
    }
    case 18:
      return { method: "POST", target: "/async", body: `[${c},${i}]`, stub: 19, check: json([c, i], 201) };
    default:
      return {
        method: "GET",
        target: `/miss/${c}/${i}?z=1`,
        stub: -1,
        check: (s, b) => {
          assert.equal(s, 404);
          assert.equal(JSON.parse(b).path, `/miss/${c}/${i}`);
        },
      };
  }
}

for (const adapter of ADAPTERS) {
  Deno.test(`[${adapter}] load: ${CLIENTS} clients × ${REQUESTS_PER_CLIENT} requests over 20 stubs keep every count exact`, async () => {
    await using server = await stubServer(0, { adapter, maxUnmatched: 100 });
    routes(server);
    const expected = new Array<number>(20).fill(0);
    let misses = 0;
    const statuses = { cycle: new Map<number, number>(), last: [] as number[] };
    const solo: number[] = [];
    const deadline = performance.now() + BUDGET_MS;

    const run = async (c: number) => {
      using client = await Client.open(server.getPort());
      for (let i = 0; i < REQUESTS_PER_CLIENT; i++) {
        if (performance.now() > deadline) {
          throw new Error(`client ${c} passed the ${BUDGET_MS} ms budget at request ${i}`);
        }
        const planned = plan(c, i);
        const { status, body } = await client.request(planned.method, planned.target, planned.body);
        planned.check?.(status, body);
        if (planned.stub === -1) misses++;
        else expected[planned.stub]++;
        if (planned.stub === 15) statuses.cycle.set(status, (statuses.cycle.get(status) ?? 0) + 1);
        if (planned.stub === 16) statuses.last.push(status);
        // Client 0 also walks the solo sequence, alone: its order is fully known.
        if (c === 0 && i % 50 === 0) {
          solo.push((await client.request("GET", "/seq/solo")).status);
          expected[17]++;
        }
      }
    };
    const start = performance.now();
    await Promise.all(Array.from({ length: CLIENTS }, (_, c) => run(c)));
    const ms = performance.now() - start;

    const report = await server.report();
    assert.deepEqual(report.stubs.map((s) => s.hit_count), expected);
    assert.equal(report.summary.unmatched_requests, misses);
    assert.equal(report.unmatched_requests.length, 100);
    assert.equal(expected.reduce((a, b) => a + b, 0) + misses, CLIENTS * REQUESTS_PER_CLIENT + solo.length);

    // Shared cycle of 4: positions are handed out one per request, so each entry comes up
    // exactly ⌊n/4⌋ or ⌈n/4⌉ times, the earlier entries first.
    const n = expected[15];
    assert.deepEqual(
      [201, 202, 203, 206].map((s) => statuses.cycle.get(s) ?? 0),
      [0, 1, 2, 3].map((j) => Math.floor(n / 4) + (j < n % 4 ? 1 : 0)),
    );
    // Shared repeat-last of 3 (delayed): 211 and 212 once each, 213 for the rest.
    const last = statuses.last.toSorted();
    assert.deepEqual(last.slice(0, 2), [211, 212]);
    assert.ok(last.slice(2).every((s) => s === 213));
    // The solo cycle of 7, in exact order.
    assert.deepEqual(solo, solo.map((_, j) => 221 + (j % 7)));
    console.log(`${adapter}: ${CLIENTS * REQUESTS_PER_CLIENT + solo.length} requests in ${ms.toFixed(0)} ms`);
  });
}
