// The WireMock mapping converter as a pure function: each feature that converts, and each
// refusal with its exact warning.
import assert from "node:assert/strict";
import { PRIORITY_BAND } from "../src/formats/wiremock/ranks.ts";
import { hasIntegralDecimal, mappingsToConfig } from "../src/formats/wiremock/mapping.ts";
import { javaRegexToJs } from "../src/formats/wiremock/regex.ts";
import { loadTemplating } from "../src/templating/engine.ts";

// These call the synchronous checks directly: the template engine they use is loaded first.
await loadTemplating();

const F = "m.json";
const b64 = (text: string) => btoa(String.fromCharCode(...new TextEncoder().encode(text)));

/** Converts one mapping (request defaults to GET /x by urlPath). */
function one(mapping: Record<string, unknown>, options = {}) {
  return mappingsToConfig(
    { request: { method: "GET", urlPath: "/x" }, response: {}, ...mapping },
    F,
    options,
  );
}

/** `or: [or: [… equalTo x …], equalTo y]`, `levels` deep. */
function nestedOr(levels: number): Record<string, unknown> {
  return levels === 0 ? { equalTo: "x" } : { or: [nestedOr(levels - 1), { equalTo: "y" }] };
}

/** The warning lines of one mapping. */
function refusals(mapping: Record<string, unknown>): string[] {
  const { routes, warnings } = one(mapping);
  assert.deepEqual(routes, [], "a refused mapping converts to nothing");
  return warnings.map((w) => w.message);
}

Deno.test("wiremock mapping: urlPath, method, status (also as text) and a text body under a text content type", () => {
  const { routes, warnings } = one({
    request: { method: "POST", urlPath: "/users/new" },
    response: { status: "201", headers: { "Content-Type": "text/html; charset=utf-8" }, body: "<p>made</p>" },
  });
  assert.deepEqual(warnings, []);
  assert.deepEqual(routes, [{
    method: "POST",
    path: "/users/new",
    status: 201,
    headers: { "Content-Type": "text/html; charset=utf-8" },
    body: "<p>made</p>",
  }]);
});

Deno.test("wiremock mapping: a body without a content type is text sent with none (stubtool would add application/json)", () => {
  const { routes } = one({ response: { status: 200, body: "plain" } });
  assert.deepEqual(routes, [{
    method: "GET",
    head: false,
    path: "/x",
    status: 200,
    body: "plain",
    headers: { "content-type": null },
  }]);
  // A {name} in the text would be filled with a capture: bytes then.
  assert.deepEqual(one({ response: { body: "a {b}" } }).routes[0], {
    method: "GET",
    head: false,
    path: "/x",
    body_base64: b64("a {b}"),
    headers: { "content-type": null },
  });
});

Deno.test("wiremock mapping: a file or base64 body without a content type sends none (stubtool would type them)", () => {
  assert.deepEqual(one({ response: { base64Body: "aGk=", headers: { "X-A": "b" } } }).routes[0], {
    method: "GET",
    head: false,
    path: "/x",
    headers: { "X-A": "b", "content-type": null },
    body_base64: "aGk=",
  });
  assert.deepEqual(one({ response: { bodyFileName: "a.txt" } }).routes[0], {
    method: "GET",
    head: false,
    path: "/x",
    body_file: "__files/a.txt",
    headers: { "content-type": null },
  });
  // No body: nothing to type.
  assert.deepEqual(one({ response: { status: 204 } }).routes[0], {
    method: "GET",
    head: false,
    path: "/x",
    status: 204,
  });
});

Deno.test("wiremock mapping: jsonBody without a content type is Jackson's compact text, supplementary characters escaped", () => {
  const { routes } = one({ response: { jsonBody: { a: [1, "two"], t: "grüße 🙂", p: 9.5 } } });
  assert.deepEqual(routes[0].body, '{"a":[1,"two"],"t":"grüße \\uD83D\\uDE42","p":9.5}');
  assert.deepEqual(routes[0].headers, { "content-type": null });
});

Deno.test("wiremock mapping: jsonBody under a JSON content type stays a readable body", () => {
  const { routes } = one({ response: { headers: { "Content-Type": "application/json" }, jsonBody: { id: 2 } } });
  assert.deepEqual(routes, [{
    method: "GET",
    head: false,
    path: "/x",
    headers: { "Content-Type": "application/json" },
    body: { id: 2 },
  }]);
});

Deno.test("wiremock mapping: without the file's text, jsonBody numbers Java writes differently are refused", () => {
  assert.deepEqual(refusals({ response: { jsonBody: { n: 1e21 } } }), [
    `${F} mappings[0]: 'jsonBody (numbers)' is not supported: Java writes this number differently from JavaScript (a large whole number, or a decimal in E notation)`,
  ]);
  const text = '{"request":{"method":"GET","urlPath":"/x"},"response":{"jsonBody":{"n":1.0}}}';
  const { warnings } = mappingsToConfig(JSON.parse(text), F, { integralDecimals: true });
  assert.deepEqual(warnings.map((w) => w.feature), ["jsonBody (numbers)"]);
  assert.equal(hasIntegralDecimal('{"a":"1.0","b":2.5,"c":1}'), false);
  assert.equal(hasIntegralDecimal('{"a":1e3}'), true);
});

Deno.test("regression: a 1.0 anywhere in a file refused its whole-number jsonBody mappings; with the file's text each jsonBody is sent with its numbers as WireMock writes them (BigDecimal, plain)", () => {
  const text = `{"mappings": [
    {"request": {"urlPath": "/n"}, "response": {"headers": {"Content-Type": "application/json"},
      "jsonBody": {"a": 1.0, "b": 2, "c": 1.5, "d": 1e3, "e": -0.0, "f": 2.50, "g": 1.5E-3, "h": 12345678901234567890, "s": "x\u00e9"}}},
    {"request": {"urlPath": "/w"}, "response": {"headers": {"Content-Type": "application/json"}, "jsonBody": {"n": 1, "list": [1, 2]}}},
    {"request": {"urlPath": "/t"}, "response": {"jsonBody": [0.10, -7]}},
    {"request": {"urlPath": "/z"}, "response": {"jsonBody": {"z": 0e3}}}
  ]}`;
  const { routes, warnings } = mappingsToConfig(JSON.parse(text), F, { source: text });
  const body = '{"a":1.0,"b":2,"c":1.5,"d":1000,"e":0.0,"f":2.50,"g":0.0015,"h":12345678901234567890,"s":"xé"}';
  assert.deepEqual(routes.map((r) => [r.path, r.body ?? r.body_base64]), [
    ["/n", b64(body)],
    ["/w", { n: 1, list: [1, 2] }],
    ["/t", "[0.10,-7]"],
  ]);
  assert.deepEqual(warnings.map((w) => w.message), [
    `${F} mappings[3]: 'jsonBody (numbers)' is not supported: a number's plain form is over 1,000 digits, or a zero with an exponent (0e3)`,
  ]);
});

