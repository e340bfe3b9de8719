/**
 * Server-sent event answers (`stream:`) on both adapters: the official `openai` SDK reads a
 * streamed chat completion from a stub; raw HTTP sees the exact bytes and the events
 * separated in time; templates, captures, sequences and scenarios compose; a stream is a
 * hit and is journaled; a client that stops reading cannot make the server hold the stream.
 */
import assert from "node:assert/strict";
import { connect } from "node:net";
import OpenAI from "openai";
import { get, post } from "../mod.ts";
import { send, serverTest } from "./_http.ts";

/** A chat completion chunk as OpenAI streams it. */
const chunk = (content: string | null, finish: string | null = null) => ({
  id: "chatcmpl-1",
  object: "chat.completion.chunk",
  created: 1700000000,
  model: "gpt-4o-mini",
  choices: [{ index: 0, delta: content === null ? {} : { content }, finish_reason: finish }],
});

serverTest(
  "the openai SDK streams a chat completion from a stream stub: each chunk arrives as the SDK's chunk object",
  async (server) => {
    server.routes(
      post("/v1/chat/completions").stream([
        { data: chunk("Hel") },
        { data: chunk("lo"), delayMs: 20 },
        { data: chunk(null, "stop"), delayMs: 20 },
        { data: "[DONE]" },
      ]),
    );
    const client = new OpenAI({ apiKey: "test-key", baseURL: `${server.url}/v1`, maxRetries: 0 });
    const stream = await client.chat.completions.create({
      model: "gpt-4o-mini",
      messages: [{ role: "user", content: "Say hello" }],
      stream: true,
    });
    const chunks = [];
    for await (const part of stream) chunks.push(part);
    assert.deepEqual(chunks, [chunk("Hel"), chunk("lo"), chunk(null, "stop")]);
    assert.equal(chunks.map((c) => c.choices[0].delta.content ?? "").join(""), "Hello");
    const report = await server.report();
    assert.equal(report.stubs[0].hit_count, 1);
  },
);

/** One answer read off a raw socket: its head, its body de-chunked, and when each piece of body arrived (ms after the head). */
async function rawStream(
  port: number,
  request: string,
): Promise<{ head: string; body: string; arrivals: [number, string][] }> {
  const socket = connect(port, "127.0.0.1", () => socket.write(request));
  socket.setEncoding("latin1");
  let raw = "";
  let headAt = 0;
  const arrivals: [number, number][] = []; // [time, raw length after this piece]
  await new Promise<void>((resolve, reject) => {
    socket.on("data", (piece: string) => {
      raw += piece;
      const now = performance.now();
      if (!headAt && raw.includes("\r\n\r\n")) headAt = now;
      arrivals.push([now, raw.length]);
    });
    socket.on("error", reject);
    socket.on("close", () => resolve());
  });
  const end = raw.indexOf("\r\n\r\n");
  const head = raw.slice(0, end);
  // De-chunk, keeping where each raw piece ended in the decoded body.
  let body = "";
  const decodedAt: [number, number][] = []; // [raw offset, decoded length]
  let at = end + 4;
  while (at < raw.length) {
    const lineEnd = raw.indexOf("\r\n", at);
    const size = parseInt(raw.slice(at, lineEnd), 16);
    if (size === 0) break;
    body += raw.slice(lineEnd + 2, lineEnd + 2 + size);
    at = lineEnd + 2 + size + 2;
    decodedAt.push([at, body.length]);
  }
  const pieces: [number, string][] = [];
  let taken = 0;
  for (const [time, rawLength] of arrivals) {
    const upTo = decodedAt.filter(([offset]) => offset <= rawLength).at(-1)?.[1] ?? 0;
    if (upTo > taken) pieces.push([Math.round(time - headAt), body.slice(taken, upTo)]);
    taken = Math.max(taken, upTo);
  }
  return { head, body: new TextDecoder().decode(Uint8Array.from(body, (c) => c.charCodeAt(0))), arrivals: pieces };
}

serverTest("raw HTTP: the exact event bytes, the head at once, and each event after its delay", async (server) => {
  server.routes(
    post("/events/{room}").stream([
      { data: { room: "{room}", n: 1 }, delayMs: 300 },
      { data: "line one\nline two", event: "note", id: "2", retry: 1500, delayMs: 300 },
      { data: "é [DONE]" },
    ]),
  );
  const { head, body, arrivals } = await rawStream(
    server.getPort(),
    "POST /events/lobby HTTP/1.1\r\nhost: x\r\ncontent-length: 0\r\nconnection: close\r\n\r\n",
  );
  assert.match(head, /^HTTP\/1\.1 200 OK\r\n/);
  assert.match(head, /\r\ncontent-type: text\/event-stream\r\n/i);
  assert.match(head, /\r\ncache-control: no-cache\r\n/i);
  assert.match(head, /\r\ntransfer-encoding: chunked/i);
  assert.equal(
    body,
    'data: {"room":"lobby","n":1}\n\n' +
      "event: note\nid: 2\nretry: 1500\ndata: line one\ndata: line two\n\n" +
      "data: é [DONE]\n\n",
  );
  // The head goes out before the first event is due (Node holds it back unless told), and
  // each event after its delay: generous bounds, the machine is shared.
  const firstAt = arrivals.find(([, text]) => text.includes('"n":1'))![0];
  const secondAt = arrivals.find(([, text]) => text.includes("line one"))![0];
  assert.ok(firstAt >= 250, `first event ${firstAt} ms after the head`);
  assert.ok(secondAt - firstAt >= 250, `second event ${secondAt - firstAt} ms after the first`);
});

