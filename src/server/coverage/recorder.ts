/**
 * Hit counts and unmatched requests, and the one function that builds the report
 * from them. Memory stays bounded in entries and in bytes
 * : one ring of unmatched requests, each cut to 2 KiB per part, that scoped
 * reports filter rather than copy; hit counts live on the stubs.
 * @module
 */

import type {
  ClosestStub,
  Report,
  ReportScenario,
  ReportStub,
  ReportViolation,
  UnmatchedRequest,
} from "../../report/types.ts";
import type { CheckViolation } from "../../stubs/model.ts";
import type { Route } from "../matching/route.ts";
import { usableScope } from "../scope.ts";

/** Default capacity of the unmatched list (`--max-unmatched`). */
export const DEFAULT_MAX_UNMATCHED = 1000;

/** Most scopes kept at once (`x-stubtool-scope`); starting one more drops the oldest. */
export const MAX_SCOPES = 100;
/** Longest method, path or query an unmatched entry keeps. */
export const UNMATCHED_PART_MAX = 2048;

/** Most distinct violations (operation + location + message, per scope) kept; the rest count in one overflow entry. */
export const MAX_VIOLATIONS = 1000;
/** The operation of the entry that counts violations past {@link MAX_VIOLATIONS}. */
export const VIOLATIONS_OVERFLOW = "(other)";

/** An unmatched request as kept: the entry and the scope it carried. */
interface Kept {
  request: UnmatchedRequest;
  scope: string | null;
}

/** One scope's tally: hits per stub and how many of its requests matched nothing. */
interface ScopeTally {
  hits: Map<Route, number>;
  unmatched: number;
}

/**
 * `text` cut to {@link UNMATCHED_PART_MAX} characters, and whether it was. The cut is a copy:
 * V8's `slice` of a long string keeps the whole string alive behind it, so 1,000 kept 2 KiB
 * cuts of 60 KiB paths held 60 MB.
 */
function cut(text: string): [string, boolean] {
  if (text.length <= UNMATCHED_PART_MAX) return [text, false];
  return [copyOf(text.slice(0, UNMATCHED_PART_MAX)), true];
}

/** A string that shares no storage with another (a slice may). */
function copyOf(text: string): string {
  const units = new Array<number>(text.length);
  for (let i = 0; i < text.length; i++) units[i] = text.charCodeAt(i);
  let out = "";
  for (let i = 0; i < units.length; i += 1024) out += String.fromCharCode(...units.slice(i, i + 1024));
  return out;
}

/**
 * Counts hits per stub and keeps the most recent unmatched requests, for the whole server
 * and per scope: a request with an `x-stubtool-scope` header also counts in that scope, so
 * a test suite can ask what one test file hit. At most {@link MAX_SCOPES} scopes are kept;
 * starting another drops the oldest.
 */
export class Recorder {
  #ring: (Kept | undefined)[] = [];
  #next = 0;
  #unmatchedTotal = 0;
  /** Scopes by name, oldest first (a Map keeps insertion order). */
  #scopes = new Map<string, ScopeTally>();
  /** Spec violations by scope, operation, location and message, first seen first. */
  #violations = new Map<string, { scope: string | null; entry: ReportViolation }>();
  readonly maxUnmatched: number;
  /** Counts changes (hits, unmatched requests, resets): the report is the same while it is. */
  version = 0;
  /** Told each unmatched request recorded here (`serve --state` sends them to the other replicas). */
  tell: ((request: UnmatchedRequest, scope: string | null) => void) | undefined;

  constructor(maxUnmatched = DEFAULT_MAX_UNMATCHED) {
    if (!Number.isInteger(maxUnmatched) || maxUnmatched < 0) {
      throw new RangeError(`maxUnmatched must be a whole number of 0 or more, got ${maxUnmatched}`);
    }
    this.maxUnmatched = maxUnmatched;
  }

  /** The tally of a scope, started on first use; undefined for no scope or an unusable name. */
  #scope(name: string | null | undefined): ScopeTally | undefined {
    if (!usableScope(name)) return undefined;
    let tally = this.#scopes.get(name);
    if (!tally) {
      if (this.#scopes.size >= MAX_SCOPES) this.#scopes.delete(this.#scopes.keys().next().value!);
      this.#scopes.set(name, tally = { hits: new Map(), unmatched: 0 });
    }
    return tally;
  }

