/**
 * The router: which stub answers a request, and why the closest stubs did not.
 *
 * Precedence among the stubs whose every condition holds: (1) a scoped stub for the
 * request's scope; (2) higher priority; (3) the later batch, so a stub a test adds always
 * beats the baseline's; (4) path specificity, earliest differing segment first — static,
 * then `{name}`, then `{name*}`, then `{name**}` — and a specific method before `ANY`; (5) more conditions;
 * (6) the first declared.
 *
 * (1) and (2) are layers tried in order. Within a layer, one trie per method (and one for
 * `ANY`) is walked depth first, static child before placeholder before catch-all, so the
 * stubs are met in order of path specificity (4). Every node knows the latest batch of the
 * stubs at or below it: once a stub of batch B matched, only branches holding a later batch
 * are entered, and a stub of the trie's latest batch ends the walk, so many batches cost no
 * more than one. Stubs ending at one node are kept in (3)-(5)-(6) order, and when there are
 * many of them, an index on the literal values they require (a query parameter, a header,
 * a JSON field) picks out the few worth checking, so lookup cost follows the number of
 * segments and candidates, not the number of stubs or batches.
 * @module
 */

import { decodeSegment, placeholderText, type Segment, splitRequestPath } from "../../stubs/path.ts";
import { quoteValue } from "../../stubs/quote.ts";
import type { RequestView } from "../request_view.ts";

/** What a lookup returns when a condition needs the request body and it has not been read yet. */
export const NEED_BODY: unique symbol = Symbol("the request body is needed");

/** Something a condition requires literally, which the router can index on: a query parameter, a header, a body field. */
export interface Dimension {
  /** Equal for every condition on the same thing (`q id`, `h x-env`, `j /amount`). */
  readonly id: string;
  /** Reading it needs the body. */
  readonly needsBody: boolean;
  /** The request's index keys on this dimension (none when it lacks it). */
  keys(view: RequestView): readonly string[];
}

/** One compiled condition of a stub: a query parameter, a header, a body field, a form field, a body text. */
export interface Condition {
  /** How many conditions it counts as for precedence (5): a JSON pattern counts its leaves. */
  readonly weight: number;
  /** It reads the body. */
  readonly needsBody: boolean;
  /** It reads request headers (a header or cookie condition), so near misses differ by them. */
  readonly readsHeaders?: boolean;
  /** The literals it requires on dimensions the router can index (a JSON pattern may have several). */
  readonly literals: readonly { dimension: Dimension; key: string }[];
  /** Does the request meet it? When it does, its captures are pushed (decoded to `values`, as sent to `raw`). */
  test(view: RequestView, values: string[], raw: string[]): boolean;
  /** Why the request does not meet it (only asked after {@link Condition.test} said no). */
  reason(view: RequestView): string;
}

/** What the router needs to know about a stub. */
export interface Routable {
  /** A method, or `ANY`. */
  readonly method: string;
  /** The path template (for near-miss reports). */
  readonly path: string;
  readonly segments: readonly Segment[];
  readonly conditions: readonly Condition[];
  /** The sum of the conditions' weights. */
  readonly weight: number;
  /** Which batch it came in (a config file, the `--stub`s, one `routes()` call, one admin `POST`); later is higher. */
  readonly batch: number;
  /** Declaration order across all batches. */
  readonly order: number;
  readonly priority: number;
  readonly scope: string | undefined;
  /** True for a `GET` stub that does not answer `HEAD` (`head: false`). */
  readonly noHead?: boolean;
}

/** A successful lookup: the stub and its captures, decoded and as sent, in capture order. */
export interface Match<T> {
  route: T;
  values: string[];
  raw: string[];
}

/** A stub that nearly matched, and why it did not. */
export interface NearMiss<T> {
  route: T;
  reason: string;
}

/** Does `a` come before `b` among stubs of the same path: later batch, more conditions, first declared? */
function ranksBefore(a: Routable, b: Routable): boolean {
  if (a.batch !== b.batch) return a.batch > b.batch;
  if (a.weight !== b.weight) return a.weight > b.weight;
  return a.order < b.order;
}

function byRank(a: Routable, b: Routable): number {
  return ranksBefore(a, b) ? -1 : ranksBefore(b, a) ? 1 : 0;
}

