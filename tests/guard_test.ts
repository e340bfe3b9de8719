/**
 * Who may use /__stubtool__/ over real sockets on both adapters: cross-origin
 * writes refused, DNS-rebound Host names refused on a loopback bind (unless --allow-host),
 * the admin token for everything but health, the dashboard's token cookie. Stubs are never
 * guarded.
 */
import assert from "node:assert/strict";
import { connect } from "node:net";
import { get, type StubServer } from "../mod.ts";
import { hostName, isLoopbackName } from "../src/server/admin/guard.ts";
import { send, serverTest } from "./_http.ts";

interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** One HTTP/1.1 request with exactly these headers (fetch will not send a foreign Host). */
function raw(
  server: StubServer,
  method: string,
  path: string,
  headers: Record<string, string>,
  body = "",
): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const socket = connect(server.getPort(), "127.0.0.1");
    const lines = [`${method} ${path} HTTP/1.1`, ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`)];
    if (body || method !== "GET") lines.push(`content-length: ${new TextEncoder().encode(body).byteLength}`);
    lines.push("connection: close", "", body);
    socket.write(lines.join("\r\n")); // no half-close: Deno drops a request whose client has ended its side
    const chunks: Uint8Array[] = [];
    socket.on("data", (chunk: Uint8Array) => chunks.push(chunk));
    socket.on("error", reject);
    socket.on("close", () => {
      const text = new TextDecoder().decode(Buffer.concat(chunks));
      const [head, ...rest] = text.split("\r\n\r\n");
      const [status, ...fields] = head.split("\r\n");
      const parsed: Record<string, string> = {};
      for (const field of fields) {
        const colon = field.indexOf(":");
        parsed[field.slice(0, colon).toLowerCase()] = field.slice(colon + 1).trim();
      }
      let bodyText = rest.join("\r\n\r\n");
      // A chunked body: keep only the data (one chunk is enough for these small answers).
      if (parsed["transfer-encoding"] === "chunked") bodyText = bodyText.split("\r\n")[1] ?? "";
      resolve({ status: Number(status.split(" ")[1]), headers: parsed, body: bodyText });
    });
  });
}

const HOST = (server: StubServer) => `127.0.0.1:${server.getPort()}`;

Deno.test("hostName and isLoopbackName: ports, brackets, case and a final dot do not change the name", () => {
  assert.equal(hostName("LocalHost:9000"), "localhost");
  assert.equal(hostName("[::1]:9000"), "::1");
  assert.equal(hostName("localhost."), "localhost");
  assert.equal(hostName("evil.test:80"), "evil.test");
  assert.deepEqual(
    ["localhost", "app.localhost", "127.0.0.1", "127.9.9.9", "::1", "localhost.evil.test", "128.0.0.1", "evil.test"]
      .map(isLoopbackName),
    [true, true, true, true, true, false, false, false],
  );
});

serverTest(
  "regression: a page on another origin wiped the coverage with a no-cors POST /__stubtool__/reset (403)",
  async (server) => {
    server.routes(get("/a"));
    await send(server, "GET", "/a");
    const crossSite = await raw(server, "POST", "/__stubtool__/reset", {
      host: HOST(server),
      origin: "http://evil.localhost:8000",
      "sec-fetch-site": "same-site",
    });
    assert.equal(crossSite.status, 403);
    assert.equal(
      JSON.parse(crossSite.body).error,
      "cross-origin POST to /__stubtool__/reset refused: a same-site page may not change this server " +
        "(test code, curl and the CLI send no Origin and are not affected)",
    );
    // A plain <form> from another origin: an Origin header, no Sec-Fetch-Site (older browsers).
    const form = await raw(server, "POST", "/__stubtool__/reset", { host: HOST(server), origin: "http://other.test" });
    assert.equal(form.status, 403);
    assert.match(JSON.parse(form.body).error, /a page on http:\/\/other\.test may not change/);
    const opaque = await raw(server, "DELETE", "/__stubtool__/stubs", { host: HOST(server), origin: "null" });
    assert.equal(opaque.status, 403);
    assert.equal((await server.report()).stubs[0].hit_count, 1, "the refused reset changed nothing");
    // The server's own page (the dashboard), a typed URL, and clients that send neither header may.
    const own = await raw(server, "POST", "/__stubtool__/reset", {
      host: HOST(server),
      origin: `http://${HOST(server)}`,
      "sec-fetch-site": "same-origin",
    });
    assert.equal(own.status, 204);
    assert.equal((await raw(server, "POST", "/__stubtool__/reset", { host: HOST(server) })).status, 204);
    // Reading is not state-changing; stubs are never guarded.
    const read = await raw(server, "GET", "/__stubtool__/report", {
      host: HOST(server),
      origin: "http://other.test",
      "sec-fetch-site": "cross-site",
    });
    assert.equal(read.status, 200);
    const stub = await raw(server, "GET", "/a", { host: "evil.test", origin: "http://evil.test" });
    assert.equal(stub.status, 200);
  },
);

