// Floor for S1 with the work the contract asks of a stub server, on the node:http wire: node-bare
// kept plus, written by hand for speed and nothing else, what a stub server must do per request
// (stub_work.mjs: find the stub, count its hit, journal the request with its time, status and
// stub, fill `{id}` JSON-escaped). What S1 cannot pass on this wire without skipping required work.
//   deno run -A bench/servers/node_bare_stubs.mjs <port> <config.json>      (or: node …)
import { createServer } from "node:http";
import { readFileSync } from "node:fs";
import { stubWork } from "./stub_work.mjs";

const port = Number(process.argv[2] ?? 18080);
const work = stubWork(JSON.parse(readFileSync(process.argv[3], "utf8")).routes);

createServer((req, res) => {
  if (req.url === "/__stubtool__/health") {
    res.writeHead(200, { "content-type": "application/json" });
    return res.end('{"status":"ok"}');
  }
  const { status, type, text } = work(req.method, req.url, req.headers);
  res.writeHead(status, ["content-type", type, "content-length", String(Buffer.byteLength(text))]);
  res.end(text);
}).listen(port, "127.0.0.1");
