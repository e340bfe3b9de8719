/**
 * WireMock's precedence as stubtool priorities: the higher WireMock priority (a lower
 * number) first, then, among equal ones, the mapping loaded last. Only stubs that one
 * request could match both need ranks apart; stubs that can never match the same request
 * (other static paths, other methods, other literal header, query or JSON values) share
 * one, so the router keeps them in one layer and finds them by its index, as it does for
 * the same stubs written natively.
 * @module
 */

import { compileJsonPattern, compileValuePattern, jsonLiterals } from "../../stubs/patterns.ts";
import { isObject } from "../../util/json_shape.ts";

/** What decides whether two converted stubs can match one request. */
interface Shape {
  /** The method, or `ANY`; `GET` and `HEAD` are both read as `GET` (a GET stub may answer HEAD). */
  method: string;
  /** Path segments; undefined for a `{name}` segment, null for a `{name*}` catch-all. */
  segments: (string | undefined | null)[];
  /** The whole path when it has no `{…}` segment (the bucket of stubs it can overlap). */
  fixed: string | undefined;
  /**
   * Values the stub requires literally, each of something a request has one value of: a
   * header (`h x-env`), a JSON field (`j /a/b`), the query string (`qs`). Not query
   * parameters: a literal one matches when any of the parameter's values equals it.
   */
  literals: Map<string, string>;
}

function shapeOf(route: Record<string, unknown>): Shape {
  const method = route.method === "HEAD" ? "GET" : String(route.method ?? "ANY");
  const path = String(route.path ?? "/");
  const segments = path.split("/").slice(1).map((s) => s.includes("{") ? (s.endsWith("*}") ? null : undefined) : s);
  const literals = new Map<string, string>();
  const request = isObject(route.request) ? route.request : {};
  if (typeof request.query_string === "string") literals.set("qs", request.query_string);
  // Read as the stub's own conditions read them: text without a {name} capture is a literal.
  if (isObject(request.headers)) {
    for (const [name, value] of Object.entries(request.headers)) {
      const literal = compileValuePattern(value).pattern?.literal;
      if (literal !== undefined) literals.set(`h ${name.toLowerCase()}`, literal);
    }
  }
  if (request.json !== undefined) {
    const problems: string[] = [];
    const pattern = compileJsonPattern(request.json, [], problems);
    if (problems.length === 0) {
      for (const [pointer, key] of jsonLiterals(pattern)) literals.set(`j ${pointer}`, key);
    }
  }
  return { method, segments, fixed: segments.every((s) => typeof s === "string") ? path : undefined, literals };
}

/** Could one request match both? Errs towards yes. */
function overlaps(a: Shape, b: Shape): boolean {
  if (a.method !== b.method && a.method !== "ANY" && b.method !== "ANY") return false;
  const n = Math.min(a.segments.length, b.segments.length);
  let i = 0;
  for (; i < n; i++) {
    const x = a.segments[i], y = b.segments[i];
    if (x === null || y === null) break;
    if (typeof x === "string" && typeof y === "string" && x !== y) return false;
  }
  if (i === n && a.segments.length !== b.segments.length) return false;
  for (const [key, value] of a.literals) {
    const other = b.literals.get(key);
    if (other !== undefined && other !== value) return false;
  }
  return true;
}

/**
 * How far apart WireMock's priorities sit on stubtool's scale: a mapping of priority `p` gets
 * `(5 - p) × band`, plus its rank among the mappings of that priority it can share a request
 * with. So priorities keep their order across folders, files and the admin API, and a mapping
 * added over `/__admin/` (the top of its band) beats every loaded one of the same priority, as
 * in WireMock, where the mapping added last wins.
 */
export const PRIORITY_BAND = 1_000_000;

/** The stubtool priority of a mapping added over the admin API with WireMock priority `p`. */
export function adminPriority(p: number): number {
  return (5 - p) * PRIORITY_BAND + PRIORITY_BAND - 1;
}

