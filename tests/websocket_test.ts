/**
 * WebSocket answers (`websocket:`) on both adapters, with the `ws` client: messages on
 * connect, rules answering matching messages (text patterns and JSON sub-documents), templates
 * reading `message.*`, close; unmatched messages recorded with near misses; hits, rule matches
 * and the journal; and the bounds (message size, open connections, a client that never reads).
 */
import assert from "node:assert/strict";
import { connect, type Socket } from "node:net";
import { WebSocket } from "ws";
import { get } from "../mod.ts";
import { send, serverTest } from "./_http.ts";

/** A `ws` client that queues what it receives, so a test can await the next message. */
class Client {
  readonly ws: WebSocket;
  readonly #queue: string[] = [];
  #waiting: ((text: string) => void) | undefined;
  closed: Promise<{ code: number }>;

  constructor(url: string) {
    this.ws = new WebSocket(url);
    this.ws.on("message", (data) => {
      const text = data.toString();
      if (this.#waiting) {
        const resolve = this.#waiting;
        this.#waiting = undefined;
        resolve(text);
      } else this.#queue.push(text);
    });
    this.ws.on("error", () => {});
    this.closed = new Promise((resolve) => this.ws.on("close", (code) => resolve({ code })));
  }

  opened(): Promise<void> {
    return new Promise((resolve, reject) => {
      this.ws.once("open", () => resolve());
      this.ws.once("unexpected-response", (_req, res) => reject(new Error(`answered ${res.statusCode}`)));
      this.ws.once("error", reject);
    });
  }

