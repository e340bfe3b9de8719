/**
 * Response templates end to end: `template: true` stubs answering real HTTP on both adapters
 * (the request model, WireMock's helpers, a status, headers, a text body and a `body_file`
 * rendered per request), `{name}` as plain text in them, a request-time failure's 500, request
 * data that looks like a template staying data, and `validate` of broken templates through the real CLI.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { get, post } from "../mod.ts";
import { send, serverTest } from "./_http.ts";
import { runCli, tempDir } from "./_cli.ts";
import { validateConfig } from "../src/stubs/validate.ts";

serverTest(
  "a template reads the request model: method, url, path, segments, query, headers, cookies, body, json, params",
  async (server) => {
    server.routes(
      post("/shops/{shop}/orders").template().body({
        method: "{{request.method}}",
        url: "{{request.url}}",
        path: "{{request.path}}",
        segment: "{{request.pathSegments.[1]}}",
        query: "{{request.query.tag}}",
        second: "{{request.query.tag.[1]}}",
        tags: "{{size request.query.tag}}",
        header: "{{request.headers.x-client}}",
        cookie: "{{request.cookies.session}}",
        body: "{{request.body}}",
        sku: "{{request.json.items.[0].sku}}",
        shop: "{{params.shop}}",
        missing: "{{request.query.nope}}{{request.json.nope}}",
      }),
    );
    const body = '{"items":[{"sku":"a-1"}]}';
    const answer = await send(server, "POST", "/shops/caf%C3%A9/orders?tag=new&tag=gift", {
      body,
      headers: { "X-Client": "shop-app", cookie: "theme=dark; session=s-42" },
    });
    assert.equal(answer.status, 200);
    assert.equal(answer.headers.get("content-type"), "application/json");
    assert.deepEqual(answer.json, {
      method: "POST",
      url: "/shops/caf%C3%A9/orders?tag=new&tag=gift",
      path: "/shops/café/orders",
      segment: "café",
      query: "new",
      second: "gift",
      tags: "2",
      header: "shop-app",
      cookie: "s-42",
      body,
      sku: "a-1",
      shop: "café",
      missing: "",
    });
    // A body that is not JSON: request.json is null, request.body the text.
    const text = await send(server, "POST", "/shops/x/orders", { body: "not json" });
    assert.equal(text.json.body, "not json");
    assert.equal(text.json.sku, "");
  },
);

serverTest("WireMock's helpers answer in real responses", async (server) => {
  server.routes(
    post("/helpers").template().body({
      jsonPath: "{{jsonPath request.body '$.items[1].sku'}}",
      jsonObject: "{{jsonPath request.body '$.items[0]'}}",
      math: "{{math request.json.qty '*' 3}}",
      base64: "{{base64 request.json.name}}",
      decoded: "{{base64 'aGk=' decode=true}}",
      urlEncode: "{{urlEncode 'a b&c'}}",
      trim: "{{trim '  x  '}}",
      upper: "{{upper request.json.name}}",
      lower: "{{lower 'ABC'}}",
      size: "{{size request.json.items}}",
      join: "{{join 'a' 'b' 'c' '-'}}",
      contains: "{{#if (contains request.json.name 'nn')}}yes{{else}}no{{/if}}",
      eq: "{{#eq request.method 'POST'}}post{{else}}other{{/eq}}",
      ne: "{{#ne request.json.qty 2}}ne{{else}}same{{/ne}}",
      gt: "{{#gt request.json.qty 1}}many{{else}}one{{/gt}}",
      lt: "{{#lt request.json.qty 1}}none{{else}}some{{/lt}}",
      formatJson: `{{formatJson '{"a":1}'}}`,
      toJson: "{{toJson request.json.items}}",
      each: "{{#each request.json.items}}{{sku}};{{/each}}",
      with: "{{#with request.json}}{{name}}{{/with}}",
      lookup: "{{lookup request.json 'name'}}",
      day: "{{now format='yyyy-MM-dd'}}",
      later: "{{now offset='3 days' format='epoch'}}",
      hex: "{{randomValue length=6 type='HEXADECIMAL' uppercase=true}}",
      uuid: "{{randomValue type='UUID'}}",
      int: "{{randomInt lower=5 upper=6}}",
    }),
  );
  const before = Date.now();
  const answer = await send(server, "POST", "/helpers", {
    body: JSON.stringify({ name: "Ann", qty: 2, items: [{ sku: "a-1" }, { sku: "b-2" }] }),
  });
  const after = Date.now();
  assert.equal(answer.status, 200);
  const { day, later, hex, uuid, ...fixed } = answer.json;
  assert.deepEqual(fixed, {
    jsonPath: "b-2",
    jsonObject: '{\n  "sku" : "a-1"\n}',
    math: "6",
    base64: "QW5u",
    decoded: "hi",
    urlEncode: "a+b%26c",
    trim: "x",
    upper: "ANN",
    lower: "abc",
    size: "2",
    join: "a-b-c",
    contains: "yes",
    eq: "post",
    ne: "same",
    gt: "many",
    lt: "some",
    formatJson: '{\n  "a" : 1\n}',
    toJson: '[ {\n  "sku" : "a-1"\n}, {\n  "sku" : "b-2"\n} ]',
    each: "a-1;b-2;",
    with: "Ann",
    lookup: "Ann",
    int: "5",
  });
  const days = [before, after].map((ms) => new Date(ms).toISOString().slice(0, 10));
  assert.ok(days.includes(day), `${day} is not one of ${days}`);
  const threeDays = 3 * 24 * 3600 * 1000;
  assert.ok(Number(later) >= before + threeDays && Number(later) <= after + threeDays, later);
  assert.match(hex, /^[0-9A-F]{6}$/);
  assert.match(uuid, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
});

serverTest(
  "a status written as a template is rendered per request; one that renders no status answers 500",
  async (server) => {
    server.routes(
      post("/orders").template().status("{{#if request.json.sku}}201{{else}}400{{/if}}").body({
        sku: "{{request.json.sku}}",
      }),
      get("/code").template().status("{{request.query.code}}"),
    );
    const created = await send(server, "POST", "/orders", { body: '{"sku":"a-1"}' });
    assert.deepEqual([created.status, created.json], [201, { sku: "a-1" }]);
    assert.equal((await send(server, "POST", "/orders", { body: "{}" })).status, 400);
    assert.equal((await send(server, "GET", "/code?code=418")).status, 418);
    const bad = await send(server, "GET", "/code?code=abc");
    assert.equal(bad.status, 500);
    assert.deepEqual(bad.json, {
      error: 'template failed: status rendered to "abc", not a status code from 100 to 599',
      stub: "GET /code",
      helper: null,
    });
  },
);

serverTest(
  "header values, a text body and a body_file are templates; {name} stays plain text in a template stub",
  async (server) => {
    await using dir = await tempDir();
    const page = join(dir.path, "page.html");
    await Deno.writeTextFile(page, "<p>Hello {{request.query.name}}, order {{params.id}} ({id})</p>\n");
    server.routes(
      get("/pages/{id}").template().bodyFile(page),
      get("/text/{id}").template()
        .header("content-type", "text/plain")
        .header("x-order", "{{params.id}}-{id}")
        .body("id={{params.id}} plain={id} first={{request.query.a}} second={{request.query.a.[1]}}"),
      // The same text in a stub without template: true: {id} is a capture, {{…}} plain text.
      get("/plain/{id}").header("content-type", "text/plain").header("x-order", "{id}").body("id={id} {{params.id}}"),
    );
    const html = await send(server, "GET", "/pages/7?name=Ann");
    assert.equal(html.status, 200);
    assert.equal(html.headers.get("content-type"), "text/html; charset=utf-8");
    assert.equal(html.text, "<p>Hello Ann, order 7 ({id})</p>\n");

    const text = await send(server, "GET", "/text/9?a=x&a=y");
    assert.equal(text.headers.get("x-order"), "9-{id}");
    assert.equal(text.headers.get("content-type"), "text/plain", "P19.2: sent as the stub wrote it");
    assert.equal(text.text, "id=9 plain={id} first=x second=y");

    const plain = await send(server, "GET", "/plain/9");
    assert.equal(plain.headers.get("x-order"), "9");
    assert.equal(plain.text, "id=9 {{params.id}}");
  },
);

serverTest("a helper that fails at request time answers 500 JSON naming the stub and the helper", async (server) => {
  server.routes(get("/ratio").template().body({ ratio: "{{math request.query.a '/' request.query.b}}" }));
  assert.deepEqual((await send(server, "GET", "/ratio?a=6&b=3")).json, { ratio: "2" });
  const failed = await send(server, "GET", "/ratio?a=6&b=0");
  assert.equal(failed.status, 500);
  assert.equal(failed.headers.get("content-type"), "application/json");
  assert.deepEqual(failed.json, {
    error: "template failed: math: division by zero",
    stub: "GET /ratio",
    helper: "math",
  });
});

serverTest("a template stub added through POST /__stubtool__/stubs renders as a builder's does", async (server) => {
  const added = await send(server, "POST", "/__stubtool__/stubs", {
    headers: { "content-type": "application/yaml" },
    body: `- method: GET
  path: /users/{id}
  template: true
  status: "{{#eq params.id 'gone'}}410{{else}}200{{/eq}}"
  headers: {x-user: "{{params.id}}"}
  body: {id: "{{params.id}}", name: "{{upper request.query.name}}", raw: "{id}"}
`,
  });
  assert.equal(added.status, 201, added.text);
  const found = await send(server, "GET", "/users/u1?name=ann");
  assert.deepEqual([found.status, found.headers.get("x-user"), found.json], [200, "u1", {
    id: "u1",
    name: "ANN",
    raw: "{id}",
  }]);
  assert.equal((await send(server, "GET", "/users/gone")).status, 410);
  const listed = (await send(server, "GET", "/__stubtool__/stubs")).json.stubs[0];
  assert.equal(listed.template, true);
  assert.equal(listed.status, "{{#eq params.id 'gone'}}410{{else}}200{{/eq}}");
});

serverTest("request data that looks like a template comes back as text and reaches nothing", async (server) => {
  server.routes(
    post("/echo/{id}").template()
      .header("x-echo", "{{request.headers.x-text}}")
      .body({
        id: "{{params.id}}",
        segment: "{{request.pathSegments.[1]}}",
        header: "{{request.headers.x-text}}",
        name: "{{request.json.name}}",
        body: "{{request.body}}",
        constructor: "{{request.json.constructor}}|{{params.constructor}}|{{request.query.constructor}}",
        proto: "{{request.headers.__proto__}}|{{params.__proto__}}|{{lookup request '__proto__'}}",
        ctorName: "{{request.constructor.name}}",
      }),
  );
  const tricky = "{{#each request}}{{@key}}{{/each}} {{request.method}} {{> partial}}";
  const raw = `{"name":${JSON.stringify(tricky)},"__proto__":{"polluted":"yes"}}`;
  const answer = await send(server, "POST", "/echo/%7B%7Brequest.method%7D%7D", {
    body: raw,
    headers: { "x-text": "{{now}} {{request.method}}" },
  });
  assert.equal(answer.status, 200);
  assert.equal(answer.headers.get("x-echo"), "{{now}} {{request.method}}");
  assert.deepEqual(answer.json, {
    id: "{{request.method}}",
    segment: "{{request.method}}",
    header: "{{now}} {{request.method}}",
    name: tricky,
    body: raw,
    constructor: "||",
    proto: "||",
    ctorName: "",
  });
  for (const path of ["/echo/__proto__", "/echo/constructor"]) {
    const segment = path.slice("/echo/".length);
    const echoed = await send(server, "POST", path, { body: "{}" });
    assert.deepEqual([echoed.json.id, echoed.json.segment, echoed.json.constructor], [segment, segment, "||"]);
  }
  // Nothing reached Object.prototype.
  assert.equal(({} as Record<string, unknown>).polluted, undefined);
});

Deno.test("validate: a broken template is an error with its place (body, header, body_file, status), exit 1", async () => {
  await using dir = await tempDir();
  const config = join(dir.path, "stubs.yaml");
  await Deno.writeTextFile(join(dir.path, "broken.txt"), "Hello {{#each items}}\n");
  await Deno.writeTextFile(
    config,
    `routes:
  - method: GET
    path: /body
    template: true
    body: {greeting: "{{#if name}}Hi"}
  - method: GET
    path: /header
    template: true
    headers:
      x-a: "{{nosuch 1}}"
  - method: GET
    path: /file
    template: true
    body_file: broken.txt
  - method: GET
    path: /status
    template: true
    status: "{{math 1 '%%' 2}}"
  - method: GET
    path: /not-a-template
    status: "{{request.query.code}}"
`,
  );
  const result = await runCli(["validate", config]);
  assert.equal(result.code, 1);
  assert.equal(result.stdout, "");
  const lines = result.stderr.trimEnd().split("\n");
  assert.equal(lines.length, 5, result.stderr);
  assert.match(
    lines[0],
    /^\[ERROR\] routes\[0\]: body\.greeting: broken template: line 1: .*\(at .*stubs\.yaml:5:12\)$/,
  );
  assert.match(
    lines[1],
    /^\[ERROR\] routes\[1\]: headers\.x-a: broken template: line 1, column 1: unknown helper 'nosuch' \(allowed: .*\) \(at .*stubs\.yaml:10:7\)$/,
  );
  assert.match(lines[2], /^\[ERROR\] routes\[2\]: body_file: broken template: line 2: .*\(at .*stubs\.yaml:14:5\)$/);
  assert.equal(
    lines[3],
    `[ERROR] routes[3]: status: broken template: line 1, column 1: math: unknown operator "%%" ` +
      `(use '+', '-', '*', '/' or '%') (at ${config}:18:5)`,
  );
  assert.equal(
    lines[4],
    `[ERROR] routes[4]: status must be an integer from 100 to 599, got "{{request.query.code}}"; ` +
      `add template: true to render it per request (at ${config}:21:5)`,
  );
});

Deno.test("regression: validate warned that templates were not available for {{…}} in a template stub's header", async () => {
  await using dir = await tempDir();
  const config = join(dir.path, "stubs.yaml");
  await Deno.writeTextFile(
    config,
    `routes:
  - method: GET
    path: /users/{id}
    template: true
    headers: { location: "/users/{{params.id}}" }
    body: { id: "{{params.id}}", plain: "{id}", other: "{uuid}" }
`,
  );
  const result = await runCli(["validate", config]);
  assert.deepEqual([result.code, result.stdout, result.stderr], [
    0,
    `[OK] ${config} is valid (1 route(s) defined)\n`,
    "",
  ]);
});

serverTest("math on text that is not a number answers 500 naming math (it rendered 0 before)", async (server) => {
  server.routes(get("/ratio").template().body({ ratio: "{{math request.query.a '/' request.query.b}}" }));
  const failed = await send(server, "GET", "/ratio?a=x&b=2");
  assert.equal(failed.status, 500);
  assert.deepEqual(failed.json, {
    error: 'template failed: math: "x" is not a number',
    stub: "GET /ratio",
    helper: "math",
  });
  const missing = await send(server, "GET", "/ratio?b=2");
  assert.equal(missing.status, 500);
  assert.equal(missing.json.helper, "math");
});

serverTest("math computes 300-digit products exactly (they printed Infinity before)", async (server) => {
  server.routes(
    get("/big").template().body("{{math request.query.a '*' request.query.b}}").header("content-type", "text/plain"),
  );
  const a = "9".repeat(300);
  const answer = await send(server, "GET", `/big?a=${a}&b=${a}.5`);
  assert.equal(answer.status, 200);
  // (10^300 − 1) × (10^300 − 0.5) = (10^300 − 1.5)·10^300 + 0.5
  assert.equal(answer.text, "9".repeat(299) + "85" + "0".repeat(299) + ".5");
});

serverTest("math refuses a 60,000-digit operand at once (its number regex took 6 s before)", async (server) => {
  server.routes(post("/sum").template().body("{{math request.body '+' 1}}").header("content-type", "text/plain"));
  const started = performance.now();
  const answer = await send(server, "POST", "/sum", { body: "1".repeat(60_000) + "x" });
  assert.equal(answer.status, 500);
  assert.equal(answer.json.helper, "math");
  assert.ok(performance.now() - started < 2000);
  const long = await send(server, "POST", "/sum", { body: "1".repeat(60_000) });
  assert.equal(long.status, 500);
  assert.match(long.json.error, /longer than 10000 digits/);
});

/** Sends the attack and, while it runs, a plain request: both answer, the plain one at once. */
async function attack(
  server: Parameters<Parameters<typeof serverTest>[1]>[0],
  path: string,
  body: string,
): Promise<{ status: number; json: Record<string, unknown>; size: number }> {
  const sent = send(server, "POST", path, { body, headers: { "content-type": "application/json" } });
  await new Promise((resolve) => setTimeout(resolve, 20));
  const started = performance.now();
  const health = await send(server, "GET", "/health");
  assert.equal(health.status, 200);
  assert.ok(performance.now() - started < 5000, "a concurrent request is answered while the attack renders");
  const answer = await sent;
  return { status: answer.status, json: answer.json, size: answer.text.length };
}

