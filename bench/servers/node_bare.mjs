// Baseline for the Node adapter: bare node:http answering GET /users/<id> with the same
// bytes as stubtool's S1 stub, no router.
//   node bench/servers/node_bare.mjs <port>
import { createServer } from "node:http";

const port = Number(process.argv[2] ?? 18080);
const body = (id) => `{"id":"${id}","name":"Ada","profile":{"roles":["admin","dev"],"links":{"self":"/users/${id}"}}}`;

createServer((req, res) => {
  if (req.url.startsWith("/users/")) {
    // Same framing as stubtool: content-length, not chunked.
    const text = body(req.url.slice(7));
    res.writeHead(200, ["content-type", "application/json", "content-length", String(Buffer.byteLength(text))]);
    res.end(text);
  } else if (req.url === "/__stubtool__/health") {
    res.writeHead(200, { "content-type": "application/json" });
    res.end('{"status":"ok"}');
  } else {
    res.writeHead(404);
    res.end("not found");
  }
}).listen(port, "127.0.0.1");