Deno.test("wiremock mapping: base64Body, empty bodies, multi-valued headers, delays, proxy, ids", () => {
  assert.deepEqual(one({ response: { base64Body: "AAE=" } }).routes[0].body_base64, "AAE=");
  assert.deepEqual(one({ response: { body: "" } }).routes, [{ method: "GET", head: false, path: "/x" }]);
  assert.deepEqual(one({ response: { headers: { "Set-Cookie": ["a=1", "b=2"] } } }).routes[0].headers, {
    "Set-Cookie": ["a=1", "b=2"],
  });
  // Any header sent twice converts: the default wire (node:http) sends one line per value.
  const multi = one({ response: { headers: { "X-Multi": ["one", "two"] } } });
  assert.deepEqual([multi.routes[0].headers, multi.warnings], [{ "X-Multi": ["one", "two"] }, []]);
  assert.equal(one({ response: { fixedDelayMilliseconds: 50 } }).routes[0].delay, 50);
  assert.deepEqual(
    one({ response: { delayDistribution: { type: "uniform", lower: 30, upper: 60 } } }).routes[0].delay,
    { min: 30, max: 60 },
  );
  assert.deepEqual(one({ response: { proxyBaseUrl: "http://up.example:81" } }).routes, [
    { method: "GET", head: false, path: "/x", proxy: "http://up.example:81" },
  ]);
  assert.equal(
    one({ id: "2b1c7f3e-5c1a-4e57-9a51-3f0b6b1f0a01" }).routes[0].id,
    "2b1c7f3e-5c1a-4e57-9a51-3f0b6b1f0a01",
  );
  assert.equal(one({ uuid: "u-1" }).routes[0].id, "u-1");
  // A name is no id in WireMock: a stub would otherwise answer to /__stubtool__/stubs/NAME and clash with another's id.
  assert.equal(one({ name: "Get user 1!" }).routes[0].id, undefined);
  assert.deepEqual(one({ metadata: { a: 1 }, persistent: true, insertionIndex: 3 }).warnings, []);
});

Deno.test("wiremock mapping: statusMessage, the four faults, a lognormal delay and chunkedDribbleDelay convert", () => {
  assert.equal(one({ response: { status: 404, statusMessage: "Nope" } }).routes[0].status_message, "Nope");
  const faults = [
    ["CONNECTION_RESET_BY_PEER", "reset"],
    ["EMPTY_RESPONSE", "empty"],
    ["MALFORMED_RESPONSE_CHUNK", "malformed_chunk"],
    ["RANDOM_DATA_THEN_CLOSE", "random_then_close"],
  ];
  for (const [wiremock, stubtool] of faults) {
    // WireMock's fault ignores the mapping's status, headers and body.
    const { routes, warnings } = one({ response: { fault: wiremock, status: 503, headers: { a: "b" }, body: "x" } });
    assert.deepEqual([routes, warnings], [[{ method: "GET", head: false, path: "/x", fault: stubtool }], []]);
  }
  assert.deepEqual(
    one({ response: { delayDistribution: { type: "lognormal", median: 40, sigma: 0.1 } } }).routes[0].delay,
    { median: 40, sigma: 0.1 },
  );
  assert.deepEqual(
    one({ response: { delayDistribution: { type: "lognormal", median: 40, sigma: 0.1, maxValue: 90 } } }).routes[0]
      .delay,
    { median: 40, sigma: 0.1, max: 90 },
  );
  // WireMock adds a fixed delay to a distributed one: a uniform range moves, a lognormal gets plus.
  const fixedAnd = (distribution: unknown) =>
    one({ response: { fixedDelayMilliseconds: 100, delayDistribution: distribution } });
  assert.deepEqual(
    [
      fixedAnd({ type: "uniform", lower: 50, upper: 60 }).routes[0].delay,
      fixedAnd({ type: "uniform", lower: 50, upper: 60 }).warnings,
    ],
    [{ min: 150, max: 160 }, []],
  );
  assert.deepEqual(
    fixedAnd({ type: "lognormal", median: 60, sigma: 0.1, maxValue: 65 }).routes[0].delay,
    { median: 60, sigma: 0.1, max: 65, plus: 100 },
  );
  assert.deepEqual(
    one({ response: { fixedDelayMilliseconds: 0, delayDistribution: { type: "lognormal", median: 60, sigma: 0.1 } } })
      .routes[0].delay,
    { median: 60, sigma: 0.1 },
  );
  assert.deepEqual(
    one({ response: { chunkedDribbleDelay: { numberOfChunks: 4, totalDuration: 200 } } }).routes[0].dribble,
    { chunks: 4, ms: 200 },
  );
});

Deno.test("wiremock mapping: a missing method is ANY; request conditions become value patterns", () => {
  const { routes, warnings } = mappingsToConfig({
    request: {
      urlPath: "/q",
      queryParameters: {
        a: { equalTo: "1" },
        b: { matches: "[0-9]{3}" },
        c: { contains: "a.b" },
        d: { absent: true },
        e: { equalTo: "hello", caseInsensitive: true },
        f: { equalTo: "{literal}" },
        g: { doesNotContain: "x" },
        h: { doesNotMatch: "[0-9]+" },
        i: { equalTo: "grüße", caseInsensitive: true },
      },
      headers: { "X-Env": { equalTo: "prod" } },
    },
    response: { status: 204 },
  }, F);
  assert.deepEqual(warnings, []);
  assert.deepEqual(routes, [{
    method: "ANY",
    path: "/q",
    query_params: {
      a: "1",
      b: { regex: "[0-9]{3}" },
      c: { contains: "a.b" },
      d: { absent: true },
      e: { equals_ignore_case: "hello" },
      f: { regex: "\\{literal\\}" },
      g: { not_contains: "x" },
      h: { not_regex: "[0-9]+" },
      i: { equals_ignore_case: "grüße" },
    },
    request: { headers: { "x-env": "prod" } },
    status: 204,
  }]);
});

