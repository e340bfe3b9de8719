/**
 * P22's figures (S14): three `serve --state` replicas sharing one redis-server against one
 * replica without `--state`, same run, same config, fresh servers each round.
 *
 * - **S1 spread**: `GET /users/42` with wrk; one replica gets `wrk -c32`, three get one
 *   `wrk -c11` each at once (33 connections); requests/s summed.
 * - **Flow**: {@link FLOWS} flows at once, each with its own `x-stubtool-scope`, walking the
 *   `cart` scenario in a loop: `POST /flow/cart` (Started → has-item, 201), `GET /flow/cart`
 *   (has-item, 200), `DELETE /flow/cart` (has-item → Started, 204). With three replicas a
 *   flow's steps go round robin, each to the replica after the previous step's (as a balancer
 *   would send them), so each step reads the state another replica moved: one store round trip
 *   per step. A step answered with another status counts as an error. Steps/s and step p50/p99
 *   (from a Deno client: its own cost is in both figures).
 *
 * Run by `bench/run.ts`, or alone:
 *
 *   deno run -A bench/replicas.ts [--smoke] [--port 18181] [--rounds 3] [--duration 3]
 *
 * Needs `redis-server` and `wrk` on the PATH (`npm test` provisions both).
 * @module
 */

import { median, parseWrk, waitUntilReady } from "./measure.ts";
import { parseArgs } from "node:util";
import { S1_STUB } from "./scenarios.ts";

const ROOT = new URL("..", import.meta.url).pathname;
const DENO = Deno.execPath();
/** Flows walked at once. */
export const FLOWS = 16;
/** Replicas of the shared figure. */
const REPLICAS = 3;

/** S1's stub and the flow's three steps. */
export function makeReplicaConfig(): { routes: Record<string, unknown>[] } {
  return {
    routes: [
      S1_STUB,
      {
        method: "POST",
        path: "/flow/cart",
        scenario: "cart",
        when_state: "Started",
        set_state: "has-item",
        status: 201,
        body: { added: "a-1" },
      },
      { method: "GET", path: "/flow/cart", scenario: "cart", when_state: "has-item", body: { items: ["a-1"] } },
      {
        method: "DELETE",
        path: "/flow/cart",
        scenario: "cart",
        when_state: "has-item",
        set_state: "Started",
        status: 204,
      },
    ],
  };
}

/** The flow's steps, in order, with the status each must answer. */
const STEPS: { method: string; status: number }[] = [
  { method: "POST", status: 201 },
  { method: "GET", status: 200 },
  { method: "DELETE", status: 204 },
];

/** One setup's figures in one round. */
interface Round {
  s1: number;
  steps: number;
  p50: number;
  p99: number;
  errors: number;
}

/** The medians over rounds, one setup. */
export interface ReplicaFigure {
  setup: string;
  s1: number;
  steps: number;
  p50: number;
  p99: number;
  errors: number;
}

