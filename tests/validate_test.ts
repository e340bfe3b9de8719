import assert from "node:assert/strict";
import { type CompiledStub, queryLabel, type ResponseFunc } from "../src/stubs/model.ts";
import {
  checkJsonValue,
  describe,
  didYouMean,
  findShadowedStubs,
  type Problem,
  validateConfig,
  validateStub,
  type ValidateStubOptions,
} from "../src/stubs/validate.ts";
import { loadTemplating } from "../src/templating/engine.ts";

// These call the synchronous checks directly: the template engine they use is loaded first.
await loadTemplating();

const ALLOWED = "(allowed: ANY, DELETE, GET, HEAD, OPTIONS, PATCH, POST, PUT)";
const STUB_FIELDS =
  "method, path, status, headers, body, query_params, delay, sequence, sequence_mode, id, scope, priority, request, body_file, body_base64, proxy, proxy_request, fault, throttle, dribble, status_message, scenario, when_state, set_state, template, template_parameters, callbacks, name, head, stream, websocket";

/** The errors of a stub that must be invalid (and then yields no stub). */
function errorsOf(raw: unknown, options?: ValidateStubOptions): string[] {
  const { stub, errors } = validateStub(raw, options);
  assert.equal(stub, undefined, "an invalid stub must not yield a stub");
  return errors;
}

/** A stub that must be valid. */
function stubOf(raw: Record<string, unknown>, options?: ValidateStubOptions): CompiledStub {
  const { stub, errors } = validateStub(raw, options);
  assert.deepEqual(errors, []);
  assert.ok(stub);
  return stub;
}

/** A GET /a stub with extra fields. */
const get = (fields: Record<string, unknown>) => ({ method: "GET", path: "/a", ...fields });

/** A null-prototype record holding `entries`, the shape the validator builds maps in. */
function nullProto(entries: Record<string, string>): Record<string, string> {
  return Object.assign(Object.create(null), entries);
}

// --- describe / didYouMean ----------------------------------------------------------

Deno.test("describe: how values appear in messages", () => {
  assert.equal(describe(null), "null");
  assert.equal(describe(undefined), "undefined");
  assert.equal(describe([1]), "a list");
  assert.equal(describe({ a: 1 }), "a mapping");
  assert.equal(describe("2OO"), '"2OO"');
  assert.equal(describe(() => 1), "a function");
  assert.equal(describe(5), "5");
  assert.equal(describe(true), "true");
  assert.equal(describe(NaN), "NaN");
});

Deno.test("regression: describe showed a bigint 200n as 200, so 'status 200n' read 'got 200'", () => {
  assert.equal(describe(200n), "200n");
  assert.deepEqual(errorsOf(get({ status: 200n })), ["status must be an integer from 100 to 599, got 200n"]);
});

Deno.test("didYouMean: close names are suggested, case and '-' ignored; far ones are not", () => {
  const known = ["status", "headers", "query_params"];
  assert.equal(didYouMean("staus", known), "status");
  assert.equal(didYouMean("STATUS", known), "status");
  assert.equal(didYouMean("query-params", known), "query_params");
  assert.equal(didYouMean("header", known), "headers");
  assert.equal(didYouMean("xyz", known), undefined);
  assert.equal(didYouMean("completely_unrelated", known), undefined);
});

// --- the stub as a whole -------------------------------------------------------------

Deno.test("validateStub: a stub that is not a mapping", () => {
  const message = (got: string) => [`must be a mapping with at least method and path, got ${got}`];
  assert.deepEqual(errorsOf(null), message("null"));
  assert.deepEqual(errorsOf([]), message("a list"));
  assert.deepEqual(errorsOf("GET /a"), message('"GET /a"'));
  assert.deepEqual(errorsOf(5), message("5"));
});

Deno.test("validateStub: defaults are status 200, no body, repeat-last, no query, no delay", () => {
  assert.deepEqual(stubOf({ method: "GET", path: "/a" }), {
    method: "GET",
    path: "/a",
    segments: [{ param: false, value: "a" }],
    responses: [{ status: 200, headers: undefined, body: undefined, hasBody: false, delay: undefined }],
    isSequence: false,
    sequenceMode: "repeat-last",
  });
});

Deno.test("validateStub: a full plain stub", () => {
  const stub = stubOf({
    method: "post",
    path: "/users/{id}?v={version}",
    status: 201,
    headers: { "x-id": "{id}" },
    body: { id: "{id}" },
    query_params: { mode: "full" },
    delay: { min: 10, max: 20 },
  });
  const { match, ...rest } = stub;
  // The query, compiled for the router: a capture and a literal, in the order written.
  assert.deepEqual(match?.query?.map(([name, pattern]) => [name, pattern.display, pattern.names]), [
    ["v", "{version}", ["version"]],
    ["mode", "full", []],
  ]);
  assert.deepEqual(rest, {
    method: "POST",
    path: "/users/{id}",
    segments: [{ param: false, value: "users" }, { param: true, name: "id" }],
    query: nullProto({ v: "{version}", mode: "full" }),
    responses: [{
      status: 201,
      headers: nullProto({ "x-id": "{id}" }),
      body: { id: "{id}" },
      hasBody: true,
      delay: { min: 10, max: 20 },
    }],
    isSequence: false,
    sequenceMode: "repeat-last",
  });
  assert.deepEqual(stub.segments, [{ param: false, value: "users" }, { param: true, name: "id" }]);
});

// --- unknown fields ------------------------------------------------------------------

Deno.test("validateStub: an unknown field with a did-you-mean hint", () => {
  assert.deepEqual(errorsOf(get({ staus: 404 })), ["unknown field 'staus' (did you mean 'status'?)"]);
  assert.deepEqual(errorsOf(get({ "query-params": {} })), [
    "unknown field 'query-params' (did you mean 'query_params'?)",
  ]);
  assert.deepEqual(errorsOf(get({ Body: {} })), ["unknown field 'Body' (did you mean 'body'?)"]);
  assert.deepEqual(errorsOf(get({ sequenceMode: "cycle" })), [
    "unknown field 'sequenceMode' (did you mean 'sequence_mode'?)",
  ]);
});

Deno.test("validateStub: an unknown field without a hint lists the allowed fields", () => {
  assert.deepEqual(errorsOf(get({ xyz: 1 })), [`unknown field 'xyz' (allowed: ${STUB_FIELDS})`]);
});

Deno.test("validateStub: every unknown field is reported, in order", () => {
  assert.deepEqual(errorsOf(get({ staus: 1, xyz: 2 })), [
    "unknown field 'staus' (did you mean 'status'?)",
    `unknown field 'xyz' (allowed: ${STUB_FIELDS})`,
  ]);
});

// --- method --------------------------------------------------------------------------

Deno.test("validateStub: a missing method", () => {
  assert.deepEqual(errorsOf({ path: "/a" }), [`method is required ${ALLOWED}`]);
});

Deno.test("validateStub: an invalid method has the exact message that lists the allowed methods", () => {
  assert.deepEqual(errorsOf({ method: "FETCH", path: "/a" }), [
    "invalid method 'FETCH' (allowed: ANY, DELETE, GET, HEAD, OPTIONS, PATCH, POST, PUT)",
  ]);
  assert.deepEqual(errorsOf({ method: "fetch", path: "/a" }), [`invalid method 'fetch' ${ALLOWED}`]);
  assert.deepEqual(errorsOf({ method: "", path: "/a" }), [`invalid method '' ${ALLOWED}`]);
  assert.deepEqual(errorsOf({ method: "GET ", path: "/a" }), [`invalid method 'GET ' ${ALLOWED}`]);
});

Deno.test("validateStub: a method that is not a string", () => {
  assert.deepEqual(errorsOf({ method: 5, path: "/a" }), [`invalid method 5 ${ALLOWED}`]);
  assert.deepEqual(errorsOf({ method: null, path: "/a" }), [`invalid method null ${ALLOWED}`]);
  assert.deepEqual(errorsOf({ method: ["GET"], path: "/a" }), [`invalid method a list ${ALLOWED}`]);
});