serverTest(
  "a loop over 4.9 million items stops at the output limit with a 500 naming the helper (it ran out of memory before)",
  async (server) => {
    server.routes(
      get("/health").status(200),
      post("/each").template().body("{{#each request.json.items}}{{randomValue length=36}}{{/each}}")
        .header("content-type", "text/plain"),
    );
    const items = '{"items":[' + "0,".repeat(4_900_000) + "0]}";
    const answer = await attack(server, "/each", items);
    assert.equal(answer.status, 500);
    assert.equal(answer.json.stub, "POST /each");
    assert.equal(answer.json.helper, "randomValue");
    assert.match(String(answer.json.error), /exceed 1048576 characters/);
    assert.ok(answer.size < 1000);
  },
);

serverTest("a loop of more than 100,000 iterations answers 500 naming each", async (server) => {
  server.routes(get("/health").status(200), post("/each").template().body("{{#each request.json}}{{/each}}"));
  const answer = await attack(server, "/each", "[" + "0,".repeat(100_000) + "0]");
  assert.equal(answer.status, 500);
  assert.deepEqual(answer.json, {
    error: "template failed: each: more than 100000 loop iterations (the limit)",
    stub: "POST /each",
    helper: "each",
  });
  const fine = await send(server, "POST", "/each", { body: "[" + "0,".repeat(99_999) + "0]" });
  assert.equal(fine.status, 200);
});

