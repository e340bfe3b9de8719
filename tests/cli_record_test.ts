/**
 * `stubtool record` end to end: a real upstream on 127.0.0.1, the CLI as a
 * subprocess recording through it, the file it writes on SIGINT checked by `validate`, then
 * served: the same statuses and the same body bytes as the upstream's.
 */
import assert from "node:assert/strict";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { parse } from "yaml";
import { CliProcess, lines, runCli, startServe } from "./_cli.ts";

const PRETTY = '{\n  "id": 1,\n  "name": "Ada"\n}\n';
const PIXEL = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0xff]);

Deno.test("record: requests pass through and are written as stubs that validate and replay the same answers", async () => {
  let polls = 0;
  const upstream = createServer((req, res) => {
    const url = req.url!;
    if (url === "/users/1") {
      res.writeHead(200, { "content-type": "application/json", "x-request-id": "abc", etag: '"v1"' });
      res.end('{"id":1,"name":"Ada","tags":["x"]}');
    } else if (url === "/users/1/pretty") {
      res.writeHead(200, { "content-type": "application/json; charset=utf-8" });
      res.end(PRETTY);
    } else if (url === "/jobs/7") {
      polls++;
      res.writeHead(polls < 3 ? 202 : 200, { "content-type": "application/json" });
      res.end(JSON.stringify({ state: polls < 3 ? "running" : "done" }));
    } else if (url === "/search?q=a%20b&page=2") {
      res.writeHead(200, { "content-type": "text/plain" });
      res.end("found {q} things");
    } else if (url === "/avatar.png") {
      res.writeHead(200, { "content-type": "image/png" });
      res.end(PIXEL);
    } else if (url === "/gone") {
      res.writeHead(204);
      res.end();
    } else {
      res.writeHead(404, { "content-type": "application/json" });
      res.end('{"error":"not found"}');
    }
  });
  await new Promise<void>((resolve) => upstream.listen(0, "127.0.0.1", resolve));
  const target = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
  const dir = await Deno.makeTempDir({ prefix: "stubtool-record-" });
  try {
    const out = `${dir}/recorded.yaml`;
    const recorder = new CliProcess([
      "record",
      "--target",
      target,
      "--port",
      "0",
      "--out",
      out,
      "--keep-header",
      "ETag",
    ]);
    const [, url] = await recorder.waitForStdout(/recording \S+ on (http:\/\/127\.0\.0\.1:\d+)/);
    const originals = new Map<string, { status: number; type: string | null; bytes: Uint8Array }>();
    const call = async (path: string, method = "GET") => {
      const response = await fetch(url + path, { method });
      const bytes = new Uint8Array(await response.arrayBuffer());
      return { status: response.status, type: response.headers.get("content-type"), bytes };
    };
    for (const path of ["/users/1", "/users/1/pretty", "/search?q=a%20b&page=2", "/avatar.png", "/gone", "/nope"]) {
      originals.set(path, await call(path));
    }
    const polled = [await call("/jobs/7"), await call("/jobs/7"), await call("/jobs/7"), await call("/jobs/7")];
    recorder.kill("SIGINT");
    const { code, stdout } = await recorder.result();
    assert.equal(code, 0);
    assert.match(stdout, /^GET \/users\/1 200 recorded \(34 bytes\)$/m);
    assert.match(
      stdout,
      /^recorded 10 request\(s\) as 7 stub\(s\) \(1 sequence\(s\)\), 1 body file\(s\) → .*recorded\.yaml$/m,
    );

    const text = await Deno.readTextFile(out);
    const doc = parse(text) as { routes: Record<string, unknown>[] };
    assert.deepEqual(doc.routes[0], {
      method: "GET",
      path: "/users/1",
      status: 200,
      headers: { "content-type": "application/json", etag: '"v1"' },
      body: { id: 1, name: "Ada", tags: ["x"] },
    });
    assert.deepEqual(doc.routes[1].body_file, "recorded.bodies/0001.json", "pretty JSON is kept byte for byte");
    assert.deepEqual(doc.routes[2].query_params, { q: "a b", page: "2" });
    assert.equal(doc.routes[2].body, "found {q} things");
    assert.equal(doc.routes[3].body_base64, btoa(String.fromCharCode(...PIXEL)));
    assert.deepEqual((doc.routes[6].sequence as { status: number }[]).map((s) => s.status), [202, 202, 200, 200]);

    const validated = await runCli(["validate", out]);
    assert.equal(validated.code, 0, validated.stderr);
    assert.deepEqual(lines(validated.stdout), [`[OK] ${out} is valid (7 route(s) defined)`]);

    upstream.close();
    const served = await startServe(["--port", "0", "--quiet", "--config", out]);
    await using _ = served.process;
    const replay = async (path: string) => {
      const response = await fetch(served.url + path);
      return {
        status: response.status,
        type: response.headers.get("content-type"),
        bytes: new Uint8Array(await response.arrayBuffer()),
      };
    };
    for (const [path, original] of originals) {
      const again = await replay(path);
      assert.equal(again.status, original.status, path);
      assert.deepEqual(again.bytes, original.bytes, `${path}: the same bytes`);
    }
    // P19.2: the recorded content type is sent exactly as the upstream wrote it.
    assert.equal((await replay("/search?q=a%20b&page=2")).type, "text/plain");
    for (const original of polled) {
      const again = await replay("/jobs/7");
      assert.equal(again.status, original.status);
      assert.deepEqual(again.bytes, original.bytes);
    }
  } finally {
    upstream.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("record: --target is required and must be an http(s) URL; usage errors exit 2", async () => {
  const missing = await runCli(["record", "--port", "0"]);
  assert.equal(missing.code, 2);
  assert.equal(
    missing.stderr,
    "[ERROR] record: --target URL is required (the service to record); run stubtool record --help\n",
  );
  const bad = await runCli(["record", "--target", "ftp://x"]);
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /^\[ERROR\] --target: must be an http:\/\/ or https:\/\/ URL/);
});

Deno.test("record: requests to one path that differ by JSON body or a kept request header each replay their own answer", async () => {
  const upstream = createServer((req, res) => {
    let body = "";
    req.on("data", (chunk) => body += chunk);
    req.on("end", () => {
      const send = (status: number, value: unknown) => {
        res.writeHead(status, { "content-type": "application/json", date: new Date().toUTCString() });
        res.end(JSON.stringify(value));
      };
      if (req.url === "/slow") return void setTimeout(() => send(200, { slow: true }), 60);
      if (req.headers.authorization !== "Bearer tok") return send(401, { error: "login required" });
      send(201, { id: JSON.parse(body).sku === "b-1" ? "o-1" : "o-2" });
    });
  });
  await new Promise<void>((resolve) => upstream.listen(0, "127.0.0.1", resolve));
  const target = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
  const dir = await Deno.makeTempDir({ prefix: "stubtool-record-" });
  try {
    const out = `${dir}/orders.yaml`;
    const recorder = new CliProcess([
      "record",
      "--target",
      target,
      "--port",
      "0",
      "--out",
      out,
      "--keep-request-header",
      "authorization",
      "--keep-delay",
      "--quiet",
    ]);
    const [, url] = await recorder.waitForStdout(/recording \S+ on (http:\/\/127\.0\.0\.1:\d+)/);
    const order = async (base: string, sku: string, authorised: boolean) => {
      const headers: Record<string, string> = { "content-type": "application/json" };
      if (authorised) headers.authorization = "Bearer tok";
      const response = await fetch(`${base}/orders`, { method: "POST", headers, body: JSON.stringify({ sku }) });
      return `${response.status} ${await response.text()}`;
    };
    const recorded = [await order(url, "b-1", true), await order(url, "p-2", true), await order(url, "b-1", false)];
    assert.deepEqual(recorded, ['201 {"id":"o-1"}', '201 {"id":"o-2"}', '401 {"error":"login required"}']);
    await (await fetch(`${url}/slow`)).body?.cancel();
    recorder.kill("SIGINT");
    const { code, stdout } = await recorder.result();
    assert.equal(code, 0);
    assert.match(stdout, /^recorded 4 request\(s\) as 4 stub\(s\) → .*orders\.yaml$/m);
    const doc = parse(await Deno.readTextFile(out)) as { routes: Record<string, unknown>[] };
    assert.deepEqual(doc.routes.slice(0, 3).map((r) => [r.request, r.status]), [
      [{ headers: { authorization: "Bearer tok" }, json: { sku: "b-1" } }, 201],
      [{ headers: { authorization: "Bearer tok" }, json: { sku: "p-2" } }, 201],
      [{ headers: { authorization: { absent: true } }, json: { sku: "b-1" } }, 401],
    ]);
    assert.ok((doc.routes[3].delay as number) >= 60, `the upstream's 60 ms are kept, got ${doc.routes[3].delay}`);
    assert.deepEqual(doc.routes[3].headers, { "content-type": "application/json" }, "date is dropped");

    const validated = await runCli(["validate", out]);
    assert.equal(validated.code, 0, validated.stderr);
    upstream.close();
    const served = await startServe(["--port", "0", "--quiet", "--config", out]);
    await using _ = served.process;
    const replayed = [
      await order(served.url, "b-1", true),
      await order(served.url, "p-2", true),
      await order(served.url, "b-1", false),
    ];
    assert.deepEqual(replayed, recorded);
  } finally {
    upstream.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("record: --ignore-body keeps one stub per method + path, as before (the answers a sequence)", async () => {
  const upstream = createServer((req, res) => {
    let body = "";
    req.on("data", (chunk) => body += chunk);
    req.on("end", () => {
      res.writeHead(201, { "content-type": "application/json" });
      res.end(body);
    });
  });
  await new Promise<void>((resolve) => upstream.listen(0, "127.0.0.1", resolve));
  const target = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
  const dir = await Deno.makeTempDir({ prefix: "stubtool-record-" });
  try {
    const out = `${dir}/echo.yaml`;
    const recorder = new CliProcess(["record", "--target", target, "--port", "0", "--out", out, "--ignore-body"]);
    const [, url] = await recorder.waitForStdout(/recording \S+ on (http:\/\/127\.0\.0\.1:\d+)/);
    for (const n of [1, 2]) {
      const init = { method: "POST", headers: { "content-type": "application/json" }, body: `{"n":${n}}` };
      await (await fetch(`${url}/echo`, init)).body?.cancel();
    }
    recorder.kill("SIGINT");
    assert.equal((await recorder.result()).code, 0);
    const doc = parse(await Deno.readTextFile(out)) as { routes: Record<string, unknown>[] };
    assert.equal(doc.routes.length, 1);
    assert.equal(doc.routes[0].request, undefined);
    assert.deepEqual((doc.routes[0].sequence as { body: unknown }[]).map((s) => s.body), [{ n: 1 }, { n: 2 }]);
  } finally {
    upstream.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("record: an event stream passes through event by event and is written as a stream: stub with its delays that replays the same bytes", async () => {
  const EVENTS = [
    'data: {"choices":[{"delta":{"content":"Hi {name}"}}]}\n\n',
    "event: note\nid: 2\ndata: line one\ndata: line two\n\n",
    "data: [DONE]\n\n",
  ];
  let release = () => {};
  const upstream = createServer((req, res) => {
    if (req.url === "/pings") {
      // A comment line cannot be written as a stream: event: kept as a text body with a warning.
      res.writeHead(200, { "content-type": "text/event-stream" });
      return void res.end(": ping\n\ndata: x\n\n");
    }
    res.writeHead(200, { "content-type": "text/event-stream; charset=utf-8" });
    res.write(EVENTS[0]);
    new Promise<void>((resolve) => release = resolve).then(() => {
      setTimeout(() => res.write(EVENTS[1]), 300);
      setTimeout(() => res.end(EVENTS[2]), 400);
    });
  });
  await new Promise<void>((resolve) => upstream.listen(0, "127.0.0.1", resolve));
  const target = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
  const dir = await Deno.makeTempDir({ prefix: "stubtool-record-sse-" });
  try {
    const out = `${dir}/recorded.yaml`;
    const recorder = new CliProcess(["record", "--target", target, "--port", "0", "--out", out, "--keep-delay"]);
    const [, url] = await recorder.waitForStdout(/recording \S+ on (http:\/\/127\.0\.0\.1:\d+)/);
    const response = await fetch(`${url}/v1/chat`, { method: "POST", body: '{"stream":true}' });
    const reader = response.body!.getReader();
    const first = await Promise.race([
      reader.read().then((r) => new TextDecoder().decode(r.value)),
      new Promise<string>((resolve) => setTimeout(() => resolve("no event within 5 s"), 5000)),
    ]);
    assert.equal(first, EVENTS[0], "the first event passes before the upstream sends the second");
    release();
    let rest = "";
    for (let r = await reader.read(); !r.done; r = await reader.read()) rest += new TextDecoder().decode(r.value);
    assert.equal(rest, EVENTS[1] + EVENTS[2]);
    await (await fetch(`${url}/pings`)).arrayBuffer();
    recorder.kill("SIGINT");
    const { code, stdout, stderr } = await recorder.result();
    assert.equal(code, 0);
    assert.match(stdout, /^recorded 2 request\(s\) as 2 stub\(s\) → /m);
    assert.match(
      stderr,
      /^\[WARN\] GET \/pings: the event stream is not written the way a stream: stub sends events .*recorded as a text body, byte for byte, without each event's timing$/m,
    );

    const doc = parse(await Deno.readTextFile(out)) as { routes: Record<string, unknown>[] };
    const [chat, pings] = doc.routes;
    assert.deepEqual(chat.headers, { "content-type": "text/event-stream; charset=utf-8" });
    const stream = chat.stream as Record<string, unknown>[];
    assert.deepEqual(stream.map(({ delay_ms: _, ...event }) => event), [
      { data: { choices: [{ delta: { content: "Hi {name}" } }] } },
      { event: "note", id: "2", data: "line one\nline two" },
      { data: "[DONE]" },
    ]);
    // The second event came 300 ms after the client was released (itself after the first), the third 100 ms later.
    const delays = stream.map((event) => (event.delay_ms as number | undefined) ?? 0);
    assert.ok(delays[1] >= 290, `second event delay ${delays[1]}`);
    assert.ok(delays[2] >= 90 && delays[2] < delays[1], `third event delay ${delays[2]}`);
    assert.equal(pings.body, ": ping\n\ndata: x\n\n");
    assert.equal(pings.stream, undefined);

    const validated = await runCli(["validate", out]);
    assert.equal(validated.code, 0, validated.stderr);

    upstream.close();
    const served = await startServe(["--port", "0", "--quiet", "--config", out]);
    await using _ = served.process;
    const started = performance.now();
    const again = await fetch(`${served.url}/v1/chat`, { method: "POST", body: '{"stream":true}' });
    assert.equal(again.headers.get("content-type"), "text/event-stream; charset=utf-8");
    assert.equal(await again.text(), EVENTS.join(""));
    assert.ok(performance.now() - started >= delays[1] + delays[2], "the events are replayed with their delays");
    assert.equal(await (await fetch(`${served.url}/pings`)).text(), ": ping\n\ndata: x\n\n");
  } finally {
    upstream.close();
    await Deno.remove(dir, { recursive: true });
  }
});