/** Starts a redis-server without persistence on `port` (on the PATH: `npm test` provisions it). */
export async function startRedis(port: number): Promise<Deno.ChildProcess> {
  const child = new Deno.Command("redis-server", {
    args: ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
    stdout: "null",
    stderr: "null",
  }).spawn();
  const deadline = performance.now() + 10_000;
  for (;;) {
    try {
      (await Deno.connect({ hostname: "127.0.0.1", port })).close();
      return child;
    } catch { /* not listening yet */ }
    if (performance.now() > deadline) throw new Error(`redis-server did not listen on port ${port} in 10 s`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** wrk on `url` for `seconds` with `connections`: requests/s, and the answers that were not 2xx or failed. */
async function wrk(url: string, connections: number, seconds: number): Promise<{ rps: number; errors: number }> {
  const out = await new Deno.Command("timeout", {
    args: [String(seconds + 15), "wrk", "-t1", `-c${connections}`, `-d${seconds}s`, "--timeout", "5s", url],
    stdout: "piped",
  }).output();
  const text = new TextDecoder().decode(out.stdout);
  const { rps, socketErrors, non2xx } = parseWrk(text);
  if (!Number.isFinite(rps)) throw new Error(`wrk printed no result for ${url}:\n${text}`);
  return { rps, errors: socketErrors + non2xx };
}

/** S1 on every base at once, `connections` split between them: requests/s summed. */
async function s1(bases: string[], seconds: number): Promise<{ rps: number; errors: number }> {
  const each = Math.ceil(32 / bases.length);
  const runs = await Promise.all(bases.map((base) => wrk(`${base}/users/42`, each, seconds)));
  return { rps: runs.reduce((n, r) => n + r.rps, 0), errors: runs.reduce((n, r) => n + r.errors, 0) };
}

/**
 * {@link FLOWS} flows for `seconds`, flow `f`'s `k`-th step (from 0) to `bases[(f + k) % bases.length]`:
 * steps/s over the wall time, step latencies, steps answered with another status.
 */
async function flows(bases: string[], seconds: number, tag: string): Promise<Omit<Round, "s1">> {
  const times: number[] = [];
  let errors = 0;
  const started = performance.now();
  const until = started + seconds * 1000;
  await Promise.all(Array.from({ length: FLOWS }, async (_, f) => {
    const headers = { "x-stubtool-scope": `${tag}-flow-${f}` };
    for (let k = 0; performance.now() < until; k++) {
      const step = STEPS[k % STEPS.length];
      const sent = performance.now();
      const response = await fetch(`${bases[(f + k) % bases.length]}/flow/cart`, { method: step.method, headers });
      await response.body?.cancel();
      times.push(performance.now() - sent);
      if (response.status !== step.status) {
        errors++;
        // Back to the flow's start, on the store too, so one error does not become all of them.
        await (await fetch(`${bases[0]}/__stubtool__/scenarios/cart?scope=${headers["x-stubtool-scope"]}`, {
          method: "PUT",
          body: '{"state":"Started"}',
        })).body?.cancel();
        k += STEPS.length - 1 - (k % STEPS.length);
      }
    }
  }));
  const wall = (performance.now() - started) / 1000;
  times.sort((a, b) => a - b);
  return {
    steps: times.length / wall,
    p50: times[Math.floor(times.length * 0.5)] ?? NaN,
    p99: times[Math.floor(times.length * 0.99)] ?? NaN,
    errors,
  };
}

/** Starts `count` replicas on ports from `port` (with `--state` when `state` is set); resolves when each answers. */
async function startReplicas(count: number, port: number, config: string, state?: { url: string; cluster: string }) {
  const children = Array.from({ length: count }, (_, i) =>
    new Deno.Command(DENO, {
      args: [
        ...["run", "-A", "cli.ts", "serve", "--quiet", "--port", String(port + i), "--config", config],
        ...(state ? ["--state", state.url, "--cluster", state.cluster] : []),
      ],
      cwd: ROOT,
      stdout: "null",
      stderr: "null",
    }).spawn());
  const bases = children.map((_, i) => `http://127.0.0.1:${port + i}`);
  await Promise.all(bases.map((base) => waitUntilReady(`${base}/__stubtool__/health`)));
  return { children, bases };
}

/**
 * Measures both setups: `rounds` rounds, each starting them fresh (the order alternates), a
 * warm-up of `warmup` seconds, then S1 and the flow for `seconds` each.
 */
export async function measureReplicas(
  port: number,
  rounds: number,
  seconds: number,
  warmup: number,
): Promise<ReplicaFigure[]> {
  const dir = await Deno.makeTempDir({ prefix: "stubtool-bench-replicas-" });
  const config = `${dir}/replicas.json`;
  await Deno.writeTextFile(config, JSON.stringify(makeReplicaConfig()));
  const redis = await startRedis(port + REPLICAS);
  const setups = [
    { name: "1 replica", count: 1, state: false },
    { name: `${REPLICAS} replicas --state`, count: REPLICAS, state: true },
  ];
  const results = new Map<string, Round[]>(setups.map((s) => [s.name, []]));
  try {
    for (let round = 0; round < rounds; round++) {
      for (const setup of round % 2 ? setups.toReversed() : setups) {
        const state = setup.state
          ? { url: `redis://127.0.0.1:${port + REPLICAS}`, cluster: `bench-${round}` }
          : undefined;
        const { children, bases } = await startReplicas(setup.count, port, config, state);
        try {
          const tag = `r${round}`;
          if (warmup > 0) {
            await s1(bases, warmup);
            await flows(bases, warmup, `${tag}-warm`);
          }
          const spread = await s1(bases, seconds);
          const flow = await flows(bases, seconds, tag);
          results.get(setup.name)!.push({ ...flow, s1: spread.rps, errors: flow.errors + spread.errors });
        } finally {
          for (const child of children) child.kill("SIGTERM");
          await Promise.all(children.map((child) => child.status));
        }
      }
    }
  } finally {
    redis.kill("SIGKILL");
    await redis.status;
    await Deno.remove(dir, { recursive: true });
  }
  return setups.map(({ name }) => {
    const mine = results.get(name)!;
    const pick = (field: keyof Round) => median(mine.map((r) => r[field]));
    return {
      setup: name,
      s1: pick("s1"),
      steps: pick("steps"),
      p50: pick("p50"),
      p99: pick("p99"),
      errors: pick("errors"),
    };
  });
}

/** Prints S14: each setup's S1 requests/s and flow steps/s, and the shared setup's ratio to one replica. */
export function printReplicas(figures: ReplicaFigure[], rounds: number, seconds: number): void {
  const [one] = figures;
  console.log(
    `\nS14 replicas: ${REPLICAS} \`serve --state\` replicas sharing one redis-server against 1 replica without, ` +
      `same machine: S1 (wrk -c32, or one wrk -c11 per replica at once, req/s summed) and a scenario flow ` +
      `(${FLOWS} flows at once, each its own x-stubtool-scope, POST → GET → DELETE /flow/cart in a loop, ` +
      `round robin over the replicas: one store round trip per step), ${seconds} s each, medians of ${rounds} round(s)`,
  );
  console.log("| setup | S1 req/s | ÷ 1 replica | flow steps/s | ÷ 1 replica | step p50 ms | step p99 ms | errors |");
  console.log("|---|---|---|---|---|---|---|---|");
  for (const f of figures) {
    console.log(
      `| ${f.setup} | ${Math.round(f.s1)} | ${(f.s1 / one.s1).toFixed(2)} | ${Math.round(f.steps)} | ` +
        `${(f.steps / one.steps).toFixed(2)} | ${f.p50.toFixed(2)} | ${f.p99.toFixed(2)} | ${f.errors} |`,
    );
  }
}

if (import.meta.main) {
  const { values } = parseArgs({
    options: {
      smoke: { type: "boolean", default: false },
      port: { type: "string", default: "18181" },
      rounds: { type: "string", default: "3" },
      duration: { type: "string", default: "3" },
    },
  });
  const rounds = values.smoke ? 1 : Number(values.rounds);
  const seconds = values.smoke ? 1 : Number(values.duration);
  const figures = await measureReplicas(Number(values.port), rounds, seconds, values.smoke ? 0 : 1);
  printReplicas(figures, rounds, seconds);
  Deno.exit(figures.some((f) => f.errors > 0) ? 1 : 0);
}
