// Floor for S1 and S7: bare Deno.serve that also keeps what the request journal keeps —
// every header and the body's exact bytes — and does nothing else a stub server does (no
// router, no conditions, no counts). The gap between this and deno-bare / deno-bare json is
// what the runtime charges for reading a request that way, before any stubtool code runs.
// Given a config, it first does the start-up work a stub server cannot skip (start_work.mjs).
//   deno run -A bench/servers/deno_bare_kept.ts <port> [config.json]
import { s1Body } from "../scenarios.ts";
import { startWork } from "./start_work.mjs";

const port = Number(Deno.args[0] ?? 18080);
const headers = { "content-type": "application/json" };
const decoder = new TextDecoder();
/** The last 500 requests, as a ring: what a journal of the default size holds. */
const kept: unknown[] = new Array(500);
let next = 0;

await startWork(Deno.args[1]);
Deno.serve({ hostname: "127.0.0.1", port, onListen() {} }, async (request) => {
  const url = request.url;
  const path = url.slice(url.indexOf("/", url.indexOf("//") + 2));
  if (path === "/__stubtool__/health") return new Response('{"status":"ok"}', { headers });
  const sent = Object.fromEntries(request.headers);
  if (path.startsWith("/users/")) {
    kept[next++ % kept.length] = sent;
    return new Response(s1Body(path.slice(7)), { headers });
  }
  // Exact bytes (a journal, body_contains and record need them): arrayBuffer(), not json().
  const bytes = new Uint8Array(await request.arrayBuffer());
  const payload = JSON.parse(decoder.decode(bytes));
  kept[next++ % kept.length] = [sent, bytes];
  return new Response(JSON.stringify({ paid: payload.amount }), { status: 201, headers });
});
