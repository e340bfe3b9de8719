/**
 * Forwarding by `node:http`/`node:https`: requests with a body, the methods and ports fetch
 * refuses, and every request on Node (whose fetch decompresses even when asked for `identity`).
 * @module
 */

import type { ClientRequest, IncomingMessage, request as httpRequest } from "node:http";
import { messageOf } from "../../error_message.ts";
import type { Incoming } from "../incoming.ts";
import type { ResponseHead } from "../response.ts";
import {
  adjustedHeaders,
  connectionTokens,
  type Forwarded,
  type ForwardFailure,
  type ForwardOptions,
  type ForwardTap,
  HOP_BY_HOP,
  requestHeaders,
} from "./upstream.ts";

/** The upstream's answer head: its status and headers, hop-by-hop ones dropped, repeated ones kept. */
function responseHead(res: IncomingMessage): ResponseHead {
  const drop = connectionTokens(String(res.headers.connection ?? ""));
  const head: ResponseHead = { status: res.statusCode ?? 502, headers: Object.create(null) };
  const raw = res.rawHeaders;
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i].toLowerCase();
    if (HOP_BY_HOP.has(name) || drop.has(name)) continue;
    const value = raw[i + 1];
    if (head.lists?.[name]) head.lists[name].push(value);
    else if (name in head.headers) {
      (head.lists ??= Object.create(null) as Record<string, string[]>)[name] = [head.headers[name], value];
      delete head.headers[name];
    } else head.headers[name] = value;
  }
  return head;
}

/** The upstream's body as a stream that pulls from the socket only as the client takes it. */
function bodyStream(res: IncomingMessage, tap: ForwardTap | undefined): ReadableStream<Uint8Array<ArrayBuffer>> {
  res.pause();
  return new ReadableStream<Uint8Array<ArrayBuffer>>({
    pull(controller) {
      return new Promise<void>((resolve) => {
        const done = (complete: boolean) => {
          cleanup();
          tap?.end(complete);
          if (complete) controller.close();
          else controller.error(new Error("the upstream closed the connection before the whole body arrived"));
          resolve();
        };
        const onData = (chunk: Buffer) => {
          cleanup();
          res.pause();
          const bytes = new Uint8Array(chunk.byteLength);
          bytes.set(chunk);
          tap?.chunk(bytes);
          controller.enqueue(bytes);
          resolve();
        };
        const onEnd = () => done(true);
        const onClose = () => done(res.complete);
        const cleanup = () => {
          res.off("data", onData);
          res.off("end", onEnd);
          res.off("close", onClose);
          res.off("error", onClose);
        };
        if (res.readableEnded) return done(true);
        res.on("data", onData);
        res.on("end", onEnd);
        res.on("close", onClose);
        res.on("error", onClose);
        res.resume();
      });
    },
    cancel() {
      res.destroy();
      tap?.end(false);
    },
  });
}

/** Why a connection failed, in a few words. */
function reason(error: unknown): string {
  const code = (error as { code?: string }).code;
  switch (code) {
    case "ECONNREFUSED":
      return "connection refused";
    case "ENOTFOUND":
    case "EAI_AGAIN":
      return "cannot resolve the host name";
    case "ECONNRESET":
      return "the connection was closed";
    default:
      return messageOf(error);
  }
}

/** {@link forward} by `node:http`/`node:https`. */
export async function forwardByNode(
  url: URL,
  shown: string,
  incoming: Incoming,
  options: ForwardOptions,
): Promise<Forwarded | ForwardFailure> {
  const clients = await loadClients();
  const send = url.protocol === "https:" ? clients.https : clients.http;
  return new Promise((resolve) => {
    let settled = false;
    const settle = (result: Forwarded | ForwardFailure) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(result);
    };
    const req = send(url, {
      method: incoming.method,
      headers: options.adjust ? adjustedHeaders(requestHeaders(incoming), options.adjust) : requestHeaders(incoming),
      signal: options.signal,
    });
    const timer = setTimeout(() => {
      settle({
        status: 504,
        message: `upstream ${shown} did not answer within ${options.timeoutMs} ms (--handler-timeout)`,
      });
      req.destroy();
    }, options.timeoutMs);
    req.on(
      "error",
      (error) => settle({ status: 502, message: `upstream ${shown} could not be reached: ${reason(error)}` }),
    );
    req.on("response", (res) => {
      const head = responseHead(res);
      options.tap?.response(head);
      const empty = incoming.method === "HEAD" || head.status === 204 || head.status === 304;
      if (empty) {
        res.resume();
        options.tap?.end(true);
      }
      // A HEAD answer without a length says none: an empty stream, not an empty body (headAnswer).
      const unsized = incoming.method === "HEAD" && res.headers["content-length"] === undefined;
      settle({
        head,
        body: unsized ? new ReadableStream({ start: (c) => c.close() }) : empty ? null : bodyStream(res, options.tap),
      });
    });
    const body = incoming.stream();
    if (!body) return void req.end();
    pump(body, req, options.tap).catch(() => req.destroy());
  });
}

let clients: Promise<{ http: typeof httpRequest; https: typeof httpRequest }> | undefined;

/**
 * node:http and node:https, loaded on the first proxied request: on Deno they bring in the
 * whole Node HTTP layer, which a server without proxies should not pay for at start.
 */
function loadClients(): Promise<{ http: typeof httpRequest; https: typeof httpRequest }> {
  return clients ??= Promise.all([import("node:http"), import("node:https")])
    .then(([http, https]) => ({ http: http.request, https: https.request as typeof httpRequest }));
}

/** Writes a stream to a request, waiting for it to drain between chunks. */
async function pump(
  body: ReadableStream<Uint8Array<ArrayBuffer>>,
  req: ClientRequest,
  tap: ForwardTap | undefined,
): Promise<void> {
  const reader = body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    tap?.requestChunk?.(value);
    if (!req.write(value)) await new Promise<void>((resolve) => req.once("drain", resolve).once("close", resolve));
  }
  req.end();
}
