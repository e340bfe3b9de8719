/**
 * Faults inside stubs, on both adapters: a response function that throws oddly,
 * rejects, returns garbage, an invalid status, hostile headers, or answers late; captured
 * text that cannot go into a header. Each yields the JSON error for that request only: the
 * hit is counted, the server keeps serving, and neighbouring requests are unaffected.
 * tests/server_test.ts covers the plain cases (Error thrown or rejected, a few malformed
 * results, a hang, CR/LF in a capture); these are the rest.
 */
import assert from "node:assert/strict";
import { get, head, post, type StubServer, stubServer } from "../mod.ts";
import type { RequestLogEntry } from "../src/server/handler.ts";
import { validateConfig } from "../src/stubs/validate.ts";
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

/** Results and throws tests/server_test.ts does not try, and the error each must produce. */
const GARBAGE: [name: string, fn: () => unknown, error: string][] = [
  ["undefined", () => undefined, "must return [status, body] or [status, body, headers], got undefined"],
  ["a number", () => 42, "must return [status, body] or [status, body, headers], got 42"],
  ["four items", () => [200, {}, {}, 4], "must return [status, body] or [status, body, headers], got a list"],
  [
    "a status string",
    () => ["200", {}],
    'returned an invalid status: status must be an integer from 100 to 599, got "200"',
  ],
  [
    "a fractional status",
    () => [200.5, {}],
    "returned an invalid status: status must be an integer from 100 to 599, got 200.5",
  ],
  ["NaN", () => [NaN, {}], "returned an invalid status: status must be an integer from 100 to 599, got NaN"],
  ["status 600", () => [600, {}], "returned an invalid status: status must be an integer from 100 to 599, got 600"],
  [
    "status 101",
    () => [101, {}],
    "returned an invalid status: status 101 is informational (1xx) and cannot be a final response; use 200 to 599",
  ],
  [
    "headers as a string",
    () => [200, {}, "x-a: 1"],
    'returned invalid headers: headers must be a mapping of names to strings, got "x-a: 1"',
  ],
  [
    "headers as a list",
    () => [200, {}, [["x-a", "1"]]],
    "returned invalid headers: headers must be a mapping of names to strings, got a list",
  ],
  [
    "a header object value",
    () => [200, {}, { "x-a": { v: 1 } }],
    "returned invalid headers: headers.x-a must be a string or a list of strings, got a mapping",
  ],
  [
    "a header name with a space",
    () => [200, {}, { "x a": "1" }],
    "returned invalid headers: headers: 'x a' is not a valid header name (letters, digits and !#$%&'*+-.^_`|~ only)",
  ],
  [
    "a lying content-length",
    () => [200, "x", { "content-length": "100" }],
    "returned invalid headers: headers.content-length is set by the server itself; remove it",
  ],
  [
    "transfer-encoding",
    () => [200, "x", { "Transfer-Encoding": "chunked" }],
    "returned invalid headers: headers.Transfer-Encoding is set by the server itself; remove it",
  ],
  [
    "a header value past U+00FF",
    () => [200, {}, { "x-w": "日本" }],
    'returned invalid headers: headers.x-w must hold only characters up to U+00FF (header values are bytes), got "日本"',
  ],
  ["a symbol body", () => [200, Symbol("s")], "returned a body that is not JSON-serializable: Symbol(s)"],
  ["a function body", () => [200, () => 1], "returned a body that is not JSON-serializable: a function"],
  [
    "a body whose getter throws",
    () => [
      200,
      {
        get x() {
          throw new Error("body getter");
        },
      },
    ],
    "returned a body that is not JSON-serializable: body getter",
  ],
  [
    "a body with status 304",
    () => [304, "x"],
    "returned a body with status 304, which cannot carry one (return null for no body)",
  ],
  [
    "a thrown string",
    () => {
      throw "just a string";
    },
    "threw: just a string",
  ],
  [
    "a thrown null",
    () => {
      throw null;
    },
    "threw: null",
  ],
  ["a rejected undefined", () => Promise.reject(undefined), "threw: undefined"],
  [
    "a thenable whose then throws",
    () => ({
      then() {
        throw new Error("then threw");
      },
    }),
    "threw: then threw",
  ],
];

