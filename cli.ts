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

import process from "node:process";

export * from "./mod.ts";

/**
 * Deno (and Node ≥ 24.2) say whether this is the main module; older Node needs argv[1]
 * (node:fs and node:url are loaded only then: under Deno each Node module costs startup).
 */
async function isMainModule(): Promise<boolean> {
  const flag = (import.meta as { main?: boolean }).main;
  if (flag !== undefined) return flag;
  try {
    const [{ realpathSync }, { pathToFileURL }] = await Promise.all([import("node:fs"), import("node:url")]);
    return process.argv[1] !== undefined && pathToFileURL(realpathSync(process.argv[1])).href === import.meta.url;
  } catch {
    return false;
  }
}

if (await isMainModule()) {
  // Loaded only when run, so importing the API does not load the CLI and its YAML parser.
  const { main } = await import("./src/cli/main.ts");
  process.exit(await main(process.argv.slice(2), process.env));
}
