/**
 * Small measuring helpers shared by the benchmark scripts.
 * @module
 */

/** Milliseconds from a wrk latency figure (`311.00us`, `1.02ms`, `1.5s`); NaN when unreadable. */
export function toMs(value: string): number {
  const match = /^([\d.]+)(us|ms|s)$/.exec(value.trim());
  if (!match) return NaN;
  const n = Number(match[1]);
  return match[2] === "us" ? n / 1000 : match[2] === "s" ? n * 1000 : n;
}

/** Resident memory of a process in MB (Linux `/proc`); NaN when the process is gone. */
export function rssMb(pid: number): number {
  try {
    return Number(/VmRSS:\s+(\d+)/.exec(Deno.readTextFileSync(`/proc/${pid}/status`))?.[1] ?? NaN) / 1024;
  } catch {
    return NaN;
  }
}
