/**
 * The reserved endpoints' answers stay cheap and bounded: an unchanged report,
 * journal or dashboard is a 304; a large one is streamed, and only a few are sent at once,
 * so clients that ask and never read cannot pile copies of it up in memory.
 */
import assert from "node:assert/strict";
import { connect } from "node:net";
import { get, post } from "../mod.ts";
import { LARGE_ANSWER_BUDGET } from "../src/server/admin/endpoints.ts";
import { send, serverTest } from "./_http.ts";

serverTest("report, journal and dashboard carry an ETag; asked again unchanged they are a 304", async (server) => {
  server.routes(get("/a").body("a"));
  for (const path of ["/__stubtool__/report", "/__stubtool__/requests", "/__stubtool__/"]) {
    const first = await fetch(server.url + path);
    await first.body?.cancel();
    const etag = first.headers.get("etag");
    assert.ok(etag, path);
    const again = await fetch(server.url + path, { headers: { "if-none-match": etag } });
    assert.equal(again.status, 304, path);
    assert.equal(await again.text(), "");
    await send(server, "GET", "/a");
    const changed = await fetch(server.url + path, { headers: { "if-none-match": etag } });
    await changed.body?.cancel();
    assert.equal(changed.status, 200, `${path} after a request`);
    assert.notEqual(changed.headers.get("etag"), etag);
  }
});

/** Opens a raw connection, sends `GET path`, and never reads: the answer piles up unless it is streamed. */
function stalledClient(port: number, path: string): Promise<{ close: () => void; firstBytes: Promise<string> }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1", () => {
      socket.write(`GET ${path} HTTP/1.1\r\nHost: localhost\r\n\r\n`);
      const firstBytes = new Promise<string>((got) => socket.once("data", (chunk) => got(String(chunk))));
      // Read the first chunk only, then stop reading: the kernel buffers fill, the server must wait.
      firstBytes.then(() => socket.pause());
      resolve({ close: () => socket.destroy(), firstBytes });
    });
    socket.on("error", reject);
  });
}

serverTest(
  `at most ${
    LARGE_ANSWER_BUDGET / 1024 / 1024
  } MB of large answers are under way at once; past it 503 with Retry-After until one finishes`,
  async (server) => {
    server.routes(get("/a").body("a"), post("/upload").status(204));
    // About 16 MB of journal (its byte budget): more than the kernel's socket buffers take,
    // so an answer to a client that does not read stays under way.
    const body = "b".repeat(64 * 1024);
    for (let i = 0; i < 256; i++) await send(server, "POST", "/upload", { body });
    const journal = await fetch(server.url + "/__stubtool__/requests");
    const size = (await journal.text()).length;
    assert.ok(size > 15 * 1024 * 1024, `the journal answer is large (${size} bytes)`);

    const stalled = [];
    // Each stalled answer is ~16 MB and a different one (its own limit): the first is let
    // through, the second would pass the budget.
    for (let i = 0; i < Math.floor(LARGE_ANSWER_BUDGET / size); i++) {
      const client = await stalledClient(server.getPort(), `/__stubtool__/requests?limit=${256 - i}`);
      assert.match(await client.firstBytes, /^HTTP\/1\.1 200/);
      stalled.push(client);
    }
    // Clients asking for the answer under way share its bytes: no more memory, no refusal.
    const sharing = await stalledClient(server.getPort(), "/__stubtool__/requests?limit=256");
    assert.match(await sharing.firstBytes, /^HTTP\/1\.1 200/);
    sharing.close();
    const busy = await send(server, "GET", "/__stubtool__/requests?limit=200");
    assert.equal(busy.status, 503);
    assert.equal(busy.headers.get("retry-after"), "1");
    assert.match(busy.json.error, /^busy: \d+ MB of large answers are being sent/);
    // Small answers and stubs are not held up.
    assert.equal((await send(server, "GET", "/__stubtool__/health")).status, 200);
    assert.equal((await send(server, "GET", "/a")).json, "a");
    // A stalled client that leaves frees its place.
    stalled.shift()!.close();
    let status = 0;
    for (let tries = 0; tries < 50 && status !== 200; tries++) {
      await new Promise((r) => setTimeout(r, 20));
      const again = await fetch(server.url + "/__stubtool__/requests?limit=199");
      status = again.status;
      await again.body?.cancel();
    }
    assert.equal(status, 200);
    for (const client of stalled) client.close();
  },
);

serverTest(
  "the report and journal texts are reused until something changes, and only then written again",
  async (server) => {
    server.routes(get("/a"));
    const first = await send(server, "GET", "/__stubtool__/report");
    const again = await send(server, "GET", "/__stubtool__/report");
    assert.equal(again.text, first.text);
    assert.equal((await send(server, "GET", "/a")).status, 200);
    const after = await send(server, "GET", "/__stubtool__/report");
    assert.equal(after.json.stubs[0].hit_count, 1, "a hit makes a new report");
    const journal = await send(server, "GET", "/__stubtool__/requests");
    assert.equal(journal.json.requests.length, 1);
    assert.equal(
      (await send(server, "GET", "/__stubtool__/report")).json.stubs[0].hit_count,
      1,
      "the journal did not take the report's place",
    );
    assert.equal(
      (await send(server, "GET", "/__stubtool__/requests?unmatched=true")).json.requests.length,
      0,
      "other parameters, other text",
    );
  },
);