Deno.test("wiremock mapping: url is a path and query_string; urlPathPattern / urlPattern a regex under a literal prefix", () => {
  const request = (r: Record<string, unknown>) => {
    const { routes, warnings } = one({ request: { method: "GET", ...r } });
    assert.deepEqual(warnings, []);
    const { path, request } = routes[0];
    return { path, request };
  };
  assert.deepEqual(request({ url: "/a/b?x=1&y=2" }), { path: "/a/b", request: { query_string: "x=1&y=2" } });
  assert.deepEqual(request({ url: "/a/b" }), { path: "/a/b", request: { query_string: "" } });
  assert.deepEqual(request({ url: "/a/b%20c?q" }), {
    path: "/a/{wiremock_path*}",
    request: { query_string: "q", path_regex: "\\/a\\/b%20c" },
  });
  assert.deepEqual(request({ urlPathPattern: "/api/v1/users/[0-9]+" }), {
    path: "/api/v1/users/{wiremock_path*}",
    request: { path_regex: "\\/api\\/v1\\/users\\/[0-9]+" },
  });
  assert.deepEqual(request({ urlPattern: "/api/.*" }), {
    path: "/api/{wiremock_path**}",
    request: { url_regex: "\\/api\\/[\\s\\S]*" },
  }, "the pattern matches /api/ itself: a catch-all that also takes nothing");
  assert.deepEqual(request({ urlPattern: "/.*" }), {
    path: "/{wiremock_path**}",
    request: { url_regex: "\\/[\\s\\S]*" },
  }, "a catch-all pattern matches / too");
  assert.deepEqual(request({ urlPathPattern: "/.*" }), {
    path: "/{wiremock_path**}",
    request: { path_regex: "\\/[\\s\\S]*" },
  });
  assert.deepEqual(request({ urlPathPattern: "/a|/b/c" }), {
    path: "/{wiremock_path*}",
    request: { path_regex: "\\/a|\\/b\\/c" },
  }, "an alternation has no common prefix");
  assert.deepEqual(request({ urlPath: "/trailing/" }), {
    path: "/trailing/{wiremock_path**}",
    request: { path_regex: "\\/trailing\\/" },
  });
});

Deno.test("wiremock mapping: ${json-unit.*} placeholders in equalToJson become json_equals with json_placeholders (the regex translated)", () => {
  const body = (pattern: Record<string, unknown>) =>
    one({ request: { method: "POST", urlPath: "/x", bodyPatterns: [pattern] } }).routes[0]?.request;
  assert.deepEqual(
    body({
      equalToJson: {
        id: "${json-unit.any-string}",
        n: "${json-unit.any-number}",
        ok: "${json-unit.any-boolean}",
        x: "${json-unit.ignore}",
        code: "${json-unit.regex}[a-z]+.",
      },
    }),
    {
      json_equals: {
        id: "${json-unit.any-string}",
        n: "${json-unit.any-number}",
        ok: "${json-unit.any-boolean}",
        x: "${json-unit.ignore}",
        code: "${json-unit.regex}[a-z]+[^\\n\\r\\u0085\\u2028\\u2029]",
      },
      json_placeholders: true,
    },
  );
  // With WireMock's flags, and as a string document.
  assert.deepEqual(
    body({ equalToJson: '[{"a": "${json-unit.any-number}"}]', ignoreArrayOrder: true, ignoreExtraElements: true }),
    {
      json_equals: [{ a: "${json-unit.any-number}" }],
      json_ignore: ["array_order", "extra_fields", "extra_items"],
      json_placeholders: true,
    },
  );
});

Deno.test("wiremock mapping: matchesJsonPath with equalToJson becomes a json_path entry {json_equals} (flags, placeholders)", () => {
  const paths = (matcher: Record<string, unknown>) =>
    one({ request: { method: "POST", urlPath: "/x", bodyPatterns: [{ matchesJsonPath: matcher }] } }).routes[0]
      ?.request;
  assert.deepEqual(paths({ expression: "$.user", equalToJson: { name: "ada", age: 36 } }), {
    json_path: { "$.user": { json_equals: { name: "ada", age: 36 } } },
  });
  assert.deepEqual(paths({ expression: "$.user", equalToJson: '{"name": "ada"}', ignoreExtraElements: true }), {
    json_path: { "$.user": { json_equals: { name: "ada" }, json_ignore: ["extra_fields", "extra_items"] } },
  });
  assert.deepEqual(paths({ expression: "$['a'][0]", equalToJson: [2, 1], ignoreArrayOrder: true }), {
    json_path: { "$['a'][0]": { json_equals: [2, 1], json_ignore: ["array_order"] } },
  });
  assert.deepEqual(paths({ expression: "$.a", equalToJson: { id: "${json-unit.any-number}" } }), {
    json_path: { "$.a": { json_equals: { id: "${json-unit.any-number}" }, json_placeholders: true } },
  });
});

Deno.test("wiremock mapping: equalToJson converts only where stubtool's json rule means the same", () => {
  const extra = one({
    request: {
      method: "POST",
      urlPath: "/x",
      bodyPatterns: [{ equalToJson: '{"a":{"b":1}}', ignoreExtraElements: true }],
    },
  });
  assert.deepEqual(extra.routes[0].request, { json: { a: { b: 1 } } });
  const strictArray = one({ request: { method: "POST", urlPath: "/x", bodyPatterns: [{ equalToJson: [1, 2] }] } });
  assert.deepEqual(strictArray.routes[0].request, { json: [1, 2] });
  const body = (pattern: Record<string, unknown>) =>
    one({ request: { method: "POST", urlPath: "/x", bodyPatterns: [pattern] } }).routes[0].request;
  assert.deepEqual(body({ equalToJson: { a: 1 } }), { json_equals: { a: 1 } }, "strict: no other field");
  assert.deepEqual(body({ equalToJson: { a: [1] }, ignoreExtraElements: true }), {
    json_equals: { a: [1] },
    json_ignore: ["extra_fields", "extra_items"],
  });
  assert.deepEqual(body({ equalToJson: [1, 2], ignoreArrayOrder: true }), {
    json_equals: [1, 2],
    json_ignore: ["array_order"],
  });
  assert.deepEqual(body({ equalToJson: { a: "{b}" }, ignoreExtraElements: true }), {
    json_equals: { a: "{b}" },
    json_ignore: ["extra_fields", "extra_items"],
  }, "{b} is text to json_equals, a capture to json");
  assert.deepEqual(body({ matchesJsonPath: "$.a" }), { json_path: { "$.a": true } });
  assert.deepEqual(body({ matchesJsonPath: { expression: "$.id", matches: "[0-9]+" } }), {
    json_path: { "$.id": { regex: "[0-9]+" } },
  });
  const contains = one({ request: { method: "POST", urlPath: "/x", bodyPatterns: [{ contains: "urgent" }] } });
  assert.deepEqual(contains.routes[0].request, { body_contains: "urgent" });
  // Every other text matcher is a value pattern on the whole body; several must all hold.
  assert.deepEqual(body({ equalTo: "a" }), { body: "a" });
  assert.deepEqual(body({ equalTo: "A", caseInsensitive: true }), { body: { equals_ignore_case: "A" } });
  assert.deepEqual(body({ matches: "id=.*" }), { body: { regex: "id=[\\s\\S]*" } });
  assert.deepEqual(body({ doesNotMatch: "x" }), { body: { not_regex: "x" } });
  assert.deepEqual(body({ absent: true }), { body: { absent: true } });
  assert.deepEqual(body({ or: [{ equalTo: "a" }, { contains: "b" }] }), { body: { any: ["a", { contains: "b" }] } });
  const several = one({
    request: { method: "POST", urlPath: "/x", bodyPatterns: [{ contains: "a" }, { matches: "b" }, { equalTo: "{c}" }] },
  });
  assert.deepEqual(several.routes[0].request, {
    body_contains: "a",
    body: { all: [{ regex: "b" }, { regex: "\\{c\\}" }] },
  });
});

