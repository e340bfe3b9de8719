/**
 * The libraries stubs may need, loaded only when a stub needs them, each group on its own:
 * Handlebars (templates), jsonpath-plus (JSONPath conditions and the `jsonPath` helper),
 * decimal.js (the `math` helper) and the XML pair (`@xmldom/xmldom`, `xpath`: `xml_equals` and
 * `xpath` conditions, the `xPath` helpers). A start with no template, no JSONPath and no XML
 * condition reads none of them; a template that calls neither `jsonPath` nor `math` reads only
 * Handlebars. The code that turns stubs into answers stays synchronous; it asks {@link engine}
 * for a group (`engine()` for Handlebars, `engine("jsonpath")`, `engine("decimal")`,
 * `engine("xml")`). Whoever checks stubs makes sure they are there first, before the server says
 * it is ready, never on the request path:
 * - a config file and `--stub` run their check through {@link withTemplating}, which loads the
 *   groups the check asked for and checks again;
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

/** The library templates run on. */
export interface EngineLibraries {
  handlebars: typeof HandlebarsNamespace;
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
  jsonpath: { jsonPath: typeof JSONPath };
  decimal: { decimal: typeof Decimal };
  xml: XmlLibraries;
}
type Group = keyof Groups;

/** What each group is, in the error {@link engine} throws while it is not loaded. */
const NAMES: Record<Group, string> = {
  templates: "template engine is",
  jsonpath: "JSONPath library is",
  decimal: "decimal library is",
  xml: "XML libraries are",
};

// Literal specifiers, so `deno compile` and the npm build keep them.
const loaders: { [G in Group]: () => Promise<Groups[G]> } = {
  // Handlebars' one-file build: the same code as its package entry, which reads 45 files (the
  // source-map library among them).
  templates: async () => {
    // @ts-ignore: the one-file build ships no types of its own (tsc, for the npm package, says so); typed by the cast
    const module = await (import("handlebars/dist/handlebars.js") as Promise<{ default: typeof HandlebarsNamespace }>);
    return { handlebars: module.default };
  },
  jsonpath: () => import("jsonpath-plus").then((module) => ({ jsonPath: module.JSONPath })),
  decimal: () => import("decimal.js").then((module) => ({ decimal: module.Decimal })),
  xml: () =>
    Promise.all([import("@xmldom/xmldom"), import("./xpath_lib.ts")]).then(([xmldom, path]) => ({
      DOMParser: xmldom.DOMParser,
      DOMImplementation: xmldom.DOMImplementation,
      XMLSerializer: xmldom.XMLSerializer,
      xpath: path.default,
    })),
};

const GROUPS = Object.keys(loaders) as Group[];
const loaded: Partial<Groups> = {};
const loading: { [G in Group]?: Promise<void> } = {};
/** The groups {@link engine} was asked for before they were loaded (each ask counted). */
const demands: Record<Group, number> = { templates: 0, jsonpath: 0, decimal: 0, xml: 0 };

function load(group: Group): Promise<void> {
  return loading[group] ??= (loaders[group]() as Promise<Groups[typeof group]>).then((libraries) => {
    (loaded as Record<Group, unknown>)[group] ??= libraries;
  });
}

/** Loads every library stubs may need (once; later calls share the first load). */
export function loadTemplating(): Promise<void> {
  return Promise.all(GROUPS.map(load)).then(() => {});
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
  return GROUPS.every((group) => loaded[group] !== undefined);
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
  throw new Error(`the ${NAMES[group]} not loaded yet (internal: run the check through withTemplating)`);
}

/** Text that says a stubs' source most likely asks for a group: a template, a JSONPath condition or helper. */
const HINTS: readonly [string, Group][] = [["{{", "templates"], ["json_path", "jsonpath"], ["jsonPath", "jsonpath"]];

/**
 * Runs a stub check; when it asked for libraries not loaded yet, loads them and runs the check
 * again (the first result or failure, made without them, is dropped). The check must not change
 * anything outside what it returns. `source`, the text the stubs were read from, saves that
 * second pass in the common case: a text holding `{{` most likely holds a template, one naming
 * `json_path` or `jsonPath` a JSONPath, so those groups load before the first pass (a wrong
 * guess costs only the load).
 */
export async function withTemplating<T>(check: () => T | Promise<T>, source?: string): Promise<T> {
  if (source !== undefined) {
    await Promise.all(HINTS.filter(([text]) => source.includes(text)).map(([, group]) => load(group)));
  }
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
    const wanted = GROUPS.filter((group) => demands[group] !== before[group]);
    if (wanted.length === 0) {
      if ("error" in result) throw result.error;
      return result.value;
    }
    await Promise.all(wanted.map(load));
  }
}
