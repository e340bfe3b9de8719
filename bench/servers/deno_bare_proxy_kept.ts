// Floor for S8 on the Deno.serve wire as the contract asks a proxy to forward (PRODUCT.md P12.1):
// bare Deno.serve + fetch that also does what every forwarding must — the request's hop-by-hop
// headers dropped, `host` the upstream's (fetch sets it) and `accept-encoding: identity`, a
// redirect passed on rather than followed, an abort handle per request (the handler timeout
// needs one; no timer is started here), the answer's hop-by-hop headers dropped, its body
// streamed — and keeps what the request journal keeps of a request without a body (every
// header, as deno_bare_kept.ts does), and nothing else a stub server does (no router, no counts).
//   deno run -A bench/servers/deno_bare_proxy_kept.ts <port> <upstream base URL>
const port = Number(Deno.args[0] ?? 18080);
const upstream = Deno.args[1];
/** Hop-by-hop headers (RFC 9110 §7.6.1), and those the proxy sets itself. */
const HOP = new Set(["connection", "keep-alive", "proxy-connection", "te", "trailer", "transfer-encoding", "upgrade"]);
/** The last 500 requests, as a ring: what a journal of the default size holds. */
const kept: unknown[] = new Array(500);
let next = 0;

Deno.serve({ hostname: "127.0.0.1", port, onListen() {} }, async (request) => {
  const url = request.url;
  const path = url.slice(url.indexOf("/", url.indexOf("//") + 2));
  if (path === "/__stubtool__/health") return new Response('{"status":"ok"}');
  const sent = Object.fromEntries(request.headers);
  kept[next++ % kept.length] = sent;
  const headers: Record<string, string> = {};
  for (const name in sent) if (!HOP.has(name) && name !== "host") headers[name] = sent[name];
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