Deno.test("validateStub: methods are case-insensitive and stored upper-case", () => {
  const cases: [string, string][] = [
    ["delete", "DELETE"],
    ["get", "GET"],
    ["Head", "HEAD"],
    ["oPtIoNs", "OPTIONS"],
    ["patch", "PATCH"],
    ["Post", "POST"],
    ["PUT", "PUT"],
  ];
  for (const [input, stored] of cases) assert.equal(stubOf({ method: input, path: "/a" }).method, stored);
});

Deno.test("regression: non-ASCII look-alikes were accepted as methods ('poſt' upper-cases to 'POST')", () => {
  for (const method of ["poſt", "optıons", "GEТ" /* Cyrillic Т */]) {
    assert.deepEqual(errorsOf({ method, path: "/a" }), [`invalid method '${method}' ${ALLOWED}`]);
  }
});

// --- path ----------------------------------------------------------------------------

Deno.test("validateStub: a missing path", () => {
  assert.deepEqual(errorsOf({ method: "GET" }), ["path is required, for example /users/{id}"]);
});

Deno.test("validateStub: a path that is not a string", () => {
  assert.deepEqual(errorsOf({ method: "GET", path: 5 }), ["path must be a string, got 5"]);
  assert.deepEqual(errorsOf({ method: "GET", path: null }), ["path must be a string, got null"]);
});

Deno.test("validateStub: path rules (start with /, whole-segment placeholders, unique names, reserved prefix)", () => {
  assert.deepEqual(errorsOf({ method: "GET", path: "users" }), [`path must start with '/', got "users"`]);
  assert.deepEqual(errorsOf({ method: "GET", path: "/users/id-{id}" }), [
    "path segment 'id-{id}' is not a placeholder: write a whole segment as {name} (letters, digits, _)",
  ]);
  assert.deepEqual(errorsOf({ method: "GET", path: "/{id}/{id}" }), [
    "path uses placeholder {id} twice; give each one its own name",
  ]);
  assert.deepEqual(errorsOf({ method: "GET", path: "/__stubtool__/health" }), [
    "path '/__stubtool__/health' is under /__stubtool__/, which stubtool reserves for itself",
  ]);
});

Deno.test("validateStub: the path's query part is parsed; a duplicate key is an error", () => {
  assert.deepEqual(
    stubOf({ method: "GET", path: "/s?q={term}&sort=asc" }).query,
    nullProto({ q: "{term}", sort: "asc" }),
  );
  assert.equal(stubOf({ method: "GET", path: "/s?q={term}" }).path, "/s");
  assert.deepEqual(errorsOf({ method: "GET", path: "/s?q=1&q=2" }), ["path query parameter 'q' appears twice"]);
});

Deno.test("validateStub: the stored path is percent-decoded and its segments match the template", () => {
  const stub = stubOf({ method: "GET", path: "/caf%C3%A9/{id}" });
  assert.equal(stub.path, "/café/{id}");
  assert.deepEqual(stub.segments, [{ param: false, value: "café" }, { param: true, name: "id" }]);
});

Deno.test("regression: a stub's segments were re-parsed from its decoded path: /a%2Fb became /a/b and /%7Bid%7D a placeholder", () => {
  assert.deepEqual(stubOf({ method: "GET", path: "/files/a%2Fb" }).segments, [
    { param: false, value: "files" },
    { param: false, value: "a/b" },
  ]);
  assert.deepEqual(stubOf({ method: "GET", path: "/%7Bid%7D" }).segments, [{ param: false, value: "{id}" }]);
  // It used to throw: the decoded path held a '#'.
  assert.deepEqual(stubOf({ method: "GET", path: "/x%23y" }).segments, [{ param: false, value: "x#y" }]);
});

// --- status --------------------------------------------------------------------------

Deno.test("validateStub: status must be an integer from 100 to 599", () => {
  const message = (got: string) => [`status must be an integer from 100 to 599, got ${got}`];
  assert.deepEqual(errorsOf(get({ status: "200" })), message('"200"'));
  assert.deepEqual(errorsOf(get({ status: "2OO" })), message('"2OO"'));
  assert.deepEqual(errorsOf(get({ status: 99 })), message("99"));
  assert.deepEqual(errorsOf(get({ status: 600 })), message("600"));
  assert.deepEqual(errorsOf(get({ status: 200.5 })), message("200.5"));
  assert.deepEqual(errorsOf(get({ status: NaN })), message("NaN"));
  assert.deepEqual(errorsOf(get({ status: [200] })), message("a list"));
});

Deno.test("validateStub: a 1xx status cannot be a final response", () => {
  assert.deepEqual(errorsOf(get({ status: 100 })), [
    "status 100 is informational (1xx) and cannot be a final response; use 200 to 599",
  ]);
  assert.deepEqual(errorsOf(get({ status: 199 })), [
    "status 199 is informational (1xx) and cannot be a final response; use 200 to 599",
  ]);
});

Deno.test("validateStub: status bounds 200 and 599 are accepted", () => {
  assert.equal(stubOf(get({ status: 200 })).responses[0].status, 200);
  assert.equal(stubOf(get({ status: 599 })).responses[0].status, 599);
});

Deno.test("regression: 'status:' left empty (null) silently became 200", () => {
  assert.deepEqual(errorsOf(get({ status: null })), ["status must be an integer from 100 to 599, got null"]);
});

// --- headers -------------------------------------------------------------------------

Deno.test("validateStub: headers must be a mapping", () => {
  const message = (got: string) => [`headers must be a mapping of names to strings, got ${got}`];
  assert.deepEqual(errorsOf(get({ headers: ["x-a: 1"] })), message("a list"));
  assert.deepEqual(errorsOf(get({ headers: "x-a: 1" })), message('"x-a: 1"'));
  assert.deepEqual(errorsOf(get({ headers: null })), message("null"));
});

Deno.test("validateStub: numbers and booleans in headers become strings", () => {
  const stub = stubOf(get({ headers: { "x-count": 5, "x-ratio": 1.5, "x-flag": true, "x-off": false } }));
  assert.deepEqual(
    stub.responses[0].headers,
    nullProto({ "x-count": "5", "x-ratio": "1.5", "x-flag": "true", "x-off": "false" }),
  );
});

Deno.test("validateStub: other header values must be strings", () => {
  assert.deepEqual(errorsOf(get({ headers: { "x-a": null, "x-b": {}, "x-c": [] } })), [
    "headers.x-a must be a string or a list of strings, got null",
    "headers.x-b must be a string or a list of strings, got a mapping",
    "headers.x-c is an empty list; give at least one value or remove it",
  ]);
});

Deno.test("validateStub: header names must be HTTP tokens", () => {
  const message = (name: string) =>
    `headers: '${name}' is not a valid header name (letters, digits and !#$%&'*+-.^_\`|~ only)`;
  assert.deepEqual(errorsOf(get({ headers: { "x y": "1" } })), [message("x y")]);
  assert.deepEqual(errorsOf(get({ headers: { "x:y": "1" } })), [message("x:y")]);
  assert.deepEqual(errorsOf(get({ headers: { "héllo": "1" } })), [message("héllo")]);
  assert.ok(stubOf(get({ headers: { "X-Odd_Name.~!#$%&'*+^`|": "1" } })));
});

Deno.test("validateStub: header values must not hold CR, LF or NUL", () => {
  for (const value of ["a\rb", "a\nb", "a\0b", "a\r\nSet-Cookie: x=1"]) {
    assert.deepEqual(errorsOf(get({ headers: { "x-a": value } })), [
      "headers.x-a must not contain CR, LF, NUL or other control characters",
    ]);
  }
});

