/**
 * WebSocket upgrades on `node:http`: an `upgrade` request goes through the same handler as
 * any request (matching, counting, journaling); when the handler answers 101 with a session,
 * `ws` performs the handshake (`handleUpgrade`, with `maxPayload` as the message bound) and
 * the session gets the socket's messages. Any other answer is written to the raw socket,
 * which then closes.
 * @module
 */

import type { IncomingMessage } from "node:http";
import { STATUS_CODES } from "node:http";
import type { Socket } from "node:net";
import type { WebSocket, WebSocketServer } from "ws";
import { messageOf } from "../../error_message.ts";
import { errorAnswer, type Respond } from "../handler.ts";
import type { WebSocketSession } from "../incoming.ts";
import { NodeIncoming, requestTarget } from "./node_incoming.ts";
import type { ServedHandler } from "./types.ts";

let library: Promise<typeof import("ws")> | undefined;

/**
 * `ws`, loaded once (it costs every start tens of milliseconds): before the server listens when
 * its stubs answer WebSockets, when the first such stub is added otherwise.
 */
export function loadWebSockets(): Promise<typeof import("ws")> {
  return library ??= import("ws");
}

/** Writes a plain HTTP answer on a socket that asked for an upgrade, then closes it. */
function writeRaw(socket: Socket, status: number, headers: Record<string, string>, body: unknown): void {
  if (socket.destroyed) return;
  const text = typeof body === "string" ? body : body instanceof Uint8Array ? Buffer.from(body) : "";
  const length = typeof text === "string" ? Buffer.byteLength(text) : text.byteLength;
  let head = `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? "Unknown"}\r\n`;
  for (const [name, value] of Object.entries(headers)) head += `${name}: ${value}\r\n`;
  head += `content-length: ${length}\r\nconnection: close\r\n\r\n`;
  socket.end(Buffer.concat([Buffer.from(head), typeof text === "string" ? Buffer.from(text) : text]));
}

/** Hands the `ws` socket's events to the session. */
function attach(ws: WebSocket, session: WebSocketSession): void {
  ws.on("error", () => {}); // a broken client (too large a message, a bad frame) is closed by ws
  ws.on("message", (data, isBinary) => {
    const bytes = Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data as ArrayBuffer);
    session.message(isBinary ? new Uint8Array(bytes) : bytes.toString("utf8"));
  });
  ws.on("close", () => session.close());
  session.open({
    send: (text) => ws.send(text),
    close: (code, reason) => ws.close(code, reason),
    terminate: () => ws.terminate(),
    get bufferedAmount() {
      return ws.bufferedAmount;
    },
  });
}

/**
 * Keeps `server`'s `upgrade` listener registered only while some stub answers WebSockets
 * (call the result before and after each request). `node:http` hands every request that asks
 * for an upgrade to that listener, parser detached; without one, an `Upgrade: h2c` request
 * (Java's `HttpClient` sends one with every request on `http://`) is the plain HTTP/1.1
 * request it also is, answered on a kept-alive connection. While a WebSocket stub exists,
 * such a request gets the 400 below instead.
 */
export function upgradesWhileNeeded(
  server: {
    on(event: "upgrade", listener: UpgradeListener): unknown;
    off(event: "upgrade", listener: UpgradeListener): unknown;
  },
  handler: ServedHandler,
): () => void {
  const listener = upgradeListener(handler);
  let listening = false;
  return () => {
    const wanted = handler.hasWebSocketStubs === true;
    if (wanted === listening) return;
    if (wanted) {
      loadWebSockets().catch(() => {}); // a failed load is answered at the handshake
      server.on("upgrade", listener);
    } else server.off("upgrade", listener);
    listening = wanted;
  };
}

/** What `node:http` calls with a request that asks for an upgrade. */
type UpgradeListener = (req: IncomingMessage, socket: Socket, head: Buffer) => void;

/**
 * The `upgrade` listener for a `node:http` server serving `handler`: WebSocket requests go
 * through the handler; other upgrades (h2c) are refused with 400.
 */
export function upgradeListener(
  handler: ServedHandler,
): (req: IncomingMessage, socket: Socket, head: Buffer) => void {
  let server: Promise<WebSocketServer> | undefined;
  const handshaker = () =>
    server ??= loadWebSockets().then(({ WebSocketServer }) =>
      new WebSocketServer({
        noServer: true,
        maxPayload: handler.websocketLimits?.maxMessage,
        // Only what a client writes: compression would let a small frame become a large message.
        perMessageDeflate: false,
      })
    );
  return (req, socket, head) => {
    socket.on("error", () => {});
    const target = requestTarget(req.url);
    const fail = (status: number, message: string) => {
      const [answer, body] = errorAnswer(status, message);
      writeRaw(socket, status, answer.headers, body);
    };
    if (target === undefined) return fail(400, `bad request target '${req.url}'`);
    if ((req.headers.upgrade ?? "").toLowerCase() !== "websocket") {
      return fail(400, `upgrade to '${req.headers.upgrade}' is not supported (only websocket)`);
    }
    const incoming = new NodeIncoming(req, target);
    let session: WebSocketSession | undefined;
    incoming.upgrade = (given) => session = given;
    const respond: Respond<void> = (answer, body) => {
      if (answer.status === 101 && session) {
        const started = session;
        handshaker().then(
          (server) => server.handleUpgrade(req, socket, head, (ws) => attach(ws, started)),
          (error) => fail(500, `internal error: ${messageOf(error)}`),
        );
        return;
      }
      const headers: Record<string, string> = { ...answer.headers };
      for (const [name, values] of Object.entries(answer.lists ?? {})) headers[name] = values.join(", ");
      writeRaw(socket, answer.status, headers, body);
    };
    try {
      const result = handler.handle(incoming, respond);
      if (result instanceof Promise) {
        result.catch((error) => fail(500, `internal error: ${messageOf(error)}`));
      }
    } catch (error) {
      fail(500, `internal error: ${messageOf(error)}`);
    }
  };
}
