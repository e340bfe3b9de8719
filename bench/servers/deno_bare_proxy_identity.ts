// Baseline for S8 as stubtool proxies on Deno: a bare Deno.serve proxy whose one fetch asks the
// upstream for `accept-encoding: identity` (Deno's fetch then hands the body over untouched).
//   deno run -A bench/servers/deno_bare_proxy_identity.ts <port> <upstream base URL>
const port = Number(Deno.args[0] ?? 18080);
const upstream = Deno.args[1];
const headers = { "accept-encoding": "identity" };

Deno.serve({ hostname: "127.0.0.1", port, onListen() {} }, (request) => {
  const url = request.url;
  const path = url.slice(url.indexOf("/", url.indexOf("//") + 2));
  if (path === "/__stubtool__/health") return new Response('{"status":"ok"}');
  return fetch(upstream + path, { headers, redirect: "manual" });
});
