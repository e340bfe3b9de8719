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

// First: run as the program, the API below leaves the template engine until a stub needs it.
import "./src/cli/program.ts";
import { realpathSync } from "node:fs";
import process from "node:process";
import { pathToFileURL } from "node:url";

export * from "./mod.ts";

/** Is this module the program being run? Deno (and Node ≥ 24.2) say so; older Node needs argv[1]. */
function isMainModule(): boolean {
  const flag = (import.meta as { main?: boolean }).main;
  if (flag !== undefined) return flag;
  try {
    return process.argv[1] !== undefined && pathToFileURL(realpathSync(process.argv[1])).href === import.meta.url;
  } catch {
    return false;
  }
}

if (isMainModule()) {
  // Loaded only when run, so importing the API does not load the CLI and its YAML parser.
  const { main } = await import("./src/cli/main.ts");
  // Exit explicitly: a connection a client keeps open must not keep a stopped `serve` alive.
  process.exit(await main(process.argv.slice(2)));
}