serverTest(
  "regression: a DNS-rebound page read the report and journal (on a loopback bind, 403 for other Host names)",
  async (server) => {
    server.routes(get("/a"));
    const rebound = await raw(server, "GET", "/__stubtool__/requests", { host: "attacker.test:" + server.getPort() });
    assert.equal(rebound.status, 403);
    assert.equal(
      JSON.parse(rebound.body).error,
      "/__stubtool__/requests answers only this machine's names on a loopback server (localhost, 127.0.0.1, ::1), " +
        "not host 'attacker.test' (a DNS-rebinding page could use it); start serve with --allow-host attacker.test to allow it",
    );
    for (const host of ["localhost", `localhost:${server.getPort()}`, "app.localhost", "127.0.0.1", "[::1]:1"]) {
      assert.equal((await raw(server, "GET", "/__stubtool__/health", { host })).status, 200, host);
    }
    assert.equal((await raw(server, "GET", "/a", { host: "attacker.test" })).status, 200, "stubs answer any Host");
  },
);

serverTest("--allow-host: a named Host may use the reserved endpoints on a loopback bind", async (server) => {
  assert.equal((await raw(server, "GET", "/__stubtool__/report", { host: "mock.internal:8080" })).status, 200);
  assert.equal((await raw(server, "GET", "/__stubtool__/report", { host: "MOCK.internal" })).status, 200);
  assert.equal((await raw(server, "GET", "/__stubtool__/report", { host: "other.internal" })).status, 403);
}, { allowHosts: ["mock.internal"] });

serverTest("a server bound to every interface answers any Host (is for loopback binds)", async (server) => {
  assert.equal((await raw(server, "GET", "/__stubtool__/report", { host: "mock.example" })).status, 200);
}, { hostname: "0.0.0.0" });

serverTest(
  "--admin-token: every reserved endpoint but health needs authorization: Bearer TOKEN (401 otherwise)",
  async (server) => {
    server.routes(get("/a"));
    assert.equal((await send(server, "GET", "/a")).status, 200, "stubs need no token");
    assert.equal((await send(server, "GET", "/__stubtool__/health")).status, 200);
    const missing = await send(server, "GET", "/__stubtool__/report");
    assert.equal(missing.status, 401);
    assert.equal(missing.headers.get("www-authenticate"), 'Bearer realm="stubtool"');
    assert.equal(
      missing.json.error,
      "this server needs its admin token: send authorization: Bearer TOKEN (the CLI: --admin-token or " +
        "STUBTOOL_ADMIN_TOKEN; the dashboard: open /__stubtool__/?token=TOKEN once)",
    );
    const wrong = await send(server, "POST", "/__stubtool__/reset", { headers: { authorization: "Bearer s3cret!" } });
    assert.equal(wrong.status, 401);
    assert.equal(wrong.json.error, "the admin token does not match the server's --admin-token");
    for (
      const [method, path] of [["GET", "/__stubtool__/stubs"], ["GET", "/__stubtool__/requests"], [
        "GET",
        "/__stubtool__/",
      ]]
    ) {
      assert.equal((await send(server, method, path)).status, 401, path);
    }
    const ok = await send(server, "GET", "/__stubtool__/report", { headers: { authorization: "Bearer s3cret" } });
    assert.equal(ok.status, 200);
    assert.equal(ok.json.stubs.length, 1);
    const added = await send(server, "POST", "/__stubtool__/stubs", {
      headers: { authorization: "bearer  s3cret", "content-type": "application/json" },
      body: JSON.stringify({ method: "GET", path: "/b" }),
    });
    assert.equal(added.status, 201);
  },
  { adminToken: "s3cret" },
);

serverTest(
  "the dashboard works with the admin token: ?token= sets an HttpOnly SameSite=Strict cookie the page's polls carry",
  async (server) => {
    const opened = await raw(server, "GET", "/__stubtool__/?token=a%20b", { host: HOST(server) });
    assert.equal(opened.status, 303);
    assert.equal(opened.headers.location, "/__stubtool__/");
    assert.equal(
      opened.headers["set-cookie"],
      "stubtool_admin_token=a%20b; Path=/__stubtool__; HttpOnly; SameSite=Strict",
    );
    const cookie = { host: HOST(server), cookie: "theme=dark; stubtool_admin_token=a%20b" };
    assert.equal((await raw(server, "GET", "/__stubtool__/", cookie)).status, 200);
    assert.equal((await raw(server, "GET", "/__stubtool__/report", cookie)).status, 200);
    assert.equal((await raw(server, "GET", "/__stubtool__/?token=wrong", { host: HOST(server) })).status, 401);
    const stale = { host: HOST(server), cookie: "stubtool_admin_token=old" };
    assert.equal((await raw(server, "GET", "/__stubtool__/report", stale)).status, 401);
  },
  { adminToken: "a b" },
);
