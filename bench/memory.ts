/**
 * The attack table: hostile traffic against `stubtool serve` with default settings, each
 * flood on a fresh server, printing RSS before, at the end and 10 s later, the p99 and worst latency of a
 * concurrent `GET /ping` (a stub, asked every 20 ms from here), and the slowest attack
 * request where one is timed, and the server's CPU time over the flood per request. The
 * ceilings: no traffic raises RSS more than 64 MB above the idle
 * server; no single request costs more than 10 ms of CPU (read as the average over the
 * flood's requests, with the slowest timed one beside it).
 *
 *   npm run bench:memory                      # every attack (a few minutes)
 *   npm run bench:memory -- --only 3          # one attack
 *   npm run bench:memory -- --seconds 20      # longer floods
 *
 * Loopback only; every wrk call and every flood is bounded in time.
 * @module
 */

import { connect } from "node:net";
import { parseArgs } from "node:util";
import { cpuMs, parseWrk, rssMb } from "./measure.ts";
import { V8_FLAGS } from "../scripts/compile.ts";
import { QUIET_TICKS } from "../src/server/idle.ts";

const { values: flags } = parseArgs({
  options: {
    only: { type: "string" },
    seconds: { type: "string", default: "8" },
    port: { type: "string", default: "18282" },
  },
});
const SECONDS = Number(flags.seconds);
const PORT = Number(flags.port);
const ROOT = new URL("..", import.meta.url).pathname;
const CEILING_MB = 64;
/** No single request may cost more CPU than this. */
const CPU_BOUND_MS = 10;
const BASE = `http://127.0.0.1:${PORT}`;
/** Long unmatched paths: 60 KiB, under the 64 KiB request head both runtimes accept. */
const BIG = 60 * 1024;

/** One attack: how to start the server and what to send it. */
interface Attack {
  id: string;
  what: string;
  /** Extra `serve` flags; `--config` is added when {@link Attack.config} is given. */
  flags?: string[];
  /** Extra stubs besides `GET /ping`, in config form. */
  routes?: Record<string, unknown>[];
  /** A server other than `stubtool serve` (for response functions, which only the API has). */
  script?: string;
  flood(dir: string): Promise<{ sent: number; slowestMs?: number; note?: string }>;
}

/** wrk with a Lua script for `seconds`; returns requests sent and its latency figures. */
async function wrk(
  dir: string,
  lua: string,
  options: { connections?: number; seconds?: number; path?: string } = {},
): Promise<{ sent: number; p99Ms: number; maxMs: number }> {
  const script = `${dir}/attack-${crypto.randomUUID()}.lua`;
  await Deno.writeTextFile(script, lua);
  const seconds = options.seconds ?? SECONDS;
  const args = ["-t1", `-c${options.connections ?? 8}`, `-d${seconds}s`, "--latency", "-s", script];
  args.push(`${BASE}${options.path ?? "/"}`);
  const out = await new Deno.Command("timeout", { args: [String(seconds + 20), "wrk", ...args], stdout: "piped" })
    .output();
  const { requests, p99, maxMs } = parseWrk(new TextDecoder().decode(out.stdout));
  return { sent: Number.isFinite(requests) ? requests : 0, p99Ms: p99, maxMs };
}

/** Sends `count` GETs to distinct unmatched 64 KiB paths, 8 at a time. */
async function bigUnmatched(count: number, prefix: string): Promise<void> {
  const tail = "a".repeat(BIG);
  for (let i = 0; i < count; i += 8) {
    await Promise.all(Array.from({ length: Math.min(8, count - i) }, async (_, k) => {
      const response = await fetch(`${BASE}/${prefix}/${i + k}/${tail}`);
      await response.body?.cancel();
    }));
  }
}

const DISTINCT = (prefix: string) => `
local counter = 0
request = function()
  counter = counter + 1
  return wrk.format("GET", "/${prefix}/" .. counter .. "/x")
end
`;

