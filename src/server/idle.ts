/**
 * Gives memory back when a server goes quiet after a burst. V8 grows its heap under
 * heavy traffic and shrinks it only in a full garbage collection, which an idle process
 * never runs: Deno does not run V8's delayed tasks while it waits for I/O, so V8's own
 * memory reducer stays asleep, and the RSS a flood raised stayed up for good. Once
 * {@link QUIET_TICKS} ticks pass without a request after some came, one full collection
 * returns the pages and frees the ArrayBuffers (bodies, answers) nothing holds any more;
 * later bursts collect again only when RSS stands {@link IDLE_COLLECT_GROWTH} over what the
 * last one left. The adapter may then give back what the collection freed in the C heap
 * (glibc keeps it).
 *
 * Not after one quiet second: a forced collection costs the next burst dearly (V8 sizes its
 * young generation and its next major collections from the small heap it leaves, and
 * re-optimizes code whose prototype checks it invalidated): a `GET` burst after one ran
 * 20–40 % slower for seconds. A test suite's traffic pauses for a second or two between
 * steps all the time; five quiet seconds mean the run paused in earnest.
 * @module
 */

/** What the collector watches and does; injected so tests can drive it tick by tick. */
export interface IdleCollectorHost {
  /** Requests handled so far (any count that only grows). */
  requests(): number;
  /** The process's resident set size, in bytes. */
  rss(): number;
  /** Runs one full garbage collection. */
  collect(): Promise<void>;
}

/** RSS growth over the last collection that is worth another (less is the working set). */
export const IDLE_COLLECT_GROWTH = 16 * 1024 * 1024;

/** Ticks in a row without a request before the collector collects (the tick is a second). */
export const QUIET_TICKS = 5;

/** Decides, once per tick, whether the server has gone quiet with memory to give back. */
export class IdleCollector {
  readonly #host: IdleCollectorHost;
  #seen: number;
  #busy = false;
  /** Ticks in a row that saw no request. */
  #quiet = 0;
  /** RSS after the last collection; undefined before the first. */
  #baseline: number | undefined;

  constructor(host: IdleCollectorHost) {
    this.#host = host;
    this.#seen = host.requests();
  }

  /** One tick: true when it collected. A tick that saw requests only notes them. */
  async tick(): Promise<boolean> {
    const seen = this.#host.requests();
    if (seen !== this.#seen) {
      this.#seen = seen;
      this.#busy = true;
      this.#quiet = 0;
      return false;
    }
    if (!this.#busy || ++this.#quiet < QUIET_TICKS) return false;
    this.#busy = false;
    if (this.#baseline !== undefined && this.#host.rss() < this.#baseline + IDLE_COLLECT_GROWTH) return false;
    await this.#host.collect();
    this.#baseline = this.#host.rss();
    return true;
  }
}

/**
 * A full collection through V8's `gc`, exposed at run time (a context reads the flag when
 * it is made, hence the new one). node:v8 and node:vm load on first use, not at start.
 */
export async function fullCollection(): Promise<void> {
  const [{ setFlagsFromString }, { runInNewContext }] = await Promise.all([import("node:v8"), import("node:vm")]);
  setFlagsFromString("--expose-gc");
  (runInNewContext("gc") as () => void)();
}

/** The process's RSS (`process` is global on Node and on Deno). */
function rss(): number {
  return (globalThis as unknown as { process: { memoryUsage: { rss(): number } } }).process.memoryUsage.rss();
}

/**
 * Ticks every `everyMs` and collects when the server went quiet, then lets `release` hand
 * what the collection freed outside V8's heap back to the OS; returns the stop function.
 */
export function collectWhenIdle(requests: () => number, release?: () => void, everyMs = 1000): () => void {
  const collect = async () => {
    await fullCollection();
    release?.();
  };
  const collector = new IdleCollector({ requests, rss, collect });
  let running = false;
  const timer = setInterval(() => {
    if (running) return;
    running = true;
    collector.tick().catch(() => {}).finally(() => running = false);
  }, everyMs);
  // Never what keeps a process alive (Node; on Deno the listener does until shutdown stops it).
  (timer as unknown as { unref?: () => void }).unref?.();
  return () => clearInterval(timer);
}