  /** Counts one hit of `route` (and in `scope`, when given). */
  hit(route: Route, scope?: string | null, count = 1): void {
    route.hits += count;
    this.version++;
    if (scope) {
      const tally = this.#scope(scope);
      if (tally) tally.hits.set(route, (tally.hits.get(route) ?? 0) + count);
    }
  }

  /**
   * Records a request that matched nothing (in `scope` too, when given). Method, path and
   * query are cut to {@link UNMATCHED_PART_MAX} characters (`truncated: true`).
   */
  unmatched(
    method: string,
    path: string,
    query: string,
    closest: ClosestStub[],
    scope?: string | null,
  ): UnmatchedRequest {
    const [m, cutMethod] = cut(method);
    const [p, cutPath] = cut(path);
    const [q, cutQuery] = cut(query);
    const timestamp = new Date().toISOString();
    const request: UnmatchedRequest = q
      ? { method: m, path: p, query: q, timestamp }
      : { method: m, path: p, timestamp };
    if (closest.length) request.closest = closest;
    if (cutMethod || cutPath || cutQuery) request.truncated = true;
    const kept = this.keep(request, scope);
    this.tell?.(request, kept);
    return request;
  }

  /** Keeps an unmatched request (this replica's, or another's with `serve --state`); returns the scope it was filed under. */
  keep(request: UnmatchedRequest, scope: string | null | undefined): string | null {
    this.#unmatchedTotal++;
    this.version++;
    const tally = scope ? this.#scope(scope) : undefined;
    if (tally) tally.unmatched++;
    if (this.maxUnmatched > 0) {
      this.#ring[this.#next] = { request, scope: tally ? scope! : null };
      this.#next = (this.#next + 1) % this.maxUnmatched;
    }
    return tally ? scope! : null;
  }

  /**
   * Counts the violations of one refused request (in `scope` too, when given): each distinct
   * operation + location + message is one entry with a count, parts cut to
   * {@link UNMATCHED_PART_MAX} characters; past {@link MAX_VIOLATIONS} distinct entries the
   * rest count in one `(other)` entry, so the total stays exact and memory bounded.
   */
  violations(found: readonly CheckViolation[], scope?: string | null): void {
    if (!found.length) return;
    this.version++;
    const kept = scope && this.#scope(scope) ? scope : null;
    for (const violation of found) {
      const entry: ReportViolation = {
        operation: cut(violation.operation)[0],
        location: cut(violation.location.join("."))[0],
        message: cut(violation.message)[0],
        count: 0,
      };
      let key = JSON.stringify([kept, entry.operation, entry.location, entry.message]);
      let known = this.#violations.get(key);
      if (!known && this.#violations.size >= MAX_VIOLATIONS) {
        key = JSON.stringify([kept, VIOLATIONS_OVERFLOW]);
        known = this.#violations.get(key);
        if (!known) {
          const overflow = {
            operation: VIOLATIONS_OVERFLOW,
            location: "",
            message: `more distinct violations than the report keeps (${MAX_VIOLATIONS})`,
            count: 0,
          };
          this.#violations.set(key, known = { scope: kept, entry: overflow });
        }
      }
      if (!known) this.#violations.set(key, known = { scope: kept, entry });
      known.entry.count++;
    }
  }