Deno.test("validateStub: headers the server computes are rejected, whatever their case", () => {
  assert.deepEqual(
    errorsOf(get({ headers: { "content-length": "5", "Transfer-Encoding": "chunked", Connection: "x" } })),
    [
      "headers.content-length is set by the server itself; remove it",
      "headers.Transfer-Encoding is set by the server itself; remove it",
      "headers.Connection is set by the server itself; remove it",
    ],
  );
});

Deno.test("regression: a header value above U+00FF passed validation and failed every request", () => {
  assert.deepEqual(errorsOf(get({ headers: { "x-price": "5 €" } })), [
    'headers.x-price must hold only characters up to U+00FF (header values are bytes), got "5 €"',
  ]);
  assert.equal(stubOf(get({ headers: { "x-name": "José ÿ" } })).responses[0].headers!["x-name"], "José ÿ");
});

Deno.test("header values the validator accepts are those Headers accepts, minus control characters", () => {
  // Headers takes U+0001 and the like, but Deno's HTTP/1 writer panics on them (the process ends).
  for (const value of ["ascii", "tab\there", "é", "ÿ", "Ā", "€", "😀", "\u0001"]) {
    let headersAccept = true;
    try {
      new Headers({ "x-a": value });
    } catch {
      headersAccept = false;
    }
    const expected = headersAccept && value !== "\u0001";
    assert.equal(validateStub(get({ headers: { "x-a": value } })).errors.length === 0, expected, value);
  }
});

Deno.test("regression: the same header under two spellings was sent twice, joined with a comma", () => {
  assert.deepEqual(errorsOf(get({ headers: { "Content-Type": "text/plain", "content-type": "text/html" } })), [
    "headers.content-type repeats headers.Content-Type (header names ignore case); keep one",
  ]);
});

Deno.test("validateStub: an empty header name", () => {
  assert.deepEqual(errorsOf(get({ headers: { "": "x" } })), [
    "headers: '' is not a valid header name (letters, digits and !#$%&'*+-.^_`|~ only)",
  ]);
});

// --- body ----------------------------------------------------------------------------

Deno.test("validateStub: any JSON value is a body; null is a body, absent is none", () => {
  for (const body of [{ a: [1, "x", true, null] }, [1, 2], "text", 0, false, null]) {
    const response = stubOf(get({ body })).responses[0];
    assert.equal(response.hasBody, true);
    assert.deepEqual(response.body, body);
  }
  assert.equal(stubOf(get({ body: undefined })).responses[0].hasBody, false);
});

Deno.test("validateStub: undefined inside a body is allowed (JSON leaves it out or writes null)", () => {
  assert.ok(stubOf(get({ body: { a: undefined, b: [undefined, 1] } })));
});

Deno.test("validateStub: numbers JSON cannot hold", () => {
  assert.deepEqual(errorsOf(get({ body: Infinity })), ["body is Infinity, which JSON cannot hold"]);
  assert.deepEqual(errorsOf(get({ body: { a: [1, -Infinity] } })), ["body.a[1] is -Infinity, which JSON cannot hold"]);
  assert.deepEqual(errorsOf(get({ body: { n: NaN } })), ["body.n is NaN, which JSON cannot hold"]);
});

Deno.test("validateStub: functions, bigints and symbols in a body", () => {
  assert.deepEqual(errorsOf(get({ body: { f: () => 1 } })), ["body.f is a function, which JSON cannot hold"]);
  assert.deepEqual(errorsOf(get({ body: { id: 10n } })), ["body.id is a bigint, which JSON cannot hold"]);
  assert.deepEqual(errorsOf(get({ body: [Symbol("s")] })), ["body[0] is a symbol, which JSON cannot hold"]);
});

Deno.test("validateStub: Dates, Maps and class instances must be converted", () => {
  assert.deepEqual(errorsOf(get({ body: { when: new Date(0) } })), [
    "body.when is a Date, which JSON cannot hold as is; convert it (for a Date, use .toISOString())",
  ]);
  assert.deepEqual(errorsOf(get({ body: new Map() })), [
    "body is a Map, which JSON cannot hold as is; convert it (for a Date, use .toISOString())",
  ]);
  class Point {
    x = 1;
  }
  assert.deepEqual(errorsOf(get({ body: { p: new Point() } })), [
    "body.p is a Point, which JSON cannot hold as is; convert it (for a Date, use .toISOString())",
  ]);
  assert.ok(stubOf(get({ body: Object.assign(Object.create(null), { a: 1 }) })));
});

Deno.test("validateStub: only the first problem of a body is reported", () => {
  assert.deepEqual(errorsOf(get({ body: { a: Infinity, b: NaN } })), ["body.a is Infinity, which JSON cannot hold"]);
});

Deno.test("checkJsonValue: 500 levels of nesting are allowed, 501 are not", () => {
  const nest = (levels: number): unknown => {
    let value: unknown = 1;
    for (let i = 0; i < levels; i++) value = [value];
    return value;
  };
  assert.equal(checkJsonValue(nest(500), "body"), undefined);
  assert.equal(checkJsonValue(nest(501), "body"), `body${"[0]".repeat(501)} is nested deeper than 500 levels`);
  assert.deepEqual(errorsOf(get({ body: nest(501) })), [`body${"[0]".repeat(501)} is nested deeper than 500 levels`]);
});

Deno.test("checkJsonValue: a cyclic body is reported, not followed forever", () => {
  const body: Record<string, unknown> = {};
  body.self = body;
  assert.equal(checkJsonValue(body, "body"), `body${".self".repeat(501)} is nested deeper than 500 levels`);
});

Deno.test("checkJsonValue: an undefined value on its own", () => {
  assert.equal(checkJsonValue(undefined, "body"), "body is undefined, which JSON cannot hold");
});

Deno.test("validateStub: 204, 205 and 304 cannot carry a body", () => {
  for (const status of [204, 205, 304]) {
    assert.deepEqual(errorsOf(get({ status, body: {} })), [
      `status ${status} cannot carry a body; remove body or use another status`,
    ]);
    assert.deepEqual(errorsOf(get({ status, body: null })), [
      `status ${status} cannot carry a body; remove body or use another status`,
    ]);
    assert.equal(stubOf(get({ status })).responses[0].hasBody, false);
  }
});

// --- query_params --------------------------------------------------------------------

Deno.test("validateStub: query_params are required query parameters; numbers become strings", () => {
  assert.deepEqual(
    stubOf(get({ query_params: { q: "{term}", page: 2, all: true } })).query,
    nullProto({ q: "{term}", page: "2", all: "true" }),
  );
});

Deno.test("validateStub: query_params and the path's ?query are merged", () => {
  assert.deepEqual(
    stubOf({ method: "GET", path: "/s?sort=asc", query_params: { q: "{term}" } }).query,
    nullProto({ sort: "asc", q: "{term}" }),
  );
});

Deno.test("validateStub: the same key in ?query and query_params is an error", () => {
  assert.deepEqual(errorsOf({ method: "GET", path: "/s?q=1", query_params: { q: "2" } }), [
    "query parameter 'q' is set both in path and in query_params; keep one",
  ]);
});

Deno.test("validateStub: empty query_params mean no query", () => {
  assert.equal("query" in stubOf(get({ query_params: {} })), false);
});

Deno.test("validateStub: query_params must be a mapping of strings", () => {
  assert.deepEqual(errorsOf(get({ query_params: "q=1" })), [
    'query_params must be a mapping of names to values (text, {name}, {regex: …} or {absent: true}), got "q=1"',
  ]);
  assert.deepEqual(errorsOf(get({ query_params: { q: null } })), [
    "query_params.q must be text (with {name} captures) or one of {regex: PATTERN}, {absent: true}, {contains: TEXT}, {not_contains: TEXT}, {not_regex: PATTERN}, {equals_ignore_case: TEXT}, {all: [PATTERNS]}, {any: [PATTERNS]}, {has_exactly: [PATTERNS]}, {includes: [PATTERNS]}, {date: {before|after|equals: DATE}}, got null",
  ]);
});

