// Baseline for S7: bare Deno.serve that reads and parses the JSON body of POST /payments and
// answers with fixed bytes; what any server that looks inside the body must do at least.
//   deno run -A bench/servers/deno_bare_json.ts <port>
const port = Number(Deno.args[0] ?? 18080);
const headers = { "content-type": "application/json" };

Deno.serve({ hostname: "127.0.0.1", port, onListen() {} }, async (request) => {
  const url = request.url;
  const path = url.slice(url.indexOf("/", url.indexOf("//") + 2));
  if (path === "/__stubtool__/health") return new Response('{"status":"ok"}', { headers });
  const payload = await request.json();
  request.headers.get("x-api-version");
  return new Response(JSON.stringify({ paid: payload.amount }), { status: 201, headers });
});