/** 0 static, 1 `{name}`, 2 `{name*}`, 3 `{name**}`. */
function kind(segment: Segment): number {
  return !segment.param ? 0 : segment.orNone ? 3 : segment.rest ? 2 : 1;
}

/** Is `a`'s path more specific than `b`'s (earliest differing segment: static, `{name}`, `{name*}`, `{name**}`)? */
export function moreSpecific(a: Routable, b: Routable): boolean {
  const n = Math.min(a.segments.length, b.segments.length);
  for (let i = 0; i < n; i++) {
    const ka = kind(a.segments[i]), kb = kind(b.segments[i]);
    if (ka !== kb) return ka < kb;
  }
  return false;
}

/** Lists at a node shorter than this are checked one by one; longer ones get an index. */
const INDEX_MIN = 8;

/**
 * The stubs ending at one trie node, in rank order, with an index on a literal dimension
 * once there are many. Each bucket of the index is itself a list that may index on
 * another dimension (a header, then a JSON field), so 1,000 stubs that differ by two
 * literals cost a couple of map lookups.
 */
class Candidates<T extends Routable> {
  readonly list: T[] = [];
  /** Dimensions already indexed above this list. */
  readonly #used: ReadonlySet<string>;
  /** undefined: not built since the last change; null: not worth one. */
  #index: Index<T> | null | undefined;

  constructor(used: ReadonlySet<string> = new Set()) {
    this.#used = used;
  }

  add(route: T): void {
    let at = this.list.length;
    while (at > 0 && ranksBefore(route, this.list[at - 1])) at--;
    this.list.splice(at, 0, route);
    this.#index = undefined;
  }

  remove(route: T): boolean {
    const at = this.list.indexOf(route);
    if (at === -1) return false;
    this.list.splice(at, 1);
    this.#index = undefined;
    return true;
  }