serverTest("jsonPath '$..*' on a 9 MB body stops at the JSONPath limit with a 500 naming jsonPath", async (server) => {
  server.routes(get("/health").status(200), post("/scan").template().body("{{jsonPath request.body '$..*'}}"));
  const answer = await attack(server, "/scan", "[" + '{"id":1},'.repeat(900_000) + "{}]");
  assert.equal(answer.status, 500);
  assert.equal(answer.json.stub, "POST /scan");
  assert.equal(answer.json.helper, "jsonPath");
  assert.match(String(answer.json.error), /more than 1000000 units of work/);
});

serverTest(
  "jsonPath '$..id' on 1 MB nested 999 deep is refused before it runs (it took 1 GB before)",
  async (server) => {
    server.routes(get("/health").status(200), post("/scan").template().body("{{jsonPath request.body '$..id'}}"));
    let deep = "";
    for (let i = 0; i < 999; i++) deep += `{"id":${i},"a":[${"1,".repeat(500)}1],"c":`;
    deep += "0" + "}".repeat(999);
    assert.ok(deep.length > 1_000_000);
    const answer = await attack(server, "/scan", deep);
    assert.equal(answer.status, 500);
    assert.equal(answer.json.helper, "jsonPath");
    assert.match(String(answer.json.error), /more than 1000000 units of work/);
  },
);

