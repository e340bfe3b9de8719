/**
 * Runs the handler on `node:http`: each IncomingMessage is read through a small
 * {@link Incoming} view and the answer is written straight to the ServerResponse, with no
 * fetch `Request`/`Response` per request (they cost more than the rest of the work). Works on Node ≥ 20 and under Deno's Node compatibility. Nothing a
 * client does (aborting, a malformed request, oversized headers) escapes as an exception.
 * @module
 */

import { messageOf } from "../../error_message.ts";
import { createServer, type IncomingMessage, ServerResponse, STATUS_CODES } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { type AnswerBody, DEFAULT_MAX_BODY, errorAnswer, type Respond } from "../handler.ts";
import { unreadBodyLimit } from "../incoming.ts";
import { HEAD_FIRST, type ResponseHead } from "../response.ts";
import { GARBAGE, WIRE_FAULTS, type WireFault } from "../answers/faults.ts";
import { NodeIncoming, requestTarget } from "./node_incoming.ts";
import { loadWebSockets, upgradeListener, upgradesWhileNeeded } from "./node_websocket.ts";
import type { Listener, ListenOptions, ServedHandler } from "./types.ts";

/** After the shutdown grace, how long cut-short responses get to reach their clients. */
const FLUSH_MS = 1_000;
/** A {@link Respond} that writes the answer to `res` at once: head, content-length, body. */
function writeTo(
  res: ServerResponse,
  head: boolean,
  closeConnection: (status: number) => boolean,
  http2 = false,
): Respond<void> {
  return (answer, body) => {
    if (res.destroyed || res.headersSent) return; // The client went away meanwhile.
    const flat: string[] = [];
    for (const name in answer.headers) flat.push(name, answer.headers[name]);
    if (answer.lists) {
      for (const name in answer.lists) {
        for (const value of answer.lists[name]) flat.push(name, value);
      }
    }
    if (http2) return writeHttp2(res, answer.status, flat, head, body);
    const fault = body instanceof ReadableStream ? WIRE_FAULTS.get(body) : undefined;
    if (fault !== undefined) return sendFault(res, fault, answer, flat);
    // An empty answer says so (rather than going out chunked); HEAD, 204 and 304 carry no length of their own.
    if (typeof body === "string") flat.push("content-length", String(Buffer.byteLength(body)));
    else if (body instanceof Uint8Array) flat.push("content-length", String(body.byteLength));
    else if (body === null && !head && answer.status !== 204 && answer.status !== 304) {
      flat.push("content-length", "0");
    }
    if (closeConnection(answer.status)) flat.push("connection", "close");
    if (answer.statusText !== undefined) res.writeHead(answer.status, answer.statusText, flat);
    else res.writeHead(answer.status, flat);
    if (body instanceof ReadableStream) {
      if (HEAD_FIRST.has(body)) res.flushHeaders();
      return void pipeStream(body, res);
    }
    res.end(body ?? undefined);
  };
}

/**
 * Sends a wire fault on the answer's socket, bypassing the HTTP writer: `reset` (a TCP reset,
 * no byte), `empty` (a clean close, no byte), `malformed_chunk` (the status line and headers
 * of a chunked answer, then bytes that are no chunk, then a close), `random_then_close`
 * (bytes that are not HTTP, then a close).
 */
function sendFault(res: ServerResponse, fault: WireFault, answer: ResponseHead, flat: string[]): void {
  const socket = res.socket as (Socket & { resetAndDestroy(): Socket }) | null;
  res.on("error", () => {});
  if (!socket) return void res.destroy();
  if (fault === "reset") return void socket.resetAndDestroy();
  if (fault === "empty") return void socket.end();
  if (fault === "random_then_close") return void socket.end(GARBAGE, "latin1");
  let head = `HTTP/1.1 ${answer.status} ${answer.statusText ?? STATUS_CODES[answer.status] ?? "unknown"}\r\n`;
  for (let i = 0; i < flat.length; i += 2) {
    if (!/^(content-length|transfer-encoding)$/i.test(flat[i])) head += `${flat[i]}: ${flat[i + 1]}\r\n`;
  }
  socket.end(`${head}transfer-encoding: chunked\r\n\r\n${GARBAGE}`, "latin1");
}

/** Writes an answer on an HTTP/2 stream: a headers object (repeated names as lists), no `connection`. */
function writeHttp2(res: ServerResponse, status: number, flat: string[], head: boolean, body: AnswerBody): void {
  const headers: Record<string, string | string[]> = Object.create(null);
  for (let i = 0; i < flat.length; i += 2) {
    const name = flat[i].toLowerCase();
    if (name === "connection" || name === "keep-alive" || name === "transfer-encoding") continue;
    const existing = headers[name];
    headers[name] = existing === undefined
      ? flat[i + 1]
      : [...(Array.isArray(existing) ? existing : [existing]), flat[i + 1]];
  }
  if (typeof body === "string") headers["content-length"] = String(Buffer.byteLength(body));
  else if (body instanceof Uint8Array) headers["content-length"] = String(body.byteLength);
  res.writeHead(status, headers);
  if (body instanceof ReadableStream) return void pipeStream(body, res);
  res.end(head ? undefined : body ?? undefined);
}

