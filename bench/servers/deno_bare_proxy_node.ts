// Baseline for S8 the way stubtool proxied before: a bare Deno.serve proxy that forwards with
// node:http (Deno's Node layer) and streams the upstream's body back.
//   deno run -A bench/servers/deno_bare_proxy_node.ts <port> <upstream base URL>
import { request } from "node:http";

const port = Number(Deno.args[0] ?? 18080);
const upstream = Deno.args[1];

Deno.serve({ hostname: "127.0.0.1", port, onListen() {} }, (incoming) => {
  const url = incoming.url;
  const path = url.slice(url.indexOf("/", url.indexOf("//") + 2));
  if (path === "/__stubtool__/health") return new Response('{"status":"ok"}');
  return new Promise<Response>((resolve, reject) => {
    request(upstream + path, (res) => {
      const headers = new Headers();
      for (let i = 0; i < res.rawHeaders.length; i += 2) headers.append(res.rawHeaders[i], res.rawHeaders[i + 1]);
      headers.delete("connection");
      headers.delete("keep-alive");
      headers.delete("transfer-encoding");
      const body = new ReadableStream<Uint8Array>({
        start(controller) {
          res.on("data", (chunk: Uint8Array) => controller.enqueue(new Uint8Array(chunk)));
          res.on("end", () => controller.close());
          res.on("error", (error) => controller.error(error));
        },
      });
      resolve(new Response(body, { status: res.statusCode, headers }));
    }).on("error", reject).end();
  });
});
