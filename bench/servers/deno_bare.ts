// Baseline: bare Deno.serve with no router, answering GET /users/<id> with the same bytes
// stubtool's S1 stub produces. This is the ceiling for our code on this machine.
//   deno run -A bench/servers/deno_bare.ts <port>
import { s1Body } from "../scenarios.ts";

const port = Number(Deno.args[0] ?? 18080);
const headers = { "content-type": "application/json" };

Deno.serve({ hostname: "127.0.0.1", port, onListen() {} }, (request) => {
  const url = request.url;
  const path = url.slice(url.indexOf("/", url.indexOf("//") + 2));
  if (path.startsWith("/users/")) return new Response(s1Body(path.slice(7)), { headers });
  if (path === "/__stubtool__/health") return new Response('{"status":"ok"}', { headers });
  return new Response("not found", { status: 404 });
});
