// Floor for S8 on the node:http wire (stubtool's default, under Deno too): a bare node:http
// server that answers each request with one `fetch` of the same path from the upstream and
// writes the upstream's status, headers and body back. The same as deno_bare_proxy.ts, on the
// other wire.
//   deno run -A bench/servers/node_bare_proxy.mjs <port> <upstream base URL>
import { createServer } from "node:http";

const port = Number(process.argv[2] ?? 18080);
const upstream = process.argv[3];
/** Hop-by-hop headers the answer does not forward (the wire writes its own framing). */
const HOP = new Set(["connection", "keep-alive", "transfer-encoding", "content-length"]);

createServer(async (req, res) => {
  if (req.url === "/__stubtool__/health") {
    res.writeHead(200, { "content-type": "application/json" });
    return res.end('{"status":"ok"}');
  }
  try {
    const answer = await fetch(upstream + req.url);
    const bytes = new Uint8Array(await answer.arrayBuffer());
    const flat = [];
    for (const [name, value] of answer.headers) if (!HOP.has(name)) flat.push(name, value);
    flat.push("content-length", String(bytes.byteLength));
    res.writeHead(answer.status, flat);
    res.end(bytes);
  } catch {
    res.writeHead(502);
    res.end();
  }
}).listen(port, "127.0.0.1");
