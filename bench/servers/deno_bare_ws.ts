// Baseline of the WebSocket figure (S13): bare Deno.serve + Deno.upgradeWebSocket answering every
// `ping` on GET /echo with `pong`, as the `websocket:` stub of bench/scenarios.ts makeWsConfig does.
//   deno run -A bench/servers/deno_bare_ws.ts <port>
const port = Number(Deno.args[0] ?? 18080);

Deno.serve({ hostname: "127.0.0.1", port, onListen() {} }, (request) => {
  const url = request.url;
  const path = url.slice(url.indexOf("/", url.indexOf("//") + 2));
  if (path === "/echo" && request.headers.get("upgrade")?.toLowerCase() === "websocket") {
    const { socket, response } = Deno.upgradeWebSocket(request);
    socket.onmessage = (event) => {
      if (event.data === "ping") socket.send("pong");
    };
    return response;
  }
  if (path === "/__stubtool__/health") return new Response('{"status":"ok"}');
  return new Response("not found", { status: 404 });
});
