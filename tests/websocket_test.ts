/**
 * WebSocket answers (`websocket:`) on both adapters, with the `ws` client: messages on
 * connect, rules answering matching messages (text patterns and JSON sub-documents), templates
 * reading `message.*`, close; unmatched messages recorded with near misses; hits, rule matches
 * and the journal; and the bounds (message size, open connections, a client that never reads).
 */
import assert from "node:assert/strict";
import { connect } from "node:net";
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