const ATTACKS: Attack[] = [
  {
    id: "1",
    what: "--scopes: 100 rotating x-stubtool-scope names × 60 KiB unmatched paths",
    flags: ["--scopes"],
    flood: async (dir) => {
      const lua = `
local counter = 0
local tail = string.rep("a", ${BIG})
request = function()
  counter = counter + 1
  return wrk.format("GET", "/s/" .. counter .. "/" .. tail, { ["x-stubtool-scope"] = "scope-" .. (counter % 100) })
end
`;
      const { sent } = await wrk(dir, lua, { connections: 4 });
      return { sent };
    },
  },
  {
    id: "2",
    what: "1,000 unmatched 60 KiB paths, then 12 clients ask for the report and the dashboard and never read",
    flood: async () => {
      await bigUnmatched(1000, "r");
      const sockets = await Promise.all(
        Array.from({ length: 12 }, (_, i) =>
          new Promise<ReturnType<typeof connect>>((resolve, reject) => {
            const socket = connect(PORT, "127.0.0.1", () => {
              const path = i % 2 ? "/__stubtool__/" : "/__stubtool__/report";
              socket.write(`GET ${path} HTTP/1.1\r\nhost: localhost\r\n\r\n`);
              socket.pause(); // never read: the kernel buffers fill, the server must hold or stream
              resolve(socket);
            });
            socket.on("error", reject);
          })),
      );
      await new Promise((resolve) => setTimeout(resolve, SECONDS * 1000));
      for (const socket of sockets) socket.destroy();
      return { sent: 1012 };
    },
  },
  {
    id: "3",
    what: "10,000 stubs on /q differing by a literal ?id=; requests carrying 6,000 id= values (2 clients)",
    routes: Array.from({ length: 10_000 }, (_, i) => ({ method: "GET", path: "/q", query_params: { id: String(i) } })),
    flood: async (dir) => {
      const query = Array.from({ length: 6000 }, (_, i) => `id=${20_000 + i}`).join("&");
      const { sent, p99Ms, maxMs } = await wrk(dir, "", { connections: 2, path: `/q?${query}` });
      return { sent, slowestMs: maxMs, note: `p99 ${p99Ms.toFixed(1)} ms per request` };
    },
  },
  {
    id: "6",
    what: "a dashboard tab polling every second while 1,000 60 KiB paths are kept and traffic goes on",
    flood: async (dir) => {
      await bigUnmatched(1000, "d");
      let polls = 0;
      let etag = "";
      let slowest = 0;
      const stop = Date.now() + SECONDS * 1000;
      const tab = (async () => {
        while (Date.now() < stop) {
          const start = performance.now();
          const response = await fetch(`${BASE}/__stubtool__/`, { headers: etag ? { "if-none-match": etag } : {} });
          await response.arrayBuffer();
          slowest = Math.max(slowest, performance.now() - start);
          etag = response.headers.get("etag") ?? "";
          polls++;
          await new Promise((resolve) => setTimeout(resolve, 1000));
        }
      })();
      const traffic = await wrk(dir, DISTINCT("t"), { connections: 4 });
      await tab;
      return { sent: traffic.sent + polls, slowestMs: slowest, note: `${polls} dashboard loads` };
    },
  },
  {
    id: "7",
    what: "a response function that never reads the payload gets 9 MB JSON bodies (API server, 2 clients)",
    script: `
import { post, stubServer, get } from "${ROOT}mod.ts";
const server = await stubServer(${PORT}, { adapter: "deno" });
server.routes(get("/ping").body({ pong: true }), post("/echo").responseFunc(() => [200, { ok: true }]));
console.log("ready");
await new Promise(() => {});
`,
    flood: async () => {
      const body = JSON.stringify({ items: Array.from({ length: 300_000 }, (_, i) => ({ n: i, s: "xxxxxx" })) });
      let sent = 0;
      let slowest = 0;
      const stop = Date.now() + SECONDS * 1000;
      await Promise.all([0, 1].map(async () => {
        while (Date.now() < stop) {
          const start = performance.now();
          const response = await fetch(`${BASE}/echo`, { method: "POST", body });
          await response.arrayBuffer();
          slowest = Math.max(slowest, performance.now() - start);
          sent++;
        }
      }));
      return { sent, slowestMs: slowest, note: `${(body.length / 1e6).toFixed(1)} MB each` };
    },
  },
  {
    id: "17",
    what: "bare-bones serve, distinct unmatched paths as fast as wrk sends them",
    flood: async (dir) => {
      const first = await wrk(dir, DISTINCT("m1"), { connections: 8 });
      const middle = rssNow();
      const second = await wrk(dir, DISTINCT("m2"), { connections: 8 });
      return {
        sent: first.sent + second.sent,
        note: `RSS ${middle.toFixed(1)} MB after ${first.sent}, then ${
          rssNow().toFixed(1)
        } MB after ${second.sent} more`,
      };
    },
  },
];

let currentPid = 0;
const rssNow = () => rssMb(currentPid);

