/**
 * `stream:` (server-sent events) in the stub language: the checks and bounds made at load,
 * with their places, the same in config files, the builder and the admin API.
 */
import assert from "node:assert/strict";
import { post } from "../mod.ts";
import { validateConfig } from "../src/stubs/validate.ts";
import { checkStream, MAX_STREAM_EVENT_BYTES, MAX_STREAM_EVENTS } from "../src/stubs/stream_field.ts";
import { send, serverTest } from "./_http.ts";

const problems = (route: Record<string, unknown>) =>
  validateConfig({ routes: [{ method: "POST", path: "/chat", ...route }] }).problems.map((p) =>
    `${p.place}: ${p.message}`
  );

Deno.test("stream: events become the model (id as text, delay_ms as delayMs); the head gets text/event-stream and no-cache", () => {
  const { config, problems } = validateConfig({
    routes: [{
      method: "POST",
      path: "/chat",
      stream: [{ data: { n: 1 }, delay_ms: 10 }, { data: "x", event: "note", id: 7, retry: 500 }],
    }],
  });
  assert.deepEqual(problems, []);
  const response = config!.routes[0].responses[0];
  assert.deepEqual(response.stream, [{ data: { n: 1 }, delayMs: 10 }, {
    data: "x",
    event: "note",
    id: "7",
    retry: 500,
  }]);
  assert.deepEqual(response.headers, { "content-type": "text/event-stream", "cache-control": "no-cache" });
  assert.equal(response.hasBody, false);
});

Deno.test("stream: every problem is placed, with did-you-mean for a misspelt field", () => {
  assert.deepEqual(
    problems({
      stream: [
        { dta: 1 },
        { data: "x", event: "a\nb", retry: -1, delay_ms: "soon" },
        "hello",
      ],
    }),
    [
      "routes[0]: stream[0]: unknown field 'dta' (did you mean 'data'?)",
      "routes[0]: stream[0].data is required: text, or an object or list sent as JSON",
      'routes[0]: stream[1].event must be one line of text (no CR, LF or NUL), got "a\\nb"',
      "routes[0]: stream[1].retry must be a whole number of milliseconds (0 or more), got -1",
      'routes[0]: stream[1].delay_ms must be milliseconds from 0 to 2147483647, got "soon"',
      'routes[0]: stream[2] must be a mapping like {data: {...}, delay_ms: 100}, got "hello"',
    ],
  );
  assert.deepEqual(problems({ stream: [] }), [
    "routes[0]: stream must be a non-empty list of events ({data, event?, id?, retry?, delay_ms?}), got an empty list",
  ]);
});

Deno.test("stream: beside a body, a 204, a fault, a throttle or a proxy is refused at load", () => {
  const events = [{ data: "x" }];
  assert.deepEqual(problems({ stream: events, body: { a: 1 } }), [
    "routes[0]: stream and body are given; the events are the answer's body: keep one",
  ]);
  assert.deepEqual(problems({ stream: events, status: 204 }), [
    "routes[0]: status 204 cannot carry a body, so no stream either; use another status",
  ]);
  assert.deepEqual(problems({ stream: events, fault: "truncate" }), [
    "routes[0]: fault applies to a body answer, not to a stream: pace the events with delay_ms",
  ]);
  assert.deepEqual(problems({ stream: events, throttle: 10 }), [
    "routes[0]: throttle applies to a body answer, not to a stream: pace the events with delay_ms",
  ]);
  assert.deepEqual(problems({ stream: events, proxy: "http://up.example" }), [
    "routes[0]: a proxy stub passes the upstream's answer on; remove stream",
  ]);
});

Deno.test("stream: a sequence entry's stream is placed under its entry; a broken template in data is a load error", () => {
  assert.deepEqual(problems({ sequence: [{ status: 429 }, { stream: [{ data: "ok", delya_ms: 5 }] }] }), [
    "routes[0]: sequence[1].stream[0]: unknown field 'delya_ms' (did you mean 'delay_ms'?)",
  ]);
  assert.deepEqual(problems({ template: true, stream: [{ data: "fine" }, { data: { text: "{{#if}}" } }] }).length, 1);
  assert.match(
    problems({ template: true, stream: [{ data: "fine" }, { data: { text: "{{#if}}" } }] })[0],
    /^routes\[0\]: stream\[1\]\.data\.text: broken template: /,
  );
});

Deno.test("stream bounds: an event over 1 MiB on the wire and a stream over 10,000 events are refused at load", () => {
  const errors: string[] = [];
  // "data: " + text + "\n\n": exactly one byte over the bound.
  const big = "x".repeat(MAX_STREAM_EVENT_BYTES - 8 + 1);
  assert.equal(checkStream([{ data: "x".repeat(MAX_STREAM_EVENT_BYTES - 8) }], "stream", errors)?.length, 1);
  assert.deepEqual(errors, []);
  assert.equal(checkStream([{ data: "ok" }, { data: big }], "stream", errors), undefined);
  assert.deepEqual(errors, [
    `stream[1] is ${
      MAX_STREAM_EVENT_BYTES + 1
    } bytes on the wire; an event may be at most ${MAX_STREAM_EVENT_BYTES} bytes: split it into several`,
  ]);
  errors.length = 0;
  const many = Array.from({ length: MAX_STREAM_EVENTS + 1 }, () => ({ data: "x" }));
  assert.equal(checkStream(many, "stream", errors), undefined);
  assert.deepEqual(errors, ["stream holds 10001 events; a stream holds at most 10000"]);
});

Deno.test("builder .stream() checks at once with the builder's names; the stub carries the events", () => {
  assert.throws(
    () => post("/chat").stream([{ data: "x", delayMs: -5 }]),
    {
      message:
        'post("/chat").stream(): stream[0].delayMs must be milliseconds from 0 to 2147483647, got -5; write .stream([{ data: { n: 1 }, delayMs: 100 }, { data: "[DONE]" }])',
    },
  );
  const stub = post("/chat").stream([{ data: { n: 1 }, delayMs: 5 }, { data: "[DONE]" }]).toStub();
  assert.deepEqual(stub.responses[0].stream, [{ data: { n: 1 }, delayMs: 5 }, { data: "[DONE]" }]);
  const seq = post("/chat").sequence({ status: 429 }, { stream: [{ data: "a", delayMs: 1 }] }).toStub();
  assert.deepEqual(seq.responses[1].stream, [{ data: "a", delayMs: 1 }]);
});

serverTest(
  "admin API: a stream stub is checked by the same validator and listed back in config form",
  async (server) => {
    const headers = { "content-type": "application/json" };
    const bad = await send(server, "POST", "/__stubtool__/stubs", {
      body: JSON.stringify({ method: "POST", path: "/chat", stream: [{ data: "x", evnt: "a" }] }),
      headers,
    });
    assert.equal(bad.status, 400);
    assert.match(bad.text, /stream\[0\]: unknown field 'evnt' \(did you mean 'event'\?\)/);
    const stream = [{ data: { n: 1 }, delay_ms: 5 }, { data: "[DONE]", event: "end" }];
    const good = await send(server, "POST", "/__stubtool__/stubs", {
      body: JSON.stringify({ id: "s", method: "POST", path: "/chat", stream }),
      headers,
    });
    assert.equal(good.status, 201);
    const listed = (await send(server, "GET", "/__stubtool__/stubs/s")).json;
    assert.deepEqual(listed.stream, stream);
    assert.deepEqual(listed.headers, { "content-type": "text/event-stream", "cache-control": "no-cache" });
  },
);
