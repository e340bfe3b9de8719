/**
 * Test helper: a real `redis-server` on a free port, no persistence, killed when disposed.
 * `npm test` provisions `redis-server` (scripts/provision.mjs); run alone, it must be on the PATH.
 */
import { freePort } from "./_cli.ts";

/** A running `redis-server`. */
export class RedisServer implements AsyncDisposable {
  readonly port: number;
  #process: Deno.ChildProcess | undefined;

  constructor(port = freePort()) {
    this.port = port;
  }

  /** `redis://127.0.0.1:PORT`. */
  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  /** Starts it and waits until it answers `PING`. */
  async start(args: string[] = []): Promise<this> {
    this.#process = new Deno.Command("redis-server", {
      args: ["--port", String(this.port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", ...args],
      stdout: "null",
      stderr: "null",
    }).spawn();
    const until = Date.now() + 10_000;
    while (Date.now() < until) {
      try {
        const conn = await Deno.connect({ hostname: "127.0.0.1", port: this.port });
        await conn.write(new TextEncoder().encode("PING\r\n"));
        const buffer = new Uint8Array(64);
        const n = await conn.read(buffer);
        conn.close();
        // `-NOAUTH` from a server started with `--requirepass` answers too.
        if (n && /^(\+PONG|-NOAUTH)/.test(new TextDecoder().decode(buffer.subarray(0, n)))) return this;
      } catch { /* not listening yet */ }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    throw new Error(`redis-server did not answer on port ${this.port} within 10 s`);
  }

  /** Kills it with `SIGKILL` (everything it held is gone: it keeps nothing on disk). */
  async kill(): Promise<void> {
    const process = this.#process;
    this.#process = undefined;
    if (!process) return;
    try {
      process.kill("SIGKILL");
    } catch { /* already gone */ }
    await process.status;
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.kill();
  }
}

/** Polls `check` every 10 ms until it returns true or `ms` pass; returns how long it took. */
export async function eventually(check: () => Promise<boolean> | boolean, ms = 5_000): Promise<number> {
  const start = performance.now();
  while (performance.now() - start < ms) {
    if (await check()) return performance.now() - start;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`not true within ${ms} ms`);
}
