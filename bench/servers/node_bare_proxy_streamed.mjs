// Floor for S8 on the node:http wire as the contract asks a proxy to answer: the upstream's
// body "comes back streamed" (PRODUCT.md P12), so this bare node:http server passes the fetched
// body on chunk by chunk as it arrives, instead of reading it whole (node_bare_proxy.mjs).
//   deno run -A bench/servers/node_bare_proxy_streamed.mjs <port> <upstream base URL>
import { createServer } from "node:http";

const port = Number(process.argv[2] ?? 18080);
const upstream = process.argv[3];
/** Hop-by-hop headers the answer does not forward (the wire writes its own framing). */
const HOP = new Set(["connection", "keep-alive", "transfer-encoding"]);

createServer(async (req, res) => {
  if (req.url === "/__stubtool__/health") {
    res.writeHead(200, { "content-type": "application/json" });
    return res.end('{"status":"ok"}');
  }
  try {
    const answer = await fetch(upstream + req.url);
    const flat = [];
    for (const [name, value] of answer.headers) if (!HOP.has(name)) flat.push(name, value);
    res.writeHead(answer.status, flat);
    if (answer.body) { for await (const chunk of answer.body) res.write(chunk); }
    res.end();
  } catch {
    if (!res.headersSent) res.writeHead(502);
    res.end();
  }
}).listen(port, "127.0.0.1");
