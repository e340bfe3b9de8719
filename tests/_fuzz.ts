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

/** One worker running cases one at a time. Dispose it to stop the worker. */
export class FuzzRunner implements Disposable {
  #worker: Worker | undefined;
  #next = 0;
  readonly #timeoutMs: number;

  constructor(timeoutMs: number) {
    this.#timeoutMs = timeoutMs;
  }

  #start(): Worker {
    return this.#worker ??= new Worker(new URL("./_fuzz_worker.ts", import.meta.url).href, { type: "module" });
  }

  /** Runs `input` through `target`; never rejects. `timeoutMs` overrides the runner's limit. */
  run(target: FuzzTarget, input: string, file?: string, timeoutMs = this.#timeoutMs): Promise<FuzzOutcome> {
    const worker = this.#start();
    const id = this.#next++;
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        worker.removeEventListener("message", onMessage);
        worker.terminate();
        this.#worker = undefined;
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
  }
}
