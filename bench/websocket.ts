/**
 * The WebSocket figure (S13): a `websocket:` stub answering every `ping` with `pong` against a
 * bare `Deno.serve` + `Deno.upgradeWebSocket` doing the same, measured in the same run with the
 * same client (Deno's WebSocket): messages per second (replies received over the wall time) over
 * 4 connections at once, each sending {@link WS_MESSAGES} pings with {@link WS_WINDOW} in flight.
 * Run by `bench/run.ts`, or alone:
 *
 *   deno run -A bench/websocket.ts [--smoke] [--port 18181] [--rounds 3]
 * @module
 */

import { waitUntilReady } from "./measure.ts";
import { parseArgs } from "node:util";
import { makeWsConfig, WS_MESSAGES, WS_WINDOW } from "./scenarios.ts";

const ROOT = new URL("..", import.meta.url).pathname;
const DENO = Deno.execPath();
const CONNECTIONS = 4;

const serve = (port: number, config: string, adapter: string[]) => [
  "run",
  "-A",
  "cli.ts",
  "serve",
  "--quiet",
  ...adapter,
  "--port",
  String(port),
  "--config",
  config,
];

/** The servers compared: the bare baseline first. */
const WS_SERVERS: { name: string; args: (port: number, config: string) => string[] }[] = [
  { name: "deno-bare websocket", args: (port) => ["run", "-A", "bench/servers/deno_bare_ws.ts", String(port)] },
  { name: "stubtool websocket", args: (port, config) => serve(port, config, []) },
  { name: "stubtool websocket deno wire", args: (port, config) => serve(port, config, ["--adapter", "deno"]) },
];

/** One server's figure (median over rounds). */
export interface WsFigure {
  server: string;
  messagesPerSecond: number;
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};

/** One connection: sends `messages` pings, `WS_WINDOW` in flight, and resolves once every `pong` is in. */
function session(url: string, messages: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url);
    let sent = 0;
    let received = 0;
    const timer = setTimeout(() => fail(new Error(`${url}: ${received} of ${messages} replies in 60 s`)), 60_000);
    const fail = (error: Error) => {
      clearTimeout(timer);
      ws.close();
      reject(error);
    };
    ws.onopen = () => {
      while (sent < Math.min(WS_WINDOW, messages)) sent++, ws.send("ping");
    };
    ws.onmessage = (event) => {
      if (event.data !== "pong") return fail(new Error(`${url}: got ${String(event.data).slice(0, 80)}`));
      if (++received === messages) {
        clearTimeout(timer);
        ws.onclose = () => resolve();
        ws.close();
      } else if (sent < messages) sent++, ws.send("ping");
    };
    ws.onerror = () => fail(new Error(`${url}: connection failed after ${received} replies`));
  });
}

/** Runs `CONNECTIONS` sessions at once; replies per second over the wall time. */
async function messageRate(url: string, messages: number): Promise<number> {
  const started = performance.now();
  await Promise.all(Array.from({ length: CONNECTIONS }, () => session(url, messages)));
  return (CONNECTIONS * messages) / ((performance.now() - started) / 1000);
}

/** Measures every server: `rounds` rounds, each server started fresh per round. */
export async function measureWebSocket(port: number, rounds: number, smoke: boolean): Promise<WsFigure[]> {
  const dir = await Deno.makeTempDir({ prefix: "stubtool-bench-ws-" });
  const config = `${dir}/ws.json`;
  await Deno.writeTextFile(config, JSON.stringify(makeWsConfig()));
  const rates = new Map<string, number[]>();
  const url = `ws://127.0.0.1:${port}/echo`;
  const messages = smoke ? WS_MESSAGES / 10 : WS_MESSAGES;
  try {
    for (let round = 0; round < rounds; round++) {
      for (const server of WS_SERVERS) {
        const child = new Deno.Command(DENO, {
          args: server.args(port, config),
          cwd: ROOT,
          stdout: "null",
          stderr: "null",
        }).spawn();
        try {
          await waitUntilReady(`http://127.0.0.1:${port}/__stubtool__/health`);
          await session(url, 1); // the right answer before load
          await messageRate(url, messages / 4); // warm-up
          (rates.get(server.name) ?? rates.set(server.name, []).get(server.name)!).push(
            await messageRate(url, messages),
          );
        } finally {
          child.kill("SIGTERM");
          await child.status;
        }
      }
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
  return WS_SERVERS.map(({ name }) => ({ server: name, messagesPerSecond: median(rates.get(name)!) }));
}

/** Prints the figure: each server's messages per second and its ratio to the bare server. */
export function printWebSocket(figures: WsFigure[], rounds: number, smoke: boolean): void {
  const [bare] = figures;
  console.log(
    `\nS13 WebSocket: a websocket: stub answering ping with pong against bare Deno.upgradeWebSocket doing the same; ` +
      `replies/s over ${CONNECTIONS} connections at once, ${smoke ? WS_MESSAGES / 10 : WS_MESSAGES} pings each, ` +
      `${WS_WINDOW} in flight, medians of ${rounds} round(s)`,
  );
  console.log("| server | messages/s | ÷ bare |");
  console.log("|---|---|---|");
  for (const f of figures) {
    console.log(
      `| ${f.server} | ${Math.round(f.messagesPerSecond)} | ${
        (f.messagesPerSecond / bare.messagesPerSecond).toFixed(2)
      } |`,
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
  printWebSocket(await measureWebSocket(Number(values.port), rounds, values.smoke), rounds, values.smoke);
}