Deno.test("wiremock mapping: the refusals, each with its feature and reason", () => {
  const cases: [Record<string, unknown>, string][] = [
    [
      { request: { method: "PURGE", urlPath: "/x" } },
      "'method PURGE' is not supported: stubtool stubs answer DELETE, GET, HEAD, OPTIONS, PATCH, POST, PUT or ANY",
    ],
    [
      { request: { method: "GET", urlPath: "/x", queryParameters: { a: { or: [{ equalTo: "a" }] } } } },
      `'queryParameters.a or' is not supported: expected a list of two matchers or more, got [{"equalTo":"a"}]`,
    ],
    [
      { request: { method: "GET", urlPath: "/x", queryParameters: { a: nestedOr(17) } } },
      `'queryParameters.a ${
        "or[0] ".repeat(16)
      }or' is not supported: and and or nest more than 16 levels deep: flatten them`,
    ],
    [
      {
        request: {
          method: "GET",
          urlPath: "/x",
          queryParameters: { a: { or: [{ equalTo: "a" }, { includes: [{ equalTo: "b" }] }] } },
        },
      },
      "'queryParameters.a or[1]' is not supported: WireMock takes hasExactly and includes on a whole field, not inside another matcher",
    ],
    [
      { request: { method: "GET", urlPath: "/x", queryParameters: { a: { includes: [{ absent: true }] } } } },
      "'queryParameters.a includes[0]' is not supported: absent inside hasExactly or includes has no stubtool equivalent",
    ],
    [
      { request: { method: "GET", urlPath: "/x", cookies: { s: { hasExactly: [{ equalTo: "a" }] } } } },
      "'cookies.s hasExactly' is not supported: WireMock takes hasExactly and includes on query parameters, form parameters and headers only",
    ],
    [
      {
        request: {
          method: "POST",
          urlPath: "/x",
          bodyPatterns: [{ matchesJsonPath: { expression: "$.a", includes: [{ equalTo: "a" }] } }],
        },
      },
      "'bodyPatterns[0] matchesJsonPath includes' is not supported: WireMock takes hasExactly and includes on query parameters, form parameters and headers only",
    ],
    [
      {
        request: {
          method: "POST",
          urlPath: "/x",
          bodyPatterns: [{ matchesJsonPath: { expression: "$.a[*]", equalToJson: { b: 1 } } }],
        },
      },
      `'bodyPatterns[0] matchesJsonPath equalToJson' is not supported: "$.a[*]" can find several values; stubtool compares one ($.a.b, $['a'][0])`,
    ],
    [
      {
        request: {
          method: "POST",
          urlPath: "/x",
          bodyPatterns: [{ matchesJsonPath: { expression: "$.a", equalToJson: "1" } }],
        },
      },
      "'bodyPatterns[0] matchesJsonPath equalToJson' is not supported: the expected document is not an object or a list (WireMock compares a found scalar as text)",
    ],
    [
      {
        request: { method: "POST", urlPath: "/x", bodyPatterns: [{ equalToJson: { a: "${json-unit.matches:id}x" } }] },
      },
      `'bodyPatterns[0] equalToJson "\${json-unit.matches:id}x"' is not supported: stubtool reads the placeholders \${json-unit.any-string}, any-number, any-boolean, ignore and regex`,
    ],
    [
      { request: { method: "POST", urlPath: "/x", bodyPatterns: [{ equalToJson: { a: "${json-unit.ignore} " } }] } },
      `'bodyPatterns[0] equalToJson "\${json-unit.ignore} "' is not supported: stubtool reads the placeholders \${json-unit.any-string}, any-number, any-boolean, ignore and regex`,
    ],
    [
      { request: { method: "GET", urlPath: "/x", headers: { "X-A": { matches: "a++" } } } },
      `'headers.X-A matches' is not supported: the Java pattern "a++" uses a possessive quantifier`,
    ],
    [
      { response: { fault: "EXPLODE" } },
      `'fault "EXPLODE"' is not supported: WireMock has no such fault`,
    ],
    [
      { response: { delayDistribution: { type: "lognormal", median: 40, sigma: 0.1, maxValue: 30 } } },
      "'delayDistribution lognormal' is not supported: a maxValue must be a number not below the median (WireMock refuses the mapping too)",
    ],
    [
      { response: { chunkedDribbleDelay: { numberOfChunks: 0, totalDuration: 100 } } },
      `'chunkedDribbleDelay' is not supported: expected {numberOfChunks, totalDuration} as whole numbers, got {"numberOfChunks":0,"totalDuration":100}`,
    ],
    [
      { response: { proxyBaseUrl: "http://up.example", additionalProxyRequestHeaders: { a: 1 } } },
      `'additionalProxyRequestHeaders' is not supported: expected name → text, got {"a":1}`,
    ],
    [
      { response: { transformers: ["my-transformer"] } },
      "'transformers: my-transformer' is not supported: only response-template has an equivalent",
    ],
  ];
  for (const [mapping, message] of cases) {
    assert.deepEqual(refusals(mapping), [`${F} mappings[0]: ${message}`], JSON.stringify(mapping));
  }
});

