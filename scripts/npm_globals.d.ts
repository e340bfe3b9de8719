/**
 * Ambient types the npm build (tsc with @types/node) lacks: the few `Deno` APIs that
 * src/server/adapters/deno.ts calls when the npm package runs under Deno. Only for
 * type-checking the build; nothing here is emitted into the package's .d.ts files. The
 * signatures are the subset used, as lib.deno.ns.d.ts declares them.
 */

declare namespace Deno {
  interface ServeOptions {
    port: number;
    hostname: string;
    onListen?: (addr: unknown) => void;
    onError?: (error: unknown) => Response | Promise<Response>;
  }
  interface HttpServer {
    readonly addr: { port: number };
    shutdown(): Promise<void>;
    unref(): void;
  }
  function serve(options: ServeOptions, handler: (request: Request) => Response | Promise<Response>): HttpServer;
  function upgradeWebSocket(request: Request): { socket: WebSocket; response: Response };
  const build: { os: string };
  const permissions: { querySync(descriptor: { name: "ffi" }): { state: "granted" | "denied" | "prompt" } };
  function dlopen(
    filename: string,
    symbols: { malloc_trim: { parameters: ["usize"]; result: "i32" } },
  ): { symbols: { malloc_trim(pad: bigint): number } };
}