serverTest(
  "formatJson of 2.9 MB nested 990 deep stops at the output limit (it answered 501 MB before)",
  async (server) => {
    server.routes(get("/health").status(200), post("/pretty").template().body("{{formatJson request.body}}"));
    let deep = "";
    for (let i = 0; i < 990; i++) deep += `{"k":[${'"xxxxxxxxxxxxxxxxxxxx",'.repeat(130)}1],"c":`;
    deep += "0" + "}".repeat(990);
    assert.ok(deep.length > 2_900_000);
    const answer = await attack(server, "/pretty", deep);
    assert.equal(answer.status, 500);
    assert.equal(answer.json.helper, "formatJson");
    assert.match(String(answer.json.error), /exceed 1048576 characters/);
    assert.ok(answer.size < 1000);
  },
);

serverTest("randomValue gives up to 65,536 characters (past 16,384 it answered 500 before)", async (server) => {
  server.routes(
    get("/r").template().body("{{randomValue length=65536 type='NUMERIC'}}").header("content-type", "text/plain"),
  );
  const answer = await send(server, "GET", "/r");
  assert.equal(answer.status, 200);
  assert.match(answer.text, /^[0-9]{65536}$/);
});

serverTest(
  "a template status of 204 or 304 drops the body, and the journal records what the client got (it answered 500 null body status before)",
  async (server) => {
    server.routes(get("/s").template().status("{{request.query.s}}").body({ ok: "{{request.query.s}}" }));
    for (const code of [204, 304]) {
      const answer = await send(server, "GET", `/s?s=${code}`);
      assert.equal(answer.status, code);
      assert.equal(answer.text, "");
      assert.equal(answer.headers.get("content-type"), null);
    }
    const ok = await send(server, "GET", "/s?s=200");
    assert.deepEqual([ok.status, ok.json], [200, { ok: "200" }]);
    const found = await send(server, "POST", "/__stubtool__/requests/find", { body: "{}" });
    assert.deepEqual(found.json.requests.map((r: { status: number }) => r.status), [204, 304, 200]);
  },
);