/**
 * Writes a stream to `res` chunk by chunk, waiting for the socket to drain before asking
 * for the next, so a client that does not read holds one chunk, not the whole answer.
 * A client that leaves cancels the stream.
 */
async function pipeStream(stream: ReadableStream<Uint8Array<ArrayBuffer>>, res: ServerResponse): Promise<void> {
  const reader = stream.getReader();
  const gone = () => void reader.cancel().catch(() => {});
  res.on("close", gone);
  /** Resolves once what was written so far has reached the socket. */
  let flushed: Promise<void> = Promise.resolve();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (res.destroyed) return;
      flushed = new Promise<void>((resolve) => res.write(value, () => resolve()));
      if (res.writableNeedDrain) {
        // Both listeners go after either fires: a long stream waits for drain many times.
        await new Promise<void>((resolve) => {
          const done = () => {
            res.off("drain", done).off("close", done);
            resolve();
          };
          res.once("drain", done).once("close", done);
        });
      }
    }
    res.end();
  } catch {
    // The source failed mid-answer (a broken upstream, a stub's fault): what was sent goes
    // out, then the connection closes, so the client cannot take a cut body for a whole one.
    await flushed;
    res.destroy();
  } finally {
    res.off("close", gone);
  }
}

const CLIENT_ERRORS: Record<string, [status: number, reason: string, message: string]> = {
  HPE_HEADER_OVERFLOW: [431, "Request Header Fields Too Large", "request headers are too large"],
  ERR_HTTP_REQUEST_TIMEOUT: [408, "Request Timeout", "the request took too long to arrive"],
};

/** Answers a request Node's parser rejected with a JSON error, like every server error. */
function answerClientError(error: Error & { code?: string }, socket: Socket): void {
  const response = (socket as { _httpMessage?: ServerResponse })._httpMessage;
  if (error.code === "ECONNRESET" || !socket.writable || response?.headersSent) {
    socket.destroy();
    return;
  }
  const [status, reason, message] = CLIENT_ERRORS[error.code ?? ""] ??
    [400, "Bad Request", `malformed request (${error.code ?? error.message})`];
  const body = JSON.stringify({ error: message });
  socket.end(
    `HTTP/1.1 ${status} ${reason}\r\ncontent-type: application/json\r\ncontent-length: ${body.length}\r\n` +
      `connection: close\r\n\r\n${body}`,
  );
}

/**
 * The open connections of a server and the last response each has started, so that a stop
 * closes at once those with none in flight: Node's closeIdleConnections() leaves alone a
 * connection that has sent nothing yet (or half a request head), which held a stop for the
 * whole grace. Responses on one connection finish in order, so it is busy while its last one
 * is. (A listener per response, to count them, cost ~3 % of S1.)
 */
class Connections {
  readonly #last = new Map<Socket, ServerResponse | undefined>();