serverTest(
  "template: true renders each event's data per request; sequence and scenarios compose; hits and the journal count the stream",
  async (server) => {
    const headers = { "content-type": "application/json" };
    const added = await send(server, "POST", "/__stubtool__/stubs", {
      headers,
      body: JSON.stringify([
        {
          id: "first",
          method: "GET",
          path: "/feed",
          template: true,
          scenario: "feed",
          set_state: "streamed",
          sequence: [
            { stream: [{ data: { q: "{{request.query.q}}" } }, { data: "{{request.method}} {{request.path}}" }] },
            { status: 429, body: { error: "slow down" } },
          ],
        },
        {
          id: "after",
          method: "GET",
          path: "/feed",
          when_state: "streamed",
          scenario: "feed",
          stream: [{ data: "bye" }],
        },
      ]),
    });
    assert.equal(added.status, 201, added.text);
    const first = await fetch(`${server.url}/feed?q=cats`);
    assert.equal(first.headers.get("content-type"), "text/event-stream");
    assert.equal(await first.text(), 'data: {"q":"cats"}\n\ndata: GET /feed\n\n');
    // The scenario moved on: the other stub streams now.
    assert.equal(await (await fetch(`${server.url}/feed`)).text(), "data: bye\n\n");
    const report = await server.report();
    assert.deepEqual(report.stubs.map((s) => [s.id, s.hit_count]), [["first", 1], ["after", 1]]);
    const journal = await server.journal();
    assert.deepEqual(journal.requests.map((r) => [r.method, r.target, r.status, r.stub]), [
      ["GET", "/feed?q=cats", 200, "GET /feed"],
      ["GET", "/feed", 200, "GET /feed"],
    ]);
  },
);

serverTest("sequence: a stream first, then a canned 429", async (server) => {
  server.routes(post("/chat").sequence({ stream: [{ data: "a" }] }, { status: 429, body: { error: "later" } }));
  assert.equal(await (await fetch(`${server.url}/chat`, { method: "POST" })).text(), "data: a\n\n");
  const second = await send(server, "POST", "/chat");
  assert.deepEqual([second.status, second.json], [429, { error: "later" }]);
});

serverTest(
  "a client that stops reading holds the stream still: the server hands the wire a bounded part of a 32 MiB stream",
  async (server) => {
    const piece = "x".repeat(32 * 1024 - 8); // 32 KiB on the wire per event
    const events = Array.from({ length: 1024 }, () => ({ data: piece }));
    server.routes(post("/firehose").stream(events));
    const conn = await Deno.connect({ port: server.getPort(), hostname: "127.0.0.1" });
    await conn.write(new TextEncoder().encode("POST /firehose HTTP/1.1\r\nhost: x\r\ncontent-length: 0\r\n\r\n"));
    await conn.read(new Uint8Array(1024)); // the head has come; the client reads nothing more
    const stats = server.handler.streams;
    // Wait until the server stops handing bytes to the wire (the socket buffers are full).
    let last = -1;
    for (let i = 0; i < 60 && stats.sentBytes !== last; i++) {
      last = stats.sentBytes;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    assert.equal(stats.open, 1);
    assert.ok(stats.sentBytes > 0);
    // Kernel socket buffers (a few MiB on loopback) and the runtime's own hold what went out;
    // the rest of the 32 MiB was never made.
    assert.ok(stats.sentBytes < 12 * 1024 * 1024, `handed ${stats.sentBytes} bytes to the wire`);
    conn.close();
    for (let i = 0; i < 40 && server.handler.streams.open !== 0; i++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    assert.equal(stats.open, 0, "the stream ends when its client leaves");
  },
);

/**
 * A python3 that imports httpx: `HTTPX_PYTHON` (npm test finds or installs one), else python3
 * on the PATH or the system's. None is a failure that says what to install, never a skip.
 */
async function httpxPython(): Promise<string> {
  const candidates = [Deno.env.get("HTTPX_PYTHON"), "python3", "/usr/bin/python3"].filter((p): p is string => !!p);
  for (const python of candidates) {
    try {
      const { code } = await new Deno.Command(python, { args: ["-c", "import httpx"], stderr: "null" }).output();
      if (code === 0) return python;
    } catch { /* not there */ }
  }
  assert.fail(
    "no python3 that imports httpx: run npm test (it installs python3-httpx) or apt-get install python3-httpx",
  );
}

const HTTPX_CLIENT = `
import sys, time, httpx
start = time.monotonic()
with httpx.stream("GET", sys.argv[1], timeout=10) as answer:
    print(answer.status_code, answer.headers["content-type"], flush=True)
    for line in answer.iter_lines():
        line = line.rstrip()  # httpx before 0.24 keeps the line end
        if line.startswith("data: "):
            print(f"{time.monotonic() - start:.3f} {line[6:]}", flush=True)
`;

serverTest(
  "Python's httpx streams a stub's events as they come (each after its delay, not all at the end)",
  async (server) => {
    server.routes(
      get("/events").stream([{ data: "one" }, { data: { n: 2 }, delayMs: 400 }, { data: "[DONE]", delayMs: 50 }]),
    );
    const python = await httpxPython();
    const { code, stdout, stderr } = await new Deno.Command(python, {
      args: ["-c", HTTPX_CLIENT, `${server.url}/events`],
    }).output();
    const decoder = new TextDecoder();
    assert.equal(code, 0, decoder.decode(stderr));
    const [head, ...events] = decoder.decode(stdout).trim().split("\n");
    assert.equal(head, "200 text/event-stream");
    assert.deepEqual(events.map((line) => line.slice(line.indexOf(" ") + 1)), ["one", '{"n":2}', "[DONE]"]);
    const times = events.map((line) => Number(line.slice(0, line.indexOf(" "))));
    // The first event came before the second was sent: a buffered answer would bring all three at once.
    assert.ok(times[1] - times[0] >= 0.3, `events at ${times.join(", ")} s`);
  },
);