serverTest(
  "a template header with a non-ASCII capture goes out percent-encoded like a plain stub's (it went out as raw Latin-1 before)",
  async (server) => {
    server.routes(
      post("/shops/{shop}/orders").template().status(201).header("location", "/shops/{{params.shop}}/orders/1"),
      post("/plain/{shop}/orders").status(201).header("location", "/shops/{shop}/orders/1"),
      get("/crlf").template().header("x-echo", "{{request.query.v}}"),
    );
    const templated = await send(server, "POST", "/shops/caf%C3%A9/orders");
    const plain = await send(server, "POST", "/plain/caf%C3%A9/orders");
    assert.equal(templated.headers.get("location"), "/shops/caf%C3%A9/orders/1");
    assert.equal(plain.headers.get("location"), templated.headers.get("location"));
    const wide = await send(server, "POST", "/shops/%E2%82%AC/orders");
    assert.equal(wide.headers.get("location"), "/shops/%E2%82%AC/orders/1");
    const split = await send(server, "GET", "/crlf?v=a%0D%0Aset-cookie:%20x=1");
    assert.equal(split.status, 500);
    assert.equal(split.json.stub, "GET /crlf");
    assert.match(split.json.error, /header 'x-echo'/);
  },
);

Deno.test("validate lists every broken template of a stub, with did-you-mean for a helper (it stopped at the first before)", async () => {
  await using dir = await tempDir();
  const config = join(dir.path, "stubs.yaml");
  await Deno.writeTextFile(
    config,
    `routes:
  - method: GET
    path: /a
    template: true
    headers:
      x-a: "{{uper request.path}} {{lowr request.path}}"
    body:
      one: "{{#if}}"
      two: "{{uper 'x'}}"
  - method: GET
    path: /b
    template: true
    status: "201"
`,
  );
  const result = await runCli(["validate", config]);
  assert.equal(result.code, 1);
  const lines = result.stderr.trimEnd().split("\n");
  assert.equal(lines.length, 5, result.stderr);
  assert.equal(
    lines[0],
    `[ERROR] routes[0]: headers.x-a: broken template: line 1, column 1: unknown helper 'uper' (did you mean 'upper'?) (at ${config}:6:7)`,
  );
  assert.equal(
    lines[1],
    `[ERROR] routes[0]: headers.x-a: broken template: line 1, column 23: unknown helper 'lowr' (did you mean 'lower'?) (at ${config}:6:7)`,
  );
  assert.match(lines[2], /^\[ERROR\] routes\[0\]: body\.one: broken template: line 1: /);
  assert.equal(
    lines[3],
    `[ERROR] routes[0]: body.two: broken template: line 1, column 1: unknown helper 'uper' (did you mean 'upper'?) (at ${config}:9:7)`,
  );
  assert.equal(
    lines[4],
    `[ERROR] routes[1]: status must be an integer from 100 to 599, got "201"; write it without quotes (status: 201), ` +
      `or render it with {{…}} (at ${config}:13:5)`,
  );
});

