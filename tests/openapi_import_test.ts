// openApiToConfig, the pure converter: which value answers (example, examples, the schema's
// example/default, else a generated one), under which content type, which operations are left
// out and why, and what --strict-requests requires of a request.
import assert from "node:assert/strict";
import { openApiToConfig } from "../src/formats/openapi_import.ts";

type Json = Record<string, unknown>;

/** An OpenAPI 3.0 document of the given path items. */
const spec = (paths: Json, extra: Json = {}): Json => ({
  openapi: "3.0.3",
  info: { title: "t", version: "1" },
  paths,
  ...extra,
});
/** A GET operation answering 200 with this media type object. */
const answering = (media: Json, type = "application/json"): Json => ({
  get: { responses: { "200": { description: "ok", content: { [type]: media } } } },
});
const bodyOf = (doc: Json) => openApiToConfig(doc, "api.yaml").routes[0].body;

Deno.test("the answer is the media type's example, else the first of its examples, else the schema's example, examples, default", () => {
  const schema = { type: "object", example: { from: "schema example" }, default: { from: "default" } };
  assert.deepEqual(bodyOf(spec({ "/a": answering({ example: { from: "example" }, schema }) })), { from: "example" });
  const examples = { one: { $ref: "#/components/examples/One" }, two: { value: { from: "two" } } };
  const components = { examples: { One: { summary: "first", value: { from: "one" } } } };
  assert.deepEqual(bodyOf(spec({ "/a": answering({ examples, schema }) }, { components })), { from: "one" });
  assert.deepEqual(bodyOf(spec({ "/a": answering({ schema }) })), { from: "schema example" });
  assert.deepEqual(bodyOf(spec({ "/a": answering({ schema: { type: "object", default: { from: "default" } } }) })), {
    from: "default",
  });
  assert.deepEqual(bodyOf(spec({ "/a": answering({ schema: { type: "array", examples: [[1], [2]] } }) })), [1]);
});

Deno.test("without an example the value is generated: required and other properties, the first enum value, plausible formats", () => {
  const schema = {
    type: "object",
    required: ["id", "status"],
    properties: {
      id: { type: "integer", format: "int64" },
      status: { type: "string", enum: ["available", "sold"] },
      email: { type: "string", format: "email" },
      at: { type: "string", format: "date-time" },
      ref: { type: "string", format: "uuid" },
      code: { type: "string", pattern: "^[A-Z]{3}-\\d{2,}$" },
      secret: { type: "string", writeOnly: true },
      owner: { $ref: "#/components/schemas/Owner" },
    },
  };
  const components = { schemas: { Owner: { type: "object", properties: { name: { type: "string" } } } } };
  assert.deepEqual(bodyOf(spec({ "/a": answering({ schema }) }, { components })), {
    id: 0,
    status: "available",
    email: "user@example.com",
    at: "2019-08-24T14:15:22Z",
    ref: "d0fad5d6-e996-4437-8fb9-5f40bbcfd7cc", // derived from the property name: the same every run
    code: "AAA-00",
    owner: { name: "string" },
  });
});

Deno.test("the content type: JSON preferred, else the first listed; a text example is sent as text; */* becomes a real type", () => {
  const both = {
    get: {
      responses: {
        "200": {
          description: "ok",
          content: { "application/xml": { example: "<a/>" }, "application/problem+json": { example: { a: 1 } } },
        },
      },
    },
  };
  assert.deepEqual(openApiToConfig(spec({ "/a": both }), "api.yaml").routes[0], {
    method: "GET",
    path: "/a",
    status: 200,
    headers: { "content-type": "application/problem+json" },
    body: { a: 1 },
  });
  const text = openApiToConfig(spec({ "/a": answering({ example: "pong" }, "text/plain") }), "api.yaml").routes[0];
  assert.deepEqual([text.headers, text.body], [{ "content-type": "text/plain" }, "pong"]);
  const any = openApiToConfig(spec({ "/a": answering({ schema: { type: "integer" } }, "*/*") }), "api.yaml").routes[0];
  assert.deepEqual([any.headers, any.body], [{ "content-type": "application/json" }, 0]);
});

Deno.test("status: the first 2xx in document order (2XX is 200), else default as 200; no content, no body", () => {
  const doc = spec({
    "/a": { delete: { responses: { "404": { description: "no" }, "204": { description: "gone" } } } },
    "/b": { get: { responses: { "2XX": { description: "ok", content: { "application/json": { example: 1 } } } } } },
    "/c": { get: { responses: { default: { description: "any", content: { "application/json": { example: 2 } } } } } },
  });
  const { routes } = openApiToConfig(doc, "api.yaml");
  assert.deepEqual(routes.map((r) => [r.method, r.path, r.status, r.body]), [
    ["DELETE", "/a", 204, undefined],
    ["GET", "/b", 200, 1],
    ["GET", "/c", 200, 2],
  ]);
});