/**
 * Sets each stub's `priority` so that stubtool picks what WireMock picks: WireMock's priority
 * first (its band, see {@link PRIORITY_BAND}), then, of two stubs of one priority that can
 * match the same request, the one loaded later gets the higher rank (stubtool would otherwise
 * prefer the more specific path and the stub with more conditions, which WireMock never
 * does). Stubs that cannot share a request may share a rank; priority 0 is left out as the
 * default.
 *
 * Each stub's rank is one above the highest rank among the earlier stubs it overlaps. The
 * earlier stubs are found through an index ({@link RankIndex}) that leaves out only stubs
 * that cannot overlap, so the ranks are those of comparing every pair, in time near linear
 * in the number of stubs (comparing every pair took 13 s for 40,000 mappings).
 */
export function rankPriorities(routes: Record<string, unknown>[], wiremockPriorities: readonly number[]): void {
  // From the stub that loses to all others up: each gets one rank above the highest it overlaps.
  const order = routes.map((_, i) => i).sort((a, b) => (wiremockPriorities[b] - wiremockPriorities[a]) || (a - b));
  const shapes = routes.map(shapeOf);
  const ranks: number[] = new Array(routes.length).fill(0);
  const indexes = new Map<number, RankIndex>();
  for (const index of order) {
    const p = wiremockPriorities[index];
    let ranked = indexes.get(p);
    if (!ranked) indexes.set(p, ranked = new RankIndex(shapes));
    ranks[index] = ranked.highestOverlapping(shapes[index]) + 1;
    ranked.add(index, ranks[index]);
  }
  routes.forEach((route, i) => {
    const priority = (5 - wiremockPriorities[i]) * PRIORITY_BAND + ranks[i];
    if (priority === 0) delete route.priority;
    else route.priority = priority;
  });
}

/** Stubs by rank, searched from the highest rank down: the first that overlaps decides. */
class ByRank {
  readonly #members = new Map<number, number[]>();
  /** The ranks present, ascending. */
  readonly #ranks: number[] = [];

  add(index: number, rank: number): void {
    const members = this.#members.get(rank);
    if (members) return void members.push(index);
    this.#members.set(rank, [index]);
    let low = 0, high = this.#ranks.length;
    while (low < high) {
      const mid = (low + high) >> 1;
      if (this.#ranks[mid] < rank) low = mid + 1;
      else high = mid;
    }
    this.#ranks.splice(low, 0, rank);
  }

  /** The highest rank above `floor` of a member that overlaps `shape`, else `floor`. */
  highest(shape: Shape, shapes: readonly Shape[], floor: number): number {
    for (let k = this.#ranks.length - 1; k >= 0 && this.#ranks[k] > floor; k--) {
      for (const other of this.#members.get(this.#ranks[k])!) {
        if (overlaps(shape, shapes[other])) return this.#ranks[k];
      }
    }
    return floor;
  }
}

/**
 * Stubs of one path (or one catch-all) by method and by one literal each requires: a stub
 * that requires `x-env: a` cannot overlap one that requires `x-env: b`, so only the stubs
 * with the same value, or without that literal, are compared.
 */
class Pool {
  /** By method, then: stubs without literals (`""`), and stubs filed under their first literal, by value. */
  readonly #methods = new Map<
    string,
    { plain: ByRank; byKey: Map<string, { all: ByRank; values: Map<string, ByRank> }> }
  >();
  max = -1;

  add(index: number, shape: Shape, rank: number): void {
    this.max = Math.max(this.max, rank);
    let method = this.#methods.get(shape.method);
    if (!method) this.#methods.set(shape.method, method = { plain: new ByRank(), byKey: new Map() });
    const first = shape.literals.entries().next();
    if (first.done) return method.plain.add(index, rank);
    const [key, value] = first.value;
    let filed = method.byKey.get(key);
    if (!filed) method.byKey.set(key, filed = { all: new ByRank(), values: new Map() });
    filed.all.add(index, rank);
    let same = filed.values.get(value);
    if (!same) filed.values.set(value, same = new ByRank());
    same.add(index, rank);
  }