serverTest(
  "template_parameters are read as parameters.NAME (text, numbers, true/false, lists, mappings; a missing one is empty)",
  async (server) => {
    const { config, problems } = validateConfig({
      routes: [{
        method: "GET",
        path: "/p",
        template: true,
        template_parameters: {
          greeting: "hello",
          count: 3,
          ratio: 1.5,
          on: false,
          nested: { flag: "yes" },
          list: ["x", "y"],
        },
        headers: { "content-type": "text/plain", "x-greeting": "{{parameters.greeting}}" },
        body:
          "{{parameters.greeting}} {{parameters.count}} {{parameters.ratio}} {{parameters.on}} {{parameters.nested.flag}} " +
          "{{parameters.list.[1]}} [{{parameters.missing}}] {{#if parameters.on}}on{{else}}off{{/if}} {{math parameters.count '+' 2}}",
      }],
    });
    assert.deepEqual(problems, []);
    server.routes(...config!.routes);
    const answer = await send(server, "GET", "/p");
    assert.equal(answer.status, 200);
    assert.equal(answer.headers.get("x-greeting"), "hello");
    assert.equal(answer.text, "hello 3 1.5 false yes y [] off 5");
  },
);

Deno.test("template_parameters: a mapping of plain data, only in a template stub", () => {
  const check = (raw: Record<string, unknown>) =>
    validateConfig({ routes: [{ method: "GET", path: "/p", body: "x", ...raw }] }).problems.map((p) => p.message);
  assert.deepEqual(check({ template: true, template_parameters: { a: [1, { b: null }] } }), []);
  assert.deepEqual(check({ template_parameters: { a: 1 } }), [
    "template_parameters are read by templates (parameters.NAME); add template: true or remove them",
  ]);
  assert.deepEqual(check({ template: true, template_parameters: ["a"] }), [
    'template_parameters must be a mapping of names to values (read as {{parameters.NAME}}), got ["a"]',
  ]);
  let deep: unknown = "end";
  for (let i = 0; i < 40; i++) deep = { d: deep };
  assert.deepEqual(check({ template: true, template_parameters: { deep } }), [
    `template_parameters.deep${".d".repeat(32)} nests deeper than 32 levels`,
  ]);
});

