/**
 * The request journal (`GET /__stubtool__/requests`, the dashboard): the most recent stub
 * requests, each with its status, the stub it matched or the stubs that nearly matched,
 * and how long it took. A ring of fixed capacity holding the small records the handler
 * fills in anyway; times and rounding are worked out only when someone reads it.
 * @module
 */

import type { ClosestStub, JournalEntry, JournalSnapshot } from "../report/types.ts";

/** How many requests the journal keeps by default (`--journal-size`, `journalSize`). */
export const DEFAULT_JOURNAL_SIZE = 500;

/**
 * One request as the handler records it: filled in as the handler learns each field,
 * added to the journal when the response is ready.
 */
export interface JournalRecord {
  method: string;
  /** Path with the query string, as requested. */
  target: string;
  /** When the request arrived, `Date.now()`. */
  time: number;
  status: number;
  /** Time from arrival to the response, in milliseconds (0 for an answer given at once: see the handler). */
  ms: number;
  /** The matched stub (`GET /users/{id}`); unset when nothing matched. */
  stub: string | undefined;
  /** For a request that matched nothing: the stubs that nearly matched (the 404's `closest`). */
  closest: ClosestStub[] | undefined;
}

/**
 * The most recent {@link JournalRecord}s in a ring of fixed capacity. The ring keeps each
 * field in its own array (numbers unboxed), not the records: a request's record dies young,
 * and under load the journal then holds on to little besides each request's target string,
 * which keeps garbage collection (and the server's memory) close to what it is without
 * a journal. Nothing is formatted until {@link Journal.snapshot}.
 *
 * @example
 * ```ts
 * import { Journal } from "./journal.ts";
 * const journal = new Journal(2);
 * for (const target of ["/a", "/b", "/c"]) {
 *   journal.add({ method: "GET", target, time: 0, status: 404, ms: 0.5, stub: undefined, closest: [] });
 * }
 * const { total, requests } = journal.snapshot();
 * console.log(total, requests.map((r) => r.target)); // 3 [ "/b", "/c" ]
 * ```
 */
export class Journal {
  /** How many requests it keeps. */
  readonly capacity: number;
  #methods: string[] = [];
  #targets: string[] = [];
  #times: number[] = [];
  #statuses: number[] = [];
  #ms: number[] = [];
  #stubs: (string | undefined)[] = [];
  #closest: (ClosestStub[] | undefined)[] = [];
  /** Where the next request goes; once the ring is full, also where the oldest is. */
  #next = 0;
  #total = 0;

  constructor(capacity: number = DEFAULT_JOURNAL_SIZE) {
    if (!Number.isSafeInteger(capacity) || capacity < 0) {
      throw new RangeError(`journalSize must be a whole number of 0 or more, got ${capacity}`);
    }
    this.capacity = capacity;
  }

  /** Records one finished request; the oldest falls out once the ring is full. */
  add(record: JournalRecord): void {
    this.#total++;
    if (this.capacity === 0) return;
    const i = this.#next;
    this.#methods[i] = record.method;
    this.#targets[i] = record.target;
    this.#times[i] = record.time;
    this.#statuses[i] = record.status;
    this.#ms[i] = record.ms;
    this.#stubs[i] = record.stub;
    this.#closest[i] = record.closest;
    this.#next = i + 1 === this.capacity ? 0 : i + 1;
  }

  /** Forgets every request (reset). */
  clear(): void {
    this.#methods = [];
    this.#targets = [];
    this.#times = [];
    this.#statuses = [];
    this.#ms = [];
    this.#stubs = [];
    this.#closest = [];
    this.#next = 0;
    this.#total = 0;
  }

  /** Requests journaled since start or the last reset. */
  get total(): number {
    return this.#total;
  }

  /** The kept requests, oldest first, as the endpoint serves them. */
  snapshot(): JournalSnapshot {
    const kept = this.#targets.length;
    const oldest = kept < this.capacity ? 0 : this.#next;
    const requests: JournalEntry[] = [];
    for (let k = 0; k < kept; k++) {
      const i = (oldest + k) % kept;
      requests.push(journalEntry({
        method: this.#methods[i],
        target: this.#targets[i],
        time: this.#times[i],
        status: this.#statuses[i],
        ms: this.#ms[i],
        stub: this.#stubs[i],
        closest: this.#closest[i],
      }));
    }
    return { capacity: this.capacity, total: this.#total, requests };
  }
}

function journalEntry({ method, target, status, stub, closest, time: arrived, ms }: JournalRecord): JournalEntry {
  const time = new Date(arrived).toISOString();
  const duration_ms = Math.round(ms * 1000) / 1000;
  return stub !== undefined
    ? { time, method, target, status, stub, duration_ms }
    : { time, method, target, status, closest: closest ?? [], duration_ms };
}
