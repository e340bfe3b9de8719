/**
 * Runs the handler on `node:http`: turns each IncomingMessage into a Request and writes
 * the Response back. Works on Node ≥ 20 and under Deno's Node compatibility.
 * @module
 */

import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { Readable } from "node:stream";
import { jsonError } from "../handler.ts";
import type { FetchHandler, Listener, ListenOptions } from "./types.ts";

function toRequest(req: IncomingMessage, controller: AbortController): Request {
  const headers = new Headers();
  for (let i = 0; i < req.rawHeaders.length; i += 2) headers.append(req.rawHeaders[i], req.rawHeaders[i + 1]);
  const method = req.method ?? "GET";
  const hasBody = method !== "GET" && method !== "HEAD";
  // Only the path matters to the handler, so the authority is fixed rather than trusted from Host.
  return new Request(`http://127.0.0.1${req.url?.startsWith("/") ? req.url : "/"}`, {
    method,
    headers,
    signal: controller.signal,
    body: hasBody ? Readable.toWeb(req) as ReadableStream<Uint8Array> : null,
    // @ts-ignore: `duplex` is required by undici for streamed bodies but missing from the DOM types.
    duplex: "half",
  });
}

async function writeResponse(response: Response, res: ServerResponse): Promise<void> {
  const headers: Record<string, string | string[]> = {};
  response.headers.forEach((value, name) => {
    if (name !== "set-cookie") headers[name] = value;
  });
  const cookies = response.headers.getSetCookie();
  if (cookies.length) headers["set-cookie"] = cookies;
  const body = response.body ? new Uint8Array(await response.arrayBuffer()) : undefined;
  res.writeHead(response.status, headers);
  res.end(body);
}

/** Serves `fetch` with `node:http`; rejects when the port cannot be bound. */
export function serve(fetch: FetchHandler, { port, hostname }: ListenOptions): Promise<Listener> {
  const server = createServer(async (req, res) => {
    const controller = new AbortController();
    res.on("close", () => controller.abort());
    let response: Response;
    try {
      response = await fetch(toRequest(req, controller));
    } catch (error) {
      response = jsonError(400, `bad request: ${error instanceof Error ? error.message : error}`);
    }
    try {
      await writeResponse(response, res);
    } catch {
      res.destroy();
    }
  });
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, hostname, () => {
      server.off("error", reject);
      resolve({
        port: (server.address() as AddressInfo).port,
        close(graceMs, onGraceEnd) {
          return new Promise<void>((done) => {
            const timer = setTimeout(() => {
              onGraceEnd();
              server.closeAllConnections();
            }, graceMs);
            server.close(() => {
              clearTimeout(timer);
              done();
            });
            server.closeIdleConnections();
          });
        },
      });
    });
  });
}
