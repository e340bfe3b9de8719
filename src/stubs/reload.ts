/**
 * What changed between two stub lists (a config file before and after an edit): which
 * stubs are new, gone or answer differently, and for each new stub the old one it
 * continues, so a reload can carry its hit count and sequence position over.
 * @module
 */

import { webSocketConfig } from "./websocket_field.ts";
import { type CompiledStub, stubLabel } from "./model.ts";

/** What {@link diffStubs} found. Indexes refer to the old or the new list, as named. */
export interface StubChanges {
  /** For each new stub, the index of the old stub with the same identity, or undefined for a new one. */
  from: (number | undefined)[];
  /** New-list indexes of stubs that did not exist before. */
  added: number[];
  /** Old-list indexes of stubs that are gone. */
  removed: number[];
  /** New-list indexes of stubs with the same identity that answer differently. */
  changed: number[];
}

/** A stub's identity: method, path and required query (in any order). */
function identity(stub: CompiledStub): string {
  const query = Object.entries(stub.query ?? {}).sort(([a], [b]) => a < b ? -1 : a > b ? 1 : 0);
  return JSON.stringify([stub.method, stub.path, query]);
}

/** Everything about how a stub answers; two stubs with the same identity and behaviour are unchanged. */
function behaviour(stub: CompiledStub): string {
  return JSON.stringify([stub.responses, stub.isSequence, stub.sequenceMode, stub.delay ?? null]) +
    (stub.responseFunc ? String(stub.responseFunc) : "") +
    (stub.websocket ? JSON.stringify(webSocketConfig(stub.websocket)) : "");
}

/**
 * Pairs the stubs of two lists by identity (method + path + required query; the n-th
 * stub of an identity in one list pairs with the n-th in the other) and says what was
 * added, removed and changed.
 *
 * @example
 * ```ts
 * import { diffStubs } from "./reload.ts";
 * import type { CompiledStub } from "./model.ts";
 * import { get } from "../../mod.ts";
 * // A builder's stub is checked, so compiled (the public type leaves those parts out).
 * const before = [get("/a").toStub(), get("/b").toStub()] as CompiledStub[];
 * const after = [get("/b").status(201).toStub(), get("/c").toStub()] as CompiledStub[];
 * console.log(diffStubs(before, after)); // { from: [1, undefined], added: [1], removed: [0], changed: [0] }
 * ```
 */
export function diffStubs(before: readonly CompiledStub[], after: readonly CompiledStub[]): StubChanges {
  const byIdentity = new Map<string, number[]>();
  before.forEach((stub, i) => {
    const key = identity(stub);
    const list = byIdentity.get(key);
    if (list) list.push(i);
    else byIdentity.set(key, [i]);
  });
  const from: (number | undefined)[] = [];
  const added: number[] = [];
  const changed: number[] = [];
  const kept = new Set<number>();
  after.forEach((stub, i) => {
    const was = byIdentity.get(identity(stub))?.shift();
    from.push(was);
    if (was === undefined) added.push(i);
    else {
      kept.add(was);
      if (behaviour(before[was]) !== behaviour(stub)) changed.push(i);
    }
  });
  const removed = before.map((_, i) => i).filter((i) => !kept.has(i));
  return { from, added, removed, changed };
}

/** How many changed stubs {@link describeChanges} names before `… N more`. */
const SHOWN_NAMES = 8;

/**
 * One line for the log: `+2 -1 ~3 stubs (+GET /a, +POST /b, -GET /c, ~GET /d, …)`, naming
 * at most {@link SHOWN_NAMES} stubs.
 *
 * @example
 * ```ts
 * import { describeChanges, diffStubs } from "./reload.ts";
 * import type { CompiledStub } from "./model.ts";
 * import { get } from "../../mod.ts";
 * // A builder's stub is checked, so compiled (the public type leaves those parts out).
 * const before = [get("/a").toStub() as CompiledStub];
 * const after = [get("/a").status(500).toStub(), get("/b").toStub()] as CompiledStub[];
 * console.log(describeChanges(diffStubs(before, after), before, after)); // "+1 -0 ~1 stubs (+GET /b, ~GET /a)"
 * ```
 */
export function describeChanges(
  changes: StubChanges,
  before: readonly CompiledStub[],
  after: readonly CompiledStub[],
): string {
  const names = [
    ...changes.added.map((i) => `+${stubLabel(after[i])}`),
    ...changes.removed.map((i) => `-${stubLabel(before[i])}`),
    ...changes.changed.map((i) => `~${stubLabel(after[i])}`),
  ];
  const shown = names.length > SHOWN_NAMES
    ? [...names.slice(0, SHOWN_NAMES), `… ${names.length - SHOWN_NAMES} more`]
    : names;
  const counts = `+${changes.added.length} -${changes.removed.length} ~${changes.changed.length} stubs`;
  return shown.length ? `${counts} (${shown.join(", ")})` : counts;
}