Deno.test("regression: query_params accepted an empty parameter name the path form rejects", () => {
  assert.deepEqual(errorsOf(get({ query_params: { "": "x" } })), ["query_params has an empty parameter name"]);
});

Deno.test("validateStub: a query placeholder may not reuse a path placeholder's name", () => {
  assert.deepEqual(errorsOf({ method: "GET", path: "/users/{id}", query_params: { id: "{id}" } }), [
    "placeholder {id} is captured twice (the path and query_params.id); give each capture its own name",
  ]);
  assert.deepEqual(errorsOf({ method: "GET", path: "/users/{id}?q={id}" }), [
    "placeholder {id} is captured twice (the path and query_params.q); give each capture its own name",
  ]);
});

Deno.test("validateStub: two query parameters may not capture into the same name", () => {
  assert.deepEqual(errorsOf({ method: "GET", path: "/s?a={x}&b={x}" }), [
    "placeholder {x} is captured twice (query_params.a and query_params.b); give each capture its own name",
  ]);
});

// --- delay ---------------------------------------------------------------------------

Deno.test("validateStub: delay in milliseconds or a {min, max} range", () => {
  assert.equal(stubOf(get({ delay: 250 })).responses[0].delay, 250);
  assert.equal(stubOf(get({ delay: 0 })).responses[0].delay, 0);
  assert.equal(stubOf(get({ delay: 2_147_483_647 })).responses[0].delay, 2_147_483_647);
  assert.deepEqual(stubOf(get({ delay: { min: 100, max: 300 } })).responses[0].delay, { min: 100, max: 300 });
  assert.deepEqual(stubOf(get({ delay: { min: 5, max: 5 } })).responses[0].delay, { min: 5, max: 5 });
});

Deno.test("validateStub: a delay number out of range", () => {
  const message = (got: string) => [`delay must be milliseconds from 0 to 2147483647, got ${got}`];
  assert.deepEqual(errorsOf(get({ delay: -1 })), message("-1"));
  assert.deepEqual(errorsOf(get({ delay: 2_147_483_648 })), message("2147483648"));
  assert.deepEqual(errorsOf(get({ delay: Infinity })), message("Infinity"));
  assert.deepEqual(errorsOf(get({ delay: NaN })), message("NaN"));
});

Deno.test("validateStub: a delay of the wrong type", () => {
  const message = (got: string) => [
    `delay must be milliseconds (250), a range ({min: 100, max: 300}) or a lognormal ({median: 100, sigma: 0.5}), got ${got}`,
  ];
  assert.deepEqual(errorsOf(get({ delay: "250" })), message('"250"'));
  assert.deepEqual(errorsOf(get({ delay: [100, 300] })), message("a list"));
  assert.deepEqual(errorsOf(get({ delay: null })), message("null"));
  assert.deepEqual(errorsOf(get({ delay: true })), message("true"));
});

Deno.test("validateStub: a delay range with bad bounds", () => {
  assert.deepEqual(errorsOf(get({ delay: { min: 1 } })), [
    "delay needs min and max in milliseconds from 0 to 2147483647, got min 1, max undefined",
  ]);
  assert.deepEqual(errorsOf(get({ delay: { min: "1", max: -2 } })), [
    'delay needs min and max in milliseconds from 0 to 2147483647, got min "1", max -2',
  ]);
  assert.deepEqual(errorsOf(get({ delay: { min: 5, max: 1 } })), ["delay.min (5) must not be greater than max (1)"]);
});

Deno.test("validateStub: unknown keys in a delay range", () => {
  assert.deepEqual(errorsOf(get({ delay: { min: 1, maxx: 2 } })), [
    "delay: unknown field 'maxx' (did you mean 'max'?)",
  ]);
  assert.deepEqual(errorsOf(get({ delay: { from: 1, to: 2 } })), [
    "delay: unknown field 'from' (allowed: min, max)",
  ]);
});

Deno.test("regression: an invalid delay on a plain stub was reported twice", () => {
  assert.deepEqual(errorsOf(get({ delay: -1 })), ["delay must be milliseconds from 0 to 2147483647, got -1"]);
});

// --- sequence ------------------------------------------------------------------------

Deno.test("validateStub: a sequence becomes the responses, each with its own defaults", () => {
  const stub = stubOf(get({ sequence: [{ status: 503 }, { body: { ok: true }, headers: { "x-n": 2 } }] }));
  assert.equal(stub.isSequence, true);
  assert.equal(stub.sequenceMode, "repeat-last");
  assert.deepEqual(stub.responses, [
    { status: 503, headers: undefined, body: undefined, hasBody: false, delay: undefined },
    { status: 200, headers: nullProto({ "x-n": "2" }), body: { ok: true }, hasBody: true, delay: undefined },
  ]);
});

Deno.test("validateStub: sequence_mode cycle", () => {
  assert.equal(stubOf(get({ sequence: [{}], sequence_mode: "cycle" })).sequenceMode, "cycle");
  assert.equal(stubOf(get({ sequence: [{}], sequence_mode: "repeat-last" })).sequenceMode, "repeat-last");
});

Deno.test("validateStub: the top-level delay applies to sequence entries without their own", () => {
  const stub = stubOf(get({ delay: 100, sequence: [{ status: 503 }, { delay: 5 }, { delay: { min: 1, max: 2 } }] }));
  assert.deepEqual(stub.responses.map((r) => r.delay), [100, 5, { min: 1, max: 2 }]);
  assert.equal(stub.delay, undefined);
});

Deno.test("validateStub: a sequence must be a non-empty list", () => {
  const message = (got: string) => [
    `sequence must be a non-empty list of responses ({status, headers, body, delay}), got ${got}`,
  ];
  assert.deepEqual(errorsOf(get({ sequence: [] })), message("a list"));
  assert.deepEqual(errorsOf(get({ sequence: { status: 200 } })), message("a mapping"));
  assert.deepEqual(errorsOf(get({ sequence: "503,200" })), message('"503,200"'));
  assert.deepEqual(errorsOf(get({ sequence: null })), message("null"));
});

Deno.test("validateStub: sequence entries must be mappings", () => {
  assert.deepEqual(errorsOf(get({ sequence: [503, { status: 200 }, null] })), [
    "sequence[0] must be a mapping like {status: 200, body: {...}}, got 503",
    "sequence[2] must be a mapping like {status: 200, body: {...}}, got null",
  ]);
});

Deno.test("validateStub: unknown keys in sequence entries", () => {
  assert.deepEqual(errorsOf(get({ sequence: [{ stauts: 503 }, { method: "GET" }] })), [
    "sequence[0]: unknown field 'stauts' (did you mean 'status'?)",
    "sequence[1]: unknown field 'method' (allowed: status, status_message, headers, body, body_file, body_base64, delay, stream)",
  ]);
});

Deno.test("validateStub: sequence entries are checked like responses, with their place", () => {
  assert.deepEqual(
    errorsOf(get({
      sequence: [
        { status: "x", headers: { "x-a": "a\nb" } },
        { status: 204, body: {} },
        { body: Infinity, delay: -5 },
      ],
    })),
    [
      'sequence[0].status must be an integer from 100 to 599, got "x"',
      "sequence[0].headers.x-a must not contain CR, LF, NUL or other control characters",
      "sequence[1].status 204 cannot carry a body; remove sequence[1].body or use another status",
      "sequence[2].body is Infinity, which JSON cannot hold",
      "sequence[2].delay must be milliseconds from 0 to 2147483647, got -5",
    ],
  );
});

Deno.test("validateStub: sequence combined with status, headers or body", () => {
  assert.deepEqual(errorsOf(get({ status: 200, body: {}, sequence: [{}] })), [
    "use either sequence or status/body, not both: move them into the sequence entries",
  ]);
  assert.deepEqual(errorsOf(get({ headers: {}, sequence: [{}] })), [
    "use either sequence or headers, not both: move them into the sequence entries",
  ]);
});

