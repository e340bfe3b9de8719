// Baseline: bare Deno.serve with no router, answering GET /users/<id> with the same bytes
// stubtool's S1 stub produces. This is the ceiling for our code on this machine.
//   deno run -A bench/servers/deno_bare.ts <port> [config.json]
import { s1Body } from "../scenarios.ts";

const port = Number(Deno.args[0] ?? 18080);
// With a config path, read and parse it first and keep nothing: the least any server that
// loads that config must do before it listens (bench/run.ts's startup floor).
if (Deno.args[1]) JSON.parse(Deno.readTextFileSync(Deno.args[1]));
const headers = { "content-type": "application/json" };

Deno.serve({ hostname: "127.0.0.1", port, onListen() {} }, (request) => {
  const url = request.url;
  const path = url.slice(url.indexOf("/", url.indexOf("//") + 2));
  if (path.startsWith("/users/")) return new Response(s1Body(path.slice(7)), { headers });
  if (path === "/__stubtool__/health") return new Response('{"status":"ok"}', { headers });
  return new Response("not found", { status: 404 });
});
