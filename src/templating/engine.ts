/**
 * The template engine's libraries (handlebars, jsonpath-plus, decimal.js), loaded only when a
 * stub needs them: a start with no template and no JSONPath condition never reads them. The
 * code that turns stubs into answers stays synchronous; it asks {@link engine} for the
 * libraries. Whoever checks stubs makes sure they are there first, before the server says it
 * is ready, never on the request path:
 * - a config file and `--stub` run their check through {@link withTemplating}, which loads the
 *   libraries and checks again when the check asked for them;
 * - WireMock folders, `--openapi --mock`, `--state` and the admin API's writes
 *   (src/server/mounts.ts) call {@link loadTemplating} before they check anything;
 * - `mod.ts` and `handler.ts` load them as they are imported (src/templating/eager.ts), so stubs
 *   built in code are checked synchronously, unless the command line runs (src/cli/program.ts).
 * @module
 */

import type HandlebarsNamespace from "handlebars";
import type { JSONPath } from "jsonpath-plus";
import type { Decimal } from "decimal.js";

/** The libraries templates and JSONPath conditions run on. */
export interface EngineLibraries {
  handlebars: typeof HandlebarsNamespace;
  jsonPath: typeof JSONPath;
  decimal: typeof Decimal;
}

let libraries: EngineLibraries | undefined;
let loading: Promise<void> | undefined;
/** How often {@link engine} was asked for before the libraries were loaded. */
let demands = 0;

/** Loads the libraries (once; later calls share the first load). */
export function loadTemplating(): Promise<void> {
  // Literal specifiers, so `deno compile` and the npm build keep them. Handlebars' one-file build:
  // the same code as its package entry, which reads 45 files (the source-map library among them).
  return loading ??= Promise.all([
    // @ts-ignore: the one-file build ships no types of its own (tsc, for the npm package, says so); typed by the cast
    import("handlebars/dist/handlebars.js") as Promise<{ default: typeof HandlebarsNamespace }>,
    import("jsonpath-plus"),
    import("decimal.js"),
  ])
    .then(([handlebars, jsonPath, decimal]) => {
      libraries ??= { handlebars: handlebars.default, jsonPath: jsonPath.JSONPath, decimal: decimal.Decimal };
    });
}

let onDemand = false;

/** Loads the engine only when a stub needs it, not when the API is imported (the command line asks for this). */
export function templatingOnDemand(): void {
  onDemand = true;
}

/** Was {@link templatingOnDemand} asked for? */
export function isTemplatingOnDemand(): boolean {
  return onDemand;
}

/** Are the libraries loaded? */
export function templatingLoaded(): boolean {
  return libraries !== undefined;
}

/** The libraries; throws (and notes the demand for {@link withTemplating}) while they are not loaded. */
export function engine(): EngineLibraries {
  if (libraries) return libraries;
  demands++;
  throw new Error("the template engine is not loaded yet (internal: run the check through withTemplating)");
}

/**
 * Runs a stub check; when it asked for the engine before it was loaded, loads it and runs the
 * check again (the first result, made without the engine, is dropped). The check must not
 * change anything outside what it returns.
 */
export async function withTemplating<T>(check: () => T | Promise<T>): Promise<T> {
  if (libraries) return await check();
  const before = demands;
  const result = await check();
  if (demands === before) return result;
  await loadTemplating();
  return await check();
}
