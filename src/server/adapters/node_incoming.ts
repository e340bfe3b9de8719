/**
 * A Node `IncomingMessage` as the handler's {@link Incoming}: headers from Node's parsed
 * object, the body read chunk by chunk only when the handler asks.
 * @module
 */

import type { IncomingMessage } from "node:http";
import type { Incoming } from "../handler.ts";
import {
  type BodyRead,
  ChunkedBody,
  DISCARD_IDLE_MS,
  headerRecord,
  type HeaderSource,
  type WebSocketSession,
} from "../incoming.ts";

/**
 * The path and query of a request target (origin-form `/p?q` or absolute-form `http://h/p?q`),
 * without a fragment a client sent raw (`/a#x`): Node's parser keeps it, Deno's URL drops it.
 */
export function requestTarget(url: string | undefined): string | undefined {
  if (url?.startsWith("/")) {
    const hash = url.indexOf("#");
    return hash === -1 ? url : url.slice(0, hash);
  }
  try {
    const parsed = new URL(url ?? "");
    return parsed.pathname + parsed.search;
  } catch {
    return undefined;
  }
}

/**
 * An IncomingMessage seen as the handler's {@link Incoming}: headers come from Node's own
 * parsed object and the body is read only if the handler asks, so no fetch `Request` (or
 * web stream) is built per request. A body nobody reads is left to Node, which discards
 * it and keeps the connection.
 */
export class NodeIncoming implements Incoming {
  readonly method: string;
  readonly target: string;
  /** The handler started reading the body (a half-read body means closing the connection). */
  pulled = false;
  /** Set by the upgrade listener for a WebSocket request. */
  upgrade?: (session: WebSocketSession) => void;
  readonly #req: IncomingMessage;
  #body: ChunkedBody | undefined;
  #repeats: boolean | undefined;

  constructor(req: IncomingMessage, target: string) {
    this.#req = req;
    this.method = req.method ?? "GET";
    this.target = target;
  }

  header(name: string): string | null {
    const value = this.#req.headers[name];
    return value === undefined ? null : Array.isArray(value) ? value.join(", ") : value;
  }

  headers(): Record<string, string> {
    return headerRecord(this.#req.headers);
  }

  headerSource(): HeaderSource {
    return this.#req.headers;
  }

  clientIp(): string | undefined {
    return this.#req.socket?.remoteAddress;
  }

  headerLines(): readonly string[] {
    return this.#req.rawHeaders;
  }

  repeatsHeaders(): boolean {
    if (this.#repeats === undefined) {
      // Node's header object has one key per name: fewer keys than lines means a name came twice.
      let names = 0;
      for (const _ in this.#req.headers) names++;
      this.#repeats = names * 2 !== this.#req.rawHeaders.length;
    }
    return this.#repeats;
  }

  hasBody(): boolean {
    const headers = this.#req.headers;
    const length = headers["content-length"];
    return length !== undefined ? length !== "0" : headers["transfer-encoding"] !== undefined;
  }

  read(max: number): Promise<BodyRead> {
    if (!this.#body) {
      this.pulled = true;
      const declared = this.#req.headers["content-length"];
      this.#body = new ChunkedBody(() => nextChunk(this.#req), declared === undefined ? undefined : Number(declared));
    }
    return this.#body.read(max);
  }

  stream(): ReadableStream<Uint8Array<ArrayBuffer>> | null {
    if (!this.hasBody()) return null;
    if (!this.#body) {
      this.pulled = true;
      const declared = this.#req.headers["content-length"];
      this.#body = new ChunkedBody(() => nextChunk(this.#req), declared === undefined ? undefined : Number(declared));
    }
    return this.#body.stream();
  }

  /** The body was read to its end, or handed on as a stream (a proxy reads it). */
  get settled(): boolean {
    return this.#body?.settled ?? false;
  }

  /** Reads the rest of the body and drops it; see {@link ChunkedBody.discard}. */
  discard(limit: number): Promise<boolean> {
    if (!this.#body) {
      const declared = this.#req.headers["content-length"];
      this.#body = new ChunkedBody(() => nextChunk(this.#req), declared === undefined ? undefined : Number(declared));
    }
    return this.#body.discard(limit, DISCARD_IDLE_MS);
  }
}

/** The next chunk of a request body (the stream stays paused in between), or null at its end. */
function nextChunk(req: IncomingMessage): Promise<Uint8Array | null> {
  if (req.readableEnded) return Promise.resolve(null);
  // The client may have gone before anyone asked for the body: no event is coming then.
  if (req.destroyed || req.closed) {
    return Promise.reject(new Error("the client closed the connection before the whole body arrived"));
  }
  return new Promise((resolve, reject) => {
    const stop = () => {
      req.pause();
      req.off("data", onData);
      req.off("end", onEnd);
      req.off("error", onError);
      req.off("close", onClose);
    };
    const onData = (chunk: Buffer) => {
      stop();
      resolve(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
    };
    const onEnd = () => {
      stop();
      resolve(null);
    };
    const onError = (error: Error) => {
      stop();
      reject(error);
    };
    const onClose = () => {
      stop();
      if (req.complete) resolve(null);
      else reject(new Error("the client closed the connection before the whole body arrived"));
    };
    req.on("data", onData);
    req.on("end", onEnd);
    req.on("error", onError);
    req.on("close", onClose);
    req.resume();
  });
}
