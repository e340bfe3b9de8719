// Floor for S1 and S7 on the node:http wire (stubtool's default, under Deno too): bare node:http
// that also keeps what the request journal keeps — every header and the body's exact bytes —
// and does nothing else a stub server does (no router, no conditions, no counts). The same
// floor as deno_bare_kept.ts, on the other wire. Given a config, it first does the start-up work
// a stub server cannot skip (start_work.mjs): the start-up floor.
//   deno run -A bench/servers/node_bare_kept.mjs <port> [config.json]      (or: node …)
import { createServer } from "node:http";
import { startWork } from "./start_work.mjs";

const port = Number(process.argv[2] ?? 18080);
const body = (id) => `{"id":"${id}","name":"Ada","profile":{"roles":["admin","dev"],"links":{"self":"/users/${id}"}}}`;
const decoder = new TextDecoder();
/** The last 500 requests, as a ring: what a journal of the default size holds. */
const kept = new Array(500);
let next = 0;

await startWork(process.argv[3]);
createServer((req, res) => {
  if (req.url === "/__stubtool__/health") {
    res.writeHead(200, { "content-type": "application/json" });
    return res.end('{"status":"ok"}');
  }
  const sent = { ...req.headers };
  if (req.url.startsWith("/users/")) {
    kept[next++ % kept.length] = sent;
    const text = body(req.url.slice(7));
    res.writeHead(200, ["content-type", "application/json", "content-length", String(Buffer.byteLength(text))]);
    return res.end(text);
  }
  // S7: the body's exact bytes, then its JSON.
  const chunks = [];
  req.on("data", (chunk) => chunks.push(chunk));
  req.on("end", () => {
    const bytes = Buffer.concat(chunks);
    const payload = JSON.parse(decoder.decode(bytes));
    kept[next++ % kept.length] = [sent, bytes];
    const text = JSON.stringify({ paid: payload.amount });
    res.writeHead(201, ["content-type", "application/json", "content-length", String(Buffer.byteLength(text))]);
    res.end(text);
  });
}).listen(port, "127.0.0.1");
