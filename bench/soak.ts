/**
 * Soak test (not in CI): a steady mixed load against stubtool for a long time, printing
 * RSS and latency every interval, then saying whether RSS flattened and whether the report's
 * counts add up.
 *
 *   npm run soak                                  # 10 minutes, Deno server, ~4,000 req/s
 *   npm run soak -- --minutes 3 --interval 30     # a shorter run
 *   npm run soak -- --server node --rate 8000     # the npm build under Node (npm run build:npm first)
 *
 * The load is one wrk Lua script rotating the benchmark scenarios (bench/scenarios.ts, bench/run.ts):
 * S1 `GET /users/{id}` with a new id each time (40 %), S2 a static route (30 %), S3 an
 * unmatched path, a new one each time (15 %: the unmatched list must stay capped), and S4 a
 * `POST /echo` response function (15 %). wrk's `delay()` paces each connection, so the rate
 * is steady rather than the most the machine can do. wrk runs in slices of one interval;
 * each slice gives that interval's req/s and p99, and RSS is read from /proc at its end.
 * Loopback only; every wrk call is bounded in time.
 * @module
 */

import { parseArgs } from "node:util";
import { makeConfig } from "./scenarios.ts";
import { parseWrk, rssMb } from "./measure.ts";

const { values: flags } = parseArgs({
  options: {
    minutes: { type: "string", default: "10" },
    interval: { type: "string", default: "30" },
    rate: { type: "string", default: "4000" },
    connections: { type: "string", default: "32" },
    port: { type: "string", default: "18383" },
    server: { type: "string", default: "deno" },
  },
});
const MINUTES = Number(flags.minutes);
const INTERVAL_S = Number(flags.interval);
const RATE = Number(flags.rate);
const CONNECTIONS = Number(flags.connections);
const PORT = Number(flags.port);
const ROOT = new URL("..", import.meta.url).pathname;

/** Per-connection pause between requests that makes `connections` connections send about `rate` req/s. */
const DELAY_MS = Math.max(0, Math.round((CONNECTIONS * 1000) / RATE) - 1);

const SCRIPT = `
local counter = 0
local threads = {}
local echo = '{"order":{"id":"o-1","items":[{"sku":"a","qty":2}],"note":"soak"}}'
local json = { ["Content-Type"] = "application/json" }

function setup(thread)
  table.insert(threads, thread)
end

function init(args)
  -- Each slice gets its own prefix, so unmatched paths never repeat across the run.
  prefix = args[1] or "s"
  -- Globals of the thread, so done() can read them with thread:get().
  ok, missed, other = 0, 0, 0
end

request = function()
  counter = counter + 1
  local k = counter % 20
  if k < 8 then
    return wrk.format("GET", "/users/" .. prefix .. counter)
  elseif k < 14 then
    return wrk.format("GET", "/r/7")
  elseif k < 17 then
    return wrk.format("GET", "/miss/" .. prefix .. "/" .. counter)
  else
    return wrk.format("POST", "/echo", json, echo)
  end
end

delay = function()
  return ${DELAY_MS}
end

response = function(status, headers, body)
  if status == 200 then
    ok = ok + 1
  elseif status == 404 then
    missed = missed + 1
  else
    other = other + 1
  end
end

done = function(summary, latency, requests)
  local a, b, c = 0, 0, 0
  for _, thread in ipairs(threads) do
    a = a + thread:get("ok")
    b = b + thread:get("missed")
    c = c + thread:get("other")
  end
  io.write(string.format("STATUSES %d %d %d\\n", a, b, c))
end
`;

interface Slice {
  minute: number;
  requests: number;
  rps: number;
  p50: number;
  p99: number;
  ok: number;
  missed: number;
  other: number;
  socketErrors: number;
  rssMb: number;
}

