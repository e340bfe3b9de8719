/**
 * The `stubtool` command line, and the JSR package's main entry: run as the main module
 * (`deno run -A jsr:@stubtool/cli serve`) it starts the CLI; imported, it offers the same
 * API as `mod.ts`.
 *
 * @example
 * ```ts
 * import { get, stubServer } from "./cli.ts";
 * await using server = await stubServer(0);
 * server.routes(get("/ping").body({ pong: true }));
 * ```
 *
 * @module
 */

export * from "./mod.ts";
