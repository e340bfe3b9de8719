/**
 * Runs the handler on `Deno.serve`. The only file of the server that touches `Deno.*`.
 * @module
 */

import { jsonError } from "../handler.ts";
import type { Listener, ListenOptions, ServedHandler } from "./types.ts";

/** Serves the handler's fetch entry with `Deno.serve`; throws when the port cannot be bound. */
export function serve({ fetch }: ServedHandler, { port, hostname, tls }: ListenOptions): Promise<Listener> {
  const server = Deno.serve({
    port,
    hostname,
    // With a certificate Deno.serve speaks TLS, and HTTP/2 to clients that offer it (ALPN).
    ...(tls ? { cert: tls.cert, key: tls.key } : {}),
    onListen: () => {},
    onError: (error) => jsonError(500, `internal error: ${error instanceof Error ? error.message : error}`),
  }, fetch);
  return Promise.resolve({
    port: server.addr.port,
    async close(graceMs, onGraceEnd) {
      const timer = setTimeout(onGraceEnd, graceMs);
      try {
        await server.shutdown();
      } finally {
        clearTimeout(timer);
      }
    },
  });
}