Deno.test("wiremock mapping: cookies convert with the value matchers of headers (names as written)", () => {
  const { routes, warnings } = one({
    request: {
      method: "GET",
      urlPath: "/x",
      cookies: {
        session: { equalTo: "abc" },
        Theme: { matches: "d.*" },
        gone: { absent: true },
        plain: { doesNotContain: "x" },
        either: { or: [{ equalTo: "a" }, { contains: "b" }] },
      },
    },
  });
  assert.deepEqual(warnings, []);
  assert.deepEqual(routes[0].request, {
    cookies: {
      session: "abc",
      Theme: { regex: "d[\\s\\S]*" },
      gone: { absent: true },
      plain: { not_contains: "x" },
      either: { any: ["a", { contains: "b" }] },
    },
  });
});

Deno.test("wiremock mapping: and / or become all / any; hasExactly / includes on query parameters become has_exactly / includes", () => {
  const { routes, warnings } = one({
    request: {
      method: "GET",
      urlPath: "/x",
      queryParameters: {
        a: { and: [{ contains: "x" }, { doesNotContain: "y" }] },
        b: { hasExactly: [{ equalTo: "1" }, { matches: "2+" }] },
        c: { includes: [{ equalTo: "{x}" }] },
      },
      headers: {
        "X-A": { and: [{ equalTo: "v" }, { contains: "v" }] },
        "X-B": { or: [{ equalTo: "1" }, { absent: true }] },
      },
    },
  });
  assert.deepEqual(warnings, []);
  assert.deepEqual(routes[0].query_params, {
    a: { all: [{ contains: "x" }, { not_contains: "y" }] },
    b: { has_exactly: ["1", { regex: "2+" }] },
    c: { includes: [{ regex: "\\{x\\}" }] },
  });
  assert.deepEqual(routes[0].request, {
    headers: { "x-a": { all: ["v", { contains: "v" }] }, "x-b": { any: ["1", { absent: true }] } },
  });
});

Deno.test("wiremock mapping: and / or nest (16 levels at most) on fields, the body and inside matchesJsonPath", () => {
  const { routes, warnings } = one({
    request: {
      method: "POST",
      urlPath: "/x",
      queryParameters: {
        a: { or: [{ and: [{ contains: "x" }, { doesNotContain: "y" }] }, { equalTo: "z" }] },
        deep: nestedOr(16),
      },
      headers: { "X-A": { and: [{ or: [{ equalTo: "1" }, { equalTo: "2" }] }, { doesNotContain: "bad" }] } },
      bodyPatterns: [
        { or: [{ and: [{ contains: "alpha" }, { doesNotContain: "omega" }] }, { matches: "z" }] },
        {
          matchesJsonPath: {
            expression: "$.id",
            or: [{ equalTo: "7" }, { and: [{ matches: "[0-9]+" }, { absent: true }] }],
          },
        },
      ],
    },
  });
  assert.deepEqual(warnings, []);
  // deno-lint-ignore no-explicit-any
  const query = routes[0].query_params as Record<string, any>;
  assert.deepEqual(query.a, { any: [{ all: [{ contains: "x" }, { not_contains: "y" }] }, "z"] });
  let deep = query.deep, levels = 0;
  while (deep.any) [deep, levels] = [deep.any[0], levels + 1];
  assert.deepEqual([deep, levels], ["x", 16]);
  assert.deepEqual(routes[0].request, {
    headers: { "x-a": { all: [{ any: ["1", "2"] }, { not_contains: "bad" }] } },
    body: { any: [{ all: [{ contains: "alpha" }, { not_contains: "omega" }] }, { regex: "z" }] },
    json_path: { "$.id": { any: ["7", { all: [{ regex: "[0-9]+" }, { absent: true }] }] } },
  });
});

Deno.test("wiremock mapping: before / after / equalToDateTime become {date}; the offset and expected truncation apply to now only", () => {
  const { routes, warnings } = one({
    request: {
      method: "GET",
      urlPath: "/x",
      queryParameters: {
        a: { before: "now", expectedOffset: -3, expectedOffsetUnit: "days", truncateExpected: "FIRST_HOUR_OF_DAY" },
        b: {
          after: "2026-05-01",
          truncateExpected: "first day of month",
          expectedOffset: 1,
          expectedOffsetUnit: "days",
        },
        c: {
          equalToDateTime: "now +1 months",
          actualFormat: "dd/MM/yyyy",
          truncateActual: "first day of month",
          truncateExpected: "first day of month",
          applyTruncationLast: true,
        },
      },
    },
  });
  assert.deepEqual(warnings, []);
  assert.deepEqual(routes[0].query_params, {
    a: { date: { before: "now -3 days", truncate_expected: "first hour of day" } },
    b: { date: { after: "2026-05-01" } },
    c: {
      date: {
        equals: "now +1 months",
        format: "dd/MM/yyyy",
        truncate_expected: "first day of month",
        truncate_actual: "first day of month",
        truncate_after_offset: true,
      },
    },
  });
  const refused = (matcher: Record<string, unknown>) =>
    refusals({ request: { method: "GET", urlPath: "/x", queryParameters: { d: matcher } } });
  assert.deepEqual(refused({ before: "now +1 day" }), [
    `${F} mappings[0]: 'queryParameters.d before' is not supported: "now +1 day": write now, now +N UNIT or now -N UNIT, UNIT one of seconds, minutes, hours, days, months, years`,
  ]);
  assert.deepEqual(refused({ after: "2020-01-01", actualFormat: "yyyy-'W'ww" }), [
    `${F} mappings[0]: 'queryParameters.d after' is not supported: format "yyyy-'W'ww": letter 'w' is not supported`,
  ]);
  assert.deepEqual(refused({ after: "2020-01-01", truncateActual: "first week" }).length, 1);
});

Deno.test("wiremock mapping: proxy options become proxy_request; the mapping's headers are added to the answer, its status ignored", () => {
  const { routes, warnings } = one({
    response: {
      status: 299,
      headers: { "X-From-Stub": ["one", "two"] },
      proxyBaseUrl: "http://up.example",
      proxyUrlPrefixToRemove: "/api",
      additionalProxyRequestHeaders: { "X-Added": "yes" },
      removeProxyRequestHeaders: ["x-token", "X-Secret"],
    },
  });
  assert.deepEqual(warnings, []);
  assert.deepEqual(routes[0], {
    method: "GET",
    head: false,
    path: "/x",
    proxy: "http://up.example",
    headers: { "X-From-Stub": ["one", "two"] },
    // WireMock compares the listed names with lower-cased request names: X-Secret removes nothing.
    proxy_request: { strip_prefix: "/api", add_headers: { "X-Added": "yes" }, remove_headers: ["x-token"] },
  });
});

