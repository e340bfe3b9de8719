/**
 * What a runtime adapter provides: serve the handler on a TCP port, and stop.
 * @module
 */

import type { Incoming, Respond } from "../handler.ts";

/** A fetch-style handler. */
export type FetchHandler = (request: Request) => Response | Promise<Response>;

/**
 * The handler as adapters see it: the fetch-style entry, and the same behaviour for an
 * adapter that reads requests and writes responses itself (Node).
 */
export interface ServedHandler {
  fetch: FetchHandler;
  handle<R>(incoming: Incoming, respond: Respond<R>): R | Promise<R>;
  /** The WebSocket bounds: `maxMessage` is the largest incoming message an adapter accepts. */
  readonly websocketLimits?: { readonly maxMessage: number };
  /** Does any stub answer WebSocket upgrades? */
  readonly hasWebSocketStubs?: boolean;
}

/** Where and how to listen. */
export interface ListenOptions {
  port: number;
  hostname: string;
  /** Serve HTTPS with this certificate and key (PEM); HTTP/2 is offered where the runtime has it. */
  tls?: { cert: string; key: string };
  /**
   * After an answer that came before the request body was in: how many bytes of that body
   * (in all) are still read and dropped before the connection is closed instead. Default:
   * `unreadBodyLimit` of the default `--max-body`.
   */
  unreadBodyLimit?: number;
}

/** A listening server, as an adapter returns it. */
export interface Listener {
  /** The port actually bound (the OS picks one for port 0). */
  port: number;
  /**
   * Stops accepting connections, closes those with no request in flight, and resolves once
   * in-flight responses are done. If they are not done after `graceMs`, `onGraceEnd` is
   * called so the handler can cut them short, and a second later the stop ends anyway.
   */
  close(graceMs: number, onGraceEnd: () => void): Promise<void>;
  /**
   * Hands heap pages the C allocator holds free back to the OS, after a full collection
   * freed them; absent where the runtime offers no way (see the Deno adapter).
   */
  releaseMemory?(): void;
}

/** An adapter: starts serving the handler, resolving once the port is bound. */
export type Serve = (handler: ServedHandler, options: ListenOptions) => Promise<Listener>;