  highest(shape: Shape, shapes: readonly Shape[], floor: number): number {
    if (this.max <= floor) return floor;
    for (const [method, { plain, byKey }] of this.#methods) {
      if (method !== shape.method && method !== "ANY" && shape.method !== "ANY") continue;
      floor = plain.highest(shape, shapes, floor);
      for (const [key, { all, values }] of byKey) {
        const value = shape.literals.get(key);
        floor = value === undefined
          ? all.highest(shape, shapes, floor)
          : values.get(value)?.highest(shape, shapes, floor) ?? floor;
      }
    }
    return floor;
  }
}

/** A node of the path tree: the stubs whose path ends here, or has its catch-all here, and what continues. */
interface PathNode {
  /** Paths that end at this depth. */
  end: Pool;
  /** Paths with their catch-all (`{name*}`) at this depth. */
  rest: Pool;
  /** Static next segments. */
  children: Map<string, PathNode>;
  /** A `{name}` next segment. */
  param?: PathNode;
  /** The highest rank in this subtree, and in the static children's subtrees. */
  max: number;
  childMax: number;
  /** The static child that holds `childMax` (the one to search first: a later stub overlaps it most often). */
  top?: PathNode;
}

function pathNode(): PathNode {
  return { end: new Pool(), rest: new Pool(), children: new Map(), max: -1, childMax: -1 };
}

/**
 * The ranked stubs of one WireMock priority, in a tree of their path segments: a stub is
 * compared only with stubs whose paths one request could match both, and a subtree whose
 * highest rank cannot raise the answer is skipped.
 */
class RankIndex {
  readonly #root = pathNode();
  readonly #shapes: readonly Shape[];

  constructor(shapes: readonly Shape[]) {
    this.#shapes = shapes;
  }

  add(index: number, rank: number): void {
    const shape = this.#shapes[index];
    let node = this.#root;
    for (const segment of shape.segments) {
      node.max = Math.max(node.max, rank);
      if (segment === null) return node.rest.add(index, shape, rank);
      if (segment === undefined) node = node.param ??= pathNode();
      else {
        let child = node.children.get(segment);
        if (!child) node.children.set(segment, child = pathNode());
        if (rank >= node.childMax) [node.childMax, node.top] = [rank, child];
        node = child;
      }
    }
    node.max = Math.max(node.max, rank);
    node.end.add(index, shape, rank);
  }

  /** The highest rank of a ranked stub that overlaps `shape`, or -1. */
  highestOverlapping(shape: Shape): number {
    return this.#visit(this.#root, shape, 0, -1);
  }

  #visit(node: PathNode, shape: Shape, depth: number, floor: number): number {
    if (node.max <= floor) return floor;
    if (depth === shape.segments.length) return node.end.highest(shape, this.#shapes, floor);
    // A catch-all here takes any path that goes on past this depth.
    floor = node.rest.highest(shape, this.#shapes, floor);
    const segment = shape.segments[depth];
    if (segment === null) {
      // This stub's catch-all: every path below, but not one that ends here.
      if (node.param) floor = this.#all(node.param, shape, floor);
      return this.#children(node, (child) => floor = this.#all(child, shape, floor), () => floor);
    }
    if (node.param) floor = this.#visit(node.param, shape, depth + 1, floor);
    if (segment !== undefined) {
      const child = node.children.get(segment);
      return child ? this.#visit(child, shape, depth + 1, floor) : floor;
    }
    return this.#children(node, (child) => floor = this.#visit(child, shape, depth + 1, floor), () => floor);
  }

  /** Every stub of a subtree. */
  #all(node: PathNode, shape: Shape, floor: number): number {
    if (node.max <= floor) return floor;
    floor = node.end.highest(shape, this.#shapes, floor);
    floor = node.rest.highest(shape, this.#shapes, floor);
    if (node.param) floor = this.#all(node.param, shape, floor);
    return this.#children(node, (child) => floor = this.#all(child, shape, floor), () => floor);
  }

  /**
   * Searches the static children, the one with the highest rank first, until none can raise
   * the answer (`floor()`): when a stub overlaps that one, no other child is looked at.
   */
  #children(node: PathNode, search: (child: PathNode) => void, floor: () => number): number {
    if (!node.top || node.childMax <= floor()) return floor();
    search(node.top);
    for (const child of node.children.values()) {
      if (node.childMax <= floor()) break;
      if (child !== node.top) search(child);
    }
    return floor();
  }
}