Deno.test("wiremock mapping: a mapping is refused with one warning per unsupported feature", () => {
  assert.deepEqual(
    one({
      request: { method: "GET", urlPath: "/x", queryParameters: { a: { and: [] } }, cookies: [] },
      response: { responseShaper: { a: 1 } },
    }).warnings.map((w) => w.feature),
    ["queryParameters.a and", "cookies", "response.responseShaper"],
  );
});

Deno.test("wiremock mapping: transformerParameters of a template become template_parameters; numbers Java prints otherwise are refused", () => {
  const parameters = { greeting: "hello", count: 3, ratio: 1.5, on: false, nested: { list: ["x", null] } };
  const { routes, warnings } = one({
    response: {
      body: "{{parameters.greeting}}",
      transformers: ["response-template"],
      transformerParameters: parameters,
    },
  });
  assert.deepEqual(warnings, []);
  assert.deepEqual(routes[0].template_parameters, parameters);
  assert.equal(routes[0].template, true);
  // Without the transformer WireMock never reads them: nothing to carry.
  assert.equal(
    one({ response: { body: "x", transformerParameters: { a: 1 } } }).routes[0].template_parameters,
    undefined,
  );
  const refused = (value: unknown) =>
    one({ response: { body: "x", transformers: ["response-template"], transformerParameters: value } }).warnings.map((
      w,
    ) => w.feature);
  assert.deepEqual(refused({ big: 1e7 + 0.5 }), ["transformerParameters (numbers)"]);
  assert.deepEqual(refused({ tiny: 0.0001 }), ["transformerParameters (numbers)"]);
  assert.deepEqual(refused({ huge: 2 ** 60 }), ["transformerParameters (numbers)"]);
  assert.deepEqual(refused(["a"]), ["transformerParameters"]);
  // A file writing a whole number as 1.0 (Java prints 1.0) refuses whole numbers.
  const file =
    '{"response": {"body": "x", "transformers": ["response-template"], "transformerParameters": {"n": 1.0}}}';
  assert.deepEqual(
    mappingsToConfig(JSON.parse(file), F, { source: file }).warnings.map((w) => w.feature),
    ["transformerParameters (numbers)"],
  );
});

Deno.test("wiremock mapping: WireMock's priority is a band of stubtool priorities, its tie-break (the later mapping wins) a rank inside it", () => {
  const { routes } = mappingsToConfig({
    mappings: [
      { request: { method: "GET", urlPath: "/a" }, response: { body: "first" } },
      { request: { method: "GET", urlPath: "/a" }, response: { body: "second" } },
      { priority: 1, request: { method: "GET", urlPath: "/a" }, response: { body: "urgent" } },
      { priority: 9, request: { method: "GET", urlPath: "/a" }, response: { body: "fallback" } },
    ],
  }, F);
  // Priority 5 (the default) is band 0: the first mapping rank 0 (no priority), the later rank 1;
  // priority 1 is four bands up, priority 9 four bands down.
  assert.deepEqual(routes.map((r) => r.priority), [undefined, 1, 4 * PRIORITY_BAND, -4 * PRIORITY_BAND]);
});

Deno.test('wiremock mapping: a priority written as text ("1") is the number, as Jackson reads it; other text is refused', () => {
  const { routes, warnings } = mappingsToConfig({
    mappings: [
      { priority: "1", request: { method: "GET", urlPath: "/a" }, response: { body: "urgent" } },
      { request: { method: "GET", urlPath: "/a" }, response: { body: "default" } },
    ],
  }, F);
  assert.deepEqual(warnings, []);
  assert.deepEqual(routes.map((r) => r.priority), [4 * PRIORITY_BAND, undefined]);
  assert.deepEqual(refusals({ priority: "high" }), [
    `${F} mappings[0]: 'priority' is not supported: expected a whole number, got "high"`,
  ]);
});

Deno.test("wiremock mapping: mappings no request can match both share a rank, so the router indexes them as native stubs", () => {
  const post = (version: string, customer: string) => ({
    request: {
      method: "POST",
      urlPath: "/pay",
      headers: { "X-V": { equalTo: version } },
      bodyPatterns: [{ equalToJson: { c: customer }, ignoreExtraElements: true }],
    },
    response: { status: 201 },
  });
  const { routes } = mappingsToConfig({
    mappings: [
      post("v1", "a"),
      post("v1", "b"), // another JSON value
      post("v2", "a"), // another header value
      { request: { method: "GET", urlPath: "/pay" } }, // another method
      { request: { method: "GET", urlPathTemplate: "/pay/{id}" } }, // another number of segments
      { request: { method: "GET", urlPath: "/pay/7" } }, // /pay/{id} matches it too: ranked above
      { request: { method: "GET", urlPath: "/q", queryParameters: { a: { equalTo: "1" } } } },
      { request: { method: "GET", urlPath: "/q", queryParameters: { a: { equalTo: "2" } } } }, // ?a=1&a=2 matches both
      { request: { method: "ANY", urlPath: "/pay", headers: { "X-V": { equalTo: "v3" } } } }, // GET /pay matches both
      { request: { method: "GET", url: "/u?x=1" } },
      { request: { method: "GET", url: "/u?x=2" } }, // another query string
    ],
  }, F);
  assert.deepEqual(routes.map((r) => r.priority), [
    undefined,
    undefined,
    undefined,
    undefined,
    undefined,
    1,
    undefined,
    1,
    1,
    undefined,
    undefined,
  ]);
});

Deno.test("wiremock mapping: scenarios, templates and webhooks become the part-three fields", () => {
  const { routes, bodyFiles, warnings } = one({
    scenarioName: "todo",
    requiredScenarioState: "Started",
    newScenarioState: "one",
    response: { body: "hi {{request.path}}", transformers: ["response-template"] },
    serveEventListeners: [{
      name: "webhook",
      parameters: {
        method: "post",
        url: "http://hook.example/x",
        body: "{{request.body}}",
        delay: { type: "fixed", milliseconds: 5 },
      },
    }],
  });
  assert.deepEqual(warnings, []);
  assert.deepEqual(routes, [{
    method: "GET",
    head: false,
    path: "/x",
    scenario: "todo",
    when_state: "Started",
    set_state: "one",
    callbacks: [{ method: "POST", url: "http://hook.example/x", body: "{{request.body}}", delay_ms: 5 }],
    body: "hi {{request.path}}",
    headers: { "content-type": null },
    template: true,
  }]);
  assert.deepEqual(bodyFiles, []);
  // Under a JSON content type a string body would be rendered as one JSON string: the text goes through a file.
  const json = one({
    response: {
      headers: { "Content-Type": "application/json" },
      jsonBody: { n: "{{request.path}}" },
      transformers: ["response-template"],
    },
  });
  assert.equal(json.routes[0].body_file, "__generated/m.0.body");
  assert.equal(new TextDecoder().decode(json.bodyFiles[0].bytes), '{"n":"{{request.path}}"}');
  assert.equal(one({ response: { body: "x" } }, { globalTemplating: true }).routes[0].template, true);
  assert.deepEqual(
    one({
      serveEventListeners: [{ name: "webhook", parameters: { method: "POST", url: "http://h/{{request.path}}" } }],
    })
      .warnings.map((w) => w.feature),
    ["serveEventListeners[0] (template)"],
  );
});