  next(): Promise<string> {
    if (this.#queue.length) return Promise.resolve(this.#queue.shift()!);
    return new Promise((resolve) => this.#waiting = resolve);
  }

  /** Resolves with a message that came within `ms`, or undefined. */
  async within(ms: number): Promise<string | undefined> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<undefined>((resolve) => timer = setTimeout(() => resolve(undefined), ms));
    try {
      return await Promise.race([this.next(), timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  async close(): Promise<void> {
    this.ws.close();
    await this.closed;
  }
}

/** Waits until `done()` holds, up to `ms`; whether it did. */
async function until(done: () => boolean, ms = 5_000): Promise<boolean> {
  const end = Date.now() + ms;
  while (!done() && Date.now() < end) await new Promise((resolve) => setTimeout(resolve, 10));
  return done();
}

const wsUrl = (url: string, path: string) => url.replace(/^http/, "ws") + path;

serverTest("a ws client gets on_connect messages, replies to matching messages and none to others", async (server) => {
  server.routes(
    get("/chat").websocket({
      onConnect: [{ send: { json: { type: "welcome" } } }, { send: ["a", "b"], delayMs: 10 }],
      onMessage: [
        { match: { json: { type: "ping" } }, send: { json: { type: "pong" } } },
        { match: { regex: "^echo .*" }, send: ["echoed", "twice"] },
      ],
    }),
  );
  const client = new Client(wsUrl(server.url, "/chat"));
  await client.opened();
  assert.equal(await client.next(), '{"type":"welcome"}');
  assert.equal(await client.next(), "a");
  assert.equal(await client.next(), "b");
  client.ws.send(JSON.stringify({ type: "ping", id: 7 }));
  assert.equal(await client.next(), '{"type":"pong"}');
  client.ws.send("echo hello");
  assert.equal(await client.next(), "echoed");
  assert.equal(await client.next(), "twice");
  client.ws.send("nothing matches this");
  assert.equal(await client.within(200), undefined);
  await client.close();

  const report = await server.report();
  assert.equal(report.stubs[0].hit_count, 1);
  assert.equal(report.summary.unmatched_requests, 1);
  const [unmatched] = report.unmatched_requests;
  assert.equal(unmatched.message, "nothing matches this");
  assert.deepEqual(unmatched.closest?.map((c) => c.reason), [
    "on_message[0]: message is not JSON, rule wants {json: …}",
    "on_message[1]: message is 'nothing matches this', rule wants /^echo .*/",
  ]);
});

serverTest("a template stub's replies read message.text and message.json, and captures of the path", async (server) => {
  server.routes(
    get("/rooms/{room}").template().websocket({
      onConnect: [{ send: "joined {{params.room}}" }],
      onMessage: [
        {
          match: { json: { type: "say" } },
          send: { json: { room: "{{params.room}}", said: "{{message.json.text}}" } },
        },
        { match: { contains: "hi" }, send: "you said {{message.text}}" },
      ],
    }),
  );
  const client = new Client(wsUrl(server.url, "/rooms/lobby"));
  await client.opened();
  assert.equal(await client.next(), "joined lobby");
  client.ws.send(JSON.stringify({ type: "say", text: 'a "quote"' }));
  assert.equal(await client.next(), '{"room":"lobby","said":"a \\"quote\\""}');
  client.ws.send("oh hi there");
  assert.equal(await client.next(), "you said oh hi there");
  await client.close();
});

serverTest("close: the server closes with the code after_ms after the connection opened", async (server) => {
  server.routes(get("/short").websocket({ onConnect: [{ send: "bye soon" }], close: { code: 4001, afterMs: 50 } }));
  const client = new Client(wsUrl(server.url, "/short"));
  await client.opened();
  assert.equal(await client.next(), "bye soon");
  assert.deepEqual(await client.closed, { code: 4001 });
});

serverTest("a plain GET to a websocket stub gets 426 naming the stub; it counts as the stub's hit", async (server) => {
  server.routes(get("/chat").websocket({ onMessage: [{ match: "ping", send: "pong" }] }));
  const answer = await send(server, "GET", "/chat");
  assert.equal(answer.status, 426);
  assert.equal(answer.headers.get("upgrade"), "websocket");
  assert.deepEqual(answer.json, {
    error: "this stub answers WebSocket connections: connect with a WebSocket client (Upgrade: websocket)",
    stub: "GET /chat",
  });
});

serverTest("an upgrade no stub matches gets the 404 with near misses, and no socket", async (server) => {
  server.routes(get("/chat").websocket({ onMessage: [{ match: "ping", send: "pong" }] }));
  const client = new Client(wsUrl(server.url, "/chta"));
  await assert.rejects(client.opened(), /answered 404/);
  const report = await server.report();
  assert.equal(report.unmatched_requests[0].path, "/chta");
  assert.equal(report.stubs[0].hit_count, 0);
});

serverTest(
  "the journal records the connection (101) and each message in and out, unmatched ones with near misses",
  async (server) => {
    server.routes(
      get("/chat").websocket({ onConnect: [{ send: "hello" }], onMessage: [{ match: "ping", send: "pong" }] }),
    );
    const client = new Client(wsUrl(server.url, "/chat"));
    await client.opened();
    assert.equal(await client.next(), "hello");
    client.ws.send("ping");
    assert.equal(await client.next(), "pong");
    client.ws.send("pong?");
    assert.equal(await client.within(100), undefined);
    await client.close();
    const journal = await send(server, "GET", "/__stubtool__/requests");
    // deno-lint-ignore no-explicit-any
    const { requests } = journal.json as { requests: Record<string, any>[] };
    assert.deepEqual(
      requests.map((r: Record<string, unknown>) => [r.status, r.message ?? "connection", r.body ?? null, r.stub]),
      [
        [101, "connection", null, "GET /chat"],
        [101, "out", "hello", "GET /chat"],
        [101, "in", "ping", "GET /chat"],
        [101, "out", "pong", "GET /chat"],
        [101, "in", "pong?", "GET /chat"],
      ],
    );
    assert.deepEqual(requests[4].closest.map((c: { reason: string }) => c.reason), [
      "on_message[0]: message is 'pong?', rule wants ping",
    ]);
  },
);

/** A raw TCP connection that has done the WebSocket handshake for `path` (so a test controls every byte and the reading). */
async function rawSocket(port: number, path: string): Promise<{ socket: Socket; ended: Promise<number> }> {
  const socket = connect(port, "127.0.0.1");
  socket.on("error", () => {});
  let received = 0;
  const ended = new Promise<number>((resolve) => socket.once("close", () => resolve(received)));
  await new Promise<void>((resolve, reject) => {
    let head = "";
    const onData = (piece: Buffer) => {
      head += piece.toString("latin1");
      if (!head.includes("\r\n\r\n")) return;
      socket.off("data", onData);
      if (!head.startsWith("HTTP/1.1 101")) reject(new Error(head));
      else resolve();
    };
    socket.on("data", onData);
    socket.write(
      `GET ${path} HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n` +
        "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n",
    );
  });
  socket.on("data", (piece: Buffer) => received += piece.byteLength);
  return { socket, ended };
}

/** The head of a masked client text frame declaring `length` bytes of payload. */
function frameHead(length: number): Buffer {
  const mask = Buffer.from([1, 2, 3, 4]);
  if (length < 126) return Buffer.concat([Buffer.from([0x81, 0x80 | length]), mask]);
  if (length < 65536) {
    const head = Buffer.from([0x81, 0x80 | 126, 0, 0]);
    head.writeUInt16BE(length, 2);
    return Buffer.concat([head, mask]);
  }
  const head = Buffer.alloc(10);
  head[0] = 0x81;
  head[1] = 0x80 | 127;
  head.writeBigUInt64BE(BigInt(length), 2);
  return Buffer.concat([head, mask]);
}

/** A whole masked client text frame. */
function frame(text: string): Buffer {
  const payload = Buffer.from(text);
  const mask = [1, 2, 3, 4];
  return Buffer.concat([frameHead(payload.byteLength), payload.map((b, i) => b ^ mask[i % 4])]);
}

serverTest(
  "a 100 MB message is refused: the connection closes after the first megabyte, not the hundredth",
  async (server) => {
    server.routes(get("/chat").websocket({ onMessage: [{ match: "ping", send: "pong" }] }));
    const { socket, ended } = await rawSocket(server.getPort(), "/chat");
    socket.write(frameHead(100 * 1024 * 1024));
    // Keep sending until the server gives up; count what it took.
    let sent = 0;
    const chunk = Buffer.alloc(64 * 1024);
    let closed = false;
    ended.then(() => closed = true);
    while (!closed && sent < 100 * 1024 * 1024) {
      const ok = socket.write(chunk);
      sent += chunk.byteLength;
      if (!ok) await new Promise((resolve) => socket.once("drain", resolve).once("close", resolve));
    }
    await ended;
    assert.ok(
      sent < 20 * 1024 * 1024,
      `the server read ${sent} bytes of a message past the 1 MiB bound before closing`,
    );
    assert.ok(await until(() => server.handler.websockets.open === 0), "the session did not end");
    assert.equal(server.handler.websockets.messagesIn, 0);
  },
);

serverTest(
  "open connections are bounded: past websocket.maxConnections the upgrade gets 503, and a slot frees when one closes",
  async (server) => {
    server.routes(get("/idle").websocket({ onMessage: [{ match: "ping", send: "pong" }] }));
    const clients = [];
    for (let i = 0; i < 3; i++) {
      const client = new Client(wsUrl(server.url, "/idle"));
      await client.opened();
      clients.push(client);
    }
    const fourth = new Client(wsUrl(server.url, "/idle"));
    await assert.rejects(fourth.opened(), /answered 503/);
    assert.equal(server.handler.websockets.open, 3);
    assert.equal(server.handler.websockets.refused, 1);
    await clients.pop()!.close();
    assert.ok(await until(() => server.handler.websockets.open === 2));
    const again = new Client(wsUrl(server.url, "/idle"));
    await again.opened();
    again.ws.send("ping");
    assert.equal(await again.next(), "pong");
    await again.close();
    for (const client of clients) await client.close();
  },
  { websocket: { maxConnections: 3 } },
);

serverTest(
  "a client that never reads cannot grow the server's memory: past the send buffer bound its connection is dropped",
  async (server) => {
    const reply = "x".repeat(256 * 1024);
    server.routes(get("/flood").websocket({ onMessage: [{ match: "more", send: reply }] }));
    const { socket, ended } = await rawSocket(server.getPort(), "/flood");
    socket.pause(); // never reads again
    const asks = 400; // 100 MB of replies asked for
    for (let i = 0; i < asks; i++) socket.write(frame("more"));
    const stats = server.handler.websockets;
    // Node drops the TCP connection; Deno's WebSocket can only send a close frame, which waits
    // behind the unread data: there the session ends and sends no more (its idle timeout ends the socket).
    await Promise.race([ended, until(() => stats.dropped === 1, 20_000)]);
    assert.ok(await until(() => stats.open === 0), "the session did not end");
    socket.destroy();
    assert.equal(stats.dropped, 1);
    // What was handed to the socket: the 1 MiB bound plus what the kernel's buffers took.
    assert.ok(stats.messagesOut * reply.length < 32 * 1024 * 1024, `${stats.messagesOut} replies of 256 KiB went out`);
    assert.ok(stats.messagesIn < asks, `all ${asks} asks were answered`);
  },
  { websocket: { maxBuffered: 1024 * 1024 } },
);
