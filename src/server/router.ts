/**
 * The trie router (P3.1, P3.2, P3.4). One trie per method; a lookup walks one node per
 * path segment, trying the static child before the placeholder child and backtracking,
 * so its cost follows the number of segments, not the number of stubs. Stubs ending at
 * the same node are ordered: required query first, then declaration order.
 * @module
 */

import type { Method } from "../stubs/model.ts";
import { decodeSegment, placeholderName, type Segment } from "../stubs/path.ts";

/** What the router needs to know about a stub. */
export interface Routable {
  method: Method;
  /** The path template (for near-miss reports). */
  path: string;
  segments: readonly Segment[];
  /** Required query parameters: name → literal, or `{name}` to capture. */
  query?: Readonly<Record<string, string>>;
  /** Declaration order, the last tie-breaker. */
  order: number;
}

/** A successful lookup: the stub and its captured values (path placeholders, then query captures). */
export interface Match<T> {
  route: T;
  values: string[];
}

/** A stub that nearly matched, and why it did not (P8.3). */
export interface NearMiss<T> {
  route: T;
  reason: string;
}

interface QueryCheck {
  key: string;
  /** Required value, or undefined to capture whatever value is present. */
  literal?: string;
}

interface Terminal<T> {
  route: T;
  checks: readonly QueryCheck[];
}

class Node<T> {
  statics: Map<string, Node<T>> | undefined;
  /**
   * Last segments that end exactly one stub, a path-only one (no placeholder after it, no
   * query), and lead nowhere else: the stub itself stands in for a child node. Most stubs of
   * a large config are such leaves; a segment is in `leaves` or in `statics`, never both.
   */
  leaves: Map<string, T> | undefined;
  param: Node<T> | undefined;
  /**
   * The one stub ending here, when it is alone and requires no query: most nodes of a large
   * config end one stub, and this spares them a list and an entry object each.
   */
  only: T | undefined;
  /** The stubs ending here in precedence order, when {@link only} does not describe them. */
  terminals: Terminal<T>[] | undefined;
}

/** The stubs ending at `node`, in precedence order (for near-miss search, which may allocate). */
function terminalsOf<T>(node: Node<T>): readonly Terminal<T>[] {
  if (node.only !== undefined) return [{ route: node.only, checks: NO_CHECKS }];
  return node.terminals ?? NO_TERMINALS;
}

/** Parses the raw query string once, and only when a stub asks about it. */
class LazyQuery {
  #raw: string;
  #params: URLSearchParams | undefined;
  constructor(raw: string) {
    this.#raw = raw;
  }
  get params(): URLSearchParams {
    return this.#params ??= new URLSearchParams(this.#raw);
  }
}

/** Longest value a near-miss reason quotes; longer ones are cut (the report keeps up to 1,000 reasons ×3). */
const QUOTE_MAX = 40;

