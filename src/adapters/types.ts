/**
 * What a runtime adapter provides: serve a fetch-style handler on a TCP port, and stop.
 * @module
 */

/** A fetch-style handler. */
export type FetchHandler = (request: Request) => Response | Promise<Response>;

/** Where and how to listen. */
export interface ListenOptions {
  port: number;
  hostname: string;
}

/** A listening server, as an adapter returns it. */
export interface Listener {
  /** The port actually bound (the OS picks one for port 0). */
  port: number;
  /**
   * Stops accepting connections and resolves once in-flight responses are done. If they
   * are not done after `graceMs`, `onGraceEnd` is called so the handler can cut them short.
   */
  close(graceMs: number, onGraceEnd: () => void): Promise<void>;
}

/** An adapter: starts serving `fetch`, resolving once the port is bound. */
export type Serve = (fetch: FetchHandler, options: ListenOptions) => Promise<Listener>;
