/**
 * Hit counts and unmatched requests (P4), and the one function that builds the report
 * from them (seed §2.5, P8.1, P8.2). Memory stays bounded: the unmatched list is a ring
 * of fixed capacity while its total is counted exactly.
 * @module
 */

import type { Stub } from "./model.ts";

/** A stub as the report lists it. */
export interface ReportStub {
  method: string;
  /** The path template without any `?query`. */
  path: string;
  hit_count: number;
  /** Required query parameters, only when the stub has some. */
  query_params?: Record<string, string>;
}

/** An unused stub: a {@link ReportStub} without its (zero) hit count. */
export type UnusedStub = Omit<ReportStub, "hit_count">;

/** A stub that nearly matched a request, and why it did not (the 404's `closest`, P8.3). */
export interface ClosestStub {
  method: string;
  path: string;
  /**
   * The criterion that failed, with what the request had and the stub wants:
   * `segment 3 is 'invoices', stub has 'orders'`, `query parameter 'sort' is 'desc', stub wants 'asc'`,
   * `missing query parameter 'q'`, `method differs (stub is POST)`, `trailing slash (stub has none)`.
   */
  reason: string;
}

/** A request that matched no stub. */
export interface UnmatchedRequest {
  method: string;
  /** The request path, without the query string. */
  path: string;
  /** The raw query string without `?`, only when non-empty. */
  query?: string;
  /** `Date#toISOString()` of when it arrived. */
  timestamp: string;
  /** Stubs that nearly matched (as in the 404 answer), only when there are some. */
  closest?: ClosestStub[];
}

/** The coverage / contract-drift report served at `/__stubtool__/report`. */
export interface Report {
  summary: {
    total_stubs: number;
    matched_stubs: number;
    unmatched_requests: number;
  };
  stubs: ReportStub[];
  unused_stubs: UnusedStub[];
  unmatched_requests: UnmatchedRequest[];
}

/** Default capacity of the unmatched list (`--max-unmatched`). */
export const DEFAULT_MAX_UNMATCHED = 1000;

/** Counts hits per stub (by registration index) and keeps the most recent unmatched requests. */
export class Recorder {
  #hits: number[] = [];
  #ring: UnmatchedRequest[] = [];
  #next = 0;
  #unmatchedTotal = 0;
  readonly maxUnmatched: number;

  constructor(maxUnmatched = DEFAULT_MAX_UNMATCHED) {
    if (!Number.isInteger(maxUnmatched) || maxUnmatched < 0) {
      throw new RangeError(`maxUnmatched must be a whole number of 0 or more, got ${maxUnmatched}`);
    }
    this.maxUnmatched = maxUnmatched;
  }

  /** Counts one hit of the stub registered at `index`. */
  hit(index: number): void {
    this.#hits[index] = (this.#hits[index] ?? 0) + 1;
  }

  /** Records a request that matched nothing. */
  unmatched(request: UnmatchedRequest): void {
    this.#unmatchedTotal++;
    if (this.maxUnmatched === 0) return;
    this.#ring[this.#next] = request;
    this.#next = (this.#next + 1) % this.maxUnmatched;
  }

  /** Zeroes hit counts and forgets unmatched requests. */
  reset(): void {
    this.#hits = [];
    this.#ring = [];
    this.#next = 0;
    this.#unmatchedTotal = 0;
  }

  /** Builds the report for `stubs` (in registration order, so index = hit counter). */
  report(stubs: readonly Stub[]): Report {
    const entries = stubs.map((stub, i): ReportStub => {
      const entry: ReportStub = { method: stub.method, path: stub.path, hit_count: this.#hits[i] ?? 0 };
      if (stub.query) entry.query_params = { ...stub.query };
      return entry;
    });
    const unused = entries.filter((e) => e.hit_count === 0).map(({ hit_count: _, ...rest }) => rest);
    // Oldest first: once the ring has wrapped, the oldest entry sits at #next.
    const unmatched = this.#ring.length < this.maxUnmatched
      ? this.#ring.slice()
      : [...this.#ring.slice(this.#next), ...this.#ring.slice(0, this.#next)];
    return {
      summary: {
        total_stubs: entries.length,
        matched_stubs: entries.length - unused.length,
        unmatched_requests: this.#unmatchedTotal,
      },
      stubs: entries,
      unused_stubs: unused,
      unmatched_requests: unmatched,
    };
  }
}
