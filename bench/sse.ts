/**
 * The SSE figure (S11): a `stream:` stub of 10,000 events against a bare `Deno.serve`
 * streaming the same bytes, measured in the same run with the same client (Deno's fetch):
 * time to the first event (median over sequential requests to `GET /first`, whose second
 * event comes 10 s later; each stream cancelled once its first event is in) and events per
 * second (4 streams of `GET /events` read whole at once). Run by
 * `bench/run.ts`, or alone:
 *
 *   deno run -A bench/sse.ts [--smoke] [--port 18181] [--rounds 3]
 * @module
 */

import { waitUntilReady } from "./measure.ts";
import { parseArgs } from "node:util";
import { makeSseConfig, SSE_EVENTS, sseData } from "./scenarios.ts";

const ROOT = new URL("..", import.meta.url).pathname;
const DENO = Deno.execPath();

/** The servers compared: the bare baseline first. */
const SSE_SERVERS: { name: string; args: (port: number, config: string) => string[] }[] = [
  { name: "deno-bare sse", args: (port) => ["run", "-A", "bench/servers/deno_bare_sse.ts", String(port)] },
  {
    name: "stubtool sse",
    args: (port, config) => ["run", "-A", "cli.ts", "serve", "--quiet", "--port", String(port), "--config", config],
  },
  {
    name: "stubtool sse deno wire",
    args: (port, config) => [
      "run",
      "-A",
      "cli.ts",
      "serve",
      "--quiet",
      "--adapter",
      "deno",
      "--port",
      String(port),
      "--config",
      config,
    ],
  },
];

/** One server's figures (medians over rounds). */
export interface SseFigure {
  server: string;
  firstEventMs: number;
  eventsPerSecond: number;
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};

/** The whole expected body, to check each server before it is measured. */
function expectedBody(): string {
  let out = "";
  for (let n = 0; n < SSE_EVENTS; n++) out += `data: ${JSON.stringify(sseData(n))}\n\n`;
  return out;
}

/** Milliseconds from sending the request to the first event's bytes; the stream is then cancelled. */
async function firstEvent(url: string): Promise<number> {
  const started = performance.now();
  const response = await fetch(url);
  const reader = response.body!.getReader();
  const { value } = await reader.read();
  const ms = performance.now() - started;
  if (!value?.byteLength) throw new Error(`${url}: no first event`);
  await reader.cancel();
  return ms;
}

/** Reads `streams` whole streams at once; events per second over the wall time. */
async function eventRate(url: string, streams: number): Promise<number> {
  const started = performance.now();
  await Promise.all(Array.from({ length: streams }, async () => {
    const reader = (await fetch(url)).body!.getReader();
    while (!(await reader.read()).done) { /* drain */ }
  }));
  return (streams * SSE_EVENTS) / ((performance.now() - started) / 1000);
}

/** Measures every server: `rounds` rounds, each server started fresh per round. */
export async function measureSse(port: number, rounds: number, smoke: boolean): Promise<SseFigure[]> {
  const dir = await Deno.makeTempDir({ prefix: "stubtool-bench-sse-" });
  const config = `${dir}/sse.json`;
  await Deno.writeTextFile(config, JSON.stringify(makeSseConfig()));
  const expected = expectedBody();
  const firsts = new Map<string, number[]>();
  const rates = new Map<string, number[]>();
  const url = `http://127.0.0.1:${port}/events`;
  try {
    for (let round = 0; round < rounds; round++) {
      for (const server of SSE_SERVERS) {
        const child = new Deno.Command(DENO, {
          args: server.args(port, config),
          cwd: ROOT,
          stdout: "null",
          stderr: "null",
        }).spawn();
        try {
          await waitUntilReady(`http://127.0.0.1:${port}/__stubtool__/health`);
          const body = await (await fetch(url)).text();
          if (body !== expected) throw new Error(`${server.name}: wrong event stream before load`);
          const first = `http://127.0.0.1:${port}/first`;
          for (let i = 0; i < (smoke ? 5 : 50); i++) await firstEvent(first); // warm-up
          const times = [];
          for (let i = 0; i < (smoke ? 20 : 200); i++) times.push(await firstEvent(first));
          (firsts.get(server.name) ?? firsts.set(server.name, []).get(server.name)!).push(median(times));
          await eventRate(url, 4); // warm-up
          (rates.get(server.name) ?? rates.set(server.name, []).get(server.name)!).push(await eventRate(url, 4));
        } finally {
          child.kill("SIGTERM");
          await child.status;
        }
      }
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
  return SSE_SERVERS.map(({ name }) => ({
    server: name,
    firstEventMs: median(firsts.get(name)!),
    eventsPerSecond: median(rates.get(name)!),
  }));
}

/** Prints the figure: each server's time to first event and events per second, and their ratio to the bare server. */
export function printSse(figures: SseFigure[], rounds: number, smoke: boolean): void {
  const [bare] = figures;
  const requests = smoke ? 20 : 200;
  console.log(
    `\nS11 SSE: stream: stubs against bare Deno.serve streaming the same bytes; time to first event ` +
      `(median of ${requests} requests, the next event 10 s later) and events/s ` +
      `(4 streams of ${SSE_EVENTS} events without delays read at once), medians of ${rounds} round(s)`,
  );
  console.log("| server | first event | ÷ bare | events/s | ÷ bare |");
  console.log("|---|---|---|---|---|");
  for (const f of figures) {
    console.log(
      `| ${f.server} | ${f.firstEventMs.toFixed(2)} ms | ${(bare.firstEventMs / f.firstEventMs).toFixed(2)} | ` +
        `${Math.round(f.eventsPerSecond)} | ${(f.eventsPerSecond / bare.eventsPerSecond).toFixed(2)} |`,
    );
  }
}

if (import.meta.main) {
  const { values } = parseArgs({
    options: {
      smoke: { type: "boolean", default: false },
      port: { type: "string", default: "18181" },
      rounds: { type: "string", default: "3" },
    },
  });
  const rounds = values.smoke ? 1 : Number(values.rounds);
  printSse(await measureSse(Number(values.port), rounds, values.smoke), rounds, values.smoke);
}
