// The node:http request as the handler reads it: which header lines it reports repeated.
import assert from "node:assert/strict";
import type { IncomingMessage } from "node:http";
import { NodeIncoming } from "../src/server/adapters/node_incoming.ts";

const incoming = (headers: Record<string, string>, rawHeaders: string[]) =>
  new NodeIncoming({ method: "GET", headers, rawHeaders } as unknown as IncomingMessage, "/");

Deno.test("NodeIncoming.repeatsHeaders: a name on two lines (joined, or kept first as node does for From) is seen; one line each is not", () => {
  assert.equal(incoming({ host: "x", "x-tag": "a, b" }, ["Host", "x", "X-Tag", "a, b"]).repeatsHeaders(), false);
  assert.equal(
    incoming({ host: "x", "x-tag": "a, b" }, ["Host", "x", "X-Tag", "a", "x-tag", "b"]).repeatsHeaders(),
    true,
  );
  // node:http keeps only the first line of From, Authorization, Content-Type, … in its header object.
  assert.equal(incoming({ from: "a" }, ["From", "a", "From", "b"]).repeatsHeaders(), true);
});
