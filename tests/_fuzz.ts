/**
 * Test helper: sends parser inputs to {@link FuzzCase} workers and bounds each case in time.
 * A case that passes its time limit gets its worker terminated (a new one starts for the next
 * case) and comes back as a hang, so a parser that loops forever fails the test instead of
 * stalling CI.
 * @module
 */
import type { FuzzCase, FuzzTarget } from "./_fuzz_worker.ts";

export type { FuzzTarget };

/** How one case ended. */
export type FuzzOutcome =
  | { ok: true; summary: string }
  | { ok: false; error: string }
  | { ok: false; hang: true; error: string };

/** How long a worker may take to load (its graph is type-checked as it starts). */
const START_MS = 120_000;

/** One worker running cases one at a time. Dispose it to stop the worker. */
export class FuzzRunner implements Disposable {
  #worker: Worker | undefined;
  #ready: Promise<Worker | undefined> | undefined;
  #next = 0;
  readonly #timeoutMs: number;

  constructor(timeoutMs: number) {
    this.#timeoutMs = timeoutMs;
  }

  /**
   * The worker, once it has loaded: a case's time limit starts then, so a slow start (type
   * checking the worker's graph on a loaded machine) is not taken for a hang. A worker that
   * does not load within {@link START_MS} fails the case.
   */
  #start(): Promise<Worker | undefined> {
    return this.#ready ??= new Promise((resolve) => {
      const worker = this.#worker = new Worker(new URL("./_fuzz_worker.ts", import.meta.url).href, { type: "module" });
      const timer = setTimeout(() => resolve(undefined), START_MS);
      const onReady = (event: MessageEvent<{ ready?: true }>) => {
        if (!event.data.ready) return;
        clearTimeout(timer);
        worker.removeEventListener("message", onReady);
        resolve(worker);
      };
      worker.addEventListener("message", onReady);
    });
  }

  /** Runs `input` through `target`; never rejects. `timeoutMs` overrides the runner's limit. */
  async run(target: FuzzTarget, input: string, file?: string, timeoutMs = this.#timeoutMs): Promise<FuzzOutcome> {
    const worker = await this.#start();
    if (!worker) {
      this[Symbol.dispose]();
      return { ok: false, error: `the fuzz worker did not load within ${START_MS} ms` };
    }
    const id = this.#next++;
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        worker.removeEventListener("message", onMessage);
        this[Symbol.dispose]();
        resolve({ ok: false, hang: true, error: `no answer within ${timeoutMs} ms` });
      }, timeoutMs);
      const onMessage = (event: MessageEvent<{ id: number } & FuzzOutcome>) => {
        if (event.data.id !== id) return;
        clearTimeout(timer);
        worker.removeEventListener("message", onMessage);
        const { id: _, ...outcome } = event.data;
        resolve(outcome);
      };
      worker.addEventListener("message", onMessage);
      worker.postMessage({ id, target, input, file } satisfies FuzzCase);
    });
  }

  [Symbol.dispose](): void {
    this.#worker?.terminate();
    this.#worker = undefined;
    this.#ready = undefined;
  }
}