Deno.test("validateStub: sequence_mode must be repeat-last or cycle, and needs a sequence", () => {
  assert.deepEqual(errorsOf(get({ sequence: [{}], sequence_mode: "loop" })), [
    `sequence_mode must be 'repeat-last' or 'cycle', got "loop"`,
  ]);
  assert.deepEqual(errorsOf(get({ sequence_mode: "cycle" })), [
    "sequence_mode only applies to a stub with a sequence; add sequence or remove sequence_mode",
  ]);
});

// --- response_func -------------------------------------------------------------------

const fn: ResponseFunc = () => [200, {}];

Deno.test("validateStub: a response function where allowed", () => {
  const stub = stubOf(get({ response_func: fn, delay: 50, query_params: { q: "{q}" } }), { allowResponseFunc: true });
  assert.equal(stub.responseFunc, fn);
  assert.equal(stub.delay, 50);
  assert.deepEqual(stub.responses, []);
  assert.equal(stub.isSequence, false);
  assert.deepEqual(stub.query, nullProto({ q: "{q}" }));
});

Deno.test("validateStub: response_func must be a function", () => {
  assert.deepEqual(errorsOf(get({ response_func: "handler" }), { allowResponseFunc: true }), [
    'response_func must be a function, got "handler"',
  ]);
});

Deno.test("validateStub: a response function excludes sequence and status/headers/body", () => {
  const options = { allowResponseFunc: true };
  assert.deepEqual(errorsOf(get({ response_func: fn, sequence: [{}] }), options), [
    "use either a response function or sequence, not both",
  ]);
  assert.deepEqual(errorsOf(get({ response_func: fn, status: 201, headers: {}, body: {} }), options), [
    "a response function computes the response; remove status, headers, body",
  ]);
});

Deno.test("validateStub: response_func is an unknown field where not allowed (config files)", () => {
  assert.deepEqual(errorsOf(get({ response_func: fn })), [`unknown field 'response_func' (allowed: ${STUB_FIELDS})`]);
  assert.deepEqual(errorsOf(get({ responseFunc: fn }), { allowResponseFunc: true }), [
    "unknown field 'responseFunc' (did you mean 'response_func'?)",
  ]);
});

Deno.test("regression: a response_func in a config file was also interpreted, adding misleading errors", () => {
  assert.deepEqual(errorsOf(get({ response_func: "x", status: 200, sequence: [{}] })), [
    `unknown field 'response_func' (allowed: ${STUB_FIELDS})`,
    "use either sequence or status, not both: move them into the sequence entries",
  ]);
});

// --- all problems, in order ----------------------------------------------------------

Deno.test("validateStub: returns every problem, in field-check order", () => {
  assert.deepEqual(
    errorsOf({
      method: "FETCH",
      path: "/{id}/x{y}?q={id}&q=2",
      staus: 1,
      query_params: { r: 5, s: [] },
      status: 700,
      headers: { "bad name": "v" },
      body: { f: Infinity },
      delay: "slow",
      sequence_mode: "cycle",
    }),
    [
      "unknown field 'staus' (did you mean 'status'?)",
      `invalid method 'FETCH' ${ALLOWED}`,
      "path segment 'x{y}' is not a placeholder: write a whole segment as {name} (letters, digits, _)",
      "path query parameter 'q' appears twice",
      "query_params.s must be text (with {name} captures) or one of {regex: PATTERN}, {absent: true}, {contains: TEXT}, {not_contains: TEXT}, {not_regex: PATTERN}, {equals_ignore_case: TEXT}, {all: [PATTERNS]}, {any: [PATTERNS]}, {has_exactly: [PATTERNS]}, {includes: [PATTERNS]}, {date: {before|after|equals: DATE}}, got a list",
      'delay must be milliseconds (250), a range ({min: 100, max: 300}) or a lognormal ({median: 100, sigma: 0.5}), got "slow"',
      "status must be an integer from 100 to 599, got 700",
      "headers: 'bad name' is not a valid header name (letters, digits and !#$%&'*+-.^_`|~ only)",
      "body.f is Infinity, which JSON cannot hold",
      "sequence_mode only applies to a stub with a sequence; add sequence or remove sequence_mode",
    ],
  );
});

// --- prototype pollution --------------------------------------------------------

Deno.test("validateStub: __proto__ and constructor keys are plain data, never prototypes", () => {
  const raw = JSON.parse(`{
    "method": "GET",
    "path": "/a",
    "headers": {"__proto__": "h", "constructor": "c"},
    "query_params": {"__proto__": "{p}", "constructor": "x"},
    "body": {"__proto__": {"polluted": "yes"}, "constructor": {"prototype": {"polluted": "yes"}}}
  }`);
  const stub = stubOf(raw);
  assert.deepEqual(Object.keys(stub.responses[0].headers!), ["__proto__", "constructor"]);
  assert.equal(stub.responses[0].headers!["__proto__"], "h");
  assert.deepEqual(Object.keys(stub.query!), ["__proto__", "constructor"]);
  assert.equal(stub.query!["__proto__"], "{p}");
  assert.equal(
    JSON.stringify(stub.responses[0].body),
    '{"__proto__":{"polluted":"yes"},"constructor":{"prototype":{"polluted":"yes"}}}',
  );
  assert.equal(({} as Record<string, unknown>).polluted, undefined);
  assert.equal(Object.prototype.hasOwnProperty.call(Object.prototype, "polluted"), false);
});

Deno.test("validateStub: __proto__ and constructor as stub fields are unknown fields", () => {
  const raw = JSON.parse(`{"method": "GET", "path": "/a", "__proto__": {"status": 500}, "constructor": 1}`);
  assert.deepEqual(errorsOf(raw), [
    `unknown field '__proto__' (allowed: ${STUB_FIELDS})`,
    `unknown field 'constructor' (allowed: ${STUB_FIELDS})`,
  ]);
  assert.equal(({} as Record<string, unknown>).status, undefined);
});

Deno.test("validateConfig: a __proto__ key at the top level is an unknown key, not a prototype", () => {
  const { config, problems } = validateConfig(JSON.parse(`{"__proto__": {"routes": 5, "polluted": 1}, "routes": []}`));
  assert.equal(config, undefined);
  assert.deepEqual(problems, [{
    level: "error",
    message: "unknown top-level key '__proto__' (allowed: routes, port, cors, proxy_unmatched, wiremock)",
  }]);
  assert.equal(({} as Record<string, unknown>).polluted, undefined);
  assert.equal(({} as Record<string, unknown>).routes, undefined);
});

// --- validateConfig ------------------------------------------------------------------

Deno.test("validateConfig: a valid config", () => {
  const { config, problems } = validateConfig({
    routes: [{ method: "get", path: "/users/{id}", body: { id: "{id}" } }, {
      method: "DELETE",
      path: "/x",
      status: 204,
    }],
    port: 9000,
  });
  assert.deepEqual(problems, []);
  assert.equal(config?.port, 9000);
  assert.deepEqual(config?.routes.map((s) => `${s.method} ${s.path} ${s.responses[0].status}`), [
    "GET /users/{id} 200",
    "DELETE /x 204",
  ]);
});

Deno.test("validateConfig: an empty routes list is valid; port is optional", () => {
  assert.deepEqual(validateConfig({ routes: [] }), { config: { routes: [], port: undefined }, problems: [] });
});

Deno.test("validateConfig: a config that is not a mapping", () => {
  const problem = (
    got: string,
  ) => [{ level: "error", message: `the config must be a mapping with a routes list, got ${got}` }];
  assert.deepEqual(validateConfig([]), { problems: problem("a list") });
  assert.deepEqual(validateConfig(null), { problems: problem("null") });
  assert.deepEqual(validateConfig("routes"), { problems: problem('"routes"') });
});

