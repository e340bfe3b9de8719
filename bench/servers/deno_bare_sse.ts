// Baseline of the SSE figure (S11): bare Deno.serve answering GET /events with the same
// event-stream bytes as stubtool's stream stubs, one event per pull, as stubtool sends them;
// GET /first: one event at once, the next after SSE_FIRST_PAUSE_MS.
//   deno run -A bench/servers/deno_bare_sse.ts <port>
import { SSE_EVENTS, SSE_FIRST_PAUSE_MS, sseData } from "../scenarios.ts";

const port = Number(Deno.args[0] ?? 18080);
const encoder = new TextEncoder();
const events = Array.from({ length: SSE_EVENTS }, (_, n) => encoder.encode(`data: ${JSON.stringify(sseData(n))}\n\n`));
const headers = { "content-type": "text/event-stream", "cache-control": "no-cache" };

Deno.serve({ hostname: "127.0.0.1", port, onListen() {} }, (request) => {
  const url = request.url;
  const path = url.slice(url.indexOf("/", url.indexOf("//") + 2));
  if (path === "/events") {
    let next = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        controller.enqueue(events[next++].slice());
        if (next === events.length) controller.close();
      },
    }, { highWaterMark: 0 });
    return new Response(body, { headers });
  }
  if (path === "/first") {
    let timer: ReturnType<typeof setTimeout> | undefined;
    let sent = 0;
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        if (sent++ === 0) return controller.enqueue(events[0].slice());
        await new Promise((resolve) => timer = setTimeout(resolve, SSE_FIRST_PAUSE_MS));
        controller.enqueue(events[1].slice());
        controller.close();
      },
      cancel: () => clearTimeout(timer),
    }, { highWaterMark: 0 });
    return new Response(body, { headers });
  }
  if (path === "/__stubtool__/health") return new Response('{"status":"ok"}');
  return new Response("not found", { status: 404 });
});
