/**
 * Where each entry of a config's `routes:` list starts in the file: a stub's line, so the
 * dashboard and the stub listing can say `stubs.yaml:12`. Found from what the config loader
 * has anyway (the YAML parser's tree, or JSON text that `JSON.parse` accepted), in one pass
 * per file.
 * @module
 */

import type { Document } from "yaml";
import { stringEnd } from "./duplicate_keys.ts";

/**
 * A function from a 0-based offset into `text` to its 1-based line and column. The line
 * starts are found once (a binary search per call after that), so placing many offsets of
 * one file costs one pass over it. Lines end at `\n` (a `\r` before it belongs to the line).
 *
 * @example
 * ```ts
 * import { lineFinder } from "./entry_lines.ts";
 * const at = lineFinder("routes:\n  - method: GET\n");
 * console.log(at(10)); // { line: 2, col: 3 }
 * ```
 */
export function lineFinder(text: string): (offset: number) => { line: number; col: number } {
  const lineStarts = [0];
  for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1)) lineStarts.push(i + 1);
  return (offset: number) => {
    let line = 0;
    for (let high = lineStarts.length - 1; line < high;) {
      const mid = (line + high + 1) >> 1;
      if (lineStarts[mid] <= offset) line = mid;
      else high = mid - 1;
    }
    return { line: line + 1, col: offset - lineStarts[line] + 1 };
  };
}

/** What {@link yamlRouteOffsets} needs of `npm:yaml` (passed in: the config loader loads it on first use). */
export interface YamlNodeTests {
  isMap: typeof import("yaml").isMap;
  isSeq: typeof import("yaml").isSeq;
  isAlias: typeof import("yaml").isAlias;
  isScalar: typeof import("yaml").isScalar;
}

/** The part of a block sequence's source token the offsets are read from (`keepSourceTokens`). */
interface SeqToken {
  type: string;
  items?: { start: { type: string; offset: number }[] }[];
}

/**
 * The 0-based offset where each entry of the document's top-level `routes:` list starts, in
 * order: the `-` of a block list item (so an entry whose fields start on the next line is
 * still placed at its dash), the value itself in a flow list (`[{…}, {…}]`), the `*name` of
 * an alias entry. `routes: *list` is followed to the list the anchor names. An entry it
 * cannot place is `undefined`; a document without a `routes` list gives `[]`. The document
 * must be parsed with `keepSourceTokens: true` for block lists' dashes (without it, an entry
 * is placed where its value starts).
 *
 * @example
 * ```ts
 * import * as yaml from "yaml";
 * import { yamlRouteOffsets } from "./entry_lines.ts";
 * const doc = yaml.parseDocument("routes:\n  - {method: GET, path: /a}\n  -\n    method: GET\n", {
 *   keepSourceTokens: true,
 * });
 * console.log(yamlRouteOffsets(doc, yaml)); // [ 10, 36 ]
 * ```
 */
export function yamlRouteOffsets(doc: Document, yaml: YamlNodeTests): (number | undefined)[] {
  const top = doc.contents;
  if (!yaml.isMap(top)) return [];
  const pair = top.items.find((item) => yaml.isScalar(item.key) && item.key.value === "routes");
  let list: unknown = pair?.value;
  if (yaml.isAlias(list)) list = list.resolve(doc);
  if (!yaml.isSeq(list)) return [];
  const token = list.srcToken as SeqToken | undefined;
  const dashes = token?.type === "block-seq" ? token.items : undefined;
  return list.items.map((item, i) => {
    const dash = dashes?.[i]?.start.find((part) => part.type === "seq-item-ind");
    return dash?.offset ?? (item as { range?: [number, number, number] } | null)?.range?.[0];
  });
}

const OPEN_OBJECT = 0x7b; // {
const OPEN_ARRAY = 0x5b; // [
const COMMA = 0x2c; // ,
const QUOTE = 0x22; // "
const WHITESPACE = new Set([0x20, 0x0a, 0x0d, 0x09]);
/** What the scan stops at: strings (skipped whole), nesting and the commas between entries. */
const STRUCTURE = /[{}[\],"]/g;

/** The offset of the first character at or after `from` that is not JSON whitespace. */
function skipSpace(text: string, from: number): number {
  let i = from;
  while (WHITESPACE.has(text.charCodeAt(i))) i++;
  return i;
}

/**
 * The 0-based offset where each entry of the top-level `"routes"` array starts, in order,
 * in JSON text that `JSON.parse` has accepted; `[]` when the document has no such array.
 * One pass that jumps from one bracket, comma or string to the next and stops at the end of
 * the array: a 1 MB config of 10,000 stubs takes a few milliseconds. (`npm:yaml` would place
 * them too, but parsing that file with it takes over a second.)
 *
 * @example
 * ```ts
 * import { jsonRouteOffsets } from "./entry_lines.ts";
 * console.log(jsonRouteOffsets('{"port": 1, "routes": [{"path": "/a"}, {"path": "/b"}]}')); // [ 23, 39 ]
 * ```
 */
export function jsonRouteOffsets(text: string): number[] {
  const offsets: number[] = [];
  const structure = new RegExp(STRUCTURE.source, "g");
  let depth = 0;
  /** At depth 1 (the top-level object), the next string is a key. */
  let expectKey = false;
  /** The key just read at depth 1 was `routes`: an array opened next is the list. */
  let routesNext = false;
  let inRoutes = false;
  // `test` rather than `exec`: no match object per stop (there are some 20 per stub).
  while (structure.test(text)) {
    const i = structure.lastIndex - 1;
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      const end = stringEnd(text, i);
      if (depth === 1) {
        if (expectKey) {
          const raw = text.slice(i + 1, end);
          routesNext = (raw.includes("\\") ? JSON.parse(text.slice(i, end + 1)) : raw) === "routes";
        } else routesNext = false;
        expectKey = false;
      }
      structure.lastIndex = end + 1;
    } else if (c === OPEN_OBJECT || c === OPEN_ARRAY) {
      depth++;
      if (depth === 1) expectKey = c === OPEN_OBJECT;
      else if (depth === 2 && routesNext && c === OPEN_ARRAY) {
        inRoutes = true;
        const start = skipSpace(text, i + 1);
        if (text[start] !== "]") offsets.push(start);
      }
      routesNext = false;
    } else if (c === COMMA) {
      if (depth === 1) expectKey = true;
      else if (depth === 2 && inRoutes) offsets.push(skipSpace(text, i + 1));
      routesNext = false;
    } else {
      depth--;
      if (inRoutes && depth === 1) return offsets;
      routesNext = false;
    }
  }
  return offsets;
}