Deno.test("validateConfig: an unknown top-level key, with and without a hint", () => {
  assert.deepEqual(validateConfig({ routes: [], ports: 80 }).problems, [
    { level: "error", message: "unknown top-level key 'ports' (did you mean 'port'?)" },
  ]);
  assert.deepEqual(validateConfig({ routes: [], stubs: [] }).problems, [
    {
      level: "error",
      message: "unknown top-level key 'stubs' (allowed: routes, port, cors, proxy_unmatched, wiremock)",
    },
  ]);
});

Deno.test("validateConfig: routes missing or not a list", () => {
  assert.deepEqual(validateConfig({ route: [] }), {
    problems: [
      { level: "error", message: "unknown top-level key 'route' (did you mean 'routes'?)" },
      { level: "error", message: "routes is required: a list of stubs, each with method and path" },
    ],
  });
  assert.deepEqual(validateConfig({ routes: { a: 1 } }), {
    problems: [{ level: "error", message: "routes must be a list of stubs, got a mapping" }],
  });
});

Deno.test("validateConfig: port must be an integer from 0 to 65535", () => {
  for (
    const [port, got] of [["8080", '"8080"'], [-1, "-1"], [65536, "65536"], [80.5, "80.5"], [null, "null"]] as const
  ) {
    assert.deepEqual(validateConfig({ routes: [], port }).problems, [
      { level: "error", place: "port", message: `must be an integer from 0 to 65535, got ${got}` },
    ]);
  }
  assert.equal(validateConfig({ routes: [], port: 0 }).config?.port, 0);
  assert.equal(validateConfig({ routes: [], port: 65535 }).config?.port, 65535);
});

Deno.test("validateConfig: route problems carry their index", () => {
  assert.deepEqual(validateConfig({ routes: [{ method: "GET", path: "/ok" }, { method: "FETCH", path: "/x" }] }), {
    problems: [
      {
        level: "error",
        place: "routes[1]",
        message: "invalid method 'FETCH' (allowed: ANY, DELETE, GET, HEAD, OPTIONS, PATCH, POST, PUT)",
      },
    ],
  });
});

Deno.test("validateConfig: returns every problem in order: top-level keys, port, then each route", () => {
  const { config, problems } = validateConfig({
    routes: [{ method: "FETCH", path: "x" }, { method: "GET", path: "/ok" }, "GET /x", {
      method: "GET",
      path: "/b",
      staus: 1,
    }],
    port: "x",
    extra: true,
  });
  assert.equal(config, undefined);
  assert.deepEqual(problems, [
    {
      level: "error",
      message: "unknown top-level key 'extra' (allowed: routes, port, cors, proxy_unmatched, wiremock)",
    },
    { level: "error", place: "port", message: 'must be an integer from 0 to 65535, got "x"' },
    { level: "error", place: "routes[0]", message: `invalid method 'FETCH' ${ALLOWED}` },
    { level: "error", place: "routes[0]", message: `path must start with '/', got "x"` },
    { level: "error", place: "routes[2]", message: 'must be a mapping with at least method and path, got "GET /x"' },
    { level: "error", place: "routes[3]", message: "unknown field 'staus' (did you mean 'status'?)" },
  ]);
});

Deno.test("validateConfig: response_func is not a config field", () => {
  assert.deepEqual(validateConfig({ routes: [{ method: "GET", path: "/a", response_func: "f" }] }).problems, [
    { level: "error", place: "routes[0]", message: `unknown field 'response_func' (allowed: ${STUB_FIELDS})` },
  ]);
});

Deno.test("validateConfig: shadowed stubs are warnings; the config is still valid", () => {
  const { config, problems } = validateConfig({
    routes: [{ method: "GET", path: "/a" }, { method: "GET", path: "/a", status: 201 }],
  });
  assert.equal(config?.routes.length, 2);
  assert.deepEqual(problems, [
    { level: "warn", place: "routes[1]", message: "duplicate of routes[0] (GET /a); it can never match" },
  ]);
});

Deno.test("validateConfig: with errors, no shadow warnings are computed", () => {
  assert.deepEqual(
    validateConfig({
      routes: [{ method: "GET", path: "/a" }, { method: "GET", path: "/a" }, { method: "GET", path: "/b", status: 1 }],
    }).problems,
    [{ level: "error", place: "routes[2]", message: "status must be an integer from 100 to 599, got 1" }],
  );
});

// --- findShadowedStubs ---------------------------------------------------------------

/** Warnings for stubs given as `METHOD path` with optional query_params. */
function shadows(...specs: (string | [string, Record<string, string>])[]): string[] {
  const stubs = specs.map((spec) => {
    const [line, query_params] = typeof spec === "string" ? [spec, undefined] : spec;
    const [method, path] = line.split(" ");
    return stubOf({ method, path, ...(query_params ? { query_params } : {}) });
  });
  const problems: Problem[] = findShadowedStubs(stubs, stubs.map((_, i) => `routes[${i}]`));
  for (const problem of problems) assert.equal(problem.level, "warn");
  return problems.map((p) => `${p.place}: ${p.message}`);
}

Deno.test("findShadowedStubs: an identical stub is a duplicate", () => {
  assert.deepEqual(shadows("GET /a/{id}", "GET /a/{id}"), [
    "routes[1]: duplicate of routes[0] (GET /a/{id}); it can never match",
  ]);
});

Deno.test("findShadowedStubs: the same shape with other placeholder names is shadowed", () => {
  assert.deepEqual(shadows("GET /users/{id}", "GET /users/{name}"), [
    "routes[1]: shadowed by routes[0] (GET /users/{id}), which matches every request it would; it can never match",
  ]);
});

Deno.test("findShadowedStubs: each later copy names the first stub", () => {
  assert.deepEqual(shadows("GET /a", "GET /a", "GET /a"), [
    "routes[1]: duplicate of routes[0] (GET /a); it can never match",
    "routes[2]: duplicate of routes[0] (GET /a); it can never match",
  ]);
});

Deno.test("findShadowedStubs: different methods are not compared", () => {
  assert.deepEqual(shadows("GET /a", "POST /a", "HEAD /a"), []);
});

Deno.test("findShadowedStubs: a static segment is not shadowed by a placeholder, nor the reverse", () => {
  assert.deepEqual(shadows("GET /a/{x}", "GET /a/b"), []);
  assert.deepEqual(shadows("GET /a/b", "GET /a/{x}"), []);
});

Deno.test("findShadowedStubs: a trailing slash makes another shape", () => {
  assert.deepEqual(shadows("GET /a", "GET /a/"), []);
});

Deno.test("findShadowedStubs: a stub with a query is not shadowed by one without, nor the reverse", () => {
  assert.deepEqual(shadows("GET /a", "GET /a?x=1"), []);
  assert.deepEqual(shadows("GET /a?x=1", "GET /a"), []);
});

Deno.test("findShadowedStubs: a capture shadows the same query with a literal; a stub that asks for more wins", () => {
  assert.deepEqual(shadows("GET /s?sort={s}", "GET /s?sort=asc"), [
    "routes[1]: shadowed by routes[0] (GET /s?sort={s}), which matches every request it would; it can never match",
  ]);
  // More conditions come first ((4)): the later stub answers requests that carry both.
  assert.deepEqual(shadows("GET /s?q={t}", "GET /s?q={t}&page=1"), []);
  assert.deepEqual(shadows("GET /s?sort=asc", "GET /s?sort=asc&x={x}"), []);
});

Deno.test("findShadowedStubs: a query that is not a subset does not shadow", () => {
  assert.deepEqual(shadows("GET /s?sort=asc", "GET /s?sort=desc"), []);
  assert.deepEqual(shadows("GET /s?sort=asc", "GET /s?sort={s}"), []);
  assert.deepEqual(shadows("GET /s?q={t}&page=1", "GET /s?q={t}"), []);
  assert.deepEqual(shadows("GET /s?a=1", "GET /s?b=1"), []);
});

