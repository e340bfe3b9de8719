/**
 * Runs the handler on `Deno.serve`. The only file of the server that touches `Deno.*`.
 * @module
 */

import { messageOf } from "../../error_message.ts";
import { DEFAULT_MAX_BODY, jsonError } from "../handler.ts";
import { requestIncoming, unreadBodyLimit } from "../incoming.ts";
import { toResponse } from "../response.ts";
import type { WebSocketSession } from "../incoming.ts";
import type { Listener, ListenOptions, ServedHandler } from "./types.ts";

/** After the shutdown grace, how long cut-short answers get to reach their clients before the stop ends anyway. */
const FLUSH_MS = 1_000;

/** Serves the handler with `Deno.serve`; throws when the port cannot be bound. */
export function serve(
  handler: ServedHandler,
  { port, hostname, tls, unreadBodyLimit: limit = unreadBodyLimit(DEFAULT_MAX_BODY) }: ListenOptions,
): Promise<Listener> {
  // An answer can come before the request body is in (a 413, a stub that does not need the
  // body): what is left of it is read and dropped meanwhile, up to a limit. Deno.serve
  // otherwise stops reading, and a client that sends its whole body before reading (most
  // do) waited for ever, or got a reset instead of the answer.
  const maxMessage = handler.websocketLimits?.maxMessage;
  // The client's address from Deno.serve's second argument (typed by its shape: the npm build knows no Deno types).
  const fetch = (request: Request, info?: { remoteAddr?: { hostname?: string } }): Response | Promise<Response> => {
    const websocket = request.headers.get("upgrade")?.toLowerCase() === "websocket";
    // An upgraded request's headers can no longer be read (the journal reads them later): a copy's can.
    const incoming = requestIncoming(
      websocket ? new Request(request.url, { method: request.method, headers: new Headers(request.headers) }) : request,
      info?.remoteAddr?.hostname,
    );
    let upgraded: Response | undefined;
    if (websocket) {
      // The handler decides (a websocket: stub answers 101); the socket is made only then.
      incoming.upgrade = (session) => {
        const { socket, response } = Deno.upgradeWebSocket(request);
        attach(socket, session, maxMessage);
        upgraded = response;
      };
    }
    return handler.handle(incoming, (head, body) => {
      if (head.status === 101 && upgraded) return upgraded;
      incoming.discardRest(limit);
      return toResponse(head, body);
    });
  };
  const server = Deno.serve({
    port,
    hostname,
    // With a certificate Deno.serve speaks TLS, and HTTP/2 to clients that offer it (ALPN).
    ...(tls ? { cert: tls.cert, key: tls.key } : {}),
    onListen: () => {},
    onError: (error) => jsonError(500, `internal error: ${messageOf(error)}`),
  }, fetch);
  return Promise.resolve({
    port: server.addr.port,
    releaseMemory: trimMallocHeap,
    async close(graceMs, onGraceEnd) {
      // Deno.serve's shutdown() waits for every connection to end, and it cannot drop one: a
      // client still uploading a body (already answered: the body read ends at shutdown) or a
      // TLS connection that never starts its handshake held it forever. So the stop ends a
      // second after the grace whatever is left; the port is free by then (the listener
      // closes first), and what is left no longer keeps the process alive.
      let flushTimer: ReturnType<typeof setTimeout> | undefined;
      let giveUp = () => {};
      const givenUp = new Promise<void>((resolve) => giveUp = resolve);
      const graceTimer = setTimeout(() => {
        onGraceEnd();
        flushTimer = setTimeout(() => {
          server.unref();
          giveUp();
        }, FLUSH_MS);
      }, graceMs);
      try {
        await Promise.race([server.shutdown(), givenUp]);
      } finally {
        clearTimeout(graceTimer);
        clearTimeout(flushTimer);
      }
    },
  });
}

/**
 * Hands a Deno WebSocket's events to the session. Deno has no message bound of its own to
 * set: a message larger than `maxMessage` closes the connection with 1009 once it is in.
 */
function attach(socket: WebSocket, session: WebSocketSession, maxMessage = Infinity): void {
  socket.binaryType = "arraybuffer";
  socket.addEventListener("open", () =>
    session.open({
      send: (text) => socket.send(text),
      close: (code, reason) => socket.close(code, reason),
      // Deno's WebSocket has no way to drop the connection without a close frame.
      terminate: () => socket.close(1008, "not reading"),
      get bufferedAmount() {
        return socket.bufferedAmount;
      },
    }));
  socket.addEventListener("message", (event) => {
    const data = event.data;
    const size = typeof data === "string" ? data.length : (data as ArrayBuffer).byteLength;
    if (size > maxMessage) return socket.close(1009, "message too big");
    session.message(typeof data === "string" ? data : new Uint8Array(data as ArrayBuffer));
  });
  socket.addEventListener("close", () => session.close());
  socket.addEventListener("error", () => {});
}

/** glibc's `malloc_trim`, once opened; null when it cannot be (not Linux, not glibc, no FFI permission). */
let mallocTrim: ((pad: bigint) => number) | null | undefined;

/**
 * Calls glibc's `malloc_trim(0)`. Freed bodies leave holes in the middle of the C heap
 * (Deno's HTTP layer and ArrayBuffer contents live there), which glibc only gives back to
 * the OS when asked: after 7.7 MB bodies it kept 80 MB of RSS through every collection,
 * 11–13 MB with this. Needs FFI permission (`-A`, or `--allow-ffi`); without it, or off glibc,
 * it does nothing, and never prompts. The Node adapter uses it too when it runs under Deno.
 */
export function trimMallocHeap(): void {
  if (mallocTrim === undefined) {
    mallocTrim = null;
    try {
      if (Deno.build.os === "linux" && Deno.permissions.querySync({ name: "ffi" }).state === "granted") {
        const libc = Deno.dlopen("libc.so.6", { malloc_trim: { parameters: ["usize"], result: "i32" } });
        mallocTrim = libc.symbols.malloc_trim;
      }
    } catch { /* musl or no libc.so.6: nothing to trim with */ }
  }
  mallocTrim?.(0n);
}