  /** The stubs worth checking for this request, in rank order: every one that can match is among them. */
  for(view: RequestView): readonly T[] | typeof NEED_BODY {
    if (this.list.length < INDEX_MIN) return this.list;
    if (this.#index === undefined) this.#index = buildIndex(this.list, this.#used);
    if (this.#index === null) return this.list;
    const { dimension, buckets, rest } = this.#index;
    if (dimension.needsBody && view.body === undefined) return NEED_BODY;
    const lists: (readonly T[])[] = rest.length ? [rest] : [];
    const given = dimension.keys(view);
    // A value given twice (`?id=1&id=1`) is looked up once; thousands of values stay linear.
    const keys = given.length > 1 ? new Set(given) : given;
    for (const key of keys) {
      const bucket = buckets.get(key);
      if (!bucket) continue;
      const found = bucket.for(view);
      if (found === NEED_BODY) return NEED_BODY;
      if (found.length) lists.push(found);
    }
    if (lists.length <= 1) return lists[0] ?? [];
    return lists.flat().sort(byRank);
  }
}

interface Index<T extends Routable> {
  dimension: Dimension;
  buckets: Map<string, Candidates<T>>;
  /** The stubs that require no literal on the dimension, in rank order. */
  rest: T[];
}

/** An index on the dimension most of the list requires a literal on, or null when none is worth it. */
function buildIndex<T extends Routable>(list: readonly T[], used: ReadonlySet<string>): Index<T> | null {
  const counts = new Map<string, { dimension: Dimension; count: number }>();
  for (const route of list) {
    for (const condition of route.conditions) {
      for (const literal of condition.literals) {
        if (used.has(literal.dimension.id)) continue;
        const entry = counts.get(literal.dimension.id);
        if (entry) entry.count++;
        else counts.set(literal.dimension.id, { dimension: literal.dimension, count: 1 });
      }
    }
  }
  let best: { dimension: Dimension; count: number } | undefined;
  for (const entry of counts.values()) if (!best || entry.count > best.count) best = entry;
  // Index only when it spares most of the list: a dimension few stubs use would leave a long rest.
  if (!best || best.count * 2 < list.length) return null;
  const dimension = best.dimension;
  const below = new Set(used).add(dimension.id);
  const buckets = new Map<string, Candidates<T>>();
  const rest: T[] = [];
  for (const route of list) {
    let literal: { key: string } | undefined;
    for (const condition of route.conditions) {
      literal ??= condition.literals.find((l) => l.dimension.id === dimension.id);
    }
    if (!literal) {
      rest.push(route);
      continue;
    }
    let bucket = buckets.get(literal.key);
    if (!bucket) buckets.set(literal.key, bucket = new Candidates<T>(below));
    bucket.list.push(route); // the list is already in rank order
  }
  return { dimension, buckets, rest };
}

class Node<T extends Routable> {
  statics: Map<string, Node<T>> | undefined;
  param: Node<T> | undefined;
  /** The node of a `{name*}` segment: it ends a path, so it only holds terminals. */
  rest: Node<T> | undefined;
  /** The node of a `{name**}` segment: like {@link Node.rest}, but it also takes nothing. */
  restOrNone: Node<T> | undefined;
  terminals: Candidates<T> | undefined;
  /** The latest batch of the stubs ending here or below (-1: none): a walk skips branches that cannot win. */
  maxBatch = -1;

  /** Recomputes {@link Node.maxBatch} from the terminals and the children. */
  refresh(): void {
    let max = this.terminals?.list[0]?.batch ?? -1;
    if (this.param && this.param.maxBatch > max) max = this.param.maxBatch;
    if (this.rest && this.rest.maxBatch > max) max = this.rest.maxBatch;
    if (this.restOrNone && this.restOrNone.maxBatch > max) max = this.restOrNone.maxBatch;
    for (const child of this.statics?.values() ?? []) if (child.maxBatch > max) max = child.maxBatch;
    this.maxBatch = max;
  }
}

/** The stubs of one scope (or none) and one priority: a trie per method, and one for `ANY`. */
class Layer<T extends Routable> {
  readonly priority: number;
  readonly tries = new Map<string, Node<T>>();
  size = 0;

  constructor(priority: number) {
    this.priority = priority;
  }

  add(route: T): void {
    let node: Node<T> | undefined = this.tries.get(route.method);
    if (!node) this.tries.set(route.method, node = new Node<T>());
    if (route.batch > node.maxBatch) node.maxBatch = route.batch;
    for (const segment of route.segments) {
      if (!segment.param) {
        let next: Node<T> | undefined = node.statics?.get(segment.value);
        if (!next) (node.statics ??= new Map()).set(segment.value, next = new Node());
        node = next;
      } else if (segment.orNone) node = node.restOrNone ??= new Node();
      else if (segment.rest) node = node.rest ??= new Node();
      else node = node.param ??= new Node();
      if (route.batch > node.maxBatch) node.maxBatch = route.batch;
    }
    (node.terminals ??= new Candidates()).add(route);
    this.size++;
  }

  remove(route: T): boolean {
    let node: Node<T> | undefined = this.tries.get(route.method);
    const path: Node<T>[] = [];
    for (const segment of route.segments) {
      if (!node) return false;
      path.push(node);
      node = !segment.param
        ? node.statics?.get(segment.value)
        : segment.orNone
        ? node.restOrNone
        : segment.rest
        ? node.rest
        : node.param;
    }
    if (!node?.terminals?.remove(route)) return false;
    path.push(node);
    // Only a stub of a node's latest batch can lower it; the recount stops where nothing changes.
    for (let i = path.length - 1; i >= 0 && path[i].maxBatch === route.batch; i--) {
      path[i].refresh();
      if (path[i].maxBatch === route.batch) break;
    }
    this.size--;
    return true;
  }
}

/** The tries a request of `method` is looked up in, most specific method first (`GET` stubs answer `HEAD`). */
function triesFor(method: string): readonly string[] {
  if (method === "HEAD") return HEAD_TRIES;
  if (method === "GET") return GET_TRIES;
  if (method === "ANY") return ANY_TRIES;
  let tries = OTHER_TRIES.get(method);
  if (!tries) {
    tries = [method, "ANY"];
    if (OTHER_TRIES.size < 64) OTHER_TRIES.set(method, tries);
  }
  return tries;
}
/** Tries of the other methods, built once per method (clients may send any token as a method: at most 64 kept). */
const OTHER_TRIES = new Map<string, readonly string[]>();
const HEAD_TRIES = ["HEAD", "GET", "ANY"];
const GET_TRIES = ["GET", "ANY"];
const ANY_TRIES = ["ANY"];

/** A lookup in one layer: the best stub so far, its batch, and the trie being walked. */
interface Search<T extends Routable> {
  best: Match<T> | undefined;
  /** The best stub's batch; -1 before one is found. */
  batch: number;
  /** The trie being walked. */
  root: Node<T> | undefined;
  /** The trie the best stub was found in. */
  from?: Node<T>;
}

/**
 * Can a stub at or below `node` beat the best so far? One of a later batch can; one of the
 * same batch only from another trie (the walk meets a trie's stubs most specific first).
 */
function worthVisiting<T extends Routable>(node: Node<T>, search: Search<T>): boolean {
  return node.maxBatch > search.batch || (node.maxBatch === search.batch && search.from !== search.root);
}

/** Does `route` (found in the trie being walked) beat the best so far? */
function beats<T extends Routable>(route: T, search: Search<T>): boolean {
  if (route.batch !== search.batch) return route.batch > search.batch;
  // Same batch: within one trie the first found is the most specific; across tries, a tie keeps the earlier trie.
  return search.from !== search.root && moreSpecific(route, search.best!.route);
}

const NEAR_MISS_VISIT_LIMIT = 2_000;

/** `segment 3 is 'invoices', stub has 'orders'`. */
function segmentReason(route: Routable, depth: number, requested: string): string {
  const segment = route.segments[depth];
  const wants = segment.param ? `'${placeholderText(segment)}'` : quoteValue(segment.value);
  return `segment ${depth + 1} is ${requested === "" ? "empty" : quoteValue(requested)}, stub has ${wants}`;
}

/** What one {@link Router.nearMisses} call has found so far, and the visits it has spent (bounded). */
class MissSearch<T extends Routable> {
  readonly found: NearMiss<T>[] = [];
  #visits = 0;
  constructor(readonly limit: number) {}

  add(route: T, reason: string): void {
    if (this.found.length < this.limit && !this.found.some((f) => f.route === route)) {
      this.found.push({ route, reason });
    }
  }

  full(): boolean {
    return this.found.length >= this.limit;
  }

  /** Counts one visit; true once the visits run out or enough was found. */
  spent(): boolean {
    return ++this.#visits > NEAR_MISS_VISIT_LIMIT || this.full();
  }

  /** Calls `onEnd` for each node the segments reach exactly (static, placeholder and catch-all branches). */
  walk(root: Node<T>, path: readonly string[], onEnd: (node: Node<T>) => boolean | void): void {
    const visit = (node: Node<T>, depth: number): boolean | void => {
      if (this.spent()) return true;
      if (depth === path.length) return onEnd(node);
      const segment = path[depth];
      const child = node.statics?.get(segment);
      if (child && visit(child, depth + 1)) return true;
      if (node.param && segment !== "" && visit(node.param, depth + 1)) return true;
      if (node.rest && path.slice(depth).join("/") !== "" && onEnd(node.rest)) return true;
      if (node.restOrNone) return onEnd(node.restOrNone);
    };
    visit(root, 0);
  }
}

/** Near misses, step 1: the path matched in a tree of the request's method, a condition did not. */
function conditionMisses<T extends Routable>(
  view: RequestView,
  segments: readonly string[],
  layers: readonly Layer<T>[],
  own: readonly string[],
  misses: MissSearch<T>,
): typeof NEED_BODY | undefined {
  for (const layer of layers) {
    for (const method of own) {
      const root = layer.tries.get(method);
      if (!root) continue;
      let needBody = false;
      misses.walk(root, segments, (node) => {
        for (const route of node.terminals?.list ?? []) {
          if (misses.spent()) return true;
          for (const condition of route.conditions) {
            if (condition.needsBody && view.body === undefined) {
              needBody = true;
              return true;
            }
            if (!condition.test(view, [], [])) {
              misses.add(route, condition.reason(view));
              break;
            }
          }
        }
      });
      if (needBody) return NEED_BODY;
    }
  }
  return undefined;
}

/**
 * Stubs by scope and priority, each a {@link Layer} of tries. Adding and removing take
 * effect for the next lookup; both are synchronous, so no request sees half a change.
 */
export class Router<T extends Routable> {
  /** Unscoped layers, highest priority first. */
  #layers: Layer<T>[] = [];
  /** Scoped layers by scope name, highest priority first. */
  #scoped = new Map<string, Layer<T>[]>();

  /** Is any stub scoped (so a request's scope header is worth reading)? */
  get hasScoped(): boolean {
    return this.#scoped.size > 0;
  }

  #layersOf(scope: string | undefined, create: boolean): Layer<T>[] | undefined {
    if (scope === undefined) return this.#layers;
    let layers = this.#scoped.get(scope);
    if (!layers && create) this.#scoped.set(scope, layers = []);
    return layers;
  }

  /** Adds a stub; it takes effect for the next lookup. */
  add(route: T): void {
    const layers = this.#layersOf(route.scope, true)!;
    let layer = layers.find((l) => l.priority === route.priority);
    if (!layer) {
      layer = new Layer<T>(route.priority);
      layers.push(layer);
      layers.sort((a, b) => b.priority - a.priority);
    }
    layer.add(route);
  }

  /** Removes a stub; returns whether it was there. */
  remove(route: T): boolean {
    const layers = this.#layersOf(route.scope, false);
    const layer = layers?.find((l) => l.priority === route.priority);
    if (!layer || !layer.remove(route)) return false;
    if (layer.size === 0) {
      layers!.splice(layers!.indexOf(layer), 1);
      if (layers!.length === 0 && route.scope !== undefined) this.#scoped.delete(route.scope);
    }
    return true;
  }

  /**
   * The stub that answers `view`, with its captures; undefined when none does; {@link NEED_BODY}
   * when a condition that decides it reads the body and `view.body` is not set yet (read it and
   * ask again). A request's scope (`view.scope`) must be set when {@link Router.hasScoped}.
   */
  match(view: RequestView): Match<T> | typeof NEED_BODY | undefined {
    if (view.scope !== null && this.#scoped.size) {
      const scoped = this.#scoped.get(view.scope);
      if (scoped) {
        for (const layer of scoped) {
          const found = this.#matchLayer(layer, view);
          if (found) return found;
        }
      }
    }
    for (const layer of this.#layers) {
      const found = this.#matchLayer(layer, view);
      if (found) return found;
    }
    return undefined;
  }

  #matchLayer(layer: Layer<T>, view: RequestView): Match<T> | typeof NEED_BODY | undefined {
    const search: Search<T> = { best: undefined, batch: -1, root: undefined };
    for (const method of triesFor(view.method)) {
      // a GET stub answers HEAD only when no HEAD stub matches.
      if (method === "GET" && view.method === "HEAD" && search.best?.route.method === "HEAD") continue;
      const root = layer.tries.get(method);
      // A trie whose latest batch is earlier than the best so far cannot win; an equal one
      // can, with a more specific path (an ANY stub of the same batch as a GET stub).
      if (!root || root.maxBatch < search.batch) continue;
      search.root = root;
      if (this.#findAlong(root, view, 1, [], [], search) === NEED_BODY) return NEED_BODY;
    }
    return search.best;
  }

  /**
   * Depth-first along `view.pathname` from the segment that starts at `start`, recording in
   * `search` a stub that beats its best. Returns {@link NEED_BODY}, `true` when the walk of
   * this trie is over (a stub of its latest batch matched), or undefined to go on.
   */
  #findAlong(
    node: Node<T>,
    view: RequestView,
    start: number,
    values: string[],
    raw: string[],
    search: Search<T>,
  ): typeof NEED_BODY | boolean | undefined {
    const pathname = view.pathname;
    let end = pathname.indexOf("/", start);
    const last = end === -1;
    if (last) end = pathname.length;
    const sent = pathname.slice(start, end);
    const segment = sent.includes("%") ? decodeSegment(sent) : sent;
    const child = node.statics?.get(segment);
    if (child && worthVisiting(child, search)) {
      const found = last
        ? this.#terminal(child, view, values, raw, search)
        : this.#findAlong(child, view, end + 1, values, raw, search);
      if (found) return found;
    }
    if (node.param && segment !== "" && worthVisiting(node.param, search)) {
      values.push(segment);
      raw.push(sent);
      const found = last
        ? this.#terminal(node.param, view, values, raw, search)
        : this.#findAlong(node.param, view, end + 1, values, raw, search);
      if (found) return found;
      values.pop();
      raw.pop();
    }
    if (node.rest && worthVisiting(node.rest, search)) {
      const rest = pathname.slice(start);
      if (rest !== "") {
        values.push(decodeSegment(rest));
        raw.push(rest);
        const found = this.#terminal(node.rest, view, values, raw, search);
        if (found) return found;
        values.pop();
        raw.pop();
      }
    }
    if (node.restOrNone && worthVisiting(node.restOrNone, search)) {
      const rest = pathname.slice(start);
      values.push(decodeSegment(rest));
      raw.push(rest);
      const found = this.#terminal(node.restOrNone, view, values, raw, search);
      if (found) return found;
      values.pop();
      raw.pop();
    }
    return undefined;
  }

