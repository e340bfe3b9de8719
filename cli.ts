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

import { loadHost } from "./src/cli/host.ts";

export * from "./mod.ts";

/**
 * Deno (and Node ≥ 24.2) say whether this is the main module; older Node needs argv[1]
 * (node:fs, node:process and node:url are loaded only then: under Deno each Node module
 * costs startup).
 */
async function isMainModule(): Promise<boolean> {
  const flag = (import.meta as { main?: boolean }).main;
  if (flag !== undefined) return flag;
  try {
    const [{ realpathSync }, { argv }, { pathToFileURL }] = await Promise.all([
      import("node:fs"),
      import("node:process"),
      import("node:url"),
    ]);
    return argv[1] !== undefined && pathToFileURL(realpathSync(argv[1])).href === import.meta.url;
  } catch {
    return false;
  }
}

if (await isMainModule()) {
  // Loaded only when run, so importing the API does not load the CLI and its YAML parser.
  // The host is Deno's under Deno (no Node built-ins to load), Node's elsewhere.
  const [{ main }, host] = await Promise.all([import("./src/cli/main.ts"), loadHost()]);
  host.exit(await main(host.args, host.env(), { host }));
}
