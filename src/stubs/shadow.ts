/**
 * Stubs that can never answer (`[WARN]`, issue: "validate warns about stubs that can
 * never win"): another stub matches every request this one would, and wins each time by
 * the precedence order. Within one batch that takes the same scope, priority, method and
 * path shape, the same conditions (each one at least as permissive), declared first. A
 * stub of a later batch (`--stub` over the config file) wins whatever its path and
 * conditions, so it shadows every earlier stub of the same scope and priority whose
 * requests it all matches: a path at least as general, the same method or `ANY`, and a
 * subset of the conditions, each at least as permissive.
 * @module
 */

import { type CompiledStub, stubLabel } from "./model.ts";
import type { ValuePattern } from "./patterns.ts";
import type { Problem } from "./problem.ts";

/** The path shape, placeholder names left out: equal for stubs that match the same paths. */
function pathShape(stub: CompiledStub): string {
  return stub.segments.map((s) => !s.param ? `s${s.value}` : s.orNone ? "**" : s.rest ? "*" : "{}").join("\0");
}

/** One condition as the check compares them: what it is on, and its pattern. */
interface Key {
  /** `q name`, `h name`, `f name`, `j`, `b`, `s` (scenario state). */
  on: string;
  /** The pattern's exact text (`literal`, `{}` for a whole capture, `!` for absent, `/re/`), or JSON for json/body. */
  text: string;
  /** A whole `{name}` capture: it covers any value of a present field. */
  any: boolean;
}

function patternKey(on: string, pattern: ValuePattern): Key {
  if (pattern.absent) return { on, text: "!", any: false };
  // A pattern that also matches a missing value is covered only by the same pattern.
  if (pattern.missingMatches) return { on, text: `\0~${pattern.display}`, any: false };
  if (pattern.anyValue) return { on, text: "{}", any: true };
  // Capture names do not change what matches: `Bearer {a}` and `Bearer {b}` are the same.
  return { on, text: pattern.display.replace(/\{[A-Za-z0-9_]+\}/g, "{}"), any: false };
}

/** A stub's conditions, sorted by what they are on. */
function conditionKeys(stub: CompiledStub): Key[] {
  const match = stub.match;
  const keys: Key[] = [];
  if (match?.query) { for (const [name, p] of match.query) keys.push(patternKey(`q ${name}`, p)); }
  else if (stub.query) {
    for (const [name, value] of Object.entries(stub.query)) {
      const text = String(value);
      keys.push(
        /^\{[A-Za-z0-9_]+\}$/.test(text) ? { on: `q ${name}`, text: "{}", any: true } : {
          on: `q ${name}`,
          text,
          any: false,
        },
      );
    }
  }
  if (match?.headers) { for (const [name, p] of match.headers) keys.push(patternKey(`h ${name}`, p)); }
  if (match?.form) { for (const [name, p] of match.form) keys.push(patternKey(`f ${name}`, p)); }
  if (stub.request?.json !== undefined) keys.push({ on: "j", text: JSON.stringify(stub.request.json), any: false });
  if (match?.bodyContains !== undefined) keys.push({ on: "b", text: match.bodyContains, any: false });
  // A when_state is a condition too: stubs for other states of the same request each answer in their turn.
  if (stub.whenState !== undefined) {
    keys.push({ on: "s", text: JSON.stringify([stub.scenario, stub.whenState]), any: false });
  }
  for (
    const field of [
      "body",
      "cookies",
      "query_string",
      "path_regex",
      "path_params",
      "url_regex",
      "json_equals",
      "json_ignore",
      "json_placeholders",
      "json_path",
      "multipart",
    ]
  ) {
    const value = stub.request?.[field];
    if (value !== undefined) keys.push({ on: field, text: JSON.stringify(value), any: false });
  }
  return keys.sort((a, b) => a.on < b.on ? -1 : a.on > b.on ? 1 : 0);
}

