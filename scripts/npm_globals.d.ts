/**
 * Ambient types the npm build (tsc with @types/node) lacks: the few `Deno` APIs that
 * src/server/adapters/deno.ts and src/cli/host_deno.ts call when the npm package runs under
 * Deno. Only for type-checking the build; nothing here is emitted into the package's .d.ts
 * files. The signatures are the subset used, as lib.deno.ns.d.ts declares them.
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
  }
  function serve(options: ServeOptions, handler: (request: Request) => Response | Promise<Response>): HttpServer;

  // src/cli/host_deno.ts
  const build: { readonly os: string };
  const args: string[];
  const env: { get(key: string): string | undefined };
  function exit(code?: number): never;
  function cwd(): string;
  interface Writer {
    write(p: Uint8Array): Promise<number>;
  }
  const stdout: Writer;
  const stderr: Writer;
  function readTextFile(path: string): Promise<string>;
  function writeTextFile(path: string, data: string): Promise<void>;
  function statSync(path: string): { isDirectory: boolean };
  type Signal = "SIGINT" | "SIGTERM";
  function addSignalListener(signal: Signal, handler: () => void): void;
  function removeSignalListener(signal: Signal, handler: () => void): void;
}
