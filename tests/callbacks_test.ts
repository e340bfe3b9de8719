/**
 * The callback queue (src/server/callbacks/callbacks.ts) against real receivers on port 0: what is
 * sent and recorded, failures (refused, timeout), the in-flight bound, redirects, drops and
 * shutdown. Last, the same module compiled as the npm build compiles it, run under Node.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CallbackQueue, type CallbackRecord, MAX_CALLBACK_BYTES } from "../src/server/callbacks/callbacks.ts";

interface Hit {
  method: string;
  url: string;
  headers: IncomingMessage["headers"];
  body: string;
}

/** An HTTP receiver on port 0: every request is kept, then `answer` decides what to do with it. */
async function receiver(answer: (res: ServerResponse, hit: Hit) => void = (res) => res.end("ok")) {
  const hits: Hit[] = [];
  const server = createServer((req, res) => {
    let body = "";
    req.setEncoding("utf8");
    req.on("data", (chunk) => body += chunk);
    req.on("end", () => {
      const hit = { method: req.method!, url: req.url!, headers: req.headers, body };
      hits.push(hit);
      answer(res, hit);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as { port: number }).port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    hits,
    async [Symbol.asyncDispose]() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/** A receiver that holds every request until `release` answers it. */
async function holdingReceiver() {
  const held: ServerResponse[] = [];
  const base = await receiver((res) => held.push(res));
  return Object.assign(base, {
    held,
    release(count = held.length) {
      for (const res of held.splice(0, count)) if (!res.writableEnded) res.end("late");
    },
  });
}

/** Waits until `condition` holds (checked every 5 ms, at most 5 s). */
async function until(condition: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 5000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** A record without its timing (`duration_ms`, `at`), after checking `at` is an ISO time. */
function untimed(record: CallbackRecord): Omit<CallbackRecord, "duration_ms" | "at"> {
  const { duration_ms, at, ...rest } = record;
  assert.equal(typeof duration_ms, "number");
  assert.equal(new Date(at).toISOString(), at);
  return rest;
}

/** A port nothing listens on: one that was just closed. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as { port: number }).port;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

Deno.test("a callback goes out with its method, headers and body; the answer's status is recorded and logged", async () => {
  await using target = await receiver((res) => res.writeHead(202).end("thanks"));
  const lines: string[] = [];
  const queue = new CallbackQueue({ log: (line) => lines.push(line) });
  queue.send("order-created", {
    method: "POST",
    url: `${target.url}/hooks/orders?id=7`,
    headers: { "content-type": "application/json", "x-tag": ["a", "b"] },
    body: '{"id":7}',
  });
  queue.send("ping", { method: "GET", url: `${target.url}/ping`, body: "ignored for GET" });
  queue.send("bytes", { method: "PUT", url: `${target.url}/raw`, body: new TextEncoder().encode("héllo") });
  assert.deepEqual(await queue.drain(5000), { dropped: 0 });
  const byUrl = (path: string) => target.hits.find((hit) => hit.url === path)!;
  assert.equal(byUrl("/hooks/orders?id=7").method, "POST");
  assert.equal(byUrl("/hooks/orders?id=7").body, '{"id":7}');
  assert.equal(byUrl("/hooks/orders?id=7").headers["content-type"], "application/json");
  assert.equal(byUrl("/hooks/orders?id=7").headers["x-tag"], "a, b");
  assert.equal(byUrl("/ping").method, "GET");
  assert.equal(byUrl("/ping").body, "");
  assert.equal(byUrl("/raw").body, "héllo");
  const records = queue.records().map(untimed).sort((a, b) => a.stub.localeCompare(b.stub));
  // Each record says what was sent: the headers, and the body (none for a GET).
  assert.deepEqual(records, [
    { stub: "bytes", method: "PUT", url: `${target.url}/raw`, body: "héllo", status: 202 },
    {
      stub: "order-created",
      method: "POST",
      url: `${target.url}/hooks/orders?id=7`,
      headers: { "content-type": "application/json", "x-tag": "a, b" },
      body: '{"id":7}',
      status: 202,
    },
    { stub: "ping", method: "GET", url: `${target.url}/ping`, status: 202 },
  ]);
  assert.deepEqual(
    lines.map((line) => line.replace(/ [\d.]+ms$/, " Nms")).sort(),
    [
      `callback GET ${target.url}/ping 202 [ping] Nms`,
      `callback POST ${target.url}/hooks/orders?id=7 202 [order-created] Nms`,
      `callback PUT ${target.url}/raw 202 [bytes] Nms`,
    ],
  );
});

Deno.test("a receiver that refuses the connection is recorded as an error", async () => {
  const port = await closedPort();
  const lines: string[] = [];
  const queue = new CallbackQueue({ log: (line) => lines.push(line) });
  queue.send("s1", { method: "POST", url: `http://127.0.0.1:${port}/hook` });
  await queue.drain(5000);
  assert.deepEqual(queue.records().map(untimed), [
    { stub: "s1", method: "POST", url: `http://127.0.0.1:${port}/hook`, error: "connection refused" },
  ]);
  assert.match(
    lines[0],
    new RegExp(`^callback POST http://127\\.0\\.0\\.1:${port}/hook error: connection refused \\[s1\\] [\\d.]+ms$`),
  );
});

Deno.test("a receiver that does not answer within the timeout is recorded as an error and the callback aborted", async () => {
  await using target = await holdingReceiver();
  const queue = new CallbackQueue({ timeoutMs: 100 });
  queue.send("slow", { method: "POST", url: `${target.url}/slow`, body: "x" });
  assert.deepEqual(await queue.drain(5000), { dropped: 0 });
  const [record] = queue.records();
  assert.deepEqual(untimed(record), {
    stub: "slow",
    method: "POST",
    url: `${target.url}/slow`,
    body: "x",
    error: "no answer within 100 ms",
  });
  assert.ok(record.duration_ms >= 90, `${record.duration_ms}`);
  assert.equal(target.hits.length, 1);
  target.release();
});

Deno.test("at most 64 callbacks are in flight: the 65th waits for a slot, and waiting ones go in order", async () => {
  await using target = await holdingReceiver();
  const queue = new CallbackQueue({ maxInFlightPerOrigin: 64 });
  assert.equal(queue.maxInFlight, 64);
  for (let i = 1; i <= 66; i++) queue.send("s", { method: "POST", url: `${target.url}/${i}` });
  assert.equal(queue.inFlight, 64);
  assert.equal(queue.waiting, 2);
  await until(() => target.hits.length === 64, "64 requests at the receiver");
  assert.equal(target.hits.some((hit) => hit.url === "/65" || hit.url === "/66"), false);
  target.release(1);
  await until(() => target.hits.length === 65, "the 65th request");
  assert.equal(target.hits[64].url, "/65");
  assert.equal(queue.waiting, 1);
  target.release(1);
  await until(() => target.hits.length === 66, "the 66th request");
  assert.equal(target.hits[65].url, "/66");
  target.release();
  assert.deepEqual(await queue.drain(5000), { dropped: 0 });
  assert.equal(queue.records().length, 66);
  assert.ok(queue.records().every((record) => record.status === 200));
});

Deno.test("a redirect is not followed: its status is recorded and the other host never called", async () => {
  await using elsewhere = await receiver();
  await using target = await receiver((res) => res.writeHead(302, { location: `${elsewhere.url}/stolen` }).end());
  const queue = new CallbackQueue();
  queue.send("r", { method: "POST", url: `${target.url}/hook`, body: "secret" });
  queue.send("r", { method: "GET", url: `${target.url}/hook` });
  await queue.drain(5000);
  assert.deepEqual(queue.records().map((record) => record.status), [302, 302]);
  assert.equal(target.hits.length, 2);
  assert.equal(elsewhere.hits.length, 0);
});

Deno.test("drain waits for callbacks in flight and waiting that finish within the grace period", async () => {
  await using target = await holdingReceiver();
  const queue = new CallbackQueue({ maxInFlight: 2 });
  for (let i = 1; i <= 3; i++) queue.send("s", { method: "POST", url: `${target.url}/${i}` });
  const drained = queue.drain(5000);
  await until(() => target.hits.length === 2, "two requests in flight");
  target.release();
  await until(() => target.hits.length === 3, "the waiting request");
  target.release();
  assert.deepEqual(await drained, { dropped: 0 });
  assert.deepEqual(queue.records().map((record) => record.status), [200, 200, 200]);
});

Deno.test("drain past the grace period aborts callbacks in flight, drops waiting and delayed ones, and counts them", async () => {
  await using target = await holdingReceiver();
  const queue = new CallbackQueue({ maxInFlight: 2 });
  for (let i = 1; i <= 3; i++) queue.send("s", { method: "POST", url: `${target.url}/${i}` });
  queue.send("later", { method: "POST", url: `${target.url}/later`, delayMs: 60_000 });
  await until(() => target.hits.length === 2, "two requests in flight");
  assert.equal(queue.waiting, 2);
  assert.deepEqual(await queue.drain(50), { dropped: 4 });
  assert.equal(queue.inFlight, 0);
  assert.equal(queue.waiting, 0);
  assert.equal(queue.dropped, 4);
  const records = queue.records().map(untimed).map(({ url, error }) => `${url.slice(target.url.length)} ${error}`);
  assert.deepEqual(records.sort(), [
    "/1 aborted at shutdown",
    "/2 aborted at shutdown",
    "/3 dropped at shutdown",
    "/later dropped at shutdown",
  ]);
  // Afterwards nothing goes out.
  queue.send("s", { method: "POST", url: `${target.url}/after` });
  assert.equal(queue.dropped, 5);
  assert.equal(queue.records().at(-1)!.error, "dropped: the server has stopped");
  assert.equal(target.hits.length, 2);
  target.release();
});

Deno.test("beyond maxWaiting the oldest waiting callback is dropped, with a counted warning at the 1st, 10th, 100th drop of a spell", async () => {
  await using target = await holdingReceiver();
  const lines: string[] = [];
  const queue = new CallbackQueue({ maxInFlight: 1, maxWaiting: 2, log: (line) => lines.push(line) });
  for (let i = 1; i <= 5; i++) queue.send("s", { method: "POST", url: `${target.url}/${i}` });
  assert.equal(queue.inFlight, 1);
  assert.equal(queue.waiting, 2);
  assert.equal(queue.dropped, 2);
  assert.deepEqual(lines, [
    `[WARN] callbacks: more than 2 waiting; dropped the oldest waiting, POST ${target.url}/2 of stub s (1 dropped so far)`,
  ]);
  assert.deepEqual(queue.records().map(untimed), [
    { stub: "s", method: "POST", url: `${target.url}/2`, error: "dropped: more than 2 waiting" },
    { stub: "s", method: "POST", url: `${target.url}/3`, error: "dropped: more than 2 waiting" },
  ]);
  // Eight more drops make ten in this spell: the second warning.
  for (let i = 6; i <= 13; i++) queue.send("s", { method: "POST", url: `${target.url}/${i}` });
  assert.equal(queue.dropped, 10);
  assert.equal(lines.length, 2);
  assert.equal(
    lines[1],
    `[WARN] callbacks: more than 2 waiting; dropped the oldest waiting, POST ${target.url}/11 of stub s (10 dropped so far)`,
  );
  for (let n = 1; n <= 3; n++) {
    await until(() => target.hits.length === n && target.held.length === 1, `request ${n}`);
    target.release();
  }
  // Nothing waits now, so the next full spell warns again at its first drop.
  await until(() => queue.inFlight === 0, "the queue to empty");
  for (let i = 14; i <= 17; i++) queue.send("s", { method: "POST", url: `${target.url}/${i}` });
  assert.equal(queue.dropped, 11);
  assert.equal(lines.filter((line) => line.startsWith("[WARN]")).length, 3);
  assert.match(lines.at(-1)!, /dropped the oldest waiting, POST .*\/15 of stub s \(11 dropped so far\)$/);
  for (let n = 4; n <= 6; n++) {
    await until(() => target.hits.length === n && target.held.length === 1, `request ${n}`);
    target.release();
  }
  assert.deepEqual(await queue.drain(5000), { dropped: 0 });
  assert.deepEqual(target.hits.map((hit) => hit.url), ["/1", "/12", "/13", "/14", "/16", "/17"]);
});

Deno.test("regression: 10,000 callbacks with 64 KB bodies to a receiver that never answers held every body (690 MB); now at most maxBytes, the oldest dropped and counted", async () => {
  await using target = await holdingReceiver();
  const lines: string[] = [];
  const queue = new CallbackQueue({ log: (line) => lines.push(line) });
  assert.equal(queue.maxBytes, MAX_CALLBACK_BYTES);
  const body = new Uint8Array(64 * 1024);
  const url = `${target.url}/hook`;
  const each = url.length + "POST".length + body.byteLength;
  for (let i = 0; i < 10_000; i++) queue.send("big", { method: "POST", url, body });
  const held = Math.floor(MAX_CALLBACK_BYTES / each);
  assert.equal(queue.bytes, held * each);
  assert.ok(queue.bytes <= MAX_CALLBACK_BYTES);
  assert.equal(queue.inFlight, 16);
  assert.equal(queue.waiting, held - 16);
  assert.equal(queue.dropped, 10_000 - held);
  // One counted warning at the 1st, 10th, 100th and 1000th drop.
  assert.deepEqual(lines.map((line) => /\((\d+) dropped so far\)$/.exec(line)?.[1]), ["1", "10", "100", "1000"]);
  assert.match(lines[0], /^\[WARN\] callbacks: more than 33554432 bytes held; dropped the oldest waiting, POST /);
  const records = queue.records();
  assert.equal(records.length, 500);
  assert.ok(records.every((record) => record.error === "dropped: more than 33554432 bytes held"));
  assert.deepEqual(await queue.drain(0), { dropped: held });
  assert.equal(queue.bytes, 0);
});

Deno.test("regression: a healthy receiver's callback waited behind a slow one's; now the slow origin holds at most 16 slots and 2,000 waiting", async () => {
  await using slow = await holdingReceiver();
  await using healthy = await receiver((res) => res.writeHead(204).end());
  const queue = new CallbackQueue({ timeoutMs: 60_000 });
  for (let i = 0; i < 2_100; i++) queue.send("slow", { method: "POST", url: `${slow.url}/${i}` });
  assert.equal(queue.inFlightTo(slow.url), 16);
  assert.equal(queue.waiting, 2_000);
  assert.equal(queue.dropped, 84);
  assert.equal(queue.records()[0].error, `dropped: more than 2000 waiting for ${slow.url}`);
  const start = performance.now();
  queue.send("healthy", { method: "POST", url: `${healthy.url}/now` });
  await until(() => queue.records().some((record) => record.status === 204), "the healthy callback");
  const ms = performance.now() - start;
  assert.ok(ms < 2000, `the healthy callback took ${ms.toFixed(0)} ms`);
  assert.equal(queue.inFlightTo(slow.url), 16);
  assert.deepEqual(await queue.drain(0), { dropped: 2_016 });
});

Deno.test("regression: records were listed in completion order; now oldest first by when each was sent", async () => {
  await using slow = await holdingReceiver();
  await using fast = await receiver();
  const queue = new CallbackQueue();
  queue.send("first", { method: "POST", url: `${slow.url}/1` });
  await until(() => slow.hits.length === 1, "the first callback sent");
  queue.send("second", { method: "POST", url: `${fast.url}/2` });
  await until(() => queue.records().length === 1, "the second answered");
  slow.release();
  await queue.drain(5000);
  const records = queue.records();
  assert.deepEqual(records.map((record) => record.stub), ["first", "second"]);
  assert.ok(records[0].at <= records[1].at);
  assert.ok(records[0].duration_ms > records[1].duration_ms);
});

Deno.test("a record keeps the first 4 KiB of the body sent, and says when it is cut", async () => {
  const queue = new CallbackQueue({ fetch: () => Promise.resolve(new Response(null, { status: 204 })) });
  queue.send("text", { method: "POST", url: "http://127.0.0.1:9/t", body: "é".repeat(3000) });
  queue.send("bytes", { method: "POST", url: "http://127.0.0.1:9/b", body: new Uint8Array(5000).fill(97) });
  queue.send("small", { method: "POST", url: "http://127.0.0.1:9/s", body: "x".repeat(4096) });
  await queue.drain(5000);
  const [text, bytes, small] = queue.records();
  assert.deepEqual([text.body, text.body_truncated], ["é".repeat(2048), true]);
  assert.deepEqual([bytes.body, bytes.body_truncated], ["a".repeat(4096), true]);
  assert.deepEqual([small.body, small.body_truncated], ["x".repeat(4096), undefined]);
});

Deno.test("send never throws: a bad URL, scheme or header is recorded as an error", async () => {
  const sent: string[] = [];
  const queue = new CallbackQueue({
    fetch: (url) => {
      sent.push(url);
      return Promise.resolve(new Response("x"));
    },
  });
  queue.send("a", { method: "POST", url: "not a url" });
  queue.send("b", { method: "GET", url: "file:///etc/passwd" });
  queue.send("c", { method: "POST", url: "http://127.0.0.1:9/h", headers: { "x-bad": "a\nb" } });
  queue.send("d", { method: "POST", url: "http://127.0.0.1:9/h\n x" });
  await queue.drain(5000);
  const records = queue.records().map(untimed);
  assert.deepEqual(records.map((r) => [r.stub, r.url, r.status ?? "error"]), [
    ["a", '"not a url"', "error"],
    ["b", "file:///etc/passwd", "error"],
    ["c", "http://127.0.0.1:9/h", "error"],
    // The URL parser drops the newline; the space is encoded.
    ["d", "http://127.0.0.1:9/h%20x", 200],
  ]);
  assert.equal(records[1].error, "only http and https URLs are called back, got file:");
  assert.deepEqual(sent, ["http://127.0.0.1:9/h%20x"]);
});

Deno.test("a log function that throws loses its line, never the callback or its record", async () => {
  const queue = new CallbackQueue({
    maxInFlight: 1,
    maxWaiting: 0,
    fetch: () => Promise.resolve(new Response(null, { status: 204 })),
    log: () => {
      throw new Error("log broke");
    },
  });
  queue.send("s", { method: "POST", url: "http://127.0.0.1:9/a" });
  queue.send("s", { method: "POST", url: "http://127.0.0.1:9/b" }); // dropped: its warning throws too
  assert.deepEqual(await queue.drain(5000), { dropped: 0 });
  assert.deepEqual(queue.records().map((r) => r.status ?? r.error), [204, "dropped: more than 0 waiting"]);
});

Deno.test("a delayed callback waits for its delay, then goes out", async () => {
  const sent: number[] = [];
  const start = performance.now();
  const queue = new CallbackQueue({
    fetch: () => {
      sent.push(performance.now() - start);
      return Promise.resolve(new Response(null, { status: 204 }));
    },
  });
  queue.send("d", { method: "POST", url: "http://127.0.0.1:9/h", delayMs: 40 });
  assert.equal(queue.waiting, 1);
  assert.equal(queue.inFlight, 0);
  assert.deepEqual(await queue.drain(5000), { dropped: 0 });
  assert.equal(sent.length, 1);
  assert.ok(sent[0] >= 35, `${sent[0]}`);
});

Deno.test("the records are bounded: the newest `keep` are kept, oldest first; clearRecords forgets them", async () => {
  const queue = new CallbackQueue({ keep: 3, fetch: () => Promise.resolve(new Response("x")) });
  for (let i = 1; i <= 5; i++) queue.send("s", { method: "POST", url: `http://127.0.0.1:9/${i}` });
  await queue.drain(5000);
  assert.deepEqual(queue.records().map((r) => r.url), [
    "http://127.0.0.1:9/3",
    "http://127.0.0.1:9/4",
    "http://127.0.0.1:9/5",
  ]);
  queue.clearRecords();
  assert.deepEqual(queue.records(), []);
});

Deno.test("options are checked: a bound below its minimum is a RangeError", () => {
  assert.throws(() => new CallbackQueue({ maxInFlight: 0 }), {
    name: "RangeError",
    message: "maxInFlight must be a whole number of 1 or more, got 0",
  });
  assert.throws(() => new CallbackQueue({ timeoutMs: 1.5 }), RangeError);
});

Deno.test("the module compiled as the npm build compiles it sends, records and drains under Node", () => {
  const dir = mkdtempSync(join(tmpdir(), "stubtool-callbacks-"));
  try {
    const root = new URL("..", import.meta.url).pathname;
    const tsc = spawnSync("node", [
      join(root, "node_modules/typescript/bin/tsc"),
      "--target",
      "ES2022",
      "--lib",
      "ES2023",
      "--types",
      "node",
      "--typeRoots",
      join(root, "node_modules/@types"),
      "--module",
      "NodeNext",
      "--moduleResolution",
      "NodeNext",
      "--strict",
      "--skipLibCheck",
      "--noEmitOnError",
      "--rewriteRelativeImportExtensions",
      "--rootDir",
      join(root, "src"),
      "--outDir",
      dir,
      join(root, "src/server/callbacks/callbacks.ts"),
    ], { encoding: "utf8" });
    assert.equal(tsc.status, 0, tsc.stdout + tsc.stderr);
    const script = join(dir, "check.mjs");
    writeFileSync(
      script,
      `import { createServer } from "node:http";
import { CallbackQueue } from "./server/callbacks/callbacks.js";
const hits = [];
const server = createServer((req, res) => {
  let body = "";
  req.on("data", (c) => body += c).on("end", () => {
    hits.push(req.method + " " + req.url + " " + body);
    if (req.url === "/slow") return;
    res.writeHead(req.url === "/moved" ? 301 : 201, { location: "/elsewhere" }).end();
  });
});
await new Promise((r) => server.listen(0, "127.0.0.1", r));
const base = "http://127.0.0.1:" + server.address().port;
const lines = [];
// 1 s: the first fetch of a fresh Node process can take more than 100 ms on a busy machine.
const queue = new CallbackQueue({ timeoutMs: 1000, log: (l) => lines.push(l.replace(/ [0-9.]+ms$/, "")) });
queue.send("a", { method: "POST", url: base + "/hook", body: "hi" });
queue.send("b", { method: "POST", url: base + "/moved" });
queue.send("c", { method: "POST", url: base + "/slow" });
const closed = createServer();
await new Promise((r) => closed.listen(0, "127.0.0.1", r));
const closedPort = closed.address().port;
await new Promise((r) => closed.close(r));
queue.send("d", { method: "POST", url: "http://127.0.0.1:" + closedPort + "/refused" });
const drained = await queue.drain(5000);
server.closeAllConnections();
server.close();
const records = queue.records().map(({ stub, status, error }) => stub + " " + (status ?? error)).sort();
console.log(JSON.stringify({ drained, records, hits: hits.sort(), lines: lines.length }));
`,
    );
    const run = spawnSync("node", [script], { encoding: "utf8" });
    assert.equal(run.status, 0, run.stderr);
    assert.deepEqual(JSON.parse(run.stdout), {
      drained: { dropped: 0 },
      records: ["a 201", "b 301", "c no answer within 1000 ms", "d connection refused"],
      hits: ["POST /hook hi", "POST /moved ", "POST /slow "],
      lines: 4,
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
