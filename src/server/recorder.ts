/**
 * Hit counts and unmatched requests (P4), and the one function that builds the report
 * from them (seed §2.5, P8.1, P8.2). Memory stays bounded: the unmatched list is a ring
 * of fixed capacity while its total is counted exactly.
 * @module
 */

import type { Stub } from "../stubs/model.ts";
import type { ClosestStub, Report, ReportStub, UnmatchedRequest } from "../report/types.ts";

/** Default capacity of the unmatched list (`--max-unmatched`). */
export const DEFAULT_MAX_UNMATCHED = 1000;

/** Most scopes kept at once (`x-stubtool-scope`); starting one more drops the oldest. */
export const MAX_SCOPES = 100;
/** Longest scope name taken; a longer `x-stubtool-scope` value is ignored. */
export const MAX_SCOPE_LENGTH = 200;

/** Hit counts and a ring of the most recent unmatched requests: the whole server's, or one scope's. */
class Tally {
  hits: number[] = [];
  ring: UnmatchedRequest[] = [];
  next = 0;
  unmatchedTotal = 0;

  unmatched(request: UnmatchedRequest, capacity: number): void {
    this.unmatchedTotal++;
    if (capacity === 0) return;
    this.ring[this.next] = request;
    this.next = (this.next + 1) % capacity;
  }

  /** Oldest first: once the ring has wrapped, the oldest entry sits at `next`. */
  unmatchedList(capacity: number): UnmatchedRequest[] {
    return this.ring.length < capacity
      ? this.ring.slice()
      : [...this.ring.slice(this.next), ...this.ring.slice(0, this.next)];
  }

  /** Moves hit counts to new stub indexes: `from[i]` is the old index of new stub `i`, or undefined. */
  remap(from: readonly (number | undefined)[]): void {
    const old = this.hits;
    this.hits = from.map((i) => i === undefined ? 0 : old[i] ?? 0);
  }
}

/**
 * Counts hits per stub (by registration index) and keeps the most recent unmatched
 * requests, for the whole server and per scope: a request with an `x-stubtool-scope`
 * header also counts in that scope, so a test suite can ask what one test file hit. At
 * most {@link MAX_SCOPES} scopes are kept; starting another drops the oldest.
 */
export class Recorder {
  #all = new Tally();
  /** Scopes by name, oldest first (a Map keeps insertion order). */
  #scopes = new Map<string, Tally>();
  readonly maxUnmatched: number;

  constructor(maxUnmatched = DEFAULT_MAX_UNMATCHED) {
    if (!Number.isInteger(maxUnmatched) || maxUnmatched < 0) {
      throw new RangeError(`maxUnmatched must be a whole number of 0 or more, got ${maxUnmatched}`);
    }
    this.maxUnmatched = maxUnmatched;
  }

  /** The tally of a scope, started on first use; undefined for no scope or an unusable name. */
  #scope(name: string | null | undefined): Tally | undefined {
    if (name === null || name === undefined || name === "" || name.length > MAX_SCOPE_LENGTH) return undefined;
    let tally = this.#scopes.get(name);
    if (!tally) {
      if (this.#scopes.size >= MAX_SCOPES) this.#scopes.delete(this.#scopes.keys().next().value!);
      this.#scopes.set(name, tally = new Tally());
    }
    return tally;
  }

  /** Counts one hit of the stub registered at `index` (and in `scope`, when given). */
  hit(index: number, scope?: string | null): void {
    const hits = this.#all.hits;
    hits[index] = (hits[index] ?? 0) + 1;
    if (scope) {
      const tally = this.#scope(scope);
      if (tally) tally.hits[index] = (tally.hits[index] ?? 0) + 1;
    }
  }

  /** Records a request that matched nothing (in `scope` too, when given). */
  unmatched(request: UnmatchedRequest, scope?: string | null): void {
    this.#all.unmatched(request, this.maxUnmatched);
    if (scope) this.#scope(scope)?.unmatched(request, this.maxUnmatched);
  }

  /** Zeroes hit counts, forgets unmatched requests and every scope. */
  reset(): void {
    this.#all = new Tally();
    this.#scopes.clear();
  }

  /**
   * Carries hit counts over to a new stub list (config reload): `from[i]` is the old index
   * of new stub `i`, or undefined for a new stub (0 hits). Unmatched requests stay.
   */
  remap(from: readonly (number | undefined)[]): void {
    this.#all.remap(from);
    for (const tally of this.#scopes.values()) tally.remap(from);
  }

  /**
   * Builds the report for `stubs` (in registration order, so index = hit counter). With
   * `scope`, only that scope's hits and unmatched requests count (an unknown scope has none).
   */
  report(stubs: readonly Stub[], scope?: string): Report {
    const tally = scope === undefined ? this.#all : this.#scopes.get(scope) ?? new Tally();
    const entries = stubs.map((stub, i): ReportStub => {
      const entry: ReportStub = { method: stub.method, path: stub.path, hit_count: tally.hits[i] ?? 0 };
      if (stub.query) entry.query_params = { ...stub.query };
      return entry;
    });
    const unused = entries.filter((e) => e.hit_count === 0).map(({ hit_count: _, ...rest }) => rest);
    return {
      summary: {
        total_stubs: entries.length,
        matched_stubs: entries.length - unused.length,
        unmatched_requests: tally.unmatchedTotal,
      },
      stubs: entries,
      unused_stubs: unused,
      unmatched_requests: tally.unmatchedList(this.maxUnmatched),
    };
  }
}
