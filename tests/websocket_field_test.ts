/** The `websocket:` field: every problem named at its place, with did-you-mean; the builder and the admin API say the same. */
import assert from "node:assert/strict";
import { get } from "../mod.ts";
import { validateStub } from "../src/stubs/validate.ts";
import { send, serverTest } from "./_http.ts";

Deno.test("websocket: each problem names its place and the fix", () => {
  const { errors } = validateStub({
    method: "POST",
    path: "/ws",
    body: "x",
    fault: "disconnect",
    websocket: {
      on_mesage: [],
      on_connect: [{ send: "hi", delay_ms: -1 }],
      on_message: [{ match: { regex: "(" }, send: [{ jsn: 1 }] }, { send: "x" }, {
        match: { absent: true },
        send: "y",
      }],
      close: { code: 1005, after_ms: "soon" },
    },
  });
  assert.deepEqual(errors, [
    "websocket: unknown field 'on_mesage' (did you mean 'on_message'?)",
    "websocket.on_connect[0].delay_ms must be milliseconds from 0 to 2147483647, got -1",
    'websocket.on_message[0].match regex "(" is not a valid JavaScript regular expression: Unterminated group; or {json: {…}} for a JSON message',
    "websocket.on_message[0].send[0] must be text or {json: …} (a JSON value sent as JSON), got a mapping",
    "websocket.on_message[1].match is required: a text pattern ('ping', {regex: …}) or {json: {…}}",
    "websocket.on_message[2].match: a message is always there and is one value; use text, {regex}, {contains}… or {json}",
    "websocket.close.code must be a close code a server may send (1000–1003, 1007–1014, 3000–4999), got 1005",
    'websocket.close.after_ms must be milliseconds from 0 to 2147483647, got "soon"',
    "a websocket stub answers with its session (the upgrade, then messages); remove body (pace messages with delay_ms)",
    "websocket applies to GET stubs (a WebSocket opens with a GET request), got method POST",
    "fault applies to an HTTP answer, not to a websocket session; remove it",
  ]);
});

Deno.test("websocket: a message larger than 1 MiB is refused at load; a broken template names its place", () => {
  assert.deepEqual(
    validateStub({ method: "GET", path: "/ws", websocket: { on_connect: [{ send: "x".repeat(1024 * 1024 + 1) }] } })
      .errors,
    ["websocket.on_connect[0].send is 1048577 bytes; a message may be at most 1048576 bytes: split it into several"],
  );
  const { errors } = validateStub({
    method: "GET",
    path: "/ws",
    template: true,
    websocket: { on_message: [{ match: "x", send: [{ json: { a: "{{#if}}" } }] }] },
  });
  assert.equal(errors.length, 1);
  assert.match(errors[0], /^websocket\.on_message\[0\]\.send\[0\]\.json\.a: broken template: /);
});

Deno.test("the builder's .websocket() refuses a bad session at once, in its own words", () => {
  assert.throws(
    () => get("/ws").websocket({ onConnect: [{ send: "hi", delayMs: -5 }] }),
    /websocket\(\).*websocket\.onConnect\[0\]\.delayMs must be milliseconds/,
  );
});

serverTest(
  "the admin API adds a websocket stub through the same validator and lists it back in config form",
  async (server) => {
    const refused = await send(server, "POST", "/__stubtool__/stubs", {
      body: JSON.stringify({ method: "GET", path: "/ws", websocket: { on_message: [{ mach: "ping" }] } }),
    });
    assert.equal(refused.status, 400);
    assert.match(refused.text, /websocket\.on_message\[0\]: unknown field 'mach' \(did you mean 'match'\?\)/);
    const stub = {
      method: "GET",
      path: "/ws",
      websocket: {
        on_connect: [{ send: ["hi"], delay_ms: 5 }],
        on_message: [{ match: { json: { type: "ping" } }, send: [{ json: { type: "pong" } }] }],
        close: { code: 1000, after_ms: 1000 },
      },
    };
    assert.equal((await send(server, "POST", "/__stubtool__/stubs", { body: JSON.stringify(stub) })).status, 201);
    const listed = (await send(server, "GET", "/__stubtool__/stubs")).json as { stubs: Record<string, unknown>[] };
    assert.deepEqual(listed.stubs[0].websocket, stub.websocket);
  },
);