serverTest(
  "xPath / soapXPath: text, attributes, scalars, the first of several nodes, each over a list, a body that is not XML",
  async (server) => {
    server.routes(
      post("/x").template().header("content-type", "text/plain").body(
        "name={{xPath request.body '/order/customer/name/text()'}} id={{xPath request.body '/order/@id'}} " +
          "none=[{{xPath request.body '/order/nope/text()'}}] count={{xPath request.body 'count(//item)'}} " +
          "sum={{xPath request.body 'sum(//item/@qty)'}} many={{xPath request.body '//item/text()'}} " +
          "each={{#each (xPath request.body '//item/@qty')}}{{this}};{{/each}}",
      ),
      post("/soap").template().header("content-type", "text/plain").body(
        "{{soapXPath request.body '/getUser/id/text()'}}",
      ),
    );
    const order =
      '<order id="o-7"><customer><name>Ann &amp; Bo</name></customer><item qty="2">pen</item><item qty="3.5">ink</item></order>';
    assert.equal(
      (await send(server, "POST", "/x", { body: order })).text,
      "name=Ann & Bo id=o-7 none=[] count=2 sum=5.5 many=pen each=2;3.5;",
    );
    assert.equal(
      (await send(server, "POST", "/x", { body: "not xml" })).text.split(" ")[0],
      "name=[ERROR:",
    );
    const soap = '<s:Envelope xmlns:s="http://schemas.xmlsoap.org/soap/envelope/"><s:Body><getUser><id>42</id>' +
      "</getUser></s:Body></s:Envelope>";
    assert.equal((await send(server, "POST", "/soap", { body: soap })).text, "42");
  },
);