Deno.test("what cannot convert is left out with one warning naming the operation, the feature and why", () => {
  const ok = { responses: { "200": { description: "ok" } } };
  const doc = spec({
    "/files/{name}.json": { get: ok },
    "/trace": { trace: ok },
    "/pets": { post: { responses: { "405": { description: "invalid" } } } },
    "/xml": answering({ schema: { type: "object", properties: { a: { type: "string" } } } }, "application/xml"),
    "/fine": { get: ok },
  });
  const { routes, warnings, operations, version } = openApiToConfig(doc, "api.yaml");
  assert.deepEqual([routes.length, operations, version], [1, 5, "OpenAPI 3.0.3"]);
  assert.deepEqual(warnings.map((w) => w.message), [
    `api.yaml paths./files/{name}.json.get: 'path template' is not supported: segment "{name}.json" mixes text and a parameter; a stub's placeholder is a whole segment`,
    "api.yaml paths./trace.trace: 'trace' is not supported: stubtool stubs answer DELETE, GET, HEAD, OPTIONS, PATCH, POST and PUT requests",
    "api.yaml paths./pets.post: 'responses' is not supported: the operation declares no 2xx or default response to answer with (declared: 405)",
    "api.yaml paths./xml.get: 'application/xml' is not supported: only JSON and text bodies can be written, and the response has no text example for it",
  ]);
  assert.deepEqual(warnings[2].place, "api.yaml paths./pets.post");
  assert.deepEqual(warnings[2].feature, "responses");
});

Deno.test("path parameters keep their place as captures, renamed only where a capture name cannot hold their characters", () => {
  const ok = { responses: { "200": { description: "ok" } }, operationId: "get pet" };
  const { routes } = openApiToConfig(spec({ "/pets/{pet-id}/toys/{pet_id}": { get: ok } }), "api.yaml");
  // An operationId that is not a valid stub id is left out rather than changed.
  assert.deepEqual(routes[0], { method: "GET", path: "/pets/{pet_id}/toys/{pet_id_2}", status: 200 });
});

Deno.test("--strict-requests: required query parameters and headers must be present (any value); optional ones and Authorization are not required", () => {
  const get = {
    operationId: "listPets",
    parameters: [
      { name: "limit", in: "query", required: true, schema: { type: "integer" } },
      { name: "page", in: "query", schema: { type: "integer" } },
      { name: "X-Request-Id", in: "header", required: true, schema: { type: "string" } },
      { name: "Authorization", in: "header", required: true, schema: { type: "string" } },
      { $ref: "#/components/parameters/Tenant" },
    ],
    responses: { "200": { description: "ok" } },
  };
  const components = { parameters: { Tenant: { name: "tenant", in: "query", required: true } } };
  const doc = spec({ "/{tenant}/pets": { get } }, { components });
  assert.deepEqual(openApiToConfig(doc, "api.yaml").routes[0], {
    method: "GET",
    path: "/{tenant}/pets",
    id: "listPets",
    status: 200,
  });
  assert.deepEqual(openApiToConfig(doc, "api.yaml", { strictRequests: true }).routes[0], {
    method: "GET",
    path: "/{tenant}/pets",
    id: "listPets",
    query_params: { limit: "{limit}", tenant: "{tenant_2}" },
    request: { headers: { "x-request-id": "{X_Request_Id}" } },
    status: 200,
  });
});

Deno.test("Swagger 2.0: the response's examples by media type from produces, else a value from its schema", () => {
  const doc = {
    swagger: "2.0",
    info: { title: "t", version: "1" },
    produces: ["application/xml", "application/json"],
    paths: {
      "/a": { get: { responses: { "200": { description: "ok", examples: { "application/json": { a: 1 } } } } } },
      "/b": {
        get: {
          produces: ["text/plain"],
          responses: { "201": { description: "ok", schema: { type: "string", example: "made" } } },
        },
      },
      "/c": { get: { responses: { "200": { description: "ok", schema: { $ref: "#/definitions/C" } } } } },
    },
    definitions: { C: { type: "object", required: ["n"], properties: { n: { type: "number" } } } },
  };
  const { routes, version } = openApiToConfig(doc, "api.json");
  assert.equal(version, "Swagger 2.0");
  assert.deepEqual(routes.map((r) => [r.status, r.headers, r.body]), [
    [200, { "content-type": "application/json" }, { a: 1 }],
    [201, { "content-type": "text/plain" }, "made"],
    [200, { "content-type": "application/json" }, { n: 0 }],
  ]);
});

Deno.test("the converter leaves the document as it was (the drift check reads it afterwards)", () => {
  const doc = spec({ "/a": answering({ schema: { type: "string", pattern: "^a+$" } }) });
  const before = structuredClone(doc);
  assert.equal(bodyOf(doc), "a");
  assert.deepEqual(doc, before);
});

Deno.test("regression: Jira/Asana's 204 with content made a stub validate refused ('status 204 cannot carry a body'); the body is dropped and said so", () => {
  const doc = spec({
    "/items/{id}": {
      delete: {
        responses: {
          "204": { description: "gone", content: { "application/json": { example: { ok: true } } } },
        },
      },
    },
  });
  const converted = openApiToConfig(doc, "api.yaml");
  assert.deepEqual(converted.routes, [{ method: "DELETE", path: "/items/{id}", status: 204 }]);
  assert.deepEqual(converted.warnings, []);
  assert.deepEqual(converted.fixes, [{
    place: "api.yaml paths./items/{id}.delete",
    feature: "body",
    message: "api.yaml paths./items/{id}.delete: status 204 carries no body: the application/json content is dropped",
  }]);
});

