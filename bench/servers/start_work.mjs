// The work a stub server cannot skip before it answers, for the start-up floors: read the
// config file, parse it, and compile every template its stubs hold with the library stubtool's
// templates run on (Handlebars' one-file build, the file stubtool loads). Nothing else: no
// validation, no router. A floor server given a config runs this before it listens.
import { readFile } from "node:fs/promises";

/** Every string below a value (a template stub's body, headers and status may all hold templates). */
function strings(value) {
  if (typeof value === "string") return [value];
  if (value === null || typeof value !== "object") return [];
  return Object.values(value).flatMap(strings);
}

/** Reads `configFile` (JSON) and compiles its stubs' templates; does nothing without a file. */
export async function startWork(configFile) {
  if (configFile === undefined) return;
  const config = JSON.parse(await readFile(configFile, "utf8"));
  const templates = config.routes.filter((stub) => stub.template).flatMap((stub) => strings(stub))
    .filter((text) => text.includes("{{"));
  if (templates.length === 0) return;
  const { default: Handlebars } = await import("handlebars/dist/handlebars.js");
  // precompile: parse and both compiler passes, as stubtool compiles a template at load.
  for (const text of templates) Handlebars.precompile(text);
}
