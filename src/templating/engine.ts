/**
 * The libraries stubs may need, loaded only when a stub needs them: the template engine's
 * (handlebars, jsonpath-plus, decimal.js: templates and JSONPath conditions) and the XML pair
 * (`@xmldom/xmldom`, `xpath`: `xml_equals` and `xpath` conditions). A start with no template,
 * no JSONPath and no XML condition reads none of them; one that needs only templates reads
 * only those. The code that turns stubs into answers stays synchronous; it asks {@link engine}
 * for the libraries (`engine()` for templates, `engine("xml")` for XML). Whoever checks stubs
 * makes sure they are there first, before the server says it is ready, never on the request path:
 * - a config file and `--stub` run their check through {@link withTemplating}, which loads the
 *   libraries the check asked for and checks again;
 * - WireMock folders, `--openapi --mock`, `--state` and the admin API's writes
 *   (src/server/mounts.ts) call {@link loadTemplating} (every library) before they check anything;
 * - `mod.ts` and `handler.ts` load them as they are imported (src/templating/eager.ts), so stubs
 *   built in code are checked synchronously, unless the command line runs (src/cli/program.ts).
 * @module
 */

import type HandlebarsNamespace from "handlebars";
import type { JSONPath } from "jsonpath-plus";
import type { Decimal } from "decimal.js";
import type { DOMImplementation, DOMParser, XMLSerializer } from "@xmldom/xmldom";
import type xpath from "./xpath_lib.ts";

/** The libraries templates and JSONPath conditions run on. */
export interface EngineLibraries {
  handlebars: typeof HandlebarsNamespace;
  jsonPath: typeof JSONPath;
  decimal: typeof Decimal;
}

/** The libraries XML conditions run on (parsing: `@xmldom/xmldom`; XPath 1.0: `xpath`). */
export interface XmlLibraries {
  DOMParser: typeof DOMParser;
  DOMImplementation: typeof DOMImplementation;
  XMLSerializer: typeof XMLSerializer;
  xpath: typeof xpath;
}

/** The groups of libraries, each loaded as a whole. */
interface Groups {
  templates: EngineLibraries;
  xml: XmlLibraries;
}
type Group = keyof Groups;

// Literal specifiers, so `deno compile` and the npm build keep them.
const loaders: { [G in Group]: () => Promise<Groups[G]> } = {
  // Handlebars' one-file build: the same code as its package entry, which reads 45 files (the
  // source-map library among them).
  templates: () =>
    Promise.all([
      // @ts-ignore: the one-file build ships no types of its own (tsc, for the npm package, says so); typed by the cast
      import("handlebars/dist/handlebars.js") as Promise<{ default: typeof HandlebarsNamespace }>,
      import("jsonpath-plus"),
      import("decimal.js"),
    ]).then(([handlebars, jsonPath, decimal]) => ({
      handlebars: handlebars.default,
      jsonPath: jsonPath.JSONPath,
      decimal: decimal.Decimal,
    })),
  xml: () =>
    Promise.all([import("@xmldom/xmldom"), import("./xpath_lib.ts")]).then(([xmldom, path]) => ({
      DOMParser: xmldom.DOMParser,
      DOMImplementation: xmldom.DOMImplementation,
      XMLSerializer: xmldom.XMLSerializer,
      xpath: path.default,
    })),
};

const loaded: Partial<Groups> = {};
const loading: { [G in Group]?: Promise<void> } = {};
/** The groups {@link engine} was asked for before they were loaded (each ask counted). */
const demands: Record<Group, number> = { templates: 0, xml: 0 };

function load(group: Group): Promise<void> {
  return loading[group] ??= (loaders[group]() as Promise<Groups[typeof group]>).then((libraries) => {
    (loaded as Record<Group, unknown>)[group] ??= libraries;
  });
}

/** Loads every library stubs may need (once; later calls share the first load). */
export function loadTemplating(): Promise<void> {
  return Promise.all([load("templates"), load("xml")]).then(() => {});
}

let onDemand = false;

/** Loads the libraries only when a stub needs them, not when the API is imported (the command line asks for this). */
export function templatingOnDemand(): void {
  onDemand = true;
}

/** Was {@link templatingOnDemand} asked for? */
export function isTemplatingOnDemand(): boolean {
  return onDemand;
}

/** Are all the libraries loaded? */
export function templatingLoaded(): boolean {
  return loaded.templates !== undefined && loaded.xml !== undefined;
}

/**
 * The libraries of a group (`templates` when not named); throws (and notes the demand for
 * {@link withTemplating}) while they are not loaded.
 */
export function engine(): EngineLibraries;
export function engine<G extends Group>(group: G): Groups[G];
export function engine(group: Group = "templates"): Groups[Group] {
  const found = loaded[group];
  if (found) return found;
  demands[group]++;
  throw new Error(
    `the ${
      group === "xml" ? "XML libraries are" : "template engine is"
    } not loaded yet (internal: run the check through withTemplating)`,
  );
}

/**
 * Runs a stub check; when it asked for libraries not loaded yet, loads them and runs the check
 * again (the first result or failure, made without them, is dropped). The check must not change
 * anything outside what it returns. `source`, the text the stubs were read from, saves that
 * second pass in the common case: a text holding `{{` most likely holds a template, so the
 * template engine loads before the first pass (a wrong guess costs only the load).
 */
export async function withTemplating<T>(check: () => T | Promise<T>, source?: string): Promise<T> {
  if (source?.includes("{{")) await load("templates");
  // Each pass may ask for a group the last pass could not reach (a template's `xPath` asks for the XML libraries only
  // once the template engine is there to compile it): run again until a pass asks for nothing new.
  for (;;) {
    if (templatingLoaded()) return await check();
    const before = { ...demands };
    let result: { value: T } | { error: unknown };
    try {
      result = { value: await check() };
    } catch (error) {
      // A library asked for outside the check's own error handling: the check stopped there.
      result = { error };
    }
    const wanted = (Object.keys(demands) as Group[]).filter((group) => demands[group] !== before[group]);
    if (wanted.length === 0) {
      if ("error" in result) throw result.error;
      return result.value;
    }
    await Promise.all(wanted.map(load));
  }
}
