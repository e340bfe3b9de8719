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
 */
export function rankPriorities(routes: Record<string, unknown>[], wiremockPriorities: readonly number[]): void {
  // From the stub that loses to all others up: each gets one rank above the highest it overlaps.
  const order = routes.map((_, i) => i).sort((a, b) => (wiremockPriorities[b] - wiremockPriorities[a]) || (a - b));
  const shapes = routes.map(shapeOf);
  const ranks: number[] = new Array(routes.length).fill(0);
  /** Ranked stubs with a fixed path, by WireMock priority and path; the rest by priority (they may overlap any path). */
  const byPath = new Map<string, number[]>();
  const varying = new Map<number, number[]>();
  const all = new Map<number, number[]>();
  for (const index of order) {
    const shape = shapes[index];
    const p = wiremockPriorities[index];
    const samePriority = all.get(p) ?? [];
    const candidates = shape.fixed === undefined
      ? samePriority
      : [...(byPath.get(`${p} ${shape.fixed}`) ?? []), ...(varying.get(p) ?? [])];
    let rank = 0;
    for (const other of candidates) {
      if (ranks[other] >= rank && overlaps(shape, shapes[other])) rank = ranks[other] + 1;
    }
    ranks[index] = rank;
    all.set(p, [...samePriority, index]);
    if (shape.fixed === undefined) varying.set(p, [...(varying.get(p) ?? []), index]);
    else {
      const key = `${p} ${shape.fixed}`;
      const bucket = byPath.get(key);
      if (bucket) bucket.push(index);
      else byPath.set(key, [index]);
    }
  }
  routes.forEach((route, i) => {
    const priority = (5 - wiremockPriorities[i]) * PRIORITY_BAND + ranks[i];
    if (priority === 0) delete route.priority;
    else route.priority = priority;
  });
}
