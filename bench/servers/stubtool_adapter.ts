// stubtool's default wire (src/server/adapters/node.ts) serving a trivial handler that does what
// node_bare_kept.mjs does for S1 — keep the request's headers in a ring of 500, answer the same
// JSON — and nothing a stub server does (no router, no counts, no journal record). Side by side
// with node-bare kept it shows what the adapter costs; stubtool 20 beside it, what the handler does.
//   deno run -A bench/servers/stubtool_adapter.ts <port>
import { serve } from "../../src/server/adapters/node.ts";
import type { ResponseHead } from "../../src/server/response.ts";

const port = Number(Deno.args[0] ?? 18080);
const body = (id: string) =>
  `{"id":"${id}","name":"Ada","profile":{"roles":["admin","dev"],"links":{"self":"/users/${id}"}}}`;
const json: ResponseHead = { status: 200, headers: { "content-type": "application/json" } };
/** The last 500 requests' headers, as a ring: what a journal of the default size holds. */
const kept = new Array(500);
let next = 0;

await serve({
  fetch: () => new Response(null, { status: 501 }),
  handle(incoming, respond) {
    if (incoming.target === "/__stubtool__/health") return respond(json, '{"status":"ok"}');
    kept[next++ % kept.length] = incoming.headerSource();
    return respond(json, body(incoming.target.slice(7)));
  },
}, { port, hostname: "127.0.0.1" });
