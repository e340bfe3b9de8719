/**
 * Runs the handler on `node:http`: turns each IncomingMessage into a Request and writes
 * the Response back. Works on Node ≥ 20 and under Deno's Node compatibility. Nothing a
 * client does (aborting, a malformed request, oversized headers) escapes as an exception (P7).
 * @module
 */

import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { jsonError } from "../handler.ts";
import type { FetchHandler, Listener, ListenOptions } from "./types.ts";

/** After the shutdown grace, how long cut-short responses get to reach their clients. */
const FLUSH_MS = 1_000;

/** The path and query of a request target (origin-form `/p?q` or absolute-form `http://h/p?q`). */
function requestTarget(url: string | undefined): string | undefined {
  if (url?.startsWith("/")) return url;
  try {
    const parsed = new URL(url ?? "");
    return parsed.pathname + parsed.search;
  } catch {
    return undefined;
  }
}

/**
 * The request body as a web stream that reads `req` only when the handler pulls, so a body
 * the handler never reads is left to Node, which discards it and keeps the connection.
 */
function bodyStream(req: IncomingMessage, state: { pulled: boolean }): ReadableStream<Uint8Array> {
  let chunks: AsyncIterator<Buffer> | undefined;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      state.pulled = true;
      chunks ??= req[Symbol.asyncIterator]();
      const { done, value } = await chunks.next();
      if (done) controller.close();
      else controller.enqueue(new Uint8Array(value.buffer, value.byteOffset, value.byteLength));
    },
  }, { highWaterMark: 0 });
}

function toRequest(req: IncomingMessage, target: string, signal: AbortSignal, state: { pulled: boolean }): Request {
  const headers = new Headers();
  for (let i = 0; i < req.rawHeaders.length; i += 2) headers.append(req.rawHeaders[i], req.rawHeaders[i + 1]);
  const method = req.method ?? "GET";
  const hasBody = method !== "GET" && method !== "HEAD";
  // Only the path matters to the handler, so the authority is fixed rather than trusted from Host.
  return new Request(`http://127.0.0.1${target}`, {
    method,
    headers,
    signal,
    body: hasBody ? bodyStream(req, state) : null,
    // @ts-ignore: `duplex` is required by undici for streamed bodies but missing from the DOM types.
    duplex: "half",
  });
}

async function writeResponse(response: Response, res: ServerResponse, closeConnection: boolean): Promise<void> {
  const body = response.body ? new Uint8Array(await response.arrayBuffer()) : undefined;
  if (res.destroyed) return; // The client went away meanwhile.
  const headers: Record<string, string | string[]> = {};
  response.headers.forEach((value, name) => {
    if (name !== "set-cookie") headers[name] = value;
  });
  const cookies = response.headers.getSetCookie();
  if (cookies.length) headers["set-cookie"] = cookies;
  if (closeConnection) headers.connection = "close";
  res.writeHead(response.status, headers);
  res.end(body);
}

const CLIENT_ERRORS: Record<string, [status: number, reason: string, message: string]> = {
  HPE_HEADER_OVERFLOW: [431, "Request Header Fields Too Large", "request headers are too large"],
  ERR_HTTP_REQUEST_TIMEOUT: [408, "Request Timeout", "the request took too long to arrive"],
};

/** Answers a request Node's parser rejected with a JSON error, like every server error (P4). */
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

/** Serves `fetch` with `node:http`; rejects when the port cannot be bound. */
export function serve(fetch: FetchHandler, { port, hostname }: ListenOptions): Promise<Listener> {
  let closing = false;
  const server = createServer(async (req, res) => {
    res.on("error", () => {}); // A write to a vanished client must not become an uncaught error.
    const controller = new AbortController();
    res.on("close", () => controller.abort());
    const body = { pulled: false };
    let response: Response;
    const target = requestTarget(req.url);
    try {
      response = target === undefined
        ? jsonError(400, `bad request target '${req.url}'`)
        : await fetch(toRequest(req, target, controller.signal, body));
    } catch (error) {
      response = jsonError(400, `bad request: ${error instanceof Error ? error.message : error}`);
    }
    // A body the handler stopped reading halfway (too large) is not worth draining: close instead.
    const closeConnection = closing || (body.pulled && !req.complete) || (response.status === 413 && !req.complete);
    try {
      await writeResponse(response, res, closeConnection);
    } catch {
      res.destroy();
    }
  });
  server.on("clientError", answerClientError);
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
              flushTimer = setTimeout(() => server.closeAllConnections(), FLUSH_MS);
            }, graceMs);
            server.close(() => {
              clearTimeout(graceTimer);
              clearTimeout(flushTimer);
              done();
            });
            // Keep-alive connections with no request in flight would hold close() open.
            server.closeIdleConnections();
          });
        },
      });
    });
  });
}