  /** The first stub ending at `node` whose conditions all hold, if it beats the best so far. */
  #terminal(
    node: Node<T>,
    view: RequestView,
    values: string[],
    raw: string[],
    search: Search<T>,
  ): typeof NEED_BODY | boolean | undefined {
    const terminals = node.terminals;
    if (!terminals || !terminals.list.length || !beats(terminals.list[0], search)) return undefined;
    const candidates = terminals.for(view);
    if (candidates === NEED_BODY) return NEED_BODY;
    for (let c = 0; c < candidates.length; c++) {
      const route = candidates[c];
      // Candidates come latest batch first: the rest cannot beat the best so far.
      if (!beats(route, search)) return undefined;
      // A GET stub with `head: false` leaves HEAD requests unanswered (WireMock's rule).
      if (route.noHead && view.method === "HEAD" && route.method === "GET") continue;
      const conditions = route.conditions;
      const kept = values.length;
      let holds = true;
      for (let i = 0; i < conditions.length && holds; i++) {
        const condition = conditions[i];
        if (condition.needsBody && view.body === undefined) return NEED_BODY;
        holds = condition.test(view, values, raw);
      }
      if (holds) {
        // Nothing later in this trie can beat a stub of its latest batch: the walk ends and
        // `values` is handed over as is; otherwise the walk goes on and changes them.
        const over = route.batch === search.root!.maxBatch;
        search.best = over ? { route, values, raw } : { route, values: values.slice(), raw: raw.slice() };
        search.batch = route.batch;
        search.from = search.root;
        if (over) return true;
        values.length = kept;
        raw.length = kept;
        return undefined;
      }
      values.length = kept;
      raw.length = kept;
    }
    return undefined;
  }

  /**
   * The methods of the stubs whose path matches `view`'s, conditions aside (CORS preflights,
   * ): `ANY` stands for every method, and `GET` brings `HEAD`.
   */
  methodsFor(view: RequestView, all: readonly string[]): string[] {
    const found = new Set<string>();
    const layers = [...(view.scope !== null ? this.#scoped.get(view.scope) ?? [] : []), ...this.#layers];
    for (const layer of layers) {
      for (const [method, root] of layer.tries) {
        if (!reaches(root, view.pathname, 1)) continue;
        for (const m of method === "ANY" ? all : method === "GET" ? ["GET", "HEAD"] : [method]) found.add(m);
      }
    }
    return all.filter((m) => found.has(m));
  }

  /**
   * Explains a miss: up to `limit` stubs that nearly matched, closest first — everything
   * matched but the scope; the path matched but a condition did not (query, header, body);
   * the path matched under another
   * method; only the trailing slash differs; exactly one segment of a path of two or more
   * differs. Bounded work; call it only on a miss. {@link NEED_BODY} as for {@link Router.match}.
   */
  nearMisses(view: RequestView, limit = 3): NearMiss<T>[] | typeof NEED_BODY {
    const segments = splitRequestPath(view.pathname);
    const misses = new MissSearch<T>(limit);
    const layers = [...(view.scope !== null ? this.#scoped.get(view.scope) ?? [] : []), ...this.#layers];
    const own = triesFor(view.method);
    // 0. Everything matches but the scope: a stub of another scope (or of one, for a request without).
    if (this.#scopeMisses(view, misses) === NEED_BODY) return NEED_BODY;
    // 1. The path matched (in a tree of the request's method), a condition did not.
    if (conditionMisses(view, segments, layers, own, misses) === NEED_BODY) return NEED_BODY;
    // 2. The path matched under another method.
    for (const layer of layers) {
      for (const [method, root] of layer.tries) {
        if (own.includes(method)) continue;
        misses.walk(root, segments, (node) => {
          const route = node.terminals?.list[0];
          if (route) misses.add(route, `method differs (stub is ${method})`);
        });
      }
    }
    for (const layer of layers) {
      for (const method of own) {
        const root = layer.tries.get(method);
        if (!root) continue;
        // 3. Only the trailing slash differs.
        const toggled = segments.at(-1) === "" && segments.length > 1 ? segments.slice(0, -1) : [...segments, ""];
        const slash = toggled.length < segments.length
          ? "trailing slash (stub has none)"
          : "trailing slash (stub has one)";
        misses.walk(root, toggled, (node) => {
          for (const route of node.terminals?.list ?? []) misses.add(route, slash);
        });
        // 4. Exactly one segment differs ("one segment" of a one-segment path would mean nothing matched).
        if (segments.length > 1) {
          this.#oneSegmentOff(root, segments, (route, reason) => misses.add(route, reason), () => misses.full());
        }
      }
    }
    return misses.found;
  }

  /** Near misses, step 0: stubs of other scopes that match everything else. */
  #scopeMisses(view: RequestView, misses: MissSearch<T>): typeof NEED_BODY | undefined {
    if (!this.#scoped.size) return undefined;
    const has = view.scope === null
      ? "the request has no x-stubtool-scope"
      : `the request's x-stubtool-scope is ${quoteValue(view.scope)}`;
    for (const [scope, scoped] of this.#scoped) {
      if (scope === view.scope) continue;
      if (misses.spent()) break;
      for (const layer of scoped) {
        const match = this.#matchLayer(layer, view);
        if (match === NEED_BODY) return NEED_BODY;
        if (match) {
          misses.add(match.route, `scope differs (stub is for scope ${quoteValue(scope)}; ${has})`);
          break;
        }
      }
    }
    return undefined;
  }

  #oneSegmentOff(
    root: Node<T>,
    segments: readonly string[],
    add: (route: T, reason: string) => void,
    full: () => boolean,
  ): void {
    let visits = 0;
    const visit = (node: Node<T>, depth: number, differs: number): void => {
      if (full() || ++visits > NEAR_MISS_VISIT_LIMIT) return;
      if (depth === segments.length) {
        if (differs >= 0) {
          for (const route of node.terminals?.list ?? []) add(route, segmentReason(route, differs, segments[differs]));
        }
        return;
      }
      const segment = segments[depth];
      const exact = node.statics?.get(segment);
      if (exact) visit(exact, depth + 1, differs);
      if (node.param && segment !== "") visit(node.param, depth + 1, differs);
      if (differs >= 0) return;
      for (const [value, child] of node.statics ?? []) {
        if (full() || visits > NEAR_MISS_VISIT_LIMIT) return;
        if (value !== segment) visit(child, depth + 1, depth);
      }
      if (node.param && segment === "") visit(node.param, depth + 1, depth);
    };
    visit(root, 0, -1);
  }
}

/** Does some stub of this trie end where `pathname` (from `start`) leads, conditions aside? */
function reaches<T extends Routable>(node: Node<T>, pathname: string, start: number): boolean {
  let end = pathname.indexOf("/", start);
  const last = end === -1;
  if (last) end = pathname.length;
  const sent = pathname.slice(start, end);
  const segment = sent.includes("%") ? decodeSegment(sent) : sent;
  const ends = (next: Node<T> | undefined) => next !== undefined && (next.terminals?.list.length ?? 0) > 0;
  const child = node.statics?.get(segment);
  if (child && (last ? ends(child) : reaches(child, pathname, end + 1))) return true;
  if (node.param && segment !== "" && (last ? ends(node.param) : reaches(node.param, pathname, end + 1))) return true;
  return (ends(node.rest) && pathname.slice(start) !== "") || ends(node.restOrNone);
}
