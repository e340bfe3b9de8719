/** The event-stream wire format: events read back from a body only when encoding them again gives the same bytes. */
import assert from "node:assert/strict";
import { parseSseEvents, sseEvent } from "../src/util/sse.ts";

Deno.test("parseSseEvents: events written as sseEvent writes them come back with their byte ends", () => {
  const text = "event: note\nid: 7\nretry: 50\ndata: é\ndata: b\n\ndata: \n\n";
  assert.deepEqual(parseSseEvents(text), [
    { event: "note", id: "7", retry: 50, data: "é\nb", end: 46 },
    { data: "", end: 54 },
  ]);
  assert.equal(new TextEncoder().encode(text).byteLength, 54);
  const events = parseSseEvents(text)!;
  assert.equal(events.map(({ end: _, ...fields }) => sseEvent(fields)).join(""), text);
});

Deno.test("parseSseEvents: a body that would not re-encode to the same bytes is refused", () => {
  for (
    const text of [
      ": ping\n\ndata: x\n\n", // comment
      "data: x\r\n\r\n", // CRLF
      "data:x\n\n", // no space after the colon
      "data: x\nevent: e\n\n", // fields in another order
      "id: 1\n\n", // no data
      "event: \ndata: x\n\n", // empty event type (a stub cannot write it)
      "id: a\rb\ndata: x\n\n", // CR inside an id
      "retry: soon\ndata: x\n\n", // retry not a number
      "data: x\n\ndata: y\n", // unfinished last event
      "data: x\n\n\ndata: y\n\n", // a stray blank line
      "",
    ]
  ) assert.equal(parseSseEvents(text), undefined, JSON.stringify(text));
});
