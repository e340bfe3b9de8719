// Floor for S8 on the Deno.serve wire as the contract asks a proxy to forward (PRODUCT.md P12.1):
// bare Deno.serve + fetch that also does what every forwarding must — the request's hop-by-hop
// headers dropped, `host` the upstream's (fetch sets it) and `accept-encoding: identity`, a
// redirect passed on rather than followed, an abort handle per request (the handler timeout
// needs one; no timer is started here), the answer's hop-by-hop headers dropped, its body
// streamed — and nothing else a stub server does (no router, no journal, no counts).
//   deno run -A bench/servers/deno_bare_proxy_kept.ts <port> <upstream base URL>
const port = Number(Deno.args[0] ?? 18080);
const upstream = Deno.args[1];
/** Hop-by-hop headers (RFC 9110 §7.6.1), and those the proxy sets itself. */
const HOP = new Set(["connection", "keep-alive", "proxy-connection", "te", "trailer", "transfer-encoding", "upgrade"]);

Deno.serve({ hostname: "127.0.0.1", port, onListen() {} }, async (request) => {
  const url = request.url;
  const path = url.slice(url.indexOf("/", url.indexOf("//") + 2));
  if (path === "/__stubtool__/health") return new Response('{"status":"ok"}');
  const headers: Record<string, string> = {};
  for (const [name, value] of request.headers) if (!HOP.has(name) && name !== "host") headers[name] = value;
  headers["accept-encoding"] = "identity";
  const answer = await fetch(upstream + path, {
    headers,
    redirect: "manual",
    signal: new AbortController().signal,
  });
  const back: Record<string, string> = {};
  for (const [name, value] of answer.headers) if (!HOP.has(name)) back[name] = value;
  return new Response(answer.body, { status: answer.status, headers: back });
});
