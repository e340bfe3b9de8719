// Baseline for S8: a bare Deno.serve proxy that answers each request with one fetch of the
// same path from the upstream.
//   deno run -A bench/servers/deno_bare_proxy.ts <port> <upstream base URL>
const port = Number(Deno.args[0] ?? 18080);
const upstream = Deno.args[1];

Deno.serve({ hostname: "127.0.0.1", port, onListen() {} }, (request) => {
  const url = request.url;
  const path = url.slice(url.indexOf("/", url.indexOf("//") + 2));
  if (path === "/__stubtool__/health") return new Response('{"status":"ok"}');
  return fetch(upstream + path);
});