faultTest(
  "each kind of garbage from a response function gets its own 500 JSON; neighbours are unaffected",
  async (server, log) => {
    server.routes(get("/fine").body("fine"));
    GARBAGE.forEach(([, fn], i) => server.routes(get(`/g/${i}`).responseFunc(fn as never)));
    for (const [i, [name, , error]] of GARBAGE.entries()) {
      const answer = await send(server, "GET", `/g/${i}`);
      assert.equal(answer.status, 500, name);
      assert.deepEqual(answer.json, { error: `response function ${error}`, stub: `GET /g/${i}` }, name);
      assert.equal((await send(server, "GET", "/fine")).json, "fine");
    }
    const report = await server.report();
    assert.deepEqual(report.stubs.map((s) => s.hit_count), [GARBAGE.length, ...GARBAGE.map(() => 1)]);
    assert.equal(report.summary.unmatched_requests, 0);
    assert.equal(log.length, 2 * GARBAGE.length);
  },
);

faultTest("a circular body and a body that is a BigInt deep inside get 500 JSON", async (server) => {
  const circular: Record<string, unknown> = {};
  circular.self = circular;
  server.routes(
    get("/circular").responseFunc(() => [200, circular]),
    get("/deep").responseFunc(() => [200, { a: [{ b: 1n }] }]),
  );
  const answer = await send(server, "GET", "/circular");
  assert.equal(answer.status, 500);
  assert.match(
    answer.json.error,
    /^response function returned a body that is not JSON-serializable: Converting circular/,
  );
  assert.equal((await send(server, "GET", "/deep")).status, 500);
});

faultTest(
  "an answer after the handler timeout is dropped: 504, and the next request gets its own answer",
  async (server) => {
    let call = 0;
    server.routes(
      get("/late").responseFunc(() => {
        const n = ++call;
        return new Promise((resolve) => setTimeout(() => resolve([200, { n }]), n === 1 ? 250 : 0));
      }),
      get("/never").responseFunc(() => ({ then() {} }) as never),
    );
    const late = await send(server, "GET", "/late");
    assert.equal(late.status, 504);
    assert.deepEqual(late.json, {
      error: "response function did not answer within 100 ms (--handler-timeout)",
      stub: "GET /late",
    });
    // A thenable that never calls back is a hang like any other.
    assert.equal((await send(server, "GET", "/never")).status, 504);
    await new Promise((resolve) => setTimeout(resolve, 200)); // the first call answers now, to nobody
    assert.deepEqual((await send(server, "GET", "/late")).json, { n: 2 });
    assert.deepEqual((await server.report()).stubs.map((s) => s.hit_count), [2, 1]);
  },
);

faultTest("a delay runs before a failing response function; HEAD gets the 500 without a body", async (server) => {
  server.routes(
    get("/slow-boom").delay(60).responseFunc(() => {
      throw new Error("after the delay");
    }),
    head("/head-boom").responseFunc(() => {
      throw new Error("head");
    }),
  );
  const start = performance.now();
  const answer = await send(server, "GET", "/slow-boom");
  assert.ok(performance.now() - start >= 55);
  assert.deepEqual(answer.json, { error: "response function threw: after the delay", stub: "GET /slow-boom" });
  const headAnswer = await send(server, "HEAD", "/head-boom");
  assert.equal(headAnswer.status, 500);
  assert.equal(headAnswer.text, "");
  assert.equal(headAnswer.headers.get("content-type"), "application/json");
  // A HEAD answered by a failing GET stub: the same, counted as the GET stub's hit.
  assert.equal((await send(server, "HEAD", "/slow-boom")).status, 500);
  assert.deepEqual((await server.report()).stubs.map((s) => s.hit_count), [2, 1]);
});

