/**
 * Is `cli.ts` the program being run? `cli.ts` imports this before the API it re-exports, so
 * the API knows, as it loads, to leave the template engine until a stub needs it
 * (src/templating/engine.ts). When this cannot tell, the engine loads up front: slower to
 * start, never wrong.
 * @module
 */

import { realpathSync } from "node:fs";
import process from "node:process";
import { pathToFileURL } from "node:url";
import { templatingOnDemand } from "../templating/engine.ts";

/** `cli.ts` (in the npm package `cli.js`) without its extension. */
const CLI = new URL("../../cli", import.meta.url).href;

/** The URL of the program's main module: Deno says; on Node, `argv[1]` (the bin may be a link). */
function mainModule(): string | undefined {
  const deno = (globalThis as { Deno?: { mainModule?: string } }).Deno;
  if (deno?.mainModule) return deno.mainModule;
  try {
    return process.argv[1] === undefined ? undefined : pathToFileURL(realpathSync(process.argv[1])).href;
  } catch {
    return undefined;
  }
}

if (mainModule()?.replace(/\.[cm]?[jt]s$/, "") === CLI) templatingOnDemand();