/** One wrk slice of `seconds`; its numbers, from wrk's output and the script's status counts. */
async function slice(seconds: number, script: string, prefix: string): Promise<Omit<Slice, "minute" | "rssMb">> {
  const args = ["-t1", `-c${CONNECTIONS}`, `-d${seconds}s`, "--latency", "--timeout", "5s", "-s", script];
  args.push(`http://127.0.0.1:${PORT}/`, "--", prefix);
  const out = await new Deno.Command("timeout", { args: [String(seconds + 30), "wrk", ...args], stdout: "piped" })
    .output();
  const text = new TextDecoder().decode(out.stdout);
  const { requests, rps, p50, p99, socketErrors } = parseWrk(text);
  if (!Number.isFinite(requests)) throw new Error(`wrk printed no result:\n${text}`);
  const statuses = /STATUSES (\d+) (\d+) (\d+)/.exec(text)?.slice(1).map(Number) ?? [NaN, NaN, NaN];
  return { requests, rps, p50, p99, ok: statuses[0], missed: statuses[1], other: statuses[2], socketErrors };
}

/** Least-squares slope of `ys` over `xs`. */
function slope(xs: number[], ys: number[]): number {
  const n = xs.length;
  const mx = xs.reduce((a, b) => a + b, 0) / n;
  const my = ys.reduce((a, b) => a + b, 0) / n;
  let num = 0, den = 0;
  for (let i = 0; i < n; i++) {
    num += (xs[i] - mx) * (ys[i] - my);
    den += (xs[i] - mx) ** 2;
  }
  return den === 0 ? 0 : num / den;
}