faultTest("100 concurrent requests, faulty and fine interleaved, each get their own answer", async (server) => {
  server.routes(
    get("/ok/{n}").body({ n: "{n}" }),
    get("/boom/{n}").responseFunc(({ params }) => {
      if (Number(params.n) % 3 === 0) throw new Error(`boom ${params.n}`);
      if (Number(params.n) % 3 === 1) return Promise.reject(new Error(`reject ${params.n}`));
      return [200, { ok: params.n }, { "x-n": `a\r\nb${params.n}` }];
    }),
    get("/hang/{n}").responseFunc(() => new Promise(() => {})),
  );
  const answers = await Promise.all(Array.from({ length: 100 }, (_, i) => {
    const kind = ["ok", "boom", "hang", "ok"][i % 4];
    return send(server, "GET", `/${kind}/${i}`).then((answer) => ({ kind, i, answer }));
  }));
  for (const { kind, i, answer } of answers) {
    if (kind === "ok") assert.deepEqual(answer.json, { n: String(i) });
    else if (kind === "hang") assert.equal(answer.status, 504);
    else {
      assert.equal(answer.status, 500);
      assert.equal(answer.json.stub, "GET /boom/{n}");
      if (i % 3 === 0) assert.equal(answer.json.error, `response function threw: boom ${i}`);
      else if (i % 3 === 1) assert.equal(answer.json.error, `response function threw: reject ${i}`);
      else assert.match(answer.json.error, /headers\.x-n must not contain CR, LF, NUL/);
    }
  }
  assert.deepEqual((await server.report()).stubs.map((s) => s.hit_count), [50, 25, 25]);
});

faultTest("a response function that mutates its arguments does not affect the next request", async (server) => {
  server.routes(
    get("/m/{id}").responseFunc((args) => {
      const seen = { id: args.params.id, q: args.queryParams.q, h: args.headers["x-h"] };
      args.params.id = "changed";
      args.queryParams.q = ["changed"];
      args.headers["x-h"] = "changed";
      (args.queryParams as Record<string, unknown>)["__proto__"] = { polluted: true };
      return [200, seen];
    }),
  );
  const first = await send(server, "GET", "/m/1?q=a", { headers: { "x-h": "one" } });
  const second = await send(server, "GET", "/m/2?q=b", { headers: { "x-h": "two" } });
  assert.deepEqual(first.json, { id: "1", q: ["a"], h: "one" });
  assert.deepEqual(second.json, { id: "2", q: ["b"], h: "two" });
  assert.equal(({} as Record<string, unknown>).polluted, undefined);
});

/** Every control character a header value cannot carry (tab is allowed). */
const CONTROL = [
  ...Array.from({ length: 0x20 }, (_, i) => String.fromCharCode(i)).filter((c) => c !== "\t"),
  "\x7f",
];

faultTest(
  "regression: a captured control character in a header template crashed the Deno server process",
  async (server) => {
    // Only CR, LF and NUL were refused; %01 reached Deno's HTTP/1 writer, which panicked and
    // took the process down. Path captures now go into headers as sent (percent-encoded), and
    // a capture from the body holding any control character but tab is a 500 for that request.
    server.routes(
      get("/h/{v}").header("x-v", "<{v}>").body("ok"),
      post("/j").withJson({ v: "{v}" }).header("x-v", "<{v}>").body("ok"),
    );
    for (const c of CONTROL) {
      const name = `U+${c.charCodeAt(0).toString(16).padStart(4, "0")}`;
      const path = await send(server, "GET", `/h/a${encodeURIComponent(c)}b`);
      assert.equal(path.headers.get("x-v"), `<a${encodeURIComponent(c)}b>`, name);
      const answer = await send(server, "POST", "/j", { body: JSON.stringify({ v: `a${c}b` }) });
      assert.equal(answer.status, 500, name);
      assert.deepEqual(answer.json, {
        error: "header 'x-v' would contain a control character or a character above U+00FF after substitution",
        stub: "POST /j",
      });
    }
    const tab = await send(server, "POST", "/j", { body: JSON.stringify({ v: "a\tb" }) });
    assert.equal(tab.headers.get("x-v"), "<a\tb>");
    assert.equal((await send(server, "GET", "/h/fine")).headers.get("x-v"), "<fine>");
    assert.deepEqual((await server.report()).stubs.map((s) => s.hit_count), [CONTROL.length + 1, CONTROL.length + 1]);
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