Deno.test("findShadowedStubs: the earliest shadowing stub is named, whether few or many share the shape", () => {
  assert.deepEqual(shadows("GET /s?x={a}", "GET /s?x=3", "GET /s?x={b}"), [
    "routes[1]: shadowed by routes[0] (GET /s?x={a}), which matches every request it would; it can never match",
    "routes[2]: shadowed by routes[0] (GET /s?x={a}), which matches every request it would; it can never match",
  ]);
  // Many stubs of the shape: looked up by query signature.
  const many = Array.from({ length: 10 }, (_, i) => `GET /s?x=${i}`);
  assert.deepEqual(shadows(...many, "GET /s?x={v}", "GET /s?x=3"), [
    "routes[11]: duplicate of routes[3] (GET /s?x=3); it can never match",
  ]);
});

Deno.test("findShadowedStubs: a stub with many query parameters is still compared with its group", () => {
  const wide = "GET /s?a=1&b=2&c=3&d=4&e=5&f=6&g=7&h=8&i=9";
  assert.deepEqual(shadows("GET /s?z=0", "GET /s?a={x}&b=2&c=3&d=4&e=5&f=6&g=7&h=8&i=9", wide), [
    "routes[2]: shadowed by routes[1] (GET /s?a={x}&b=2&c=3&d=4&e=5&f=6&g=7&h=8&i=9), which matches every request it would; it can never match",
  ]);
});

Deno.test("findShadowedStubs: a later batch wins ties, so it shadows the earlier batch's stub", () => {
  const stubs = ["GET /users/{id}", "GET /users/{name}"].map((spec) => {
    const [method, path] = spec.split(" ");
    return validateStub({ method, path }).stub!;
  });
  const places = ["routes[0]", "--stub[0]"];
  assert.deepEqual(findShadowedStubs(stubs, places, (i) => i).map((p) => `${p.place}: ${p.message}`), [
    "routes[0]: shadowed by --stub[0] (GET /users/{name}), which matches every request it would; it can never match",
  ]);
});

Deno.test("findShadowedStubs: a later batch shadows earlier stubs it covers, however specific or conditioned they are", () => {
  const raws: Record<string, unknown>[] = [
    { method: "POST", path: "/orders", request: { headers: { authorization: "Bearer {t}" }, json: { total: 10 } } },
    { method: "GET", path: "/orders", query_params: { status: "open" } },
    { method: "GET", path: "/orders/7/items" },
    { method: "GET", path: "/orders/7/items", priority: 1 }, // another priority: not shadowed
    { method: "GET", path: "/orders/7/items", scope: "w1" }, // another scope: not shadowed
    { method: "GET", path: "/orders/" }, // `{rest*}` takes no empty remainder
    { method: "PUT", path: "/orders", request: { headers: { "x-env": "dev" } } }, // the later stub wants more
    { method: "POST", path: "/orders" },
    { method: "GET", path: "/orders" },
    { method: "ANY", path: "/orders/{rest*}" },
    { method: "PUT", path: "/orders", request: { headers: { "x-env": "{e}", "x-id": "{id}" } } },
  ];
  const stubs = raws.map((raw) => validateStub(raw).stub!);
  const places = raws.map((_, i) => i < 7 ? `routes[${i}]` : `--stub[${i - 7}]`);
  assert.deepEqual(findShadowedStubs(stubs, places, (i) => i < 7 ? 0 : 1).map((p) => `${p.place}: ${p.message}`), [
    "routes[0]: shadowed by --stub[0] (POST /orders), which matches every request it would; it can never match",
    "routes[1]: shadowed by --stub[1] (GET /orders), which matches every request it would; it can never match",
    "routes[2]: shadowed by --stub[2] (ANY /orders/{rest*}), which matches every request it would; it can never match",
  ]);
});

Deno.test("findShadowedStubs: scope, priority and request conditions make other groups; equal conditions shadow", () => {
  const check = (...raws: Record<string, unknown>[]) =>
    findShadowedStubs(
      raws.map((raw) => validateStub({ method: "GET", path: "/a", ...raw }).stub!),
      raws.map((_, i) => `routes[${i}]`),
    )
      .map((p) => `${p.place}: ${p.message}`);
  assert.deepEqual(check({}, { scope: "s" }), []);
  assert.deepEqual(check({}, { priority: 1 }), []);
  assert.deepEqual(check({ request: { headers: { "x-env": "prod" } } }, {}), []);
  assert.deepEqual(check({ request: { headers: { "x-env": "{e}" } } }, { request: { headers: { "X-Env": "prod" } } }), [
    "routes[1]: shadowed by routes[0] (GET /a), which matches every request it would; it can never match",
  ]);
  assert.deepEqual(
    check({ request: { headers: { "x-env": { absent: true } } } }, { request: { headers: { "x-env": "{e}" } } }),
    [],
  );
  assert.deepEqual(check({ request: { json: { a: 1 } } }, { request: { json: { a: 1 } } }), [
    "routes[1]: duplicate of routes[0] (GET /a); it can never match",
  ]);
});

Deno.test("regression: the same query in another key order was called 'shadowed', not a duplicate", () => {
  assert.deepEqual(shadows("GET /s?a=1&b=2", "GET /s?b=2&a=1"), [
    "routes[1]: duplicate of routes[0] (GET /s?b=2&a=1); it can never match",
  ]);
  assert.deepEqual(shadows("GET /s?a=1", ["GET /s", { a: "1" }]), [
    "routes[1]: duplicate of routes[0] (GET /s?a=1); it can never match",
  ]);
});

Deno.test("regression: /a/b and /a%2Fb shared a shape key and were compared as one path", () => {
  assert.deepEqual(shadows("GET /a/b", "GET /a%2Fb"), []);
});

Deno.test("regression: 10,000 query variants of one path took quadratic time (11 s) to check", () => {
  const specs = Array.from({ length: 10_000 }, (_, i) => `GET /search?q=v${i}`);
  assert.deepEqual(shadows(...specs, "GET /search?q=v9999", "GET /search?q={any}", "GET /search?q=v5"), [
    "routes[10000]: duplicate of routes[9999] (GET /search?q=v9999); it can never match",
    "routes[10002]: duplicate of routes[5] (GET /search?q=v5); it can never match",
  ]);
});

Deno.test("regression: a JSON body written as a string went out double-encoded without a word; validate warns", () => {
  const { config, problems } = validateConfig({
    routes: [
      { method: "GET", path: "/a", body: '{"id": 1}' },
      { method: "GET", path: "/b", sequence: [{ body: "ok" }, { body: "[1, 2]" }] },
      { method: "GET", path: "/c", headers: { "content-type": "text/plain" }, body: '{"sent": "as written"}' },
      { method: "GET", path: "/d", body: "{not json}" },
    ],
  });
  assert.ok(config, "a warning, not an error");
  const message = "body is a string that holds JSON, so it goes out as one JSON string (double-encoded): " +
    "write the value itself (body: {id: 1}, not body: '{\"id\": 1}'), or set a text content-type to send it as written";
  assert.deepEqual(problems, [
    { level: "warn", place: "routes[0]", message },
    { level: "warn", place: "routes[1].sequence[1]", message },
  ]);
});