/** Past this many covering signatures, a stub is compared with its group one by one instead. */
const MAX_COVERS = 256;

/**
 * The signatures of every stub of the same group that matches all requests `keys`
 * matches: per condition the same pattern, or (for a present field) a whole capture.
 * Undefined when there would be more than {@link MAX_COVERS} of them.
 */
function covering(keys: readonly Key[]): string[] | undefined {
  let out = [""];
  for (const key of keys) {
    const options = key.any || key.text === "!" || key.text.startsWith("\0~") ? [key.text] : [key.text, "{}"];
    if (out.length * options.length > MAX_COVERS) return undefined;
    out = out.flatMap((prefix) => options.map((text) => `${prefix}${key.on}=${text}\n`));
  }
  return out;
}

/** Does a stub with `winner`'s conditions match every request one with `keys` does (same targets)? */
function covers(winner: readonly Key[], keys: readonly Key[]): boolean {
  return winner.every((w, i) =>
    w.text === keys[i].text || (w.any && keys[i].text !== "!" && !keys[i].text.startsWith("\0~"))
  );
}

/** The query as written, in any key order (capture names kept): tells a duplicate from a shadow. */
function exactQuery(stub: CompiledStub): string {
  return JSON.stringify(Object.entries(stub.query ?? {}).sort(([a], [b]) => a < b ? -1 : a > b ? 1 : 0));
}

/** The exact signature of `keys` (the first of {@link covering}'s forms). */
function signature(keys: readonly Key[]): string {
  return keys.map((k) => `${k.on}=${k.text}\n`).join("");
}

/**
 * The stubs of later batches, by scope and priority, in a trie of path shapes: static
 * segments by value, then `{name}`, then `{name*}`.
 */
class Later {
  readonly statics = new Map<string, Later>();
  param: Later | undefined;
  rest: Later | undefined;
  restOrNone: Later | undefined;
  readonly ends: [index: number, keys: Key[]][] = [];
}

/** Puts stub `index` of a later batch into `root`. */
function addLater(root: Later, stub: CompiledStub, index: number, keys: Key[]): void {
  let node = root;
  for (const segment of stub.segments) {
    if (!segment.param) {
      let next = node.statics.get(segment.value);
      if (!next) node.statics.set(segment.value, next = new Later());
      node = next;
    } else if (segment.orNone) node = node.restOrNone ??= new Later();
    else if (segment.rest) node = node.rest ??= new Later();
    else node = node.param ??= new Later();
  }
  node.ends.push([index, keys]);
}

/** Past this many trie nodes and comparisons for one stub, the later batches are not searched further. */
const MAX_LATER_WORK = 256;

/** Does `winner` ask for a subset of `keys`' conditions, each at least as permissive? */
function coversSubset(winner: readonly Key[], keys: readonly Key[]): boolean {
  return winner.every((w) => keys.some((k) => k.on === w.on && (k.text === w.text || (w.any && k.text !== "!"))));
}

/** A stub of a later batch (in `root`) that matches every request `stub` would, if one is found. */
function laterCover(
  root: Later,
  stub: CompiledStub,
  keys: readonly Key[],
  stubs: readonly CompiledStub[],
): number | undefined {
  const segments = stub.segments;
  let work = 0;
  const fits = (ends: Later["ends"]): number | undefined => {
    for (const [index, winner] of ends) {
      if (++work > MAX_LATER_WORK) return undefined;
      const method = stubs[index].method;
      if ((method === stub.method || method === "ANY") && coversSubset(winner, keys)) return index;
    }
    return undefined;
  };
  const visit = (node: Later, depth: number): number | undefined => {
    if (++work > MAX_LATER_WORK) return undefined;
    // A `{name*}` of the later stub takes whatever is left, unless that is nothing (or one empty segment).
    const last = segments[segments.length - 1];
    const nothingLeft = depth === segments.length ||
      (depth === segments.length - 1 && (!last.param ? last.value === "" : last.orNone === true));
    if (node.rest && !nothingLeft) {
      const found = fits(node.rest.ends);
      if (found !== undefined) return found;
    }
    // A `{name**}` takes whatever is left, even nothing after the last '/'.
    if (node.restOrNone && depth < segments.length) {
      const found = fits(node.restOrNone.ends);
      if (found !== undefined) return found;
    }
    if (depth === segments.length) return fits(node.ends);
    const segment = segments[depth];
    if (segment.param && segment.rest) return undefined;
    if (!segment.param) {
      const child = node.statics.get(segment.value);
      const found = child && visit(child, depth + 1);
      if (found !== undefined) return found;
    }
    // `{name}` takes any one segment but an empty one.
    if (node.param && (segment.param || segment.value !== "")) return visit(node.param, depth + 1);
    return undefined;
  };
  return visit(root, 0);
}

