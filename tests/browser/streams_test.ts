// Streams and WebSockets in real headless Chromium, on both wires: a page on the stub server's own
// origin reads a `stream:` stub with the browser's EventSource (every event's data, name and id, in
// order) and talks to a `websocket:` stub with the browser's WebSocket (the `on_connect` message,
// replies to JSON and text, the stub's close code), without a console error.
import assert from "node:assert/strict";
import { get, stubServer } from "../../mod.ts";
import { ADAPTERS } from "../_http.ts";
import { launch } from "./_browser.ts";

const PAGE = `<!doctype html><meta charset="utf-8"><title>app</title><link rel="icon" href="data:,">
  <script>
  window.results = (async () => {
    const events = await new Promise((resolve, reject) => {
      const got = [];
      const source = new EventSource("/ticks");
      const keep = (e) => {
        got.push([e.type, e.data, e.lastEventId]);
        if (e.data === "[DONE]") { source.close(); resolve(got); }
      };
      source.addEventListener("message", keep);
      source.addEventListener("tick", keep);
      source.onerror = () => { source.close(); reject(new Error("EventSource failed after " + got.length)); };
    });
    const messages = await new Promise((resolve, reject) => {
      const got = [];
      const ws = new WebSocket(location.origin.replace("http", "ws") + "/rooms/lobby");
      ws.onmessage = (e) => {
        got.push(e.data);
        if (got.length === 1) ws.send(JSON.stringify({ type: "ping", n: 1 }));
        if (got.length === 2) ws.send("say hello");
      };
      ws.onerror = () => reject(new Error("WebSocket failed after " + got.length));
      ws.onclose = (e) => resolve({ got, code: e.code, clean: e.wasClean });
    });
    return { events, messages };
  })();
  </script>`;

Deno.test("a page reads a stream stub with EventSource and talks to a websocket stub with WebSocket", async (t) => {
  await using browser = await launch();
  for (const adapter of ADAPTERS) {
    await t.step(adapter, async () => {
      await using server = await stubServer(0, { adapter });
      server.routes(
        get("/app").header("content-type", "text/html; charset=utf-8").body(PAGE),
        get("/ticks").stream([
          { data: { n: 1 } },
          { data: "line one\nline two", event: "tick", id: "7", delayMs: 20 },
          { data: [1, 2], delayMs: 20 },
          { data: "[DONE]" },
        ]),
        get("/rooms/{room}").template().websocket({
          onConnect: [{ send: { json: { type: "welcome", room: "{{params.room}}" } } }],
          onMessage: [
            { match: { json: { type: "ping" } }, send: { json: { type: "pong" } } },
            { match: { regex: "^say .+" }, send: "{{params.room}} heard: {{message.text}}" },
          ],
          close: { code: 4000, afterMs: 1500 },
        }),
      );
      const tab = await browser.context.newPage();
      const errors: string[] = [];
      tab.on("pageerror", (error) => errors.push(String(error)));
      tab.on("console", (message) => {
        if (message.type() === "error") errors.push(message.text());
      });
      await tab.goto(`${server.url}/app`);
      const results = await tab.evaluate("window.results");
      await tab.close();
      assert.deepEqual(errors, []);
      assert.deepEqual(results, {
        events: [
          ["message", '{"n":1}', ""],
          ["tick", "line one\nline two", "7"],
          ["message", "[1,2]", "7"],
          ["message", "[DONE]", "7"],
        ],
        messages: {
          got: ['{"type":"welcome","room":"lobby"}', '{"type":"pong"}', "lobby heard: say hello"],
          code: 4000,
          clean: true,
        },
      });
      const report = await server.report();
      assert.deepEqual(report.stubs.map((s) => s.hit_count), [1, 1, 1]);
      assert.deepEqual(report.stubs[2].websocket_rules?.map((rule) => rule.matches), [1, 1]);
      assert.equal(report.summary.unmatched_requests, 0);
    });
  }
});
