/**
 * Proxying against real upstream servers on 127.0.0.1, on both adapters:
 * every method with bodies, paths and queries appended, hop-by-hop headers dropped, the
 * upstream's answer streamed back untouched, 502/504 when it is down or hangs, and
 * `proxyUnmatched` still recording the request as unmatched.
 */
import assert from "node:assert/strict";
import { createServer, type IncomingMessage, request, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { gzipSync } from "node:zlib";
import { get, route, stubServer } from "../mod.ts";
import { ADAPTERS, send } from "./_http.ts";

/** What the upstream saw of each request. */
interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage["headers"];
  body: Buffer;
}

/** A real upstream on 127.0.0.1 that records requests and answers with `answer`. */
async function upstream(
  answer: (req: IncomingMessage, res: ServerResponse, body: Buffer) => void,
): Promise<{ url: string; seen: Seen[]; server: Server } & AsyncDisposable> {
  const seen: Seen[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const body = Buffer.concat(chunks);
      seen.push({ method: req.method!, url: req.url!, headers: req.headers, body });
      answer(req, res, body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    seen,
    server,
    async [Symbol.asyncDispose]() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/**
 * Fetches `url`, whose upstream sends "first;", waits 600 ms, then "second": the first part
 * must arrive before the upstream ends, then the rest. Returns the response.
 */
async function assertFirstPartEarly(url: string): Promise<Response> {
  const start = performance.now();
  const response = await fetch(url);
  const reader = response.body!.getReader();
  const first = new TextDecoder().decode((await reader.read()).value);
  const firstAt = performance.now() - start;
  assert.equal(first, "first;");
  assert.ok(firstAt < 500, `the first part arrived after ${firstAt} ms, before the upstream ended`);
  let rest = "";
  for (let r = await reader.read(); !r.done; r = await reader.read()) rest += new TextDecoder().decode(r.value);
  assert.equal(rest, "second");
  return response;
}

for (const adapter of ADAPTERS) {
  Deno.test(`[${adapter}] a proxy stub passes every method with its body, path and query on; the answer comes back`, async () => {
    await using up = await upstream((req, res, body) => {
      res.setHeader("set-cookie", ["a=1", "b=2"]);
      res.setHeader("x-upstream", "yes");
      res.writeHead(req.method === "POST" ? 201 : 200, { "content-type": "application/json" });
      res.end(
        req.method === "HEAD" ? undefined : JSON.stringify({ method: req.method, url: req.url, got: body.toString() }),
      );
    });
    await using server = await stubServer(0, { adapter });
    server.routes(route("ANY", "/api/{rest*}").proxy(`${up.url}/base`));
    for (const method of ["GET", "POST", "PUT", "PATCH", "DELETE"]) {
      const body = method === "GET" ? undefined : `payload-${method}`;
      const answer = await send(server, method, "/api/users/7?x=1&y=%20", { body, headers: { "x-trace": "t-1" } });
      assert.equal(answer.status, method === "POST" ? 201 : 200, method);
      assert.deepEqual(answer.json, { method, url: "/base/api/users/7?x=1&y=%20", got: body ?? "" }, method);
      assert.equal(answer.headers.get("x-upstream"), "yes");
      assert.deepEqual(answer.headers.getSetCookie(), ["a=1", "b=2"]);
    }
    const head = await send(server, "HEAD", "/api/x");
    assert.equal(head.status, 200);
    assert.equal(head.text, "");
    const seen = up.seen[1];
    assert.equal(seen.headers["x-trace"], "t-1");
    assert.equal(seen.headers.host, new URL(up.url).host, "host is the upstream's");
    assert.deepEqual(
      (await server.report()).stubs.map((s) => s.hit_count),
      [6],
      "each proxied request is the stub's hit",
    );
  });

  Deno.test(`[${adapter}] hop-by-hop headers are dropped both ways; compressed bodies pass through untouched`, async () => {
    const gzipped = gzipSync(Buffer.from("hello ".repeat(100)));
    await using up = await upstream((_req, res) => {
      res.writeHead(200, {
        "content-encoding": "gzip",
        "content-type": "text/plain",
        connection: "x-private",
        "x-private": "1",
      });
      res.end(gzipped);
    });
    await using server = await stubServer(0, { adapter });
    server.routes(get("/z").proxy(up.url));
    // Raw bytes: fetch would decompress, so ask with node:http as a client would get them.
    const { headers, body } = await new Promise<{ headers: IncomingMessage["headers"]; body: Buffer }>((resolve) => {
      const req = import("node:http").then(({ request }) =>
        request(`${server.url}/z`, {
          headers: { connection: "keep-alive, x-hop", "x-hop": "secret", "keep-alive": "timeout=5" },
        }, (res) => {
          const chunks: Buffer[] = [];
          res.on("data", (c) => chunks.push(c));
          res.on("end", () => resolve({ headers: res.headers, body: Buffer.concat(chunks) }));
        }).end()
      );
      void req;
    });
    assert.deepEqual(body, gzipped);
    assert.equal(headers["content-encoding"], "gzip");
    assert.equal(headers["x-private"], undefined, "a header the upstream's Connection names is hop-by-hop");
    assert.equal(up.seen[0].headers["x-hop"], undefined);
    assert.equal(up.seen[0].headers["keep-alive"], undefined);
  });

  Deno.test(`[${adapter}] the upstream is asked for identity; a sized upload keeps its content-length; redirects and TRACE pass through`, async () => {
    await using up = await upstream((req, res) => {
      if (req.url === "/moved") res.writeHead(302, { location: "/elsewhere" }).end();
      else res.writeHead(200, { "content-type": "text/plain" }).end(`${req.method} ${req.url}`);
    });
    await using server = await stubServer(0, { adapter });
    server.routes(route("ANY", "/{rest*}").proxy(up.url));
    // node:http as the client: it sends only what it is given (fetch adds headers of its own),
    // does not follow redirects and sends TRACE.
    const raw = (method: string, path: string, headers: Record<string, string> = {}) =>
      new Promise<{ status: number; location?: string; body: string }>((resolve, reject) => {
        request(`${server.url}${path}`, { method, headers }, (res) => {
          let body = "";
          res.on("data", (c) => body += c);
          res.on("end", () => resolve({ status: res.statusCode!, location: res.headers.location, body }));
        }).on("error", reject).end();
      });
    const got = await raw("GET", "/plain", { "accept-encoding": "gzip, br" });
    assert.equal(got.body, "GET /plain");
    assert.equal(up.seen[0].headers["accept-encoding"], "identity", "the client's encodings are not asked for");
    // Deno's fetch carries a bodiless request and fills in what the client left out.
    assert.deepEqual(
      [up.seen[0].headers.accept, up.seen[0].headers["accept-language"], up.seen[0].headers["user-agent"]],
      ["*/*", "*", `Deno/${Deno.version.deno}`],
    );

    const upload = await send(server, "POST", "/upload", { body: "twelve bytes" });
    assert.equal(upload.text, "POST /upload");
    assert.equal(up.seen[1].headers["content-length"], "12", "a sized upload is not sent chunked");
    assert.equal(up.seen[1].headers["transfer-encoding"], undefined);
    assert.equal(up.seen[1].body.toString(), "twelve bytes");

    assert.deepEqual(await raw("GET", "/moved"), { status: 302, location: "/elsewhere", body: "" });
    assert.equal(up.seen.length, 3, "a redirect is not followed");
    assert.deepEqual(await raw("TRACE", "/traced"), { status: 200, location: undefined, body: "TRACE /traced" });
  });

  Deno.test(`[${adapter}] the upstream's answer is streamed: its first part arrives before it ends; large bodies both ways`, async () => {
    await using up = await upstream((req, res, body) => {
      if (req.url === "/slow") {
        res.writeHead(200, { "content-type": "text/plain" });
        res.write("first;");
        setTimeout(() => res.end("second"), 600);
      } else {
        res.writeHead(200, { "content-type": "application/octet-stream" });
        res.end(Buffer.concat([body, body]));
      }
    });
    await using server = await stubServer(0, { adapter });
    server.routes(get("/slow").proxy(up.url), route("POST", "/big").proxy(up.url));
    await assertFirstPartEarly(`${server.url}/slow`);
    const big = new Uint8Array(3 * 1024 * 1024).map((_, i) => i % 251);
    const echoed = new Uint8Array(
      await (await fetch(`${server.url}/big`, { method: "POST", body: big })).arrayBuffer(),
    );
    assert.equal(echoed.length, big.length * 2);
    assert.deepEqual(echoed.subarray(big.length), big);
  });

  Deno.test(`[${adapter}] an event stream passes event by event on both forwarders (fetch for GET, node:http for a POST with a body)`, async () => {
    // The upstream sends its second event only once the client has read the first through the
    // proxy: a forwarder that buffered would hold the first back and never release the second.
    let release = () => {};
    await using up = await upstream((_req, res) => {
      res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
      res.write('data: {"n":1}\n\n');
      new Promise<void>((resolve) => release = resolve).then(() => res.end("data: [DONE]\n\n"));
    });
    await using server = await stubServer(0, { adapter });
    server.routes(get("/events").proxy(up.url), route("POST", "/events").proxy(up.url));
    for (const init of [{}, { method: "POST", body: '{"stream":true}' }]) {
      const response = await fetch(`${server.url}/events`, init);
      assert.equal(response.headers.get("content-type"), "text/event-stream");
      const reader = response.body!.getReader();
      const first = await Promise.race([
        reader.read().then((r) => new TextDecoder().decode(r.value)),
        new Promise<string>((resolve) => setTimeout(() => resolve("no event within 5 s"), 5000)),
      ]);
      assert.equal(first, 'data: {"n":1}\n\n', `${init.method ?? "GET"}: the first event before the second is sent`);
      release();
      let rest = "";
      for (let r = await reader.read(); !r.done; r = await reader.read()) rest += new TextDecoder().decode(r.value);
      assert.equal(rest, "data: [DONE]\n\n");
    }
    assert.deepEqual(up.seen.map((s) => [s.method, s.body.toString()]), [["GET", ""], ["POST", '{"stream":true}']]);
  });

  Deno.test(`[${adapter}] an answer with a length that comes in parts is streamed; one the upstream cuts short reaches the client cut short`, async () => {
    await using up = await upstream((req, res) => {
      if (req.url === "/parts") {
        res.writeHead(200, { "content-type": "text/plain", "content-length": "12" });
        res.write("first;");
        setTimeout(() => res.end("second"), 600);
      } else if (req.url === "/cut") {
        res.writeHead(200, { "content-type": "text/plain", "content-length": "100" });
        res.write("only ten b");
        setTimeout(() => res.socket?.destroy(), 100);
      } else res.end("whole");
    });
    await using server = await stubServer(0, { adapter });
    server.routes(get("/parts").proxy(up.url), get("/cut").proxy(up.url), get("/whole").proxy(up.url));
    const parts = await assertFirstPartEarly(`${server.url}/parts`);
    assert.equal(parts.headers.get("content-length"), "12");

    const cut = await fetch(`${server.url}/cut`);
    assert.equal(cut.status, 200);
    await assert.rejects(cut.arrayBuffer(), "a body cut short upstream is never a complete answer");

    const whole = await fetch(`${server.url}/whole`);
    assert.deepEqual([whole.status, whole.headers.get("content-length"), await whole.text()], [200, "5", "whole"]);
  });

  Deno.test(`[${adapter}] an upstream that is down is a 502, one that hangs a 504 after the handler timeout`, async () => {
    await using hang = await upstream(() => {/* never answers */});
    const down = await upstream(() => {});
    const downUrl = down.url;
    await down[Symbol.asyncDispose]();
    await using server = await stubServer(0, { adapter, handlerTimeout: 300 });
    server.routes(get("/down").proxy(downUrl), get("/hang").proxy(hang.url));
    const bad = await send(server, "GET", "/down");
    assert.equal(bad.status, 502);
    assert.deepEqual(bad.json, {
      error: `upstream ${downUrl}/down could not be reached: connection refused`,
      stub: "GET /down",
    });
    const slow = await send(server, "GET", "/hang");
    assert.equal(slow.status, 504);
    assert.deepEqual(slow.json, {
      error: `upstream ${hang.url}/hang did not answer within 300 ms (--handler-timeout)`,
      stub: "GET /hang",
    });
  });

  Deno.test(`[${adapter}] proxyUnmatched passes misses on; they stay unmatched, marked proxied with the upstream's status`, async () => {
    await using up = await upstream((req, res) => {
      res.writeHead(req.url === "/missing" ? 404 : 200, { "content-type": "text/plain" });
      res.end(`real ${req.url}`);
    });
    await using server = await stubServer(0, { adapter, proxyUnmatched: up.url });
    server.routes(get("/stubbed").body("stub"));
    assert.equal((await send(server, "GET", "/stubbed")).json, "stub");
    assert.equal((await send(server, "GET", "/real?q=1")).text, "real /real?q=1");
    assert.equal((await send(server, "GET", "/missing")).status, 404);
    const report = await server.report();
    assert.equal(report.summary.unmatched_requests, 2);
    assert.deepEqual(
      report.unmatched_requests.map(({ path, query, proxied, upstream_status }) => ({
        path,
        query,
        proxied,
        upstream_status,
      })),
      [
        { path: "/real", query: "q=1", proxied: true, upstream_status: 200 },
        { path: "/missing", query: undefined, proxied: true, upstream_status: 404 },
      ],
    );
  });
}
