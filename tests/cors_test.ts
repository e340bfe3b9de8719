/**
 * CORS over real HTTP on both adapters: preflights answered for paths stubs serve,
 * a user's OPTIONS stub first, every answer to an allowed origin says so (404s too), the
 * reserved endpoints never, and nothing without `cors`.
 */
import assert from "node:assert/strict";
import { get, options, post } from "../mod.ts";
import { validateConfig } from "../src/stubs/validate.ts";
import { send, serverTest } from "./_http.ts";

const ORIGIN = "http://app.localhost:5173";
const preflight = (method: string, headers = "content-type, x-trace") => ({
  headers: { origin: ORIGIN, "access-control-request-method": method, "access-control-request-headers": headers },
});

serverTest(
  "a preflight to a path some stub serves is a 204 with the stubs' methods; not a hit, not unmatched",
  async (server) => {
    server.routes(get("/users/{id}").body({}), post("/users/{id}").status(201), get("/other"));
    const answer = await send(server, "OPTIONS", "/users/7", preflight("POST"));
    assert.equal(answer.status, 204);
    assert.equal(answer.headers.get("access-control-allow-origin"), ORIGIN);
    assert.equal(answer.headers.get("access-control-allow-methods"), "GET, HEAD, POST");
    assert.equal(answer.headers.get("access-control-allow-headers"), "content-type, x-trace");
    assert.equal(answer.headers.get("access-control-allow-credentials"), "true");
    assert.equal(answer.headers.get("access-control-max-age"), "600");
    assert.equal(answer.headers.get("vary"), "origin");
    const report = await server.report();
    assert.deepEqual(report.stubs.map((s) => s.hit_count), [0, 0, 0]);
    assert.equal(report.summary.unmatched_requests, 0);
    // A path no stub serves is no preflight: an ordinary unmatched OPTIONS request.
    assert.equal((await send(server, "OPTIONS", "/nothing", preflight("GET"))).status, 404);
  },
  { cors: true },
);

serverTest(
  "answers to an allowed origin carry the CORS headers and expose the answer's header names; 404s too",
  async (server) => {
    server.routes(get("/me").header("x-request-id", "r-1").body({ me: true }));
    const ok = await send(server, "GET", "/me", { headers: { origin: ORIGIN } });
    assert.equal(ok.headers.get("access-control-allow-origin"), ORIGIN);
    assert.equal(ok.headers.get("access-control-allow-credentials"), "true");
    assert.equal(ok.headers.get("vary"), "origin");
    assert.equal(ok.headers.get("access-control-expose-headers"), "content-type, x-request-id");
    const missing = await send(server, "GET", "/nope", { headers: { origin: ORIGIN } });
    assert.equal(missing.status, 404);
    assert.equal(missing.headers.get("access-control-allow-origin"), ORIGIN);
    // No Origin, no CORS headers; the reserved endpoints never have them.
    assert.equal((await send(server, "GET", "/me")).headers.get("access-control-allow-origin"), null);
    const health = await send(server, "GET", "/__stubtool__/health", { headers: { origin: ORIGIN } });
    assert.equal(health.headers.get("access-control-allow-origin"), null);
  },
  { cors: true },
);

serverTest("a user's own OPTIONS stub wins over the preflight answer", async (server) => {
  server.routes(get("/x"), options("/x").status(200).header("allow", "GET").body("mine"));
  const answer = await send(server, "OPTIONS", "/x", preflight("GET"));
  assert.equal(answer.status, 200);
  assert.equal(answer.json, "mine");
  assert.equal(answer.headers.get("access-control-allow-origin"), ORIGIN, "decorated like any answer");
}, { cors: true });

serverTest("with a list of origins, others get no CORS headers and no preflight answer", async (server) => {
  server.routes(get("/x"));
  const other = await send(server, "GET", "/x", { headers: { origin: "http://evil.localhost" } });
  assert.equal(other.headers.get("access-control-allow-origin"), null);
  assert.equal(
    (await send(server, "OPTIONS", "/x", {
      headers: { origin: "http://evil.localhost", "access-control-request-method": "GET" },
    })).status,
    404,
  );
  assert.equal((await send(server, "OPTIONS", "/x", preflight("GET"))).status, 204);
}, { cors: { origins: [ORIGIN] } });

serverTest("CORS is off by default: no headers, preflights are ordinary requests", async (server) => {
  server.routes(get("/x"));
  assert.equal(
    (await send(server, "GET", "/x", { headers: { origin: ORIGIN } })).headers.get("access-control-allow-origin"),
    null,
  );
  assert.equal((await send(server, "OPTIONS", "/x", preflight("GET"))).status, 404);
});

Deno.test("cors in a config file: true, false or {origins}; anything else says what to write", () => {
  assert.deepEqual(validateConfig({ routes: [], cors: true }).config?.cors, true);
  assert.deepEqual(validateConfig({ routes: [], cors: { origins: ["https://app.example:3000"] } }).problems, []);
  assert.deepEqual(validateConfig({ routes: [], cors: "yes" }).problems, [
    { level: "error", place: "cors", message: 'must be true, false or {origins: [https://app.example, …]}, got "yes"' },
  ]);
  assert.deepEqual(validateConfig({ routes: [], cors: { origins: ["https://app.example/path"] } }).problems, [
    {
      level: "error",
      place: "cors",
      message:
        'must list origins like https://app.example:3000 (scheme, host and port; no path), got "https://app.example/path"',
    },
  ]);
});