/** `'asc'` for a near-miss reason: cut at {@link QUOTE_MAX} characters, JSON-escaped if it holds a quote or control character. */
export function quoteValue(value: string): string {
  const cut = value.length > QUOTE_MAX ? `${value.slice(0, QUOTE_MAX - 1)}…` : value;
  // deno-lint-ignore no-control-regex -- control characters must not reach a one-line report
  return /['\x00-\x1f\x7f]/.test(cut) ? JSON.stringify(cut) : `'${cut}'`;
}

/** Why `checks` fail for this query, or undefined when they pass (captures appended to `values`). */
function checkQuery(checks: readonly QueryCheck[], query: LazyQuery, values: string[]): string | undefined {
  for (const check of checks) {
    const all = query.params.getAll(check.key);
    if (all.length === 0) return `missing query parameter '${check.key}'`;
    if (check.literal === undefined) values.push(all[0]);
    else if (!all.includes(check.literal)) {
      const got = all.length === 1 ? quoteValue(all[0]) : `${quoteValue(all[0])} (and ${all.length - 1} more)`;
      return `query parameter '${check.key}' is ${got}, stub wants ${quoteValue(check.literal)}`;
    }
  }
  return undefined;
}

/** `segment 3 is 'invoices', stub has 'orders'`: which segment differs, what the request had and the stub wants. */
function segmentReason(route: Routable, depth: number, requested: string): string {
  const segment = route.segments[depth];
  const wants = segment.param ? `'{${segment.name}}'` : quoteValue(segment.value);
  return `segment ${depth + 1} is ${requested === "" ? "empty" : quoteValue(requested)}, stub has ${wants}`;
}

/** Does `a` take precedence over `b` at the same node: required query first, then declaration order? */
function precedes<T extends Routable>(a: Terminal<T>, b: Terminal<T>): boolean {
  const aQuery = a.checks.length > 0, bQuery = b.checks.length > 0;
  return aQuery !== bQuery ? aQuery : a.route.order < b.route.order;
}

const NEAR_MISS_VISIT_LIMIT = 2_000;
/** A lookup at its last segment: the terminal check of {@link Router.match} with no segments left. */
const EMPTY: readonly string[] = [];
/** Shared by every stub without a query, so registering one allocates no array for it. */
const NO_CHECKS: readonly QueryCheck[] = [];
// deno-lint-ignore no-explicit-any
const NO_TERMINALS: readonly Terminal<any>[] = [];

/** Can this stub be a leaf: no query, and its last segment static? */
function isLeafShaped(route: Routable): boolean {
  const last = route.segments[route.segments.length - 1];
  return route.query === undefined && last !== undefined && !last.param;
}

/**
 * Adds `route` to the trie of its method in `roots`, keeping each node's stubs in
 * precedence order. With `leaves`, a path-only stub whose last segment leads nowhere yet
 * becomes a leaf (a later stub through or at that segment turns it back into a node).
 */
function insert<T extends Routable>(roots: Map<Method, Node<T>>, route: T, leaves: boolean): void {
  let node: Node<T> | undefined = roots.get(route.method);
  if (!node) roots.set(route.method, node = new Node<T>());
  const segments = route.segments;
  const leafShaped = leaves && isLeafShaped(route);
  for (let i = 0; i < segments.length; i++) {
    const segment = segments[i];
    if (segment.param) {
      node = node.param ??= new Node();
      continue;
    }
    const value = segment.value;
    let next: Node<T> | undefined = node.statics?.get(value);
    if (!next) {
      const leaf = node.leaves?.get(value);
      if (leafShaped && i === segments.length - 1) {
        // A leaf already here was declared first (it keeps the place) unless added out of order.
        if (leaf === undefined || route.order < leaf.order) (node.leaves ??= new Map()).set(value, route);
        return;
      }
      next = new Node();
      if (leaf !== undefined) {
        node.leaves!.delete(value);
        next.only = leaf;
      }
      (node.statics ??= new Map()).set(value, next);
    }
    node = next;
  }
  if (route.query === undefined && node.only === undefined && node.terminals === undefined) {
    node.only = route;
    return;
  }
  if (node.only !== undefined) {
    node.terminals = [{ route: node.only, checks: NO_CHECKS }];
    node.only = undefined;
  }
  let checks = NO_CHECKS;
  if (route.query) {
    const list: QueryCheck[] = [];
    for (const key in route.query) {
      const value = route.query[key];
      list.push(placeholderName(value) === undefined ? { key, literal: value } : { key });
    }
    checks = list;
  }
  const terminal = { route, checks };
  const terminals = node.terminals;
  if (!terminals) {
    node.terminals = [terminal];
    return;
  }
  // Keep the order (required query first, then declaration order) by inserting in place:
  // sorting on every add made registering n stubs on one path cost O(n² log n).
  let at = terminals.length;
  while (at > 0 && precedes(terminal, terminals[at - 1])) at--;
  terminals.splice(at, 0, terminal);
}

/**
 * A trie per method over {@link Routable} stubs. Path-only stubs (most of a large config)
 * end in a leaf map entry rather than a node of their own, which makes them cheap to add.
 */
export class Router<T extends Routable> {
  #roots = new Map<Method, Node<T>>();
  /** Every stub added, in order: near-miss search works on a trie of all of them without leaves. */
  #all: T[] = [];
  /** That trie, built on the first miss after a change. */
  #complete: Map<Method, Node<T>> | undefined;

  /** Adds a stub; it takes effect for the next lookup. */
  add(route: T): void {
    this.#all.push(route);
    this.#complete = undefined;
    insert(this.#roots, route, true);
  }

  /** Finds the stub for a request, or undefined. `segments` are decoded request path segments. */
  match(method: string, segments: readonly string[], rawQuery: string): Match<T> | undefined {
    const root = this.#roots.get(method as Method);
    if (!root) return undefined;
    this.#rawQuery = rawQuery;
    this.#query = undefined;
    return this.#find(root, segments, 0, []);
  }

  /**
   * {@link match} over a request pathname (`/users/42`) as is: walks the trie segment by
   * segment along the string, decoding a segment only when it holds `%`, so no segment
   * array is built for a request that matches.
   */
  matchPath(method: string, pathname: string, rawQuery: string): Match<T> | undefined {
    const root = this.#roots.get(method as Method);
    if (!root) return undefined;
    this.#rawQuery = rawQuery;
    this.#query = undefined;
    return this.#findAlong(root, pathname, 1, []);
  }

  /** The query of the lookup under way, parsed on first need (most stubs require none). */
  #rawQuery = "";
  #query: LazyQuery | undefined;

  #find(node: Node<T>, segments: readonly string[], depth: number, values: string[]): Match<T> | undefined {
    if (depth === segments.length) {
      if (node.only !== undefined) return { route: node.only, values };
      const terminals = node.terminals;
      if (!terminals) return undefined;
      for (const terminal of terminals) {
        // `values` is not touched again once a match returns, so it is handed over as is.
        if (terminal.checks.length === 0) return { route: terminal.route, values };
        const captured = values.slice();
        const query = this.#query ??= new LazyQuery(this.#rawQuery);
        if (checkQuery(terminal.checks, query, captured) === undefined) {
          return { route: terminal.route, values: captured };
        }
      }
      return undefined;
    }
    const segment = segments[depth];
    if (node.leaves !== undefined && depth === segments.length - 1) {
      const leaf = node.leaves.get(segment);
      if (leaf !== undefined) return { route: leaf, values };
    }
    const child = node.statics?.get(segment);
    if (child) {
      const found = this.#find(child, segments, depth + 1, values);
      if (found) return found;
    }
    if (node.param && segment !== "") {
      values.push(segment);
      const found = this.#find(node.param, segments, depth + 1, values);
      if (found) return found;
      values.pop();
    }
    return undefined;
  }

  /** {@link #find} for the segment of `pathname` that starts at `start`. */
  #findAlong(node: Node<T>, pathname: string, start: number, values: string[]): Match<T> | undefined {
    let end = pathname.indexOf("/", start);
    const last = end === -1;
    if (last) end = pathname.length;
    let segment = pathname.slice(start, end);
    if (segment.includes("%")) segment = decodeSegment(segment);
    if (last && node.leaves !== undefined) {
      const leaf = node.leaves.get(segment);
      if (leaf !== undefined) return { route: leaf, values };
    }
    const child = node.statics?.get(segment);
    if (child) {
      const found = last ? this.#find(child, EMPTY, 0, values) : this.#findAlong(child, pathname, end + 1, values);
      if (found) return found;
    }
    if (node.param && segment !== "") {
      values.push(segment);
      const found = last
        ? this.#find(node.param, EMPTY, 0, values)
        : this.#findAlong(node.param, pathname, end + 1, values);
      if (found) return found;
      values.pop();
    }
    return undefined;
  }

  /**
   * Explains a miss: up to `limit` stubs that nearly matched, closest first — path matched
   * but a query parameter did not; path matched under another method; only the trailing
   * slash differs; exactly one segment of a path of two or more differs. Bounded work;
   * call it only on a miss.
   */
  nearMisses(method: string, segments: readonly string[], rawQuery: string, limit = 3): NearMiss<T>[] {
    const found: NearMiss<T>[] = [];
    const add = (route: T, reason: string) => {
      if (found.length < limit && !found.some((f) => f.route === route)) found.push({ route, reason });
    };
    const query = new LazyQuery(rawQuery);
    if (!this.#complete) {
      this.#complete = new Map();
      for (const route of this.#all) insert(this.#complete, route, false);
    }
    const roots = this.#complete;
    const root = roots.get(method as Method);
    if (root) {
      this.#walk(root, segments, (node) => {
        for (const terminal of terminalsOf(node)) {
          const reason = checkQuery(terminal.checks, query, []);
          if (reason) add(terminal.route, reason);
        }
      });
    }
    for (const [other, otherRoot] of roots) {
      if (other === method) continue;
      this.#walk(otherRoot, segments, (node) => {
        const terminal = terminalsOf(node)[0];
        if (terminal) add(terminal.route, `method differs (stub is ${other})`);
      });
    }
    if (root) {
      const toggled = segments.at(-1) === "" && segments.length > 1 ? segments.slice(0, -1) : [...segments, ""];
      const slash = toggled.length < segments.length
        ? "trailing slash (stub has none)"
        : "trailing slash (stub has one)";
      this.#walk(root, toggled, (node) => {
        for (const terminal of terminalsOf(node)) add(terminal.route, slash);
      });
      let visits = 0;
      const visit = (node: Node<T>, depth: number, differs: number): void => {
        if (found.length >= limit || ++visits > NEAR_MISS_VISIT_LIMIT) return;
        if (depth === segments.length) {
          if (differs >= 0) {
            for (const terminal of terminalsOf(node)) {
              add(terminal.route, segmentReason(terminal.route, differs, segments[differs]));
            }
          }
          return;
        }
        const segment = segments[depth];
        const exact = node.statics?.get(segment);
        if (exact) visit(exact, depth + 1, differs);
        if (node.param && segment !== "") visit(node.param, depth + 1, differs);
        if (differs >= 0) return;
        for (const [value, child] of node.statics ?? []) {
          if (found.length >= limit || visits > NEAR_MISS_VISIT_LIMIT) return;
          if (value !== segment) visit(child, depth + 1, depth);
        }
        if (node.param && segment === "") visit(node.param, depth + 1, depth);
      };
      // With one segment, "one segment differs" would mean nothing matched at all.
      if (segments.length > 1) visit(root, 0, -1);
    }
    return found;
  }

  /** Calls `onEnd` for each node the path reaches exactly (static and placeholder branches), within a visit budget. */
  #walk(root: Node<T>, segments: readonly string[], onEnd: (node: Node<T>) => void): void {
    let visits = 0;
    const visit = (node: Node<T>, depth: number): void => {
      if (++visits > NEAR_MISS_VISIT_LIMIT) return;
      if (depth === segments.length) return onEnd(node);
      const segment = segments[depth];
      const child = node.statics?.get(segment);
      if (child) visit(child, depth + 1);
      if (node.param && segment !== "") visit(node.param, depth + 1);
    };
    visit(root, 0);
  }
}
