/**
 * Memory check: RSS of `stubtool serve` stays bounded whatever the traffic.
 *
 *   npm run bench:memory                 # 1,000,000 distinct unmatched paths, then 1,000,000 matched requests
 *   npm run bench:memory -- --requests 50000   # a quick run
 *
 * The server is warmed up first, so the starting RSS is a steady state rather than a fresh
 * process. Loopback only; every wrk call is bounded in time.
 * @module
 */

import { parseArgs } from "node:util";
import { makeConfig } from "./scenarios.ts";
import { rssMb } from "./measure.ts";

const { values: flags } = parseArgs({
  options: {
    requests: { type: "string", default: "1000000" },
    port: { type: "string", default: "18282" },
  },
});
const REQUESTS = Number(flags.requests);
const PORT = Number(flags.port);
const ROOT = new URL("..", import.meta.url).pathname;

/** wrk script: every request gets its own path `/<prefix>/<n>` (prefix per run, so runs never repeat). */
const DISTINCT_PATHS = `
local prefix = "miss"
local counter = 0
init = function(args) prefix = args[1] or prefix end
request = function()
  counter = counter + 1
  return wrk.format("GET", "/" .. prefix .. "/" .. counter .. "/x")
end
`;

/** Runs wrk in 5 s slices until `total` requests were sent; returns how many were. */
async function load(url: string, total: number, script?: string): Promise<number> {
  let sent = 0;
  for (let run = 0; sent < total; run++) {
    const args = ["-t1", "-c32", "-d5s"];
    if (script) args.push("-s", script);
    args.push(url);
    if (script) args.push("--", `run${run}`);
    const out = await new Deno.Command("timeout", { args: ["30", "wrk", ...args], stdout: "piped" }).output();
    const text = new TextDecoder().decode(out.stdout);
    const count = Number(/(\d+) requests in/.exec(text)?.[1]);
    if (!Number.isFinite(count) || count === 0) throw new Error(`wrk sent nothing:\n${text}`);
    sent += count;
  }
  return sent;
}

async function main(): Promise<number> {
  const dir = await Deno.makeTempDir({ prefix: "stubtool-memory-" });
  const config = `${dir}/stubs.json`;
  const script = `${dir}/distinct.lua`;
  await Deno.writeTextFile(config, JSON.stringify(makeConfig(20)));
  await Deno.writeTextFile(script, DISTINCT_PATHS);
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "cli.ts", "serve", "--quiet", "--port", String(PORT), "--config", config],
    cwd: ROOT,
    stdout: "null",
    stderr: "inherit",
  }).spawn();
  const base = `http://127.0.0.1:${PORT}`;
  try {
    for (let i = 0;; i++) {
      try {
        const response = await fetch(`${base}/__stubtool__/health`);
        await response.body?.cancel();
        if (response.ok) break;
      } catch { /* not yet */ }
      if (i > 3000) throw new Error("server did not start");
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    await load(`${base}/users/1`, 1);
    await load(`${base}/warm`, 1, script);
    const start = rssMb(child.pid);
    const unmatched = await load(base, REQUESTS, script);
    const afterUnmatched = rssMb(child.pid);
    const matched = await load(`${base}/users/42`, REQUESTS);
    const afterMatched = rssMb(child.pid);
    const report = await (await fetch(`${base}/__stubtool__/report`)).json();
    const kept = report.unmatched_requests.length;
    console.log("| phase | requests | RSS MB | change MB |\n| --- | --- | --- | --- |");
    console.log(`| after warm-up | - | ${start.toFixed(1)} | - |`);
    console.log(
      `| distinct unmatched paths | ${unmatched} | ${afterUnmatched.toFixed(1)} | ${
        (afterUnmatched - start).toFixed(1)
      } |`,
    );
    console.log(
      `| matched | ${matched} | ${afterMatched.toFixed(1)} | ${(afterMatched - afterUnmatched).toFixed(1)} |`,
    );
    console.log(
      `\nreport: unmatched_requests total ${report.summary.unmatched_requests}, list keeps ${kept} (cap 1000)`,
    );
    const bounded = afterUnmatched - start <= 30 && kept <= 1000;
    console.log(bounded ? "bounded: yes (within 30 MB)" : "bounded: NO");
    return bounded ? 0 : 1;
  } finally {
    child.kill("SIGTERM");
    await child.status;
    await Deno.remove(dir, { recursive: true });
  }
}

if (import.meta.main) Deno.exit(await main());