Deno.test("validateStub: query_string, path_regex, url_regex, json_equals, json_ignore, json_path say what to write", () => {
  assert.deepEqual(errorsOf(get({ request: { query_string: "?a=1" } })), [
    `request.query_string must be the query as sent, without '?' ("a=1&b=2"; "" for no query), got "?a=1"`,
  ]);
  assert.deepEqual(errorsOf(get({ request: { path_regex: "(" } })).length, 1);
  assert.match(
    errorsOf(get({ request: { path_regex: "(" } }))[0],
    /^request\.path_regex "\(" is not a valid JavaScript regular expression: /,
  );
  assert.deepEqual(errorsOf(get({ request: { url_regex: 5 } })), [
    "request.url_regex must be a regular expression (text), got 5",
  ]);
  assert.deepEqual(errorsOf(get({ request: { json_ignore: ["array_order"] } })), [
    "request.json_ignore relaxes request.json_equals; add json_equals or remove json_ignore",
  ]);
  assert.deepEqual(errorsOf(get({ request: { json_equals: {}, json_ignore: ["order"] } })), [
    "request.json_ignore must be a list of array_order, extra_fields, extra_items, got a list",
  ]);
  assert.deepEqual(errorsOf(get({ request: { json_placeholders: true } })), [
    "request.json_placeholders applies to request.json_equals; add json_equals or remove it",
  ]);
  assert.deepEqual(errorsOf(get({ request: { json_equals: {}, json_placeholders: "yes" } })), [
    'request.json_placeholders must be true or false, got "yes"',
  ]);
  assert.deepEqual(
    errorsOf(get({ request: { json_equals: { a: ["${json-unit.any-thing}"] }, json_placeholders: true } })),
    [
      "request.json_equals at /a/0 '${json-unit.any-thing}' is not a placeholder stubtool reads (${json-unit.any-string}, ${json-unit.any-number}, ${json-unit.any-boolean}, ${json-unit.ignore}, ${json-unit.regex}RE)",
    ],
  );
  assert.equal(
    errorsOf(get({ request: { json_equals: { a: "${json-unit.regex}(" }, json_placeholders: true } })).length,
    1,
  );
  assert.deepEqual(errorsOf(get({ request: { json_path: { "$.a[*]": { json_equals: {} } } } })), [
    "request.json_path.$.a[*]: json_equals needs a path to one value ($.a.b, $['a'][0]): no wildcard, filter or ..",
  ]);
  assert.deepEqual(errorsOf(get({ request: { json_path: { "$.a": { json_equals: {}, x: 1 } } } })), [
    "request.json_path.$.a: json_equals takes json_ignore and json_placeholders only, got x",
  ]);
  assert.deepEqual(errorsOf(get({ request: { json_path: { "$.a": { json_equals: {}, json_ignore: ["x"] } } } })), [
    "request.json_path.$.a: json_ignore must be a list of array_order, extra_fields, extra_items, got a list",
  ]);
  assert.deepEqual(errorsOf(get({ request: { json_path: { "user.id": true } } })), [
    'request.json_path.user.id: a JSONPath expression starts with $ ("$.user.id")',
  ]);
  assert.deepEqual(errorsOf(get({ request: { json_path: { "$.id": "{id}" } } })), [
    "request.json_path.$.id captures nothing: leave out {name} placeholders and named groups",
  ]);
  const text = stubOf(get({ request: { json_path: { "$.id": false } } })).match?.jsonPath?.[0][1];
  assert.equal(
    typeof text === "object" && "literal" in text && text.literal,
    "false",
    "false is the text 'false', as in other patterns",
  );
  assert.deepEqual(errorsOf(get({ request: { headers: { "x-a": { contains: "a", regex: "b" } } } })), [
    "request.headers.x-a must be text or one of {regex: PATTERN}, {absent: true}, {contains: TEXT}, {not_contains: TEXT}, {not_regex: PATTERN}, {equals_ignore_case: TEXT}, {all: [PATTERNS]}, {any: [PATTERNS]}, {has_exactly: [PATTERNS]}, {includes: [PATTERNS]}, {date: {before|after|equals: DATE}}, got a mapping with 'contains', 'regex'",
  ]);
  const stub = stubOf(get({ request: { path_regex: "/a(?<x>.*)", query_string: "", json_equals: [1] } }));
  assert.deepEqual(stub.request, { path_regex: "/a(?<x>.*)", query_string: "", json_equals: [1] });
  assert.deepEqual(stub.match?.pathRegex?.names, ["x"]);
});

Deno.test("request.cookies and the list patterns: what the validator takes and refuses", () => {
  assert.deepEqual(
    stubOf(get({ request: { cookies: { Session: "s-{id}", theme: { any: ["dark", "light"] } } } })).match?.cookies
      ?.map(([name, p]) => [name, p.names]),
    [["Session", ["id"]], ["theme", []]],
  );
  assert.deepEqual(errorsOf(get({ request: { cookies: ["a"] } })), [
    "request.cookies must be a mapping of cookie names to patterns, got a list",
  ]);
  assert.deepEqual(errorsOf(get({ request: { cookies: { "a b": "1" } } })), [
    "request.cookies: 'a b' is not a valid cookie name",
  ]);
  // A header's lines are counted (P19.4).
  assert.deepEqual(stubOf(get({ request: { headers: { "x-a": { has_exactly: ["1"] } } } })).match?.headers?.length, 1);
  assert.deepEqual(errorsOf(get({ request: { cookies: { a: { includes: ["1"] } } } })), [
    "request.cookies.a cannot use has_exactly or includes: a cookie condition tests each value of the cookie on its own",
  ]);
  assert.deepEqual(errorsOf(get({ request: { json_path: { "$.a": { includes: ["1"] } } } })), [
    "request.json_path.$.a cannot use has_exactly or includes: any one of several results may match; use any",
  ]);
  assert.deepEqual(errorsOf(get({ request: { form: { a: { all: [] } } } })), [
    "request.form.a all must be a non-empty list of value patterns, got a list",
  ]);
});

Deno.test("findShadowedStubs: stubs that differ by their cookies do not shadow each other", () => {
  const stubs = [
    stubOf(get({ request: { cookies: { a: "1" } } })),
    stubOf(get({ request: { cookies: { a: "2" } } })),
  ];
  assert.deepEqual(findShadowedStubs(stubs, stubs.map((_, i) => `routes[${i}]`)), []);
});

Deno.test("findShadowedStubs: a stub whose pattern takes a missing value is not shadowed by a whole capture", () => {
  const stubs = [
    stubOf(get({ request: { headers: { "x-a": "{any}" } } })),
    stubOf(get({ request: { headers: { "x-a": { not_contains: "b" } } } })),
    stubOf(get({ request: { query_string: "a=1" } })),
    stubOf(get({ request: { query_string: "a=2" } })),
    stubOf(get({ request: { query_string: "a=1" } })),
  ];
  assert.deepEqual(findShadowedStubs(stubs, stubs.map((_, i) => `routes[${i}]`)).map((p) => p.message), [
    "duplicate of routes[2] (GET /a); it can never match",
  ]);
});

Deno.test("regression: a query value operator showed as [object Object] in stub labels", () => {
  assert.equal(queryLabel({ q: { contains: "a" }, v: { not_regex: "[0-9]+" } }), "q=(contains a)&v=(not_regex [0-9]+)");
});

Deno.test("findShadowedStubs: a later {name**} shadows / and everything under its prefix; a later {name*} does not shadow a {name**}", () => {
  const stubs = [
    stubOf({ method: "GET", path: "/" }),
    stubOf({ method: "GET", path: "/api/{rest**}" }),
    stubOf({ method: "GET", path: "/api" }),
    stubOf({ method: "GET", path: "/{rest*}" }),
    stubOf({ method: "GET", path: "/{all**}" }),
  ];
  const batch = [0, 0, 0, 1, 2];
  const found = findShadowedStubs(stubs, stubs.map((_, i) => `routes[${i}]`), (i) => batch[i]);
  assert.deepEqual(found.map((p) => p.place), ["routes[0]", "routes[1]", "routes[2]", "routes[3]"]);
  const onlyStar = findShadowedStubs(
    stubs.slice(0, 4),
    stubs.slice(0, 4).map((_, i) => `routes[${i}]`),
    (i) => batch[i],
  );
  // /{rest*} takes /api, /api/ and /api/x, but not /.
  assert.deepEqual(onlyStar.map((p) => p.place), ["routes[1]", "routes[2]"]);
  // /api/{b*} does not take /api/, which /api/{a**} answers.
  const same = [stubOf({ method: "GET", path: "/api/{a**}" }), stubOf({ method: "GET", path: "/api/{b*}" })];
  assert.deepEqual(findShadowedStubs(same, ["routes[0]", "routes[1]"], (i) => i), []);
});