/** Asks `GET /ping` every 20 ms until stopped; returns its latencies. */
function pinger(): { stop: () => Promise<number[]> } {
  const latencies: number[] = [];
  let running = true;
  const loop = (async () => {
    while (running) {
      const start = performance.now();
      try {
        const response = await fetch(`${BASE}/ping`, { signal: AbortSignal.timeout(30_000) });
        await response.body?.cancel();
        latencies.push(performance.now() - start);
      } catch {
        latencies.push(30_000);
      }
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  })();
  return {
    stop: async () => {
      running = false;
      await loop;
      return latencies;
    },
  };
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? NaN;
}

async function runAttack(attack: Attack): Promise<string> {
  const dir = await Deno.makeTempDir({ prefix: "stubtool-attack-" });
  let child: Deno.ChildProcess;
  if (attack.script) {
    await Deno.writeTextFile(`${dir}/server.ts`, attack.script);
    child = new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", "--config", `${ROOT}deno.json`, ...V8_FLAGS, `${dir}/server.ts`],
      stdout: "null",
    })
      .spawn();
  } else {
    const config = `${dir}/stubs.json`;
    const routes = [{ method: "GET", path: "/ping", body: { pong: true } }, ...(attack.routes ?? [])];
    await Deno.writeTextFile(config, JSON.stringify({ routes }));
    child = new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "-A",
        ...V8_FLAGS,
        "cli.ts",
        "serve",
        "--quiet",
        "--port",
        String(PORT),
        "--config",
        config,
        ...attack.flags ?? [],
      ],
      cwd: ROOT,
      stdout: "null",
    }).spawn();
  }
  currentPid = child.pid;
  try {
    for (let i = 0;; i++) {
      try {
        const response = await fetch(`${BASE}/ping`);
        await response.body?.cancel();
        if (response.ok) break;
      } catch { /* not yet */ }
      if (i > 3000) throw new Error(`attack ${attack.id}: the server did not start`);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    // Warm up with ordinary traffic, then settle: the idle figure is the server's steady state
    // after work (its heap grown to working size), not a fresh process's; long enough for the
    // idle collection (QUIET_TICKS quiet seconds, src/server/idle.ts) to have run.
    await wrk(dir, "", { connections: 8, seconds: 3, path: "/ping" });
    await new Promise((resolve) => setTimeout(resolve, (QUIET_TICKS + 2) * 1000));
    const before = rssNow();
    const cpuBefore = cpuMs(currentPid);
    const ping = pinger();
    const result = await attack.flood(dir);
    const latencies = await ping.stop();
    // The server's CPU over the flood per request sent (the /ping requests are a few per cent).
    const cpuPerRequest = (cpuMs(currentPid) - cpuBefore) / result.sent;
    const after = rssNow();
    // V8 gives memory back once the heap has been idle a while: what stays is what is kept.
    await new Promise((resolve) => setTimeout(resolve, 10_000));
    const settled = rssNow();
    const growth = settled - before;
    const held = growth <= CEILING_MB ? "yes" : "NO";
    const slowest = result.slowestMs === undefined ? "–" : result.slowestMs.toFixed(1);
    return `| ${attack.id} | ${attack.what} | ${result.sent} | ${before.toFixed(1)} | ${after.toFixed(1)} | ${
      settled.toFixed(1)
    } | ${growth.toFixed(1)} | ${percentile(latencies, 0.99).toFixed(1)} | ${
      Math.max(...latencies).toFixed(1)
    } | ${slowest} | ${cpuPerRequest.toFixed(2)} | ${held} | ${cpuPerRequest <= CPU_BOUND_MS ? "yes" : "NO"} | ${
      result.note ?? ""
    } |`;
  } finally {
    child.kill("SIGKILL");
    await child.status;
    await Deno.remove(dir, { recursive: true });
  }
}

async function main(): Promise<number> {
  const wrkThere = await new Deno.Command("sh", { args: ["-c", "command -v wrk"], stdout: "null" }).output();
  if (!wrkThere.success) {
    console.error("[ERROR] bench:memory needs wrk (npm test installs it; or apt-get install wrk)");
    return 2;
  }
  const attacks = flags.only ? ATTACKS.filter((a) => flags.only!.split(",").includes(a.id)) : ATTACKS;
  console.log(
    "| # | attack | requests | RSS before MB | RSS at the end MB | RSS 10 s later MB | kept MB | /ping p99 ms | /ping max ms | slowest attack request ms | server CPU ms per request | kept ≤ 64 MB | CPU ≤ 10 ms | note |",
  );
  console.log("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |");
  let failed = false;
  for (const attack of attacks) {
    const row = await runAttack(attack);
    if (row.includes("| NO |")) failed = true;
    console.log(row);
  }
  console.log(
    `\n${SECONDS} s floods; the ceiling is ${CEILING_MB} MB of RSS kept over the idle server (measured 10 s after the flood).`,
  );
  return failed ? 1 : 0;
}

if (import.meta.main) Deno.exit(await main());
