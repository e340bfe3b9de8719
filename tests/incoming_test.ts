// ChunkedBody, the body reader both adapters share: reading part of a body (the journal's
// first 64 KiB), then more, then all of it or a stream of it (a proxied upload), or dropping
// the rest of it after an early answer.
import assert from "node:assert/strict";
import { ChunkedBody, unreadBodyLimit } from "../src/server/incoming.ts";

/** A body of `size` bytes (byte i is i % 251), handed out in chunks of `chunk` bytes. */
function source(size: number, chunk: number): { body: Uint8Array; next: () => Promise<Uint8Array | null> } {
  const body = Uint8Array.from({ length: size }, (_, i) => i % 251);
  let at = 0;
  return {
    body,
    next: () => {
      if (at >= size) return Promise.resolve(null);
      const part = body.slice(at, at + chunk);
      at += chunk;
      return Promise.resolve(part);
    },
  };
}

async function drain(stream: ReadableStream<Uint8Array>): Promise<Uint8Array> {
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

for (const size of [1000, 300 * 1024, 1024 * 1024 + 7]) {
  Deno.test(`ChunkedBody (${size} bytes declared): a first part, then the whole, byte for byte`, async () => {
    const { body, next } = source(size, 16 * 1024 + 3);
    const reader = new ChunkedBody(next, size);
    const first = await reader.read(512);
    assert.deepEqual([first.bytes, first.complete], [body.subarray(0, 512), false]);
    const whole = await reader.read(size);
    assert.equal(whole.complete, true);
    assert.deepEqual(whole.bytes, body);
    const short = await reader.read(size - 1);
    assert.deepEqual([short.bytes, short.complete], [body.subarray(0, size - 1), false]);
  });

  Deno.test(`ChunkedBody (${size} bytes declared): a first part, then the rest as a stream, no byte more or less`, async () => {
    const { body, next } = source(size, 16 * 1024 + 3);
    const reader = new ChunkedBody(next, size);
    await reader.read(512);
    assert.deepEqual(await drain(reader.stream()), body);
  });
}

Deno.test("ChunkedBody: a body longer than declared keeps every byte it got", async () => {
  const { body, next } = source(400 * 1024, 64 * 1024);
  const reader = new ChunkedBody(next, 300 * 1024);
  // (The runtimes refuse such a request themselves; the reader still loses nothing.)
  const { bytes } = await reader.read(1024 * 1024);
  assert.deepEqual(bytes, body);
});

/** A source of `count` chunks of 64 KiB that counts how many were asked for; a quiet one never ends. */
function counted(count: number, quiet = false): { next: () => Promise<Uint8Array | null>; asked: () => number } {
  let asked = 0;
  const chunk = new Uint8Array(64 * 1024);
  return {
    next: () => {
      asked++;
      if (asked <= count) return Promise.resolve(chunk);
      return quiet ? new Promise(() => {}) : Promise.resolve(null);
    },
    asked: () => asked,
  };
}

Deno.test("the unread body limit is four times --max-body, at least 1 MiB (40 MiB by default)", () => {
  assert.equal(unreadBodyLimit(10 * 1024 * 1024), 40 * 1024 * 1024);
  assert.equal(unreadBodyLimit(1024), 1024 * 1024);
  assert.equal(unreadBodyLimit(0), 1024 * 1024);
});

Deno.test("ChunkedBody.discard: drops the rest after a first part, to the end, within the limit", async () => {
  const source = counted(10);
  const reader = new ChunkedBody(source.next, undefined);
  await reader.read(1000);
  assert.equal(await reader.discard(10 * 64 * 1024, 1_000), true);
  assert.equal(source.asked(), 11); // ten chunks, then the end
  assert.equal(reader.settled, true);
});

Deno.test("ChunkedBody.discard: stops asking once past the limit; a declared length past it after one chunk", async () => {
  const chunked = counted(100);
  assert.equal(await new ChunkedBody(chunked.next, undefined).discard(4 * 64 * 1024, 1_000), false);
  assert.equal(chunked.asked(), 5); // 5 × 64 KiB is past 4 × 64 KiB
  const declared = counted(100);
  assert.equal(await new ChunkedBody(declared.next, 100 * 64 * 1024).discard(4 * 64 * 1024, 1_000), false);
  assert.equal(declared.asked(), 1);
});

Deno.test("ChunkedBody.discard: gives up on a client that sends nothing more, or goes away", async () => {
  const quiet = counted(2, true);
  assert.equal(await new ChunkedBody(quiet.next, undefined).discard(1024 * 1024, 10), false);
  assert.equal(quiet.asked(), 3);
  const gone = new ChunkedBody(() => Promise.reject(new Error("the client closed the connection")), undefined);
  assert.equal(await gone.discard(1024 * 1024, 1_000), false);
});