/**
 * Warnings for stubs that can never answer: for each, the stub that always wins over it.
 * `batchOf(i)` is the batch of stub `i` (a later batch wins, whatever its path and
 * conditions); by default all are one batch. Work per stub does not grow with the number
 * of stubs.
 */
export function findShadowedStubs(
  stubs: readonly CompiledStub[],
  places: readonly string[] | ((index: number) => string),
  batchOf: (index: number) => number = () => 0,
): Problem[] {
  const placeOf = typeof places === "function" ? places : (index: number) => places[index];
  // Visit stubs in the order they win ties: later batch first, then declaration order.
  const order = stubs.map((_, i) => i).sort((a, b) => batchOf(b) - batchOf(a) || a - b);
  const groups = new Map<string, { bySignature: Map<string, number>; members: [number, Key[]][] }>();
  const found: { index: number; by: number }[] = [];
  /** Stubs of the batches later than the one being visited, by scope and priority. */
  const later = new Map<string, Later>();
  let pending: [number, Key[]][] = [];
  for (const i of order) {
    const stub = stubs[i];
    if (pending.length && batchOf(pending[0][0]) !== batchOf(i)) {
      for (const [j, keys] of pending) {
        const layer = `${stubs[j].scope ?? ""}\u0001${stubs[j].priority ?? 0}`;
        let root = later.get(layer);
        if (!root) later.set(layer, root = new Later());
        addLater(root, stubs[j], j, keys);
      }
      pending = [];
    }
    const keys = conditionKeys(stub);
    pending.push([i, keys]);
    const name = [stub.scope ?? "", stub.priority ?? 0, stub.method, pathShape(stub), keys.map((k) => k.on).join(",")]
      .join("\u0001");
    let group = groups.get(name);
    if (!group) groups.set(name, group = { bySignature: new Map(), members: [] });
    const signatures = covering(keys);
    const root = later.get(`${stub.scope ?? ""}\u0001${stub.priority ?? 0}`);
    const by = (signatures
      ? signatures.map((c) =>
        group!.bySignature.get(c)
      ).find((j) => j !== undefined)
      : group.members.find(([, other]) => covers(other, keys))?.[0]) ?? (root && laterCover(root, stub, keys, stubs));
    if (by !== undefined) found.push({ index: i, by });
    const own = signature(keys);
    if (!group.bySignature.has(own)) group.bySignature.set(own, i);
    group.members.push([i, keys]);
  }
  return found.sort((a, b) => a.index - b.index).map(({ index, by }) => {
    const [stub, winner] = [stubs[index], stubs[by]];
    const same = stub.path === winner.path && exactQuery(stub) === exactQuery(winner) &&
      JSON.stringify(stub.request ?? null) === JSON.stringify(winner.request ?? null);
    return {
      level: "warn",
      place: placeOf(index),
      message: same
        ? `duplicate of ${placeOf(by)} (${stubLabel(stub)}); it can never match`
        : `shadowed by ${placeOf(by)} (${stubLabel(winner)}), which matches every request it would; it can never match`,
    };
  });
}