Deno.test("wiremock mapping: a document that is not a mapping is one warning on the file", () => {
  assert.deepEqual(mappingsToConfig([1], F).warnings, [{
    place: F,
    feature: "file",
    message: `${F}: 'file' is not supported: expected one mapping ({"request", "response"}) or {"mappings": [...]}`,
  }]);
});

Deno.test("wiremock regex: Java patterns translate with DOTALL and ASCII \\s, Java-only syntax and what the linear-time engine cannot run are refused", () => {
  assert.deepEqual(javaRegexToJs("a.c"), { source: "a[\\s\\S]c" });
  assert.deepEqual(javaRegexToJs("\\s+\\d{2,3}"), { source: "[\\t\\n\\x0B\\f\\r ]+\\d{2,3}" });
  assert.deepEqual(javaRegexToJs("[a-z\\-]+"), { source: "[a-z\\u{2d}]+" });
  assert.deepEqual(javaRegexToJs("a/b]"), { source: "a\\/b\\]" });
  for (
    const [java, problem] of [
      ["(?i)abc", "a group of the form (?…) other than (?:"],
      ["a(?=b)", "a lookahead (?=…), which stubtool's linear-time engine (RE2) cannot run"],
      ["a(?!b)", "a lookahead (?!…), which stubtool's linear-time engine (RE2) cannot run"],
      ["(?<=a)b", "a lookbehind (?<=…), which stubtool's linear-time engine (RE2) cannot run"],
      ["(?<!a)b", "a lookbehind (?<!…), which stubtool's linear-time engine (RE2) cannot run"],
      ["a++", "a possessive quantifier"],
      [
        "a{1001}",
        "a construct stubtool cannot run: the translation cannot be read by the linear-time engine (RE2 syntax): invalid repeat count: `{1001}`",
      ],
      ["(a)\\1", "the escape \\1 (Java-only or read differently by JavaScript)"],
      ["\\bword", "the escape \\b (Java-only or read differently by JavaScript)"],
      ["\\p{Alpha}", "the escape \\p (Java-only or read differently by JavaScript)"],
      ["[a-z&&[^e]]", "a character class intersection (&&)"],
      ["a|^b", "'^' other than at the start"],
    ]
  ) assert.deepEqual(javaRegexToJs(java), { problem }, java);
});

Deno.test("wiremock mapping: header matchers holding ', ' and header ands with text parts convert (stubtool tests each line of a header)", () => {
  const converted = (headers: Record<string, unknown>) => {
    const { routes, warnings } = one({ request: { method: "GET", urlPath: "/x", headers } });
    return [(routes[0]?.request as { headers?: unknown } | undefined)?.headers, warnings.map((w) => w.feature)];
  };
  assert.deepEqual(converted({ Accept: { equalTo: "a, b" } }), [{ accept: "a, b" }, []]);
  assert.deepEqual(converted({ Accept: { equalTo: "A, B", caseInsensitive: true } }), [
    { accept: { equals_ignore_case: "A, B" } },
    [],
  ]);
  assert.deepEqual(converted({ Accept: { contains: " b" } }), [{ accept: { contains: " b" } }, []]);
  assert.deepEqual(converted({ "X-A": { and: [{ contains: "a" }, { matches: "b.*" }] } }), [
    { "x-a": { all: [{ contains: "a" }, { regex: "b[\\s\\S]*" }] } },
    [],
  ]);
  assert.deepEqual(
    converted({ "X-A": { and: [{ contains: "a" }, { or: [{ equalTo: "b" }, { matches: "c.*" }] }] } }),
    [{ "x-a": { all: [{ contains: "a" }, { any: ["b", { regex: "c[\\s\\S]*" }] }] } }, []],
  );
});

Deno.test("regression: multipartPatterns and customMatcher were dropped silently (a broader match); they are refused", () => {
  for (const key of ["multipartPatterns", "customMatcher"]) {
    const { routes, warnings } = one({ request: { method: "POST", urlPath: "/x", [key]: {} } });
    assert.deepEqual([routes, warnings.map((w) => w.feature)], [[], [key]], key);
  }
});

Deno.test("wiremock mapping: multipartPatterns become request.multipart (ALL as match: all, headers lower-cased, bodyPatterns as the request's)", () => {
  const { routes, warnings } = one({
    request: {
      method: "POST",
      urlPath: "/x",
      multipartPatterns: [
        {
          name: "file",
          matchingType: "ANY",
          headers: { "Content-Disposition": { contains: 'name="file"' }, "Content-Type": { equalTo: "text/plain" } },
          bodyPatterns: [{ contains: "hello" }, { matches: "[a-z]+" }],
        },
        { matchingType: "ALL", bodyPatterns: [{ equalToJson: { a: 1 }, ignoreExtraElements: true }] },
        {},
      ],
    },
  });
  assert.deepEqual(warnings, []);
  assert.deepEqual(routes[0].request, {
    multipart: [
      {
        headers: { "content-disposition": { contains: 'name="file"' }, "content-type": "text/plain" },
        body_contains: "hello",
        body: { regex: "[a-z]+" },
      },
      { match: "all", json: { a: 1 } },
      {},
    ],
  });
});

Deno.test("wiremock mapping: what a multipart pattern cannot say refuses the mapping, placed inside the pattern", () => {
  const features = (multipartPatterns: unknown) =>
    one({ request: { method: "POST", urlPath: "/x", multipartPatterns } }).warnings.map((w) => w.feature);
  assert.deepEqual(features([{ bodyPatterns: [{ binaryEqualTo: "aGk=" }] }]), [
    "multipartPatterns[0].bodyPatterns[0] binaryEqualTo",
  ]);
  assert.deepEqual(features([{ bodyPatterns: [{ or: [{ equalTo: "a" }, { absent: true }] }] }]), [
    "multipartPatterns[0].bodyPatterns[0] absent",
  ]);
  assert.deepEqual(features([{ matchingType: "SOME" }]), ["multipartPatterns[0].matchingType"]);
  assert.deepEqual(features([{ other: 1 }]), ["multipartPatterns[0].other"]);
  // A part header holding ', ' converts: stubtool tests each line of a part's header, as WireMock does.
  assert.deepEqual(features([{ headers: { "X-A": { equalTo: "a, b" } } }]), []);
  assert.deepEqual(features([]), ["multipartPatterns"]);
});