  /** Follows a new connection, until it closes. */
  add(socket: Socket): void {
    this.#last.set(socket, undefined);
    socket.once("close", () => this.#last.delete(socket));
  }

  /** Notes `res` as the last response started on `socket`. */
  request(socket: Socket, res: ServerResponse): void {
    if (this.#last.has(socket)) this.#last.set(socket, res);
  }

  /** Destroys every connection with no response in flight (silent, idle keep-alive, a head half sent). */
  closeIdle(): void {
    for (const [socket, res] of this.#last) {
      if (res === undefined || res.writableFinished || res.destroyed) socket.destroy();
    }
  }

  /** Destroys every connection. */
  closeAll(): void {
    for (const socket of this.#last.keys()) socket.destroy();
  }
}

/**
 * The plain server's responses. A write to a client that went away emits `error` on its
 * response with no one listening, which must not become an uncaught error: the server carries
 * on. A rule of the class rather than a listener added to every response (~3 % of S1).
 */
class QuietResponse extends ServerResponse {
  // deno-lint-ignore no-explicit-any
  override emit(event: string | symbol, ...args: any[]): boolean {
    if (event === "error" && this.listenerCount("error") === 0) return false;
    return super.emit(event, ...args);
  }
}

/**
 * Called as the answer is written: whether the connection closes after it because the
 * request body is not in yet. What is left of the body is read and dropped meanwhile, so a
 * client still sending it (most write the whole body before they read) is not reset before
 * it reads the answer; closing a socket with unread data sends a reset, which makes the
 * client's kernel drop what it had not read yet. When the handler read part of the body, or
 * answers 413, the answer says `connection: close` and the connection ends gently once the
 * body did (as Deno.serve does); a body nobody touched is dropped as Node does, keeping the
 * connection. Past `limit` bytes of body, or when the client goes quiet, the connection is
 * cut once the answer is out.
 */
function closeAfter(
  req: IncomingMessage,
  res: ServerResponse,
  incoming: NodeIncoming,
  status: number,
  limit: number,
): boolean {
  if (req.complete || incoming.settled || !incoming.hasBody()) return false;
  const close = incoming.pulled || status === 413;
  const socket = req.socket as Socket & { destroySoon(): void };
  /** undefined while the body is being dropped, then whether it ended within the limit. */
  let whole: boolean | undefined;
  let answered = false;
  const cut = () => {
    if (res.writableFinished || res.destroyed) socket.destroy();
    else res.once("close", () => socket.destroy());
  };
  const destroySoon = socket.destroySoon;
  if (close) {
    // Node's server calls destroySoon() once an answer with `connection: close` is written.
    socket.destroySoon = () => {
      answered = true;
      if (whole) destroySoon.call(socket);
      else if (whole === false) socket.destroy();
    };
  }
  incoming.discard(limit).then((ended) => {
    whole = ended;
    if (!ended) cut();
    else if (answered) destroySoon.call(socket);
  });
  return close;
}

/** The handler never throws; should it anyway, the client gets a JSON 500 and the server goes on. */
function fail(res: ServerResponse, respond: Respond<void>, error: unknown): void {
  if (res.headersSent) return void res.destroy();
  respond(...errorAnswer(500, `internal error: ${messageOf(error)}`));
}

/** Serves the handler with `node:http`; rejects when the port cannot be bound. */
export function serve(
  handler: ServedHandler,
  { port, hostname, tls, unreadBodyLimit: limit = unreadBodyLimit(DEFAULT_MAX_BODY) }: ListenOptions,
): Promise<Listener> {
  // A server whose stubs answer WebSockets loads `ws` before it listens; node:http2 loads only for TLS.
  const webSockets = handler.hasWebSocketStubs ? loadWebSockets() : Promise.resolve();
  if (tls) {
    return withReleaseMemory(
      Promise.all([import("node:http2"), webSockets]).then(([{ createSecureServer }]) =>
        serveTls(createSecureServer, handler, { port, hostname, tls, unreadBodyLimit: limit })
      ),
    );
  }
  return withReleaseMemory(webSockets.then(() => servePlain(handler, port, hostname, limit)));
}

/**
 * Under Deno (where this adapter is the default) the listener hands freed C-heap pages back
 * to the OS as the Deno adapter does (glibc's `malloc_trim`, see there); on Node it has none.
 */
async function withReleaseMemory(listening: Promise<Listener>): Promise<Listener> {
  const listener = await listening;
  if (!("Deno" in globalThis)) return listener;
  const { trimMallocHeap } = await import("./deno.ts");
  return { ...listener, releaseMemory: trimMallocHeap };
}

function servePlain(handler: ServedHandler, port: number, hostname: string, limit: number): Promise<Listener> {
  let closing = false;
  const connections = new Connections();
  // Answer an HTTP/1.1 request without a Host header like any other (as Deno does), instead
  // of Node's own empty, non-JSON 400 (every error the server produces is JSON).
  const server = createServer({ requireHostHeader: false, ServerResponse: QuietResponse }, (req, res) => {
    syncUpgrades();
    connections.request(req.socket, res);
    const target = requestTarget(req.url);
    const incoming = new NodeIncoming(req, target ?? "/");
    const respond = writeTo(
      res,
      req.method === "HEAD",
      (status) => closeAfter(req, res, incoming, status, limit) || closing,
    );
    if (target === undefined) return respond(...errorAnswer(400, `bad request target '${req.url}'`));
    try {
      const result = handler.handle(incoming, respond);
      // A stub added or removed by this request may start or end WebSocket upgrades.
      if (result instanceof Promise) result.then(syncUpgrades, (error) => fail(res, respond, error));
      else syncUpgrades();
    } catch (error) {
      fail(res, respond, error);
    }
  });
  const syncUpgrades = upgradesWhileNeeded(server, handler);
  syncUpgrades();
  server.on("clientError", answerClientError);
  server.on("connection", (socket: Socket) => {
    connections.add(socket);
    // A WebSocket client opens a connection of its own: stubs added since the last request count.
    syncUpgrades();
  });
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, hostname, () => {
      server.off("error", reject);
      // Errors after listening (a failed accept) must not crash the process; the server keeps serving.
      server.on("error", () => {});
      resolve({
        port: (server.address() as AddressInfo).port,
        close(graceMs, onGraceEnd) {
          closing = true;
          return new Promise<void>((done) => {
            let flushTimer: ReturnType<typeof setTimeout> | undefined;
            const graceTimer = setTimeout(() => {
              onGraceEnd();
              flushTimer = setTimeout(() => connections.closeAll(), FLUSH_MS);
            }, graceMs);
            server.close(() => {
              clearTimeout(graceTimer);
              clearTimeout(flushTimer);
              done();
            });
            // Connections with no request in flight (idle keep-alive, or silent) would hold close() open.
            connections.closeIdle();
          });
        },
      });
    });
  });
}

