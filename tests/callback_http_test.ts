/**
 * Callbacks (webhooks) end to end: a stub's `callbacks` sent to a second server on port 0
 * after the answer, on both adapters; captures and templates in them; the literal
 * scheme/host/port rule; `GET /__stubtool__/callbacks`; the request log line and the stop
 * (in-flight callbacks finish within the grace, or are dropped with a `[WARN]`) through the real `serve` CLI.
 */
import assert from "node:assert/strict";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { join } from "node:path";
import { get, post, stubServer } from "../mod.ts";
import { ADAPTERS, send, serverTest } from "./_http.ts";
import { freePort, runCli, startServe, tempDir } from "./_cli.ts";

/** What the receiver got. */
interface Received {
  method: string;
  url: string;
  headers: IncomingMessage["headers"];
  body: string;
}

/**
 * A bare HTTP server on port 0 that records every request. Paths under `/hold/` get no answer
 * until {@link Receiver.release}; `/never/` never; everything else `200 ok` at once.
 */
class Receiver implements AsyncDisposable {
  readonly received: Received[] = [];
  readonly #held: ServerResponse[] = [];
  readonly #waiters: (() => void)[] = [];
  readonly #server = createServer((req, res) => {
    let body = "";
    req.setEncoding("utf8");
    req.on("data", (chunk: string) => body += chunk);
    req.on("end", () => {
      this.received.push({ method: req.method!, url: req.url!, headers: req.headers, body });
      for (const wake of this.#waiters.splice(0)) wake();
      if (req.url!.startsWith("/hold/")) this.#held.push(res);
      else if (!req.url!.startsWith("/never/")) res.end("ok");
    });
  });
  port = 0;

  static async start(): Promise<Receiver> {
    const receiver = new Receiver();
    await new Promise<void>((resolve) => receiver.#server.listen(0, "127.0.0.1", resolve));
    receiver.port = (receiver.#server.address() as { port: number }).port;
    return receiver;
  }

  get base(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /** Resolves once `count` requests have arrived. */
  async arrived(count: number): Promise<Received[]> {
    while (this.received.length < count) await new Promise<void>((resolve) => this.#waiters.push(resolve));
    return this.received;
  }

  /** Answers every held request with `status`. */
  release(status = 200): void {
    for (const res of this.#held.splice(0)) res.writeHead(status).end();
  }

  async [Symbol.asyncDispose](): Promise<void> {
    this.release();
    this.#server.closeAllConnections();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }
}

/** Polls `GET /__stubtool__/callbacks` until it lists `count` records (the callback finishes after its answer). */
async function records(url: string, count: number) {
  for (;;) {
    const listed = (await (await fetch(`${url}/__stubtool__/callbacks`)).json()).callbacks;
    if (listed.length >= count) return listed;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

serverTest(
  "a callback goes out after the answer, never delaying it; {name} captures fill its path, query and body",
  async (server) => {
    await using receiver = await Receiver.start();
    server.routes(
      post("/orders/{id}").id("order-created").status(202).body({ accepted: "{id}" })
        .callback("POST", `${receiver.base}/hold/orders/{id}?event=created&id={id}`, {
          headers: { "content-type": "application/json", "x-order": "{id}" },
          body: { id: "{id}", status: "created" },
        }),
    );
    // The receiver holds the callback unanswered: the client has its answer all the same.
    const answer = await send(server, "POST", "/orders/o%201");
    assert.deepEqual([answer.status, answer.json], [202, { accepted: "o 1" }]);
    const [got] = await receiver.arrived(1);
    assert.deepEqual(
      [got.method, got.url, got.headers["x-order"], got.headers["content-type"], JSON.parse(got.body)],
      ["POST", "/hold/orders/o%201?event=created&id=o%201", "o 1", "application/json", {
        id: "o 1",
        status: "created",
      }],
    );
    // Unanswered, it is not recorded yet.
    assert.deepEqual((await send(server, "GET", "/__stubtool__/callbacks")).json, { callbacks: [] });
    receiver.release(204);
    assert.equal(got.headers["stubtool-callback-depth"], "1");
    const [record] = await records(server.url, 1);
    assert.deepEqual(Object.keys(record), ["stub", "method", "url", "headers", "body", "status", "duration_ms", "at"]);
    assert.deepEqual(
      { ...record, duration_ms: typeof record.duration_ms, at: typeof record.at },
      {
        stub: "order-created",
        method: "POST",
        url: `${receiver.base}/hold/orders/o%201?event=created&id=o%201`,
        headers: { "content-type": "application/json", "x-order": "o 1", "stubtool-callback-depth": "1" },
        body: '{"id":"o 1","status":"created"}',
        status: 204,
        duration_ms: "number",
        at: "string",
      },
    );
    assert.match(record.at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    assert.ok(record.duration_ms >= 0);
  },
);

serverTest(
  "in a template stub the callback's url, headers and body are templates; {name} is plain text there",
  async (server) => {
    await using receiver = await Receiver.start();
    server.routes(
      post("/payments/{id}").template().status(201).body({ id: "{{params.id}}" })
        .callback("PUT", `${receiver.base}/hooks/{{params.id}}?sku={{request.json.sku}}`, {
          headers: { "x-amount": "{{request.json.amount}}" },
          body: { payment: "{{params.id}}", sku: "{{upper request.json.sku}}", raw: "{id}" },
        }),
    );
    const answer = await send(server, "POST", "/payments/p-9", { body: '{"sku":"a-1","amount":12}' });
    assert.deepEqual([answer.status, answer.json], [201, { id: "p-9" }]);
    const [got] = await receiver.arrived(1);
    assert.deepEqual(
      [got.method, got.url, got.headers["x-amount"], JSON.parse(got.body)],
      ["PUT", "/hooks/p-9?sku=a-1", "12", { payment: "p-9", sku: "A-1", raw: "{id}" }],
    );
    const [record] = await records(server.url, 1);
    assert.deepEqual([record.stub, record.method, record.url, record.status], [
      "stub-1",
      "PUT",
      `${receiver.base}/hooks/p-9?sku=a-1`,
      200,
    ]);
  },
);

serverTest(
  "a text callback body without a content-type header goes out with none (fetch would add text/plain), as WireMock's webhooks",
  async (server) => {
    await using receiver = await Receiver.start();
    server.routes(
      get("/a").callback("POST", `${receiver.base}/untyped`, { body: "plain {x}" }),
      get("/b").callback("POST", `${receiver.base}/typed`, { body: "hi", headers: { "Content-Type": "text/x-a" } }),
    );
    await send(server, "GET", "/a");
    await send(server, "GET", "/b");
    const got = await receiver.arrived(2);
    const byUrl = (url: string) => got.find((hit) => hit.url === url)!;
    assert.deepEqual([byUrl("/untyped").headers["content-type"], byUrl("/untyped").body], [undefined, "plain {x}"]);
    assert.deepEqual([byUrl("/typed").headers["content-type"], byUrl("/typed").body], ["text/x-a", "hi"]);
  },
);

serverTest("a receiver that refuses the connection is recorded with an error and no status", async (server) => {
  const closed = freePort();
  server.routes(get("/ping").id("ping").callback("POST", `http://127.0.0.1:${closed}/hook`));
  assert.equal((await send(server, "GET", "/ping")).status, 200);
  const [record] = await records(server.url, 1);
  assert.deepEqual(Object.keys(record), ["stub", "method", "url", "headers", "error", "duration_ms", "at"]);
  assert.deepEqual([record.stub, record.method, record.url, record.error], [
    "ping",
    "POST",
    `http://127.0.0.1:${closed}/hook`,
    "connection refused",
  ]);
});

for (const journalSize of [undefined, 0]) {
  serverTest(
    `regression: a template callback of a 65,537-byte request was sent with an empty body (the journal's cut copy); now the whole body (journalSize ${journalSize})`,
    async (server) => {
      await using receiver = await Receiver.start();
      server.routes(
        post("/upload").template().status(202).callback("POST", `${receiver.base}/copy`, { body: "{{request.body}}" }),
      );
      for (const size of [65_537, 20_000]) {
        const body = "a".repeat(size - 1) + "z";
        assert.equal((await send(server, "POST", "/upload", { body })).status, 202);
        const got = await receiver.arrived(size === 65_537 ? 1 : 2);
        assert.equal(got.at(-1)!.body.length, size);
        assert.equal(got.at(-1)!.body, body);
      }
      // The record keeps the first 4 KiB.
      const listed = await records(server.url, 2);
      assert.deepEqual(
        listed.map((r: { body: string; body_truncated: boolean }) => [r.body.length, r.body_truncated]),
        [
          [4096, true],
          [4096, true],
        ],
      );
    },
    { journalSize },
  );
}

serverTest(
  "a template callback that reads a body over --max-body is not sent (recorded, never with a cut body): the stub answers 413",
  async (server) => {
    await using receiver = await Receiver.start();
    server.routes(
      post("/upload").id("up").template().callback("POST", `${receiver.base}/copy`, { body: "{{request.body}}" }),
    );
    assert.equal((await send(server, "POST", "/upload", { body: "x".repeat(2000) })).status, 413);
    const [record] = await records(server.url, 1);
    assert.deepEqual([record.stub, record.error], [
      "up",
      "the request body was not read whole: request body is larger than 1000 bytes (--max-body)",
    ]);
    assert.equal(receiver.received.length, 0);
  },
  { maxBody: 1000 },
);

serverTest(
  "regression: a callback that calls its own stub on this server looped until the stub was deleted; now the chain stops after 4 hops",
  async (server) => {
    server.routes(get("/loop").id("loop").callback("GET", `${server.url}/loop`));
    assert.equal((await send(server, "GET", "/loop")).status, 200);
    const listed = await records(server.url, 5);
    assert.deepEqual(listed.map((r: { status?: number; error?: string }) => r.status ?? r.error), [
      200,
      200,
      200,
      200,
      "dropped: a callback loop: the request was hop 4 of a callback chain (stubtool-callback-depth), at most 4",
    ]);
    // Nothing more goes out: 1 request + 4 callbacks hit the stub, and stay at that.
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.equal((await server.report()).stubs[0].hit_count, 5);
    assert.equal((await records(server.url, 5)).length, 5);
  },
);

serverTest(
  "regression: a healthy receiver's callback waited behind 100 to a receiver that never answers; now it goes out at once",
  async (server) => {
    await using stuck = await Receiver.start();
    await using healthy = await Receiver.start();
    server.routes(
      get("/slow").callback("POST", `${stuck.base}/never/x`),
      get("/ok").id("ok").callback("POST", `${healthy.base}/fine`),
    );
    for (let i = 0; i < 100; i++) assert.equal((await send(server, "GET", "/slow")).status, 200);
    await stuck.arrived(16);
    const start = performance.now();
    assert.equal((await send(server, "GET", "/ok")).status, 200);
    await healthy.arrived(1);
    const ms = performance.now() - start;
    assert.ok(ms < 2000, `the healthy callback took ${ms.toFixed(0)} ms`);
    const [record] = await records(server.url, 1);
    assert.deepEqual([record.stub, record.status], ["ok", 200]);
    // Only 16 are in flight to the stuck one.
    assert.equal(stuck.received.length, 16);
  },
);

serverTest(
  "regression: a callback to an https receiver with a self-signed certificate failed with no way out; the error names --callback-ca",
  async (server) => {
    await using receiver = await stubServer(0, { tls: "self-signed" });
    receiver.routes(post("/hook").status(202));
    server.routes(get("/go").callback("POST", `${receiver.url}/hook`, { body: "hi" }));
    assert.equal((await send(server, "GET", "/go")).status, 200);
    const [record] = await records(server.url, 1);
    assert.match(record.error, /certificate/i);
    assert.match(
      record.error,
      /\(the receiver's certificate is not trusted: pass its PEM certificate with serve --callback-ca FILE\)$/,
    );
    assert.equal((await receiver.report()).stubs[0].hit_count, 0);
  },
);

for (const adapter of ADAPTERS) {
  Deno.test(`[${adapter}] callbackCa: a callback to an https receiver with that self-signed certificate goes out`, async () => {
    await using receiver = await stubServer(0, { tls: "self-signed" });
    receiver.routes(post("/hook").status(202));
    await using server = await stubServer(0, { adapter, callbackCa: receiver.certificate! });
    server.routes(get("/go").callback("POST", `${receiver.url}/hook`, { body: "hi" }));
    assert.equal((await send(server, "GET", "/go")).status, 200);
    const [record] = await records(server.url, 1);
    assert.deepEqual([record.status, record.error], [202, undefined]);
    assert.equal((await receiver.report()).stubs[0].hit_count, 1);
  });
}

Deno.test("callbackCa must be PEM certificate text", async () => {
  await assert.rejects(stubServer(0, { callbackCa: "nope" }), {
    name: "TypeError",
    message:
      'stubServer(port, options): callbackCa must be PEM certificate text (-----BEGIN CERTIFICATE-----), got "nope"',
  });
});

Deno.test("serve --callback-ca (and STUBTOOL_CALLBACK_CA) trusts a self-signed receiver; an unreadable file stops serve", async () => {
  await using receiver = await stubServer(0, { tls: "self-signed" });
  receiver.routes(post("/hook").status(202));
  await using dir = await tempDir();
  const ca = join(dir.path, "ca.pem");
  await Deno.writeTextFile(ca, receiver.certificate!);
  const stub = `{id: go, method: GET, path: /go, callbacks: [{method: POST, url: "${receiver.url}/hook"}]}`;
  for (const [args, env] of [[["--callback-ca", ca], {}], [[], { STUBTOOL_CALLBACK_CA: ca }]] as const) {
    const served = await startServe(["--port", "0", "--stub", stub, ...args], { env });
    try {
      await (await fetch(`${served.url}/go`)).body?.cancel();
      await served.process.waitForStdout(/^callback POST https:\/\/127\.0\.0\.1:\d+\/hook 202 \[go\] \d+\.\dms$/m);
    } finally {
      await served.process[Symbol.asyncDispose]();
    }
  }
  const missing = join(dir.path, "missing.pem");
  const result = await runCli(["serve", "--port", "0", "--stub", stub, "--callback-ca", missing]);
  assert.equal(result.code, 1);
  assert.match(result.stderr, new RegExp(`^\\[ERROR\\] --callback-ca ${missing.replaceAll("/", "\\/")}: `, "m"));
});

Deno.test("the scheme, host and port of a callback url are written out: a capture or template there is refused", () => {
  assert.throws(() => post("/hooks/{host}").callback("POST", "http://{host}/x").toStub(), {
    name: "TypeError",
    message: 'post("/hooks/{host}"): callbacks[0]: url must write the scheme, host and port out ' +
      '(a {name} or {{…}} may fill only the path and query), got "http://{host}/x"',
  });
  assert.throws(
    () => post("/hooks").template().callback("POST", "http://127.0.0.1:{{request.query.port}}/x").toStub(),
    /callbacks\[0\]: url must write the scheme, host and port out/,
  );
});

Deno.test("validate: a callback url whose host is a capture is an error with its place", async () => {
  await using dir = await tempDir();
  const config = join(dir.path, "stubs.yaml");
  await Deno.writeTextFile(
    config,
    `routes:
  - method: POST
    path: /hooks/{host}
    callbacks:
      - method: POST
        url: "http://{host}/x"
`,
  );
  const result = await runCli(["validate", config]);
  assert.equal(result.code, 1);
  assert.equal(
    result.stderr,
    `[ERROR] routes[0]: callbacks[0]: url must write the scheme, host and port out (a {name} or {{…}} may fill ` +
      `only the path and query), got "http://{host}/x" (at ${config}:5:9)\n`,
  );
});

for (const adapter of ADAPTERS) {
  Deno.test(`[${adapter}] shutdown() waits for a callback in flight to finish within the grace period`, async () => {
    await using receiver = await Receiver.start();
    const lines: string[] = [];
    const server = await stubServer(0, { adapter, onCallback: (line) => lines.push(line) });
    server.routes(get("/ping").id("ping").callback("POST", `${receiver.base}/hold/ping`));
    assert.equal((await send(server, "GET", "/ping")).status, 200);
    await receiver.arrived(1);
    let stopped = false;
    const stopping = server.shutdown().then(() => stopped = true);
    await new Promise((resolve) => setTimeout(resolve, 50));
    assert.equal(stopped, false, "shutdown waits for the callback in flight");
    receiver.release(201);
    await stopping;
    assert.equal(lines.length, 1);
    assert.match(lines[0], new RegExp(`^callback POST ${receiver.base}/hold/ping 201 \\[ping\\] \\d+\\.\\dms$`));
    assert.deepEqual(server.handler.callbackRecords().map((r) => [r.stub, r.status]), [["ping", 201]]);
  });

  Deno.test(`[${adapter}] callbacks still in flight when the grace ends are dropped, with one [WARN] naming how many`, async () => {
    await using receiver = await Receiver.start();
    const lines: string[] = [];
    await using server = await stubServer(0, { adapter, onCallback: (line) => lines.push(line) });
    server.routes(
      get("/ping").id("ping").callback("POST", `${receiver.base}/never/1`).callback(
        "POST",
        `${receiver.base}/never/2`,
      ),
    );
    assert.equal((await send(server, "GET", "/ping")).status, 200);
    await receiver.arrived(2);
    // The server's own stop gives 5 s; its handler's drain takes any grace period.
    assert.deepEqual(await server.handler.drainCallbacks(50), { dropped: 2 });
    // Each aborted callback has its line, then one warning counts them.
    assert.deepEqual(lines.map((line) => line.replace(/\] \d+\.\dms$/, "] <ms>")), [
      `callback POST ${receiver.base}/never/1 error: aborted at shutdown [ping] <ms>`,
      `callback POST ${receiver.base}/never/2 error: aborted at shutdown [ping] <ms>`,
      "[WARN] 2 callback(s) dropped at shutdown: still on their way when the grace period ended",
    ]);
    assert.deepEqual(server.handler.callbackRecords().map((r) => [r.url, r.error]), [
      [`${receiver.base}/never/1`, "aborted at shutdown"],
      [`${receiver.base}/never/2`, "aborted at shutdown"],
    ]);
  });
}

Deno.test("serve logs one line per callback, and on SIGTERM lets one finish within the grace and drops a stuck one with [WARN]", async () => {
  await using receiver = await Receiver.start();
  const closed = freePort();
  const served = await startServe([
    "--port",
    "0",
    "--stub",
    `{id: order, method: POST, path: "/orders/{id}", status: 202, callbacks: [{method: POST, url: "${receiver.base}/orders/{id}"}]}`,
    "--stub",
    `{id: refused, method: GET, path: /refused, callbacks: [{method: GET, url: "http://127.0.0.1:${closed}/x"}]}`,
    "--stub",
    `{id: slow, method: GET, path: /slow, callbacks: [{method: POST, url: "${receiver.base}/hold/slow"}]}`,
    "--stub",
    `{id: stuck, method: GET, path: /stuck, callbacks: [{method: POST, url: "${receiver.base}/never/stuck"}]}`,
  ]);
  try {
    assert.equal(await fetch(`${served.url}/orders/o-1`, { method: "POST" }).then((r) => r.body?.cancel()), undefined);
    await served.process.waitForStdout(/^callback POST .*\/orders\/o-1 200 \[order\] \d+\.\dms$/m);
    await (await fetch(`${served.url}/refused`)).body?.cancel();
    await served.process.waitForStdout(
      new RegExp(
        `^callback GET http://127\\.0\\.0\\.1:${closed}/x error: connection refused \\[refused\\] \\d+\\.\\dms$`,
        "m",
      ),
    );
    await (await fetch(`${served.url}/slow`)).body?.cancel();
    await (await fetch(`${served.url}/stuck`)).body?.cancel();
    await receiver.arrived(3);
    served.process.kill("SIGTERM");
    await served.process.waitForStdout(/^stopping \(SIGTERM\)/m);
    receiver.release(200); // the slow one answers within the grace
    const result = await served.process.result();
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /^callback POST http:\/\/127\.0\.0\.1:\d+\/hold\/slow 200 \[slow\] \d+\.\dms$/m);
    assert.match(
      result.stdout,
      /^callback POST http:\/\/127\.0\.0\.1:\d+\/never\/stuck error: aborted at shutdown \[stuck\] \d+\.\dms$/m,
    );
    assert.match(result.stdout, /^stopped: 4\/4 stubs exercised, 0 unmatched request\(s\)$/m);
    assert.equal(
      result.stderr,
      "[WARN] 1 callback(s) dropped at shutdown: still on their way when the grace period ended\n",
    );
  } finally {
    await served.process[Symbol.asyncDispose]();
  }
});