Deno.test("xPath: a literal expression that is not XPath, or a call without two arguments, fails at load", () => {
  const check = (body: string) =>
    validateConfig({ routes: [{ method: "POST", path: "/x", template: true, body }] }).problems.map((p) => p.message);
  assert.match(
    check("{{xPath request.body '/a['}}")[0],
    /xPath: the expression "\/a\[" is not an XPath 1\.0 expression/,
  );
  assert.match(check("{{xPath request.body}}")[0], /xPath: write the XML, then the expression/);
  assert.deepEqual(check("{{xPath request.body '/a/@b'}}"), []);
});

Deno.test("a template whose status and headers read nothing from the request shares one head; a rendered header gets its own", async () => {
  const { TemplateResponse } = await import("../src/server/answers/template.ts");
  const { templateModel } = await import("../src/server/answers/template_model.ts");
  const { config } = validateConfig({
    routes: [
      {
        method: "GET",
        path: "/a/{id}",
        template: true,
        headers: { "x-kind": "plain é" },
        body: { id: "{{params.id}}" },
      },
      { method: "GET", path: "/b/{id}", template: true, headers: { "x-id": "{{params.id}}" }, body: "b" },
    ],
  });
  const model = (id: string) =>
    templateModel({
      method: "GET",
      target: `/a/${id}`,
      pathname: `/a/${id}`,
      rawQuery: "",
      scheme: "http",
      header: () => null,
      headers: () => ({}),
      bodyText: () => "",
      params: { id },
    });
  const [fixed, rendered] = config!.routes.map((stub) => new TemplateResponse(stub.responses[0]));
  const [first, firstBody] = fixed.render(model("1"));
  const [second, secondBody] = fixed.render(model("2"));
  assert.equal(first, second);
  assert.deepEqual({ ...first.headers }, { "content-type": "application/json", "x-kind": "plain %C3%A9" });
  assert.deepEqual([firstBody, secondBody], ['{"id":"1"}', '{"id":"2"}']);
  const [one] = rendered.render(model("1"));
  const [two] = rendered.render(model("2"));
  assert.notEqual(one, two);
  assert.deepEqual([one.headers["x-id"], two.headers["x-id"]], ["1", "2"]);
});