/**
 * Stops a TLS server: no new connections; HTTP/2 sessions, idle HTTP/1.1 connections and
 * unfinished handshakes closed at once (they would hold `close()` open); what is left is cut
 * after the grace (`onGraceEnd`) and a last flush.
 */
function closeTls(
  server: { close(done: () => void): unknown },
  { sockets, handshaking, parentsKnown }: { sockets: Set<Socket>; handshaking: Set<Socket>; parentsKnown: boolean },
  graceMs: number,
  onGraceEnd: () => void,
): Promise<void> {
  return new Promise<void>((done) => {
    let flushTimer: ReturnType<typeof setTimeout> | undefined;
    const graceTimer = setTimeout(() => {
      onGraceEnd();
      flushTimer = setTimeout(() => {
        sockets.forEach((s) => s.destroy());
        handshaking.forEach((s) => s.destroy());
      }, FLUSH_MS);
    }, graceMs);
    server.close(() => {
      clearTimeout(graceTimer);
      clearTimeout(flushTimer);
      done();
    });
    if (parentsKnown) handshaking.forEach((s) => s.destroy());
    for (const socket of sockets) {
      const session = (socket as unknown as { session?: { close(): void } }).session;
      if (session) session.close();
      else if (!(socket as unknown as { _httpMessage?: unknown })._httpMessage) socket.end();
    }
  });
}

/**
 * Serves the handler over TLS with `node:http2`: HTTP/2 for clients that offer it (ALPN),
 * HTTP/1.1 for the others (`allowHTTP1`). The compatibility API hands over request and
 * response objects shaped like `node:http`'s.
 */
function serveTls(
  createSecureServer: typeof import("node:http2").createSecureServer,
  handler: ServedHandler,
  { port, hostname, tls, unreadBodyLimit: limit }: Required<ListenOptions>,
): Promise<Listener> {
  let closing = false;
  const sockets = new Set<Socket>();
  const server = createSecureServer({ cert: tls.cert, key: tls.key, allowHTTP1: true }, (req, res) => {
    const request = req as unknown as IncomingMessage;
    const response = res as unknown as ServerResponse;
    response.on("error", () => {});
    const http2 = req.httpVersionMajor === 2;
    const target = requestTarget(req.url);
    const incoming = new NodeIncoming(request, target ?? "/");
    const respond = writeTo(
      response,
      req.method === "HEAD",
      // HTTP/2 streams close on their own; `connection` is not an HTTP/2 header.
      (status) => !http2 && (closeAfter(request, response, incoming, status, limit) || closing),
      http2,
    );
    if (target === undefined) return respond(...errorAnswer(400, `bad request target '${req.url}'`));
    try {
      const result = handler.handle(incoming, respond);
      if (result instanceof Promise) result.catch((error) => fail(response, respond, error));
    } catch (error) {
      fail(response, respond, error);
    }
  });
  // Connections still in the TLS handshake (or that never start it: a client that sent
  // nothing) carry no request; a stop closes them at once rather than wait out the grace.
  const handshaking = new Set<Socket>();
  let parentsKnown = true;
  server.on("connection", (raw: Socket) => {
    handshaking.add(raw);
    raw.once("close", () => handshaking.delete(raw));
  });
  server.on("secureConnection", (socket: Socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
    const raw = (socket as Socket & { _parent?: Socket })._parent;
    if (raw) handshaking.delete(raw);
    else parentsKnown = false; // cannot tell which raw connections are done: leave them to the grace
  });
  server.on("tlsClientError", () => {});
  server.on("upgrade", upgradeListener(handler)); // a client that cannot finish the handshake is its own problem
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, hostname, () => {
      server.off("error", reject);
      server.on("error", () => {});
      resolve({
        port: (server.address() as AddressInfo).port,
        close(graceMs, onGraceEnd) {
          closing = true;
          return closeTls(server, { sockets, handshaking, parentsKnown }, graceMs, onGraceEnd);
        },
      });
    });
  });
}
