/**
 * Small measuring helpers shared by the benchmark scripts.
 * @module
 */

/** Milliseconds from a wrk latency figure (`311.00us`, `1.02ms`, `1.5s`); NaN when unreadable. */
function toMs(value: string): number {
  const match = /^([\d.]+)(us|ms|s)$/.exec(value.trim());
  if (!match) return NaN;
  const n = Number(match[1]);
  return match[2] === "us" ? n / 1000 : match[2] === "s" ? n * 1000 : n;
}

/** What wrk printed: its counts and latencies (ms), NaN where it printed none (no `--latency`: no p50/p99). */
export interface WrkResult {
  requests: number;
  rps: number;
  p50: number;
  p99: number;
  /** The slowest answer. */
  maxMs: number;
  /** Connect, read, write and timeout errors together. */
  socketErrors: number;
  /** Answers that were not 2xx or 3xx. */
  non2xx: number;
}

/** Reads wrk's output (the one home of its format: every bench script parses it here). */
export function parseWrk(text: string): WrkResult {
  const socket = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(text);
  return {
    requests: Number(/(\d+) requests in/.exec(text)?.[1]),
    rps: Number(/Requests\/sec:\s+([\d.]+)/.exec(text)?.[1]),
    p50: toMs(/ 50%\s+(\S+)/.exec(text)?.[1] ?? ""),
    p99: toMs(/ 99%\s+(\S+)/.exec(text)?.[1] ?? ""),
    maxMs: toMs(/Latency\s+\S+\s+\S+\s+(\S+)/.exec(text)?.[1] ?? ""),
    socketErrors: socket ? socket.slice(1).reduce((sum, n) => sum + Number(n), 0) : 0,
    non2xx: Number(/Non-2xx or 3xx responses: (\d+)/.exec(text)?.[1] ?? 0),
  };
}

/** Resident memory of a process in MB (Linux `/proc`); NaN when the process is gone. */
export function rssMb(pid: number): number {
  try {
    return Number(/VmRSS:\s+(\d+)/.exec(Deno.readTextFileSync(`/proc/${pid}/status`))?.[1] ?? NaN) / 1024;
  } catch {
    return NaN;
  }
}

/** CPU time a process has used, user and system, in ms (Linux `/proc`); NaN when the process is gone. */
export function cpuMs(pid: number): number {
  try {
    // Fields 14 and 15 of /proc/PID/stat, counted after the command name's closing parenthesis.
    const fields = Deno.readTextFileSync(`/proc/${pid}/stat`).split(") ")[1].split(" ");
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return NaN;
  }
}

/** The median of the finite values (the mean of the middle two for an even count); NaN when there are none. */
export function median(values: number[]): number {
  const sorted = values.filter(Number.isFinite).sort((a, b) => a - b);
  if (sorted.length === 0) return NaN;
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/** Polls `url` until it answers 200 (30 s at most). */
export async function waitUntilReady(url: string): Promise<void> {
  const deadline = performance.now() + 30_000;
  for (;;) {
    try {
      const response = await fetch(url);
      await response.body?.cancel();
      if (response.status === 200) return;
    } catch { /* not listening yet */ }
    if (performance.now() > deadline) throw new Error(`${url} did not answer in 30 s`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}