  /** The violations, summed over scopes (of `scope` only, when given), first seen first. */
  #violationList(scope: string | undefined): ReportViolation[] {
    const merged = new Map<string, ReportViolation>();
    for (const { scope: owner, entry } of this.#violations.values()) {
      if (scope !== undefined && owner !== scope) continue;
      const key = JSON.stringify([entry.operation, entry.location, entry.message]);
      const same = merged.get(key);
      if (same) same.count += entry.count;
      else merged.set(key, { ...entry });
    }
    return [...merged.values()];
  }

  /**
   * Records a WebSocket message no `on_message` rule of the stub matched: kept among the
   * unmatched requests (counted in their total), with its text cut as a path is, and the
   * rules' near misses as `closest`.
   */
  unmatchedMessage(route: Route, text: string, closest: ClosestStub[], scope?: string | null): UnmatchedRequest {
    const request = this.unmatched(route.method, route.path, "", closest, scope);
    const [message, cutMessage] = cut(text);
    request.message = message;
    if (cutMessage) request.truncated = true;
    return request;
  }

  /** Counts one message that `route`'s on_message rule `rule` answered. */
  ruleHit(route: Route, rule: number): void {
    route.ruleHits[rule]++;
    this.version++;
  }

  /** Zeroes hit counts of `routes`, forgets unmatched requests and every scope. */
  reset(routes: readonly Route[]): void {
    for (const route of routes) {
      route.hits = 0;
      route.ruleHits.fill(0);
    }
    this.#ring = [];
    this.#next = 0;
    this.#unmatchedTotal = 0;
    this.#violations.clear();
    this.#scopes.clear();
    this.version++;
  }

  /** Moves scoped hit counts from old stubs to the stubs that continue them (config reload). */
  carry(pairs: readonly [from: Route, to: Route][]): void {
    this.version++;
    for (const tally of this.#scopes.values()) {
      for (const [from, to] of pairs) {
        const hits = tally.hits.get(from);
        if (hits === undefined) continue;
        tally.hits.delete(from);
        tally.hits.set(to, hits);
      }
    }
  }

  /** Forgets scoped hit counts of stubs that are gone or start again. */
  forget(routes: readonly Route[]): void {
    this.version++;
    for (const tally of this.#scopes.values()) for (const route of routes) tally.hits.delete(route);
  }

  /** The kept unmatched requests, oldest first (of `scope` only, when given). */
  #unmatchedList(scope: string | undefined): UnmatchedRequest[] {
    const kept = this.#ring.length < this.maxUnmatched
      ? this.#ring.slice()
      : [...this.#ring.slice(this.#next), ...this.#ring.slice(0, this.#next)];
    const out: UnmatchedRequest[] = [];
    for (const entry of kept) if (entry && (scope === undefined || entry.scope === scope)) out.push(entry.request);
    return out;
  }

  /**
   * Builds the report for `routes` (in declaration order). With `scope`, only that scope's
   * hits and unmatched requests count (an unknown scope has none). `scenarios` (the flow
   * coverage, counted by the scenario states) becomes the `scenarios` key when it lists any;
   * without scenarios the report has exactly its four keys. With `violations` (the server
   * checks requests against a spec) the report has a `violations` key, empty or not.
   */
  report(
    routes: readonly Route[],
    { scope, scenarios, violations }: { scope?: string; scenarios?: ReportScenario[]; violations?: boolean } = {},
  ): Report {
    const tally = scope === undefined ? undefined : this.#scopes.get(scope);
    const entries = routes.map((route): ReportStub => {
      const hits = scope === undefined ? route.hits : tally?.hits.get(route) ?? 0;
      const entry: ReportStub = route.stub.name === undefined
        ? { id: route.id, method: route.method, path: route.path, hit_count: hits }
        : { id: route.id, name: route.stub.name, method: route.method, path: route.path, hit_count: hits };
      if (route.stub.query) entry.query_params = { ...route.stub.query };
      const websocket = route.stub.websocket;
      if (websocket && scope === undefined) {
        entry.websocket_rules = websocket.onMessage.map((rule, i) => ({
          match: rule.match.kind === "text"
            ? rule.match.pattern.display
            : `{json: ${JSON.stringify((rule.match.spec as { json: unknown }).json)}}`,
          matches: route.ruleHits[i],
        }));
      }
      return entry;
    });
    const unused = entries.filter((e) => e.hit_count === 0).map(({ hit_count: _, ...rest }) => rest);
    const report: Report = {
      summary: {
        total_stubs: entries.length,
        matched_stubs: entries.length - unused.length,
        unmatched_requests: scope === undefined ? this.#unmatchedTotal : tally?.unmatched ?? 0,
      },
      stubs: entries,
      unused_stubs: unused,
      unmatched_requests: this.#unmatchedList(scope),
    };
    if (scenarios?.length) report.scenarios = scenarios;
    if (violations) report.violations = this.#violationList(scope);
    return report;
  }
}