Deno.test("regression: Box's '#' paths made stubs validate refused; each is left out by name, the same path without '#' still converts", () => {
  const doc = spec({
    "/files/{id}": answering({ example: { id: "1" } }),
    "/files/{id}#get_shared_link": answering({ example: { url: "x" } }),
  });
  const converted = openApiToConfig(doc, "api.yaml");
  assert.deepEqual(converted.routes.map((r) => r.path), ["/files/{id}"]);
  assert.deepEqual(converted.warnings.map((w) => w.message), [
    "api.yaml paths./files/{id}#get_shared_link.get: '#' is not supported: a request never carries the fragment, " +
    'so this operation cannot be told from "/files/{id}"',
  ]);
});

Deno.test("regression: a {name} in a spec's example text named the path capture, so the request's text was echoed into the answer; captures take other names", () => {
  const doc = spec({
    "/things/{thingId}": answering({ example: { note: "see /things/{thingId}", list: ["{q}"] } }),
  });
  const converted = openApiToConfig(doc, "api.yaml", { strictRequests: true });
  assert.equal(converted.routes[0].path, "/things/{thingId_2}");
  assert.deepEqual(converted.routes[0].body, { note: "see /things/{thingId}", list: ["{q}"] });
});

Deno.test("a text/plain or octet-stream response with no schema or example answers text/plain with no body, as Prism does (text/csv keeps its type)", () => {
  for (
    const [type, sent] of [["text/plain", "text/plain"], ["application/octet-stream", "text/plain"], [
      "text/csv",
      "text/csv",
    ]]
  ) {
    assert.deepEqual(openApiToConfig(spec({ "/a": answering({}, type) }), "api.yaml").routes, [
      { method: "GET", path: "/a", status: 200, headers: { "content-type": sent } },
    ], type);
  }
  // Other types with nothing in them still answer with no content type (nothing to say what it is).
  assert.deepEqual(openApiToConfig(spec({ "/a": answering({}, "image/png") }), "api.yaml").routes, [
    { method: "GET", path: "/a", status: 200 },
  ]);
});

Deno.test("regression: a pattern schema with minLength: 100000000 had randexp build a string that long; no pattern sample past 64 Ki characters", () => {
  const started = performance.now();
  const config = openApiToConfig(
    spec({ "/big": answering({ schema: { type: "string", pattern: "^a*$", minLength: 100_000_000 } }) }),
    "api.yaml",
  );
  const took = performance.now() - started;
  // The pattern gets no example of its own; the sample-size bound then leaves the operation out, said by name.
  assert.deepEqual(config.routes, []);
  assert.equal(config.warnings.length, 1);
  assert.equal(config.warnings[0].place, "api.yaml paths./big.get");
  assert.ok(took < 2000, `took ${took.toFixed(0)} ms`);
  // A pattern sample within the bound is still made.
  const small = openApiToConfig(
    spec({ "/s": answering({ schema: { type: "string", pattern: "^a+$", minLength: 3 } }) }),
    "api.yaml",
  );
  assert.match(String(small.routes[0].body), /^a{3,}$/);
});

Deno.test("regression: Box's allOf samples broke their schemas (an annotation branch's example made created_by a list, {nullable: false} made tags [], a required property never described was left out); each sample now passes", () => {
  const components = {
    schemas: {
      User: { type: "object", required: ["id"], properties: { id: { type: "string", example: "33" } } },
    },
  };
  const schema = {
    type: "object",
    required: ["created_by", "tags", "shared_link", "merged"],
    properties: {
      created_by: {
        allOf: [{ $ref: "#/components/schemas/User" }, { description: "the creator" }, { example: [{ id: 1 }] }],
      },
      tags: {
        allOf: [{ type: "array", items: { type: "string" }, minItems: 1, example: ["approved"] }, { nullable: false }],
      },
      shared_link: {
        allOf: [
          { type: "object", required: ["url", "accessed"], properties: { url: { type: "string", example: "u" } } },
          {},
          { nullable: true },
        ],
      },
      // A required name another branch describes is that branch's to sample.
      merged: {
        allOf: [
          { type: "object", required: ["name"], properties: { id: { type: "integer", example: 7 } } },
          { type: "object", properties: { name: { type: "string", example: "n" } } },
        ],
      },
      hidden: { allOf: [{ $ref: "#/components/schemas/User" }, { writeOnly: true }] },
    },
  };
  const doc = spec({ "/a": answering({ schema }) }, { components });
  const before = structuredClone(doc);
  assert.deepEqual(bodyOf(doc), {
    created_by: { id: "33" },
    tags: ["approved"],
    shared_link: { url: "u", accessed: null },
    merged: { id: 7, name: "n" },
  });
  assert.deepEqual(doc, before);
});
