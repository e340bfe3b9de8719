/**
 * Faults inside stubs (P4, P7), on both adapters: a response function that throws oddly,
 * rejects, returns garbage, an invalid status, hostile headers, or answers late; captured
 * text that cannot go into a header. Each yields the JSON error for that request only: the
 * hit is counted, the server keeps serving, and neighbouring requests are unaffected.
 * tests/server_test.ts covers the plain cases (Error thrown or rejected, a few malformed
 * results, a hang, CR/LF in a capture); these are the rest.
 */
import assert from "node:assert/strict";
import { get, type StubServer, stubServer } from "../mod.ts";
import type { RequestLogEntry } from "../src/handler.ts";
import { validateConfig } from "../src/validate.ts";
import { ADAPTERS, send } from "./_http.ts";

/** Registers `name` once per adapter with a fresh server, a short handler timeout and a request log. */
function faultTest(name: string, fn: (server: StubServer, log: RequestLogEntry[]) => Promise<void>): void {
  for (const adapter of ADAPTERS) {
    Deno.test(`[${adapter}] fault: ${name}`, async () => {
      const log: RequestLogEntry[] = [];
      await using server = await stubServer(0, { adapter, handlerTimeout: 100, onRequest: (e) => log.push(e) });
      await fn(server, log);
    });
  }
}

/** Every control character a header value cannot carry (tab is allowed). */
const CONTROL = [
  ...Array.from({ length: 0x20 }, (_, i) => String.fromCharCode(i)).filter((c) => c !== "\t"),
  "\x7f",
];

faultTest(
  "regression: a captured control character in a header template crashed the Deno server process",
  async (server) => {
    // Only CR, LF and NUL were refused; %01 reached Deno's HTTP/1 writer, which panicked and
    // took the process down. Now every control character but tab is a 500 for that request.
    server.routes(get("/h/{v}").header("x-v", "<{v}>").body("ok"));
    for (const c of CONTROL) {
      const answer = await send(server, "GET", `/h/a${encodeURIComponent(c)}b`);
      assert.equal(answer.status, 500, `U+${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
      assert.deepEqual(answer.json, {
        error: "header 'x-v' would contain CR, LF, NUL or another control character after substitution",
        stub: "GET /h/{v}",
      });
    }
    const tab = await send(server, "GET", "/h/a%09b");
    assert.equal(tab.headers.get("x-v"), "<a\tb>");
    assert.equal((await send(server, "GET", "/h/fine")).headers.get("x-v"), "<fine>");
    assert.equal((await server.report()).stubs[0].hit_count, CONTROL.length + 2);
  },
);

faultTest(
  "regression: a response function's header value with a control character crashed the Deno server process",
  async (server) => {
    let call = 0;
    server.routes(get("/fn").responseFunc(() => [200, "x", { "x-c": `a${CONTROL[call++ % CONTROL.length]}b` }]));
    for (let i = 0; i < CONTROL.length; i++) {
      const answer = await send(server, "GET", "/fn");
      assert.equal(answer.status, 500);
      assert.deepEqual(answer.json, {
        error:
          "response function returned invalid headers: headers.x-c must not contain CR, LF, NUL or other control characters",
        stub: "GET /fn",
      });
    }
    assert.equal((await server.report()).stubs[0].hit_count, CONTROL.length);
  },
);

Deno.test("regression: a stub header value with a control character passed validation (and crashed Deno when served)", () => {
  for (const c of CONTROL) {
    const { problems } = validateConfig({ routes: [{ method: "GET", path: "/x", headers: { "x-a": `a${c}b` } }] });
    assert.deepEqual(problems, [{
      level: "error",
      place: "routes[0]",
      message: "headers.x-a must not contain CR, LF, NUL or other control characters",
    }]);
  }
  assert.throws(() => get("/x").header("x-a", "a\x01b"), /must not contain CR, LF, NUL or other control characters/);
  assert.ok(validateConfig({ routes: [{ method: "GET", path: "/x", headers: { "x-a": "a\tbé" } }] }).config);
});

faultTest(
  "regression: a thrown value that cannot become text, or a result whose getter throws, lost the stub name and its log line",
  async (server, log) => {
    // String() of the thrown value (or reading the result) threw out of the handler: the
    // adapter's fallback answered `internal error` without "stub", and no log line was written.
    const unprintable = {
      toString() {
        throw new Error("nested");
      },
    };
    const getterResult = [200, {}];
    Object.defineProperty(getterResult, 0, {
      get() {
        throw new Error("getter");
      },
    });
    server.routes(
      get("/null-proto").responseFunc(() => {
        throw Object.create(null);
      }),
      get("/unprintable").responseFunc(() => Promise.reject(unprintable)),
      get("/getter").responseFunc(() => getterResult as never),
      get("/proxy").responseFunc(() =>
        new Proxy([200, {}], {
          get() {
            throw new Error("trap");
          },
        }) as never
      ),
    );
    const errors = [];
    for (const path of ["/null-proto", "/unprintable", "/getter", "/proxy"]) {
      const answer = await send(server, "GET", path);
      assert.equal(answer.status, 500, path);
      assert.equal(answer.json.stub, `GET ${path}`);
      errors.push(answer.json.error);
    }
    assert.deepEqual(errors, [
      "response function threw: a value that cannot be turned into text",
      "response function threw: a value that cannot be turned into text",
      "response function returned a value that threw when read: getter",
      "response function threw: trap",
    ]);
    assert.deepEqual(log.map((e) => [e.status, e.stub]), [
      [500, "GET /null-proto"],
      [500, "GET /unprintable"],
      [500, "GET /getter"],
      [500, "GET /proxy"],
    ]);
    assert.deepEqual((await server.report()).stubs.map((s) => s.hit_count), [1, 1, 1, 1]);
  },
);