Deno.test("wiremock mapping: formParameters become request.form (equalTo, matches, absent, negations, and/or, hasExactly)", () => {
  const { routes, warnings } = one({
    request: {
      method: "POST",
      urlPath: "/x",
      formParameters: {
        name: { equalTo: "a b" },
        code: { matches: "[0-9]+" },
        debug: { absent: true },
        mode: { doesNotMatch: "x+" },
        tag: { or: [{ equalTo: "a" }, { contains: "b" }] },
        list: { hasExactly: [{ equalTo: "1" }, { equalTo: "2" }] },
      },
    },
  });
  assert.deepEqual(warnings, []);
  assert.deepEqual(routes[0].request, {
    form: {
      name: "a b",
      code: { regex: "[0-9]+" },
      debug: { absent: true },
      mode: { not_regex: "x+" },
      tag: { any: ["a", { contains: "b" }] },
      list: { has_exactly: ["1", "2"] },
    },
  });
  // An empty set of fields is no condition, as in WireMock; a field that is not a matcher is refused.
  assert.equal(one({ request: { method: "POST", urlPath: "/x", formParameters: {} } }).routes[0].request, undefined);
  assert.deepEqual(
    one({ request: { method: "POST", urlPath: "/x", formParameters: { a: "b" } } }).warnings.map((w) => w.message),
    [`m.json mappings[0]: 'formParameters.a' is not supported: expected a matcher object, got "b"`],
  );
});

Deno.test("wiremock mapping: basicAuthCredentials is the Authorization header equal, ignoring case, to Basic + base64", () => {
  const { routes } = one({
    request: { urlPath: "/x", basicAuthCredentials: { username: "alice", password: "s3cret" } },
  });
  assert.deepEqual(routes[0].request, { headers: { authorization: { equals_ignore_case: "Basic YWxpY2U6czNjcmV0" } } });
  const features = (request: Record<string, unknown>) =>
    one({ request: { urlPath: "/x", ...request } }).warnings.map((w) => w.feature);
  assert.deepEqual(features({ basicAuthCredentials: { username: "ü", password: "x" } }), ["basicAuthCredentials"]);
  assert.deepEqual(features({ basicAuthCredentials: { username: "a" } }), ["basicAuthCredentials"]);
  assert.deepEqual(
    features({ basicAuthCredentials: { username: "a", password: "b" }, headers: { Authorization: { absent: true } } }),
    ["basicAuthCredentials + headers.Authorization"],
  );
});

Deno.test("wiremock mapping: pathParameters become request.path_params (any value matcher, and/or); a name outside the template is refused", () => {
  const { routes, warnings } = one({
    request: {
      method: "GET",
      urlPathTemplate: "/contacts/{contactId}/a/{addressId}",
      pathParameters: {
        contactId: { equalTo: "123" },
        addressId: { or: [{ matches: "[0-9]+" }, { equalTo: "home", caseInsensitive: true }] },
      },
    },
  });
  assert.deepEqual(warnings, []);
  assert.deepEqual(routes[0].path, "/contacts/{contactId}/a/{addressId}");
  assert.deepEqual(routes[0].request, {
    path_params: { contactId: "123", addressId: { any: [{ regex: "[0-9]+" }, { equals_ignore_case: "home" }] } },
  });
  const refused = (request: Record<string, unknown>) =>
    one({ request: { method: "GET", ...request } }).warnings.map((w) => w.message);
  assert.deepEqual(refused({ urlPathTemplate: "/c/{id}", pathParameters: { other: { equalTo: "1" } } }), [
    "m.json mappings[0]: 'pathParameters.other' is not supported: the urlPathTemplate has no {other}",
  ]);
  assert.deepEqual(refused({ urlPath: "/c/1", pathParameters: { id: { equalTo: "1" } } }), [
    "m.json mappings[0]: 'pathParameters' is not supported: WireMock reads pathParameters with a urlPathTemplate only",
  ]);
});

Deno.test("wiremock mapping: hasExactly / includes on a header become has_exactly / includes (a header's lines are counted)", () => {
  const { routes, warnings } = one({
    request: {
      method: "GET",
      urlPath: "/x",
      headers: { "X-Tag": { hasExactly: [{ equalTo: "a" }, { matches: "b.*" }] } },
    },
  });
  assert.deepEqual(warnings, []);
  assert.deepEqual(routes[0].request, { headers: { "x-tag": { has_exactly: ["a", { regex: "b[\\s\\S]*" }] } } });
});

Deno.test("wiremock mapping: binaryEqualTo becomes request.body_base64; xPath helpers convert on text, refused on elements", () => {
  const binary = one({ request: { method: "POST", urlPath: "/x", bodyPatterns: [{ binaryEqualTo: "AAECA/8=" }] } });
  assert.deepEqual([binary.routes[0].request, binary.warnings], [{ body_base64: "AAECA/8=" }, []]);
  assert.deepEqual(
    one({ request: { method: "POST", urlPath: "/x", bodyPatterns: [{ binaryEqualTo: "AA E=" }] } }).warnings.map((w) =>
      w.feature
    ),
    ["bodyPatterns[0] binaryEqualTo"],
  );
  const template = (body: string) =>
    one({ response: { body, transformers: ["response-template"] } }).warnings.map((w) => w.message);
  assert.deepEqual(
    template(
      "{{xPath request.body '/a/b/text()'}} {{soapXPath request.body '/a/@id'}} {{xPath request.body 'count(//a)'}}",
    ),
    [],
  );
  assert.deepEqual(template("{{xPath request.body '/a/b'}}"), [
    `${F} mappings[0]: 'xPath "/a/b"' is not supported: it may select elements, which WireMock renders as the JDK's indented XML text (not reproduced byte for byte); select text() or an attribute (/a/b/text())`,
  ]);
  assert.deepEqual(template("{{xPath request.body request.query.e}}"), [
    `${F} mappings[0]: 'xPath (template)' is not supported: stubtool converts a call whose expression is written as text ('…'), so it can tell what it selects`,
  ]);
  // Outside {{…}} the word is text.
  assert.deepEqual(template("use xPath '/a' here {{request.path}}"), []);
});