async function waitReady(child: Deno.ChildProcess): Promise<void> {
  const deadline = performance.now() + 30_000;
  for (;;) {
    try {
      const response = await fetch(`http://127.0.0.1:${PORT}/__stubtool__/health`);
      await response.body?.cancel();
      if (response.ok) return;
    } catch { /* not listening yet */ }
    if (performance.now() > deadline) {
      child.kill("SIGKILL");
      throw new Error("the server did not answer /__stubtool__/health within 30 s");
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function main(): Promise<number> {
  const wrkCheck = await new Deno.Command("sh", { args: ["-c", "command -v wrk"], stdout: "null" }).output();
  if (!wrkCheck.success) {
    console.error("[ERROR] wrk is not installed: apt-get update && apt-get install -y wrk");
    return 2;
  }
  if (!(MINUTES > 0) || !(INTERVAL_S >= 5) || !(RATE > 0) || !(CONNECTIONS > 0)) {
    console.error("[ERROR] --minutes > 0, --interval >= 5, --rate > 0 and --connections > 0, please");
    return 2;
  }
  const dir = await Deno.makeTempDir({ prefix: "stubtool-soak-" });
  const config = `${dir}/stubs.json`;
  await Deno.writeTextFile(config, JSON.stringify(makeConfig(20)));
  const script = `${dir}/soak.lua`;
  await Deno.writeTextFile(script, SCRIPT);

  const cmd = flags.server === "node"
    ? ["node", "bench/servers/stubtool_node.mjs", String(PORT), config]
    : [Deno.execPath(), "run", "-A", "bench/servers/stubtool_api.ts", String(PORT), config];
  const child = new Deno.Command(cmd[0], { args: cmd.slice(1), cwd: ROOT, stdout: "null", stderr: "inherit" }).spawn();
  const slices: Slice[] = [];
  try {
    await waitReady(child);
    // Warm up (JIT, pools), then start from a clean report.
    await slice(5, script, "warm");
    await (await fetch(`http://127.0.0.1:${PORT}/__stubtool__/reset`, { method: "POST" })).body?.cancel();
    const startRss = rssMb(child.pid);
    console.log(
      `soak: ${flags.server} server, ${MINUTES} min at ~${RATE} req/s (${CONNECTIONS} connections, ${DELAY_MS} ms pause), ` +
        `report every ${INTERVAL_S} s; RSS after warm-up ${startRss.toFixed(1)} MB`,
    );
    console.log("| min | req/s | p50 ms | p99 ms | 200 | 404 | other | socket errors | RSS MB |");
    console.log("| --- | --- | --- | --- | --- | --- | --- | --- | --- |");
    const total = MINUTES * 60;
    for (let elapsed = 0, n = 0; elapsed < total; n++) {
      const seconds = Math.min(INTERVAL_S, total - elapsed);
      const result = await slice(seconds, script, `s${n}-`);
      elapsed += seconds;
      const row: Slice = { minute: elapsed / 60, ...result, rssMb: rssMb(child.pid) };
      slices.push(row);
      console.log(
        `| ${row.minute.toFixed(1)} | ${row.rps.toFixed(0)} | ${row.p50.toFixed(2)} | ${
          row.p99.toFixed(2)
        } | ${row.ok} | ` +
          `${row.missed} | ${row.other} | ${row.socketErrors} | ${row.rssMb.toFixed(1)} |`,
      );
    }

    const report = await (await fetch(`http://127.0.0.1:${PORT}/__stubtool__/report`)).json();
    const hits = (report.stubs as { hit_count: number }[]).reduce((sum, s) => sum + s.hit_count, 0);
    const unmatched = report.summary.unmatched_requests as number;
    const sent = slices.reduce((sum, s) => sum + s.requests, 0);
    const answered404 = slices.reduce((sum, s) => sum + s.missed, 0);
    // wrk stops each slice with requests in flight: the server may count up to one per connection per slice more.
    const slack = CONNECTIONS * slices.length;
    const countsOk = hits + unmatched >= sent && hits + unmatched - sent <= slack && unmatched >= answered404 &&
      unmatched - answered404 <= slack;
    const others = slices.reduce((sum, s) => sum + s.other + s.socketErrors, 0);

    // RSS flattened: over the second half of the run it grows by less than 1 MB a minute and
    // ends within 10 % (or 5 MB) of the first half's peak.
    const half = slices.slice(Math.floor(slices.length / 2));
    const growth = half.length >= 2 ? slope(half.map((s) => s.minute), half.map((s) => s.rssMb)) : NaN;
    const firstPeak = Math.max(startRss, ...slices.slice(0, Math.floor(slices.length / 2)).map((s) => s.rssMb));
    const last = slices.at(-1)!.rssMb;
    const flattened = Number.isFinite(growth) && growth < 1 && last <= Math.max(firstPeak * 1.1, firstPeak + 5);
    const p99s = slices.map((s) => s.p99).sort((a, b) => a - b);

    console.log(
      `\n${sent} requests in ${MINUTES} min (${(sent / (MINUTES * 60)).toFixed(0)} req/s); report: ${hits} hits + ` +
        `${unmatched} unmatched (${report.unmatched_requests.length} kept) — counts ${
          countsOk ? "add up" : "DO NOT add up"
        } (within ${slack} in flight at slice ends); ${others} other statuses or socket errors.`,
    );
    console.log(
      `p99 per interval: min ${p99s[0].toFixed(2)} ms, median ${p99s[p99s.length >> 1].toFixed(2)} ms, max ${
        p99s.at(-1)!.toFixed(2)
      } ms.`,
    );
    console.log(
      `RSS: ${startRss.toFixed(1)} MB after warm-up, peak ${Math.max(...slices.map((s) => s.rssMb)).toFixed(1)} MB, ` +
        `${last.toFixed(1)} MB at the end; second-half slope ${growth.toFixed(2)} MB/min → ` +
        (flattened ? "RSS flattened." : "RSS did NOT flatten."),
    );
    return countsOk && others === 0 && flattened ? 0 : 1;
  } finally {
    try {
      child.kill("SIGTERM");
    } catch { /* gone */ }
    await child.status;
    await Deno.remove(dir, { recursive: true });
  }
}

if (import.meta.main) Deno.exit(await main());
