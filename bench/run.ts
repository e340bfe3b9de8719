/**
 * The benchmark: stubtool against a bare `Deno.serve` (and a bare `node:http`) measured in
 * the same run, over loopback with wrk.
 *
 *   npm run bench                     # 3 rounds, 3 s per measurement after 1 s warm-up, medians
 *   npm run bench -- --smoke          # 1 round, 1 s: checks the harness, not the numbers
 *   npm run bench -- --rounds 1 --duration 8 --connections 32
 *   npm run bench -- --only "deno-bare,stubtool 20"
 *   npm run bench -- --smoke --only "deno-bare,stubtool 20 +500 batches"   # S10: 500 batches of 20 stubs
 *   deno run -A bench/sse.ts --smoke  # S11 alone: SSE time to first event and events/s (bench/sse.ts)
 *   deno run -A bench/websocket.ts --smoke  # S13 alone: WebSocket messages/s (bench/websocket.ts)
 *   deno run -A bench/replicas.ts --smoke   # S14 alone: S1 and a scenario flow, 3 replicas --state vs 1 (bench/replicas.ts)
 *   npm run bench -- --only "deno-bare,stubtool openapi checked,stubtool openapi unchecked"   # S12: request checks' cost
 *   npm run bench -- --smoke --openapi-start   # P21.5 too (GitHub's spec, start and peak RSS; the full bench runs it)
 *   deno run -A bench/openapi_start.ts         # P21.5 alone (bench/openapi_start.ts)
 *   npm run bench -- --only "stubtool 20,node-bare kept"   # S1's rounds, then S1 side by side with its floor
 *   npm run bench -- --only "stubtool 20,node-bare kept +start"   # start-up in pairs of starts too
 *   npm run bench -- --only "stubtool 20,node-bare stubs,node-bare kept"   # S1 against the floor of its required work
 *
 * Every server is checked for the right answer before it is loaded; the table gives
 * req/s, p50, p99, errors, RSS after the run and startup time, each as a ratio to the
 * baseline of the same round; ratios are medians over rounds. After the rounds, each
 * target whose server and floor were both chosen runs side by side (see {@link SideBySide}).
 * @module
 */

import { parseArgs } from "node:util";
import { makeConfig, makePaymentsConfig, makeProxyConfig, s1Body, S7_BODY, S7_VERSION, S9_BODY } from "./scenarios.ts";
import { median, parseWrk, rssMb, waitUntilReady } from "./measure.ts";
import { measureOpenApiStart, printOpenApiStart } from "./openapi_start.ts";
import { measureHandler, printHandler } from "./handler.ts";
import { measureSse, printSse } from "./sse.ts";
import { measureWebSocket, printWebSocket } from "./websocket.ts";
import { measureReplicas, printReplicas, startRedis } from "./replicas.ts";
import { QUIET_TICKS } from "../src/server/idle.ts";
import {
  makeConfigMappings,
  makePaymentsMappings,
  makeRealisticMappings,
  timeLoad,
  writeWireMockFolder,
} from "./wiremock.ts";

const { values: flags } = parseArgs({
  options: {
    rounds: { type: "string", default: "3" },
    duration: { type: "string", default: "3" },
    warmup: { type: "string", default: "1" },
    connections: { type: "string", default: "32" },
    smoke: { type: "boolean", default: false },
    port: { type: "string", default: "18181" },
    only: { type: "string" },
    // P21.5: GitHub's spec started with --mock (seconds per start): in the full bench, or asked for.
    "openapi-start": { type: "boolean", default: false },
  },
});
const SMOKE = flags.smoke;
const ROUNDS = SMOKE ? 1 : Number(flags.rounds);
const DURATION = SMOKE ? 1 : Number(flags.duration);
const WARMUP = SMOKE ? 0 : Number(flags.warmup);
const CONNECTIONS = Number(flags.connections);
const PORT = Number(flags.port);
/** The bare upstream of the proxy scenario (S8). */
const UPSTREAM = `http://127.0.0.1:${PORT + 1}`;
/** The redis-server of `serve --state` (P22.4), started for the run when a chosen server needs it. */
const STATE = `redis://127.0.0.1:${PORT + 2}`;
const ROOT = new URL("..", import.meta.url).pathname;
const DENO = Deno.execPath();

// ------------------------------------------------------------------ scenarios and servers

interface Scenario {
  id: string;
  label: string;
  method: "GET" | "POST";
  path: string;
  body?: string;
  /** Request headers besides the body's content type. */
  headers?: Record<string, string>;
  /** Checks one answer before the load; returns what is wrong, or undefined. */
  check: (status: number, body: string) => string | undefined;
}

const expectJson = (status: number, expected: unknown) => (got: number, body: string) => {
  if (got !== status) return `status ${got}, expected ${status}`;
  return JSON.stringify(JSON.parse(body)) === JSON.stringify(expected) ? undefined : `body ${body.slice(0, 200)}`;
};

const S1: Scenario = {
  id: "S1",
  label: "GET /users/{id}",
  method: "GET",
  path: "/users/42",
  check: expectJson(200, JSON.parse(s1Body("42"))),
};
const S2: Scenario = {
  id: "S2",
  label: "static route",
  method: "GET",
  path: "/r/7",
  check: expectJson(200, { n: 7 }),
};
const S3: Scenario = {
  id: "S3",
  label: "unmatched (404)",
  method: "GET",
  path: "/r/10/items/x",
  check: (status, body) =>
    status === 404 && JSON.parse(body).closest?.length > 0 ? undefined : `status ${status}, body ${body.slice(0, 200)}`,
};
const ECHO = '{"order":{"id":"o-1","items":[{"sku":"a","qty":2}],"note":"bench"}}';
const S4: Scenario = {
  id: "S4",
  label: "POST responseFunc echo",
  method: "POST",
  path: "/echo",
  body: ECHO,
  check: expectJson(200, JSON.parse(ECHO)),
};
const S5: Scenario = {
  id: "S5",
  label: "GET report",
  method: "GET",
  path: "/__stubtool__/report",
  check: (status, body) =>
    status === 200 && JSON.parse(body).summary.total_stubs === 10_000 ? undefined : `status ${status}`,
};

interface Server {
  name: string;
  /** Command; `{port}`, `{config}` and `{upstream}` are replaced. */
  cmd: string[];
  /** The config: a stub count of `makeConfig`, or a named config (or WireMock folder). */
  config?: number | "payments" | "proxy" | WireMockFolderName;
  /** Needs the bare upstream (S8) running on the next port. */
  upstream?: boolean;
  /** Needs a redis-server (`{state}`, two ports up). */
  redis?: boolean;
  /** Runs once the server is ready, before its scenarios (S1 with runtime stubs). */
  setup?: () => Promise<void>;
  readyPath: string;
  scenarios: Scenario[];
}

const S7: Scenario = {
  id: "S7",
  label: "POST /payments, 1k stubs by header+json",
  method: "POST",
  path: "/payments",
  body: S7_BODY,
  headers: { "x-api-version": S7_VERSION },
  check: expectJson(201, { paid: 42 }),
};
const S8: Scenario = { ...S1, id: "S8", label: "proxied GET /users/{id}" };
const S9: Scenario = {
  id: "S9",
  label: "POST /orders/{id} template (capture, json, now)",
  method: "POST",
  path: "/orders/o-7",
  body: S9_BODY,
  check: (status, body) => {
    const got = status === 200 ? JSON.parse(body) : undefined;
    return got?.id === "o-7" && got.sku === "a-1" && /^\d{13}$/.test(got.at) && got.kind === "order"
      ? undefined
      : `status ${status}, body ${body.slice(0, 200)}`;
  },
};

/** Adds 500 stubs at runtime through the admin API, in 25 batches (S1 "while 500 runtime stubs exist"). */
async function addRuntimeStubs(): Promise<void> {
  for (let batch = 0; batch < 25; batch++) {
    const stubs = Array.from(
      { length: 20 },
      (_, i) => ({ method: "GET", path: `/runtime/${batch}/${i}`, body: { i } }),
    );
    const response = await fetch(`http://127.0.0.1:${PORT}/__stubtool__/stubs`, {
      method: "POST",
      body: JSON.stringify(stubs),
    });
    if (response.status !== 201) throw new Error(`admin POST answered ${response.status}: ${await response.text()}`);
  }
}

/** Batches of {@link addBatches}: a test run that adds 20 stubs per test over 500 tests. */
const BATCHES = 500;

/** S12: a JSON body to an operation `serve --openapi SPEC --mock` mocks, its request checked against the spec (or not). */
const S12: Scenario = {
  id: "S12",
  label: "POST /pets, --openapi --mock (JSON body)",
  method: "POST",
  path: "/pets",
  body: JSON.stringify({ name: "Rex", age: 3 }),
  check: expectJson(201, { id: 2 }),
};
const CHECKED_SPEC = "tests/fixtures/openapi/checked.yaml";

/** S10: requests to a stub of an early, a middle and the last of {@link BATCHES} batches. */
const S10 = [1, BATCHES / 2, BATCHES].map((batch, n): Scenario => ({
  id: `S10${"abc"[n]}`,
  label: `GET a batch-${batch} stub of ${BATCHES}×20`,
  method: "GET",
  path: `/t${batch}/users/7/42`,
  check: expectJson(200, { batch, id: "42" }),
}));

/** Adds {@link BATCHES} batches of 20 stubs through the admin API, one `POST` each, as a test run would. */
async function addBatches(): Promise<void> {
  for (let batch = 1; batch <= BATCHES; batch++) {
    const stubs = Array.from(
      { length: 20 },
      (_, i) => ({ method: "GET", path: `/t${batch}/users/${i}/{id}`, body: { batch, id: "{id}" } }),
    );
    const response = await fetch(`http://127.0.0.1:${PORT}/__stubtool__/stubs`, {
      method: "POST",
      body: JSON.stringify(stubs),
    });
    if (response.status !== 201) throw new Error(`admin POST answered ${response.status}: ${await response.text()}`);
  }
}

/** The WireMock folders: S1's and S7's stubs written as mapping files (bench/wiremock.ts). */
type WireMockFolderName = "wiremock 20" | "wiremock payments";

/** S1 and S7 served from their stubs converted from WireMock mappings (`serve --wiremock DIR`). */
const WIREMOCK_SERVERS: Server[] = [
  {
    name: "stubtool wiremock 20",
    cmd: [DENO, "run", "-A", "cli.ts", "serve", "--quiet", "--port", "{port}", "--wiremock", "{config}"],
    config: "wiremock 20",
    readyPath: "/__stubtool__/health",
    scenarios: [S1],
  },
  {
    name: "stubtool wiremock payments",
    cmd: [DENO, "run", "-A", "cli.ts", "serve", "--quiet", "--port", "{port}", "--wiremock", "{config}"],
    config: "wiremock payments",
    readyPath: "/__stubtool__/health",
    scenarios: [S7],
  },
];

/** Mapping files in the loading figure, and its target. */
const LOAD_FILES = 1000;
const LOAD_TARGET_MS = 1000;

/** `stubtool serve` on the fast wire (`--adapter deno`), judged against the Deno.serve floors. */
const DENO_WIRE = [DENO, "run", "-A", "cli.ts", "serve", "--quiet", "--adapter", "deno"];

const SERVERS: Server[] = [
  {
    name: "deno-bare",
    cmd: [DENO, "run", "-A", "bench/servers/deno_bare.ts", "{port}"],
    readyPath: "/users/1",
    scenarios: [S1],
  },
  {
    name: "stubtool 20",
    cmd: [DENO, "run", "-A", "cli.ts", "serve", "--quiet", "--port", "{port}", "--config", "{config}"],
    config: 20,
    readyPath: "/__stubtool__/health",
    scenarios: [S1, S2, S3, S9],
  },
  {
    name: "stubtool 10k",
    cmd: [DENO, "run", "-A", "cli.ts", "serve", "--quiet", "--port", "{port}", "--config", "{config}"],
    config: 10_000,
    readyPath: "/__stubtool__/health",
    scenarios: [S1, S2, S3, S5],
  },
  {
    // P22.4: a plain stub's request makes no round trip to the store (target: S1 ≥ 0.9 × "stubtool 20").
    name: "stubtool 20 --state",
    cmd: [
      DENO,
      "run",
      "-A",
      "cli.ts",
      "serve",
      "--quiet",
      "--port",
      "{port}",
      "--config",
      "{config}",
      "--state",
      "{state}",
    ],
    config: 20,
    redis: true,
    readyPath: "/__stubtool__/health",
    scenarios: [S1],
  },
  {
    name: "stubtool 20 +500 runtime",
    cmd: [DENO, "run", "-A", "cli.ts", "serve", "--quiet", "--port", "{port}", "--config", "{config}"],
    config: 20,
    readyPath: "/__stubtool__/health",
    setup: addRuntimeStubs,
    scenarios: [S1],
  },
  {
    name: "stubtool 20 +500 batches",
    cmd: [DENO, "run", "-A", "cli.ts", "serve", "--quiet", "--port", "{port}", "--config", "{config}"],
    config: 20,
    readyPath: "/__stubtool__/health",
    setup: addBatches,
    scenarios: [S1, ...S10],
  },
  {
    name: "stubtool openapi checked",
    cmd: [DENO, "run", "-A", "cli.ts", "serve", "--quiet", "--port", "{port}", "--openapi", CHECKED_SPEC, "--mock"],
    readyPath: "/__stubtool__/health",
    scenarios: [S12],
  },
  {
    name: "stubtool openapi unchecked",
    cmd: [
      ...[DENO, "run", "-A", "cli.ts", "serve", "--quiet", "--port", "{port}", "--openapi", CHECKED_SPEC],
      ...["--mock", "--no-validate-requests"],
    ],
    readyPath: "/__stubtool__/health",
    scenarios: [S12],
  },
  {
    name: "deno-bare json",
    cmd: [DENO, "run", "-A", "bench/servers/deno_bare_json.ts", "{port}"],
    readyPath: "/__stubtool__/health",
    scenarios: [S7],
  },
  {
    name: "deno-bare kept",
    cmd: [DENO, "run", "-A", "bench/servers/deno_bare_kept.ts", "{port}"],
    readyPath: "/__stubtool__/health",
    scenarios: [S1, S7],
  },
  {
    // stubtool's node:http adapter with a trivial handler doing node-bare kept's S1 work: the
    // adapter's share of S1 (side by side with node-bare kept) and the handler's (stubtool 20 beside it).
    name: "stubtool adapter",
    cmd: [DENO, "run", "-A", "bench/servers/stubtool_adapter.ts", "{port}"],
    readyPath: "/__stubtool__/health",
    scenarios: [S1],
  },
  {
    // The node:http wire's own floor (stubtool's default wire, under Deno).
    name: "node-bare kept",
    cmd: [DENO, "run", "-A", "bench/servers/node_bare_kept.mjs", "{port}"],
    readyPath: "/__stubtool__/health",
    scenarios: [S1, S7],
  },
  {
    // node-bare kept plus, written by hand, the per-request work the contract asks of a stub
    // server (find the stub, count the hit, journal time, status and stub, fill `{id}` escaped):
    // the floor S1 cannot pass on the node:http wire without skipping required work.
    name: "node-bare stubs",
    cmd: [DENO, "run", "-A", "bench/servers/node_bare_stubs.mjs", "{port}", "{config}"],
    config: 20,
    readyPath: "/__stubtool__/health",
    scenarios: [S1],
  },
  {
    // The start-up floors: the wire's kept floor that first does what a start cannot skip (reads
    // the config, compiles its template with Handlebars: bench/servers/start_work.mjs).
    name: "node-bare kept +start",
    cmd: [DENO, "run", "-A", "bench/servers/node_bare_kept.mjs", "{port}", "{config}"],
    config: 20,
    readyPath: "/__stubtool__/health",
    scenarios: [S1],
  },
  {
    name: "deno-bare kept +start",
    cmd: [DENO, "run", "-A", "bench/servers/deno_bare_kept.ts", "{port}", "{config}"],
    config: 20,
    readyPath: "/__stubtool__/health",
    scenarios: [S1],
  },
  {
    // The same server from the npm build's JavaScript (npm run build:npm): what Deno's per-module
    // TypeScript cache lookups add to start-up.
    name: "stubtool 20 js",
    cmd: [DENO, "run", "-A", "npm/esm/cli.js", "serve", "--quiet", "--port", "{port}", "--config", "{config}"],
    config: 20,
    readyPath: "/__stubtool__/health",
    scenarios: [S1],
  },
  {
    // S8's floor on the node:http wire as the contract asks (the body streamed, P12): node:http + fetch, piped.
    name: "node-bare proxy streamed",
    cmd: [DENO, "run", "-A", "bench/servers/node_bare_proxy_streamed.mjs", "{port}", "{upstream}"],
    upstream: true,
    readyPath: "/__stubtool__/health",
    scenarios: [S8],
  },
  {
    // A bare node:http server proxying with one fetch, reading the body whole.
    name: "node-bare proxy",
    cmd: [DENO, "run", "-A", "bench/servers/node_bare_proxy.mjs", "{port}", "{upstream}"],
    upstream: true,
    readyPath: "/__stubtool__/health",
    scenarios: [S8],
  },
  {
    // The fast wire (--adapter deno); its floor is deno-bare kept.
    name: "stubtool 20 deno wire",
    cmd: [
      DENO,
      "run",
      "-A",
      "cli.ts",
      "serve",
      "--quiet",
      "--adapter",
      "deno",
      "--port",
      "{port}",
      "--config",
      "{config}",
    ],
    config: 20,
    readyPath: "/__stubtool__/health",
    scenarios: [S1],
  },
  {
    name: "stubtool payments",
    cmd: [DENO, "run", "-A", "cli.ts", "serve", "--quiet", "--port", "{port}", "--config", "{config}"],
    config: "payments",
    readyPath: "/__stubtool__/health",
    scenarios: [S7],
  },
  {
    name: "stubtool payments deno wire",
    cmd: [...DENO_WIRE, "--port", "{port}", "--config", "{config}"],
    config: "payments",
    readyPath: "/__stubtool__/health",
    scenarios: [S7],
  },
  {
    name: "deno-bare proxy",
    cmd: [DENO, "run", "-A", "bench/servers/deno_bare_proxy.ts", "{port}", "{upstream}"],
    upstream: true,
    readyPath: "/__stubtool__/health",
    scenarios: [S8],
  },
  {
    // S8's floor on the Deno.serve wire as the contract asks (P12.1: headers dropped both ways, identity,
    // redirects passed on, an abort handle per request), keeping the request's headers as the journal does.
    name: "deno-bare proxy kept",
    cmd: [DENO, "run", "-A", "bench/servers/deno_bare_proxy_kept.ts", "{port}", "{upstream}"],
    upstream: true,
    readyPath: "/__stubtool__/health",
    scenarios: [S8],
  },
  {
    name: "deno-bare proxy identity",
    cmd: [DENO, "run", "-A", "bench/servers/deno_bare_proxy_identity.ts", "{port}", "{upstream}"],
    upstream: true,
    readyPath: "/__stubtool__/health",
    scenarios: [S8],
  },
  {
    name: "deno-bare proxy node:http",
    cmd: [DENO, "run", "-A", "bench/servers/deno_bare_proxy_node.ts", "{port}", "{upstream}"],
    upstream: true,
    readyPath: "/__stubtool__/health",
    scenarios: [S8],
  },
  {
    name: "stubtool proxy",
    cmd: [DENO, "run", "-A", "cli.ts", "serve", "--quiet", "--port", "{port}", "--config", "{config}"],
    config: "proxy",
    upstream: true,
    readyPath: "/__stubtool__/health",
    scenarios: [S8],
  },
  {
    name: "stubtool proxy deno wire",
    cmd: [...DENO_WIRE, "--port", "{port}", "--config", "{config}"],
    config: "proxy",
    upstream: true,
    readyPath: "/__stubtool__/health",
    scenarios: [S8],
  },
  {
    name: "stubtool api",
    cmd: [DENO, "run", "-A", "bench/servers/stubtool_api.ts", "{port}", "{config}"],
    config: 20,
    readyPath: "/__stubtool__/health",
    scenarios: [S1, S4],
  },
  {
    name: "node-bare",
    cmd: ["node", "bench/servers/node_bare.mjs", "{port}"],
    readyPath: "/users/1",
    scenarios: [S1],
  },
  {
    name: "stubtool node",
    cmd: ["node", "bench/servers/stubtool_node.mjs", "{port}", "{config}"],
    config: 20,
    readyPath: "/__stubtool__/health",
    scenarios: [S1, S4],
  },
  ...WIREMOCK_SERVERS,
];

// ------------------------------------------------------------------ measuring

interface Measure {
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  rssMb: number;
}

/** Runs wrk and parses its --latency output. */
async function wrk(
  scenario: Scenario,
  seconds: number,
  scriptDir: string,
  port = PORT,
): Promise<Omit<Measure, "rssMb">> {
  const args = [
    "-t1",
    `-c${CONNECTIONS}`,
    `-d${seconds}s`,
    "--latency",
    "--timeout",
    "5s",
  ];
  if (scenario.method === "POST") {
    const script = `${scriptDir}/${scenario.id}.lua`;
    const extra = Object.entries(scenario.headers ?? {}).map(([name, value]) =>
      `wrk.headers[${JSON.stringify(name)}] = ${JSON.stringify(value)}\n`
    ).join("");
    await Deno.writeTextFile(
      script,
      `wrk.method = "POST"\nwrk.body = ${
        JSON.stringify(scenario.body)
      }\nwrk.headers["Content-Type"] = "application/json"\n${extra}`,
    );
    args.push("-s", script);
  }
  args.push(`http://127.0.0.1:${port}${scenario.path}`);
  const out = await new Deno.Command("timeout", { args: [String(seconds + 15), "wrk", ...args], stdout: "piped" })
    .output();
  const text = new TextDecoder().decode(out.stdout);
  const { rps, p50, p99, socketErrors, non2xx } = parseWrk(text);
  const expectedNon2xx = scenario.id === "S3";
  if (!Number.isFinite(rps)) throw new Error(`wrk printed no result for ${scenario.id}:\n${text}`);
  return { rps, p50, p99, errors: socketErrors + (expectedNon2xx ? 0 : non2xx) };
}

async function request(scenario: Scenario, port = PORT): Promise<[number, string]> {
  const response = await fetch(`http://127.0.0.1:${port}${scenario.path}`, {
    method: scenario.method,
    body: scenario.body,
    headers: { ...(scenario.body ? { "content-type": "application/json" } : {}), ...scenario.headers },
  });
  return [response.status, await response.text()];
}

/** Starts a server and returns it with the time from spawn to its first 200 on readyPath. */
async function start(server: Server, configs: Map<Server["config"], string>, port = PORT) {
  const cmd = server.cmd.map((part) =>
    part.replace("{port}", String(port)).replace("{config}", configs.get(server.config ?? 0) ?? "")
      .replace("{upstream}", UPSTREAM).replace("{state}", STATE)
  );
  const started = performance.now();
  const child = new Deno.Command(cmd[0], { args: cmd.slice(1), cwd: ROOT, stdout: "null", stderr: "piped" }).spawn();
  const deadline = started + 30_000;
  for (;;) {
    try {
      const response = await fetch(`http://127.0.0.1:${port}${server.readyPath}`);
      await response.body?.cancel();
      if (response.status === 200) break;
    } catch { /* not listening yet */ }
    if (performance.now() > deadline) {
      try {
        child.kill();
      } catch { /* it ended by itself: its stderr says why */ }
      const { stderr } = await child.output();
      throw new Error(`${server.name} did not get ready in 30 s: ${new TextDecoder().decode(stderr).slice(0, 500)}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
  return { child, startupMs: performance.now() - started };
}

async function stop(child: Deno.ChildProcess): Promise<void> {
  try {
    child.kill("SIGTERM");
  } catch { /* already gone */ }
  const timer = setTimeout(() => {
    try {
      child.kill("SIGKILL");
    } catch { /* gone */ }
  }, 3000);
  await child.output().catch(() => {});
  clearTimeout(timer);
}

/** Requests per S6 cycle, sent 32 at a time. */
const CYCLE_REQUESTS = 1000;

/** Sends `count` GETs to `paths` (round robin), 32 at a time, and resolves when all are answered. */
async function burst(base: string, paths: string[], count: number): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: 32 }, async () => {
    while (next < count) {
      const path = paths[next++ % paths.length];
      const response = await fetch(base + path);
      if (response.status !== 200) throw new Error(`${path} answered ${response.status}`);
      await response.body?.cancel();
    }
  }));
}

/**
 * S6: a test run's admin traffic against `stubtool serve` — add 20 stubs, send 1,000
 * requests to them, remove them — ten times; and the same requests to deno-bare.
 */
async function adminCycles(config: string): Promise<{ count: number; cycleMs: number; bareMs: number }> {
  const count = SMOKE ? 2 : 10;
  const base = `http://127.0.0.1:${PORT}`;
  const served = await start({
    name: "stubtool S6",
    cmd: [DENO, "run", "-A", "cli.ts", "serve", "--quiet", "--port", "{port}", "--config", config],
    readyPath: "/__stubtool__/health",
    scenarios: [],
  }, new Map());
  const times: number[] = [];
  try {
    for (let cycle = 0; cycle < count; cycle++) {
      const started = performance.now();
      const stubs = Array.from(
        { length: 20 },
        (_, i) => ({ method: "GET", path: `/t${cycle}/users/${i}/{id}`, body: { id: "{id}" } }),
      );
      const added = await fetch(`${base}/__stubtool__/stubs`, { method: "POST", body: JSON.stringify(stubs) });
      const ids = (await added.json()).stubs.map((s: { id: string }) => s.id);
      await burst(base, stubs.map((_, i) => `/t${cycle}/users/${i}/42`), CYCLE_REQUESTS);
      for (const id of ids) {
        await (await fetch(`${base}/__stubtool__/stubs/${id}`, { method: "DELETE" })).body?.cancel();
      }
      times.push(performance.now() - started);
    }
  } finally {
    await stop(served.child);
  }
  const bare = await start(SERVERS[0], new Map());
  const bareTimes: number[] = [];
  try {
    for (let cycle = 0; cycle < count; cycle++) {
      const started = performance.now();
      await burst(base, Array.from({ length: 20 }, (_, i) => `/users/${i}`), CYCLE_REQUESTS);
      bareTimes.push(performance.now() - started);
    }
  } finally {
    await stop(bare.child);
  }
  return { count, cycleMs: median(times), bareMs: median(bareTimes) };
}

/** The loading figure: {@link LOAD_FILES} mapping files of mixed shape, loaded once per round. */
async function wiremockLoads(dir: string) {
  const { mappings, files } = makeRealisticMappings(LOAD_FILES);
  const big = await writeWireMockFolder(`${dir}/wiremock-load`, mappings, files);
  const empty = await writeWireMockFolder(`${dir}/wiremock-empty`, []);
  const times = [];
  for (let round = 0; round < ROUNDS; round++) times.push(await timeLoad(big, empty, ROOT));
  return times;
}

// ------------------------------------------------------------------ side by side

/**
 * A target measured side by side: the server and its floor are up at once and wrk turns from
 * one to the other, slice after slice (server, floor, server, …); each two slices in a row give
 * one ratio, so half the ratios have the server first and half the floor. On a shared 2-vCPU
 * machine, speed drifts by ±25 % over the minutes between a round's servers; slices seconds
 * apart see the same machine, so the ratio's spread is the servers', not the machine's. With
 * slices under the idle collector's five quiet seconds (src/server/idle.ts), what is measured
 * is a server under steady load, as in the rounds. Start-up is compared the same way: pairs of
 * starts, in turn which goes first ({@link startsInTurn}).
 */
interface SideBySide {
  target: string;
  server: string;
  floor: string;
  scenario: Scenario;
  op: "≥" | "≤";
  goal: number;
  /** The figure compared: req/s, p99 or start-up time (server ÷ floor). */
  field: "rps" | "p99" | "startupMs";
}

const SIDE_BY_SIDE: SideBySide[] = ([
  { target: "S1 req/s, default wire", server: "stubtool 20", floor: "node-bare kept", scenario: S1, field: "rps" },
  { target: "S1 p99, default wire", server: "stubtool 20", floor: "node-bare kept", scenario: S1, field: "p99" },
  {
    target: "S1 req/s, the default wire's adapter alone (a trivial handler)",
    server: "stubtool adapter",
    floor: "node-bare kept",
    scenario: S1,
    field: "rps",
  },
  {
    target: "S1 req/s, the contract's per-request work by hand (node-bare stubs)",
    server: "node-bare stubs",
    floor: "node-bare kept",
    scenario: S1,
    field: "rps",
  },
  {
    target: "S1 req/s, default wire ÷ the contract's work by hand",
    server: "stubtool 20",
    floor: "node-bare stubs",
    scenario: S1,
    field: "rps",
  },
  {
    target: "S1 req/s, default wire ÷ its adapter alone (the handler's share)",
    server: "stubtool 20",
    floor: "stubtool adapter",
    scenario: S1,
    field: "rps",
  },
  {
    target: "S1 req/s, deno wire",
    server: "stubtool 20 deno wire",
    floor: "deno-bare kept",
    scenario: S1,
    field: "rps",
  },
  { target: "S1 p99, deno wire", server: "stubtool 20 deno wire", floor: "deno-bare kept", scenario: S1, field: "p99" },
  {
    target: "S7 req/s, default wire",
    server: "stubtool payments",
    floor: "node-bare kept",
    scenario: S7,
    field: "rps",
  },
  {
    target: "S7 req/s, deno wire",
    server: "stubtool payments deno wire",
    floor: "deno-bare kept",
    scenario: S7,
    field: "rps",
  },
  {
    target: "S8 req/s, default wire",
    server: "stubtool proxy",
    floor: "node-bare proxy streamed",
    scenario: S8,
    field: "rps",
  },
  {
    target: "S8 req/s, deno wire",
    server: "stubtool proxy deno wire",
    floor: "deno-bare proxy kept",
    scenario: S8,
    field: "rps",
  },
  {
    target: "S8 req/s, default wire ÷ the bare fetch proxy",
    server: "stubtool proxy",
    floor: "deno-bare proxy",
    scenario: S8,
    field: "rps",
  },
  {
    target: "S8 req/s, deno wire ÷ the bare fetch proxy",
    server: "stubtool proxy deno wire",
    floor: "deno-bare proxy",
    scenario: S8,
    field: "rps",
  },
  {
    target: "start-up, default wire",
    server: "stubtool 20",
    floor: "node-bare kept +start",
    scenario: S1,
    field: "startupMs",
  },
  {
    target: "start-up, deno wire",
    server: "stubtool 20 deno wire",
    floor: "deno-bare kept +start",
    scenario: S1,
    field: "startupMs",
  },
] satisfies Omit<SideBySide, "op" | "goal">[]).map((pair) => ({
  ...pair,
  op: pair.field === "rps" ? "≥" as const : "≤" as const,
  goal: pair.field === "startupMs"
    ? 2
    : pair.field === "p99"
    ? 1.5
    : pair.scenario === S1
    ? 0.95
    : pair.scenario === S7
    ? 0.9
    : 0.8,
}));

/** Slices per side-by-side target, server first and last: one less ratio. */
const SLICES = SMOKE ? 2 : Math.max(7, 2 * ROUNDS + 1);

interface SideBySideFigure extends SideBySide {
  /** One ratio per two slices in a row. */
  ratios: number[];
}

/**
 * Runs each {@link SIDE_BY_SIDE} target whose two servers were chosen: both up (the floor on
 * the next free port), one warm-up each, then {@link SLICES} slices. The p99 targets read the
 * same slices as their req/s target.
 */
async function sideBySide(
  chosen: Server[],
  configs: Map<Server["config"], string>,
  dir: string,
): Promise<SideBySideFigure[]> {
  const figures: SideBySideFigure[] = [];
  const byName = new Map(SERVERS.map((s) => [s.name, s]));
  const names = new Set(chosen.map((s) => s.name));
  const measured = new Map<string, Omit<Measure, "rssMb">[]>();
  for (const pair of SIDE_BY_SIDE) {
    if (!names.has(pair.server) || !names.has(pair.floor)) continue;
    const field = pair.field;
    if (field === "startupMs") {
      figures.push({ ...pair, ratios: await startsInTurn(byName.get(pair.server)!, byName.get(pair.floor)!, configs) });
      continue;
    }
    const key = `${pair.server}\u0000${pair.floor}\u0000${pair.scenario.id}`;
    if (!measured.has(key)) {
      const ports = [PORT, PORT + 3];
      const server = await start(byName.get(pair.server)!, configs, ports[0]);
      const floor = await start(byName.get(pair.floor)!, configs, ports[1]).catch(async (error) => {
        await stop(server.child);
        throw error;
      });
      try {
        for (const port of ports) {
          const [status, body] = await request(pair.scenario, port);
          const problem = pair.scenario.check(status, body);
          if (problem) throw new Error(`side by side ${pair.target}: wrong answer before load: ${problem}`);
          if (WARMUP > 0) await wrk(pair.scenario, WARMUP, dir, port);
        }
        const slices = [];
        for (let n = 0; n < SLICES; n++) slices.push(await wrk(pair.scenario, DURATION, dir, ports[n % 2]));
        measured.set(key, slices);
      } finally {
        await stop(server.child);
        await stop(floor.child);
      }
    }
    const slices = measured.get(key)!;
    const ratios = slices.slice(1).map((slice, n) => {
      const [server, floor] = n % 2 === 0 ? [slices[n], slice] : [slice, slices[n]];
      return server[field] / floor[field];
    });
    figures.push({ ...pair, ratios });
  }
  return figures;
}

/** Pairs of starts per start-up target: a start takes a tenth of a second, and one start varies by ±30 %. */
const START_PAIRS = SMOKE ? 1 : 15;

/**
 * Start-up side by side: {@link START_PAIRS} pairs of starts, one server then its floor or the
 * other way round (in turn), each started, timed to its first answer and stopped, with a
 * quarter second between; the server's start-up ÷ the floor's, per pair.
 */
async function startsInTurn(server: Server, floor: Server, configs: Map<Server["config"], string>): Promise<number[]> {
  const ratios = [];
  for (let n = 0; n < START_PAIRS; n++) {
    const times = new Map<Server, number>();
    for (const one of n % 2 === 0 ? [server, floor] : [floor, server]) {
      const { child, startupMs } = await start(one, configs);
      times.set(one, startupMs);
      await stop(child);
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    ratios.push(times.get(server)! / times.get(floor)!);
  }
  return ratios;
}

function printSideBySide(figures: SideBySideFigure[]): void {
  if (figures.length === 0) return;
  const fmt = (n: number) => Number.isFinite(n) ? n.toFixed(2) : "-";
  console.log(
    `\nSide by side: each server and its floor up at once, wrk turning from one to the other, ` +
      `${SLICES} slices of ${DURATION} s (server, floor, server, …); server ÷ floor for each two slices in a row; ` +
      `start-up: ${START_PAIRS} pair(s) of starts, in turn which goes first\n` +
      "| target | floor | median (spread) | per two slices (per pair) | goal | verdict |\n| --- | --- | --- | --- | --- | --- |",
  );
  for (const { target, floor, ratios, op, goal } of figures) {
    const value = median(ratios);
    const met = op === "≥" ? value >= goal : value <= goal;
    const spread = ratios.length > 1 ? ` (${fmt(Math.min(...ratios))}–${fmt(Math.max(...ratios))})` : "";
    console.log(
      `| ${target} | ${floor} | ${fmt(value)}${spread} | ${ratios.map(fmt).join(" ")} | ${op} ${goal} | ${
        Number.isFinite(value) ? met ? "PASS" : "BELOW" : "-"
      } |`,
    );
  }
}

// ------------------------------------------------------------------ after a pause

/** Pauses before a burst: one the idle collector sits out, one it collects in (src/server/idle.ts). */
const PAUSES_S = [3, QUIET_TICKS + 3];

interface PauseFigure {
  pauseS: number;
  /** Per round: req/s of the burst after the pause ÷ req/s of the burst right after it. */
  ratios: number[];
}

/**
 * S1 after a pause, as a test suite's traffic comes: `stubtool 20` warmed up, then per round
 * and pause, quiet for the pause, one burst, and a second burst at once; the first ÷ the second.
 * A pause past the idle collector's quiet seconds ends with a full collection, and the figure
 * shows what that costs the next burst.
 */
async function afterPause(configs: Map<Server["config"], string>, dir: string): Promise<PauseFigure[]> {
  const server = await start(SERVERS.find((s) => s.name === "stubtool 20")!, configs);
  const figures: PauseFigure[] = PAUSES_S.map((pauseS) => ({ pauseS, ratios: [] }));
  try {
    await wrk(S1, Math.max(WARMUP, 1), dir);
    for (let round = 0; round < ROUNDS; round++) {
      for (const figure of figures) {
        await new Promise((resolve) => setTimeout(resolve, figure.pauseS * 1000));
        const first = await wrk(S1, DURATION, dir);
        const next = await wrk(S1, DURATION, dir);
        figure.ratios.push(first.rps / next.rps);
      }
    }
  } finally {
    await stop(server.child);
  }
  return figures;
}

function printAfterPause(figures: PauseFigure[]): void {
  if (figures.length === 0) return;
  const fmt = (n: number) => Number.isFinite(n) ? n.toFixed(2) : "-";
  console.log(
    `\nS1 after a pause: stubtool 20, quiet for the pause, then a ${DURATION} s burst ÷ the ${DURATION} s burst right ` +
      `after it (${ROUNDS} round(s)); the idle collection runs after ${QUIET_TICKS} quiet seconds\n` +
      "| pause | first burst ÷ next (median (spread)) |\n| --- | --- |",
  );
  for (const { pauseS, ratios } of figures) {
    const spread = ratios.length > 1 ? ` (${fmt(Math.min(...ratios))}–${fmt(Math.max(...ratios))})` : "";
    console.log(`| ${pauseS} s | ${fmt(median(ratios))}${spread} |`);
  }
}

// ------------------------------------------------------------------ the run

interface Row extends Measure {
  round: number;
  server: string;
  scenario: string;
  startupMs: number;
}

async function main(): Promise<number> {
  const wrkCheck = await new Deno.Command("sh", { args: ["-c", "command -v wrk"], stdout: "null" }).output();
  if (!wrkCheck.success) {
    console.error("[ERROR] wrk is not installed: apt-get update && apt-get install -y wrk");
    return 2;
  }
  const nodeEntry = `${ROOT}npm/esm/mod.js`;
  const only = flags.only?.split(",").map((name) => name.trim());
  let servers = only ? SERVERS.filter((s) => only.includes(s.name)) : SERVERS;
  try {
    Deno.statSync(nodeEntry);
  } catch {
    console.error("[WARN] npm/ is not built (npm run build:npm): skipping the Node servers");
    servers = servers.filter((s) => !s.cmd[0].startsWith("node") && !s.cmd.some((part) => part.startsWith("npm/")));
  }
  const dir = await Deno.makeTempDir({ prefix: "stubtool-bench-" });
  const configs = new Map<Server["config"], string>();
  for (const size of [20, 10_000]) {
    const path = `${dir}/stubs-${size}.json`;
    await Deno.writeTextFile(path, JSON.stringify(makeConfig(size)));
    configs.set(size, path);
  }
  for (const [name, config] of [["payments", makePaymentsConfig()], ["proxy", makeProxyConfig(UPSTREAM)]] as const) {
    const path = `${dir}/stubs-${name}.json`;
    await Deno.writeTextFile(path, JSON.stringify(config));
    configs.set(name, path);
  }
  for (
    const [name, mappings] of [["wiremock 20", makeConfigMappings(20)], [
      "wiremock payments",
      makePaymentsMappings(),
    ]] as const
  ) {
    configs.set(name, await writeWireMockFolder(`${dir}/${name.replace(" ", "-")}`, mappings));
  }
  // The bare upstream of S8, for the whole run.
  const upstream = new Deno.Command(DENO, {
    args: ["run", "-A", "bench/servers/deno_bare.ts", String(PORT + 1)],
    cwd: ROOT,
    stdout: "null",
    stderr: "null",
  }).spawn();
  await waitUntilReady(`${UPSTREAM}/users/1`);
  const redis = servers.some((s) => s.redis) ? await startRedis(PORT + 2) : undefined;

  const rows: Row[] = [];
  const began = performance.now();
  for (let round = 1; round <= ROUNDS; round++) {
    for (const server of servers) {
      const { child, startupMs } = await start(server, configs);
      try {
        await server.setup?.();
        for (const scenario of server.scenarios) {
          const [status, body] = await request(scenario);
          const problem = scenario.check(status, body);
          if (problem) throw new Error(`${server.name} ${scenario.id}: wrong answer before load: ${problem}`);
          if (WARMUP > 0) await wrk(scenario, WARMUP, dir);
          const measure = await wrk(scenario, DURATION, dir);
          rows.push({
            round,
            server: server.name,
            scenario: scenario.id,
            startupMs,
            ...measure,
            rssMb: rssMb(child.pid),
          });
        }
      } finally {
        await stop(child);
      }
    }
  }
  const sides = await sideBySide(servers, configs, dir);
  const pauses = servers.some((s) => s.name === "stubtool 20") ? await afterPause(configs, dir) : [];
  await stop(upstream);
  if (redis) await stop(redis);
  const cycles = await adminCycles(configs.get(20)!);
  const loads = await wiremockLoads(dir);
  const sse = await measureSse(PORT, ROUNDS, SMOKE);
  const websocket = await measureWebSocket(PORT, ROUNDS, SMOKE);
  const openapiStart = (!SMOKE && flags.only === undefined) || flags["openapi-start"]
    ? await measureOpenApiStart(PORT, ROUNDS)
    : undefined;
  const replicas = await measureReplicas(PORT, ROUNDS, DURATION, WARMUP);
  const handlerWork = servers.some((s) => s.name === "stubtool 20")
    ? await measureHandler(ROUNDS, SMOKE ? 10_000 : 1_000_000)
    : undefined;
  await Deno.remove(dir, { recursive: true });
  printTable(rows);
  printSideBySide(sides);
  if (handlerWork) printHandler(handlerWork);
  printAfterPause(pauses);
  printWireMock(rows, loads);
  const state = ratio(
    rows,
    (r) => find(rows, r, "stubtool 20 --state", "S1")?.rps,
    (r) => find(rows, r, "stubtool 20", "S1")?.rps,
  );
  if (Number.isFinite(state)) {
    console.log(`\nS1 req/s with --state ÷ without (same run): ${state.toFixed(2)} (target ≥ 0.9)`);
  }
  printSse(sse, ROUNDS, SMOKE);
  printWebSocket(websocket, ROUNDS, SMOKE);
  if (openapiStart) printOpenApiStart(openapiStart);
  printReplicas(replicas, ROUNDS, DURATION);
  console.log(
    `\nS6 a test run's admin traffic (add 20 stubs, ${CYCLE_REQUESTS} requests to them, remove them), ` +
      `${cycles.count} times: ${cycles.cycleMs.toFixed(0)} ms per cycle (median); the same requests to deno-bare: ` +
      `${cycles.bareMs.toFixed(0)} ms; ratio ${(cycles.bareMs / cycles.cycleMs).toFixed(2)}.`,
  );
  console.log(
    `\n${ROUNDS} round(s), wrk -t1 -c${CONNECTIONS} -d${DURATION}s after ${WARMUP}s warm-up, ` +
      `${((performance.now() - began) / 1000).toFixed(0)} s in all.`,
  );
  return 0;
}

function find(rows: Row[], round: number, server: string, scenario: string): Row | undefined {
  return rows.find((r) => r.round === round && r.server === server && r.scenario === scenario);
}

/** A per-round ratio over the rounds: its median, and its lowest and highest round (the spread). */
interface Ratio {
  median: number;
  low: number;
  high: number;
}

/** A per-round ratio over the rounds of `rows` (NaN where either side is missing). */
function roundRatios(
  rows: Row[],
  of: (round: number) => number | undefined,
  to: (round: number) => number | undefined,
): Ratio {
  const rounds = [...new Set(rows.map((r) => r.round))];
  const values = rounds.map((round) => (of(round) ?? NaN) / (to(round) ?? NaN));
  return { median: median(values), low: Math.min(...values), high: Math.max(...values) };
}

/** Median over rounds of a per-round ratio. */
function ratio(rows: Row[], of: (round: number) => number | undefined, to: (round: number) => number | undefined) {
  return roundRatios(rows, of, to).median;
}

function printTable(rows: Row[]): void {
  const fmt = (n: number, digits = 0) => Number.isFinite(n) ? n.toFixed(digits) : "-";
  const keys = [...new Set(rows.map((r) => `${r.server}\u0000${r.scenario}`))];
  type Field = "rps" | "p99" | "startupMs";
  /** `field` of one server's scenario ÷ the same field of another's, per round. */
  const versus = (field: Field, [server, scenario]: string[], [base, baseScenario]: string[]) =>
    roundRatios(
      rows,
      (r) => find(rows, r, server, scenario)?.[field],
      (r) => find(rows, r, base, baseScenario)?.[field],
    );
  /** A ratio's median and, over several rounds, its spread: `0.91 (0.86–0.97)`. */
  const fmtRatio = ({ median, low, high }: Ratio) =>
    !Number.isFinite(median)
      ? "-"
      : low === high
      ? fmt(median, 2)
      : `${fmt(median, 2)} (${fmt(low, 2)}–${fmt(high, 2)})`;
  const bare = ["deno-bare", "S1"];
  const header = [
    "server",
    "scenario",
    "req/s",
    "p50 ms",
    "p99 ms",
    "errors",
    "RSS MB",
    "startup ms",
    "req/s ÷ base",
    "p99 ÷ base",
    "startup ÷ base",
  ];
  const lines = keys.map((key) => {
    const [server, scenario] = key.split("\u0000");
    const mine = rows.filter((r) => r.server === server && r.scenario === scenario);
    const pick = (field: keyof Measure | "startupMs") => median(mine.map((r) => r[field] as number));
    const rel = (field: Field) => versus(field, [server, scenario], bare);
    return [
      server,
      `${scenario} ${[S1, S2, S3, S4, S5, S7, S8, S9, ...S10, S12].find((s) => s.id === scenario)?.label ?? ""}`,
      fmt(pick("rps")),
      fmt(pick("p50"), 2),
      fmt(pick("p99"), 2),
      fmt(pick("errors")),
      fmt(pick("rssMb")),
      fmt(pick("startupMs")),
      fmt(rel("rps").median, 2),
      fmt(rel("p99").median, 2),
      fmt(rel("startupMs").median, 2),
    ];
  });
  const table = [header, header.map(() => "---"), ...lines];
  console.log(table.map((cells) => `| ${cells.join(" | ")} |`).join("\n"));

  // The bare kept servers read requests the way the journal must (all headers, exact body bytes): a target is judged
  // against the floor of its own wire (node-bare kept / node-bare proxy for the default node:http wire, deno-bare kept /
  // deno-bare proxy for --adapter deno); the ratio to the bare Deno.serve baseline is printed beside it.
  const kept = ["deno-bare kept", "S1"];
  const keptS7 = ["deno-bare kept", "S7"];
  const nodeKept = ["node-bare kept", "S1"];
  type Target = {
    name: string;
    /** Against the bare baseline. */
    bare: Ratio;
    /** Against the floor, when the target has one. */
    floor?: Ratio;
    op: "≥" | "≤";
    goal: number;
  };
  const rps = (of: string[], to: string[]) => versus("rps", of, to);
  const targets: Target[] = [
    {
      name: "S1 req/s, stubtool 20 (default wire) ÷ deno-bare (floor: node-bare kept)",
      bare: rps(["stubtool 20", "S1"], bare),
      floor: rps(["stubtool 20", "S1"], nodeKept),
      op: "≥",
      goal: 0.95,
    },
    {
      name: "S1 p99, stubtool 20 (default wire) ÷ deno-bare (floor: node-bare kept)",
      bare: versus("p99", ["stubtool 20", "S1"], bare),
      floor: versus("p99", ["stubtool 20", "S1"], nodeKept),
      op: "≤",
      goal: 1.5,
    },
    {
      name: "S1 req/s, stubtool 20 deno wire ÷ deno-bare (floor: deno-bare kept)",
      bare: rps(["stubtool 20 deno wire", "S1"], bare),
      floor: rps(["stubtool 20 deno wire", "S1"], kept),
      op: "≥",
      goal: 0.95,
    },
    {
      name: "S1 p99, stubtool 20 deno wire ÷ deno-bare (floor: deno-bare kept)",
      bare: versus("p99", ["stubtool 20 deno wire", "S1"], bare),
      floor: versus("p99", ["stubtool 20 deno wire", "S1"], kept),
      op: "≤",
      goal: 1.5,
    },
    {
      name: "S2 req/s, 10k stubs ÷ 20 stubs",
      bare: rps(["stubtool 10k", "S2"], ["stubtool 20", "S2"]),
      op: "≥",
      goal: 0.95,
    },
    {
      name: "startup, stubtool 20 (default wire) ÷ node-bare kept (floor: node-bare kept +start)",
      bare: versus("startupMs", ["stubtool 20", "S1"], nodeKept),
      floor: versus("startupMs", ["stubtool 20", "S1"], ["node-bare kept +start", "S1"]),
      op: "≤",
      goal: 2,
    },
    {
      name: "startup, stubtool 20 deno wire ÷ deno-bare kept (floor: deno-bare kept +start)",
      bare: versus("startupMs", ["stubtool 20 deno wire", "S1"], kept),
      floor: versus("startupMs", ["stubtool 20 deno wire", "S1"], ["deno-bare kept +start", "S1"]),
      op: "≤",
      goal: 2,
    },
    {
      name: "S1 req/s, stubtool node ÷ node-bare",
      bare: rps(["stubtool node", "S1"], ["node-bare", "S1"]),
      op: "≥",
      goal: 0.8,
    },
    {
      name: "S1 req/s with 500 runtime stubs ÷ deno-bare",
      bare: rps(["stubtool 20 +500 runtime", "S1"], bare),
      op: "≥",
      goal: 0.9,
    },
    {
      name: "S1 req/s (a config stub) with 500 batches of 20 ÷ deno-bare",
      bare: rps(["stubtool 20 +500 batches", "S1"], bare),
      op: "≥",
      goal: 0.9,
    },
    ...S10.map((s): Target => ({
      name: `${s.id} req/s (${s.label}) ÷ deno-bare`,
      bare: rps(["stubtool 20 +500 batches", s.id], bare),
      op: "≥",
      goal: 0.9,
    })),
    {
      name: "S7 req/s, stubtool payments (default wire) ÷ deno-bare json (floor: node-bare kept)",
      bare: rps(["stubtool payments", "S7"], ["deno-bare json", "S7"]),
      floor: rps(["stubtool payments", "S7"], ["node-bare kept", "S7"]),
      op: "≥",
      goal: 0.9,
    },
    {
      name: "S7 req/s, stubtool payments deno wire ÷ deno-bare json (floor: deno-bare kept)",
      bare: rps(["stubtool payments deno wire", "S7"], ["deno-bare json", "S7"]),
      floor: rps(["stubtool payments deno wire", "S7"], keptS7),
      op: "≥",
      goal: 0.9,
    },
    {
      name: "S8 req/s, stubtool proxy (default wire) ÷ deno-bare proxy (floor: node-bare proxy streamed)",
      bare: rps(["stubtool proxy", "S8"], ["deno-bare proxy", "S8"]),
      floor: rps(["stubtool proxy", "S8"], ["node-bare proxy streamed", "S8"]),
      op: "≥",
      goal: 0.8,
    },
    {
      name: "S8 req/s, stubtool proxy deno wire ÷ deno-bare proxy (fetch) (floor: deno-bare proxy kept)",
      bare: rps(["stubtool proxy deno wire", "S8"], ["deno-bare proxy", "S8"]),
      floor: rps(["stubtool proxy deno wire", "S8"], ["deno-bare proxy kept", "S8"]),
      op: "≥",
      goal: 0.8,
    },
    // Time per request of the template stub as a multiple of S1's, same server, same run (S1 req/s ÷ S9 req/s).
    {
      name: "S9 time per request ÷ S1's, stubtool 20",
      bare: rps(["stubtool 20", "S1"], ["stubtool 20", "S9"]),
      op: "≤",
      goal: 2,
    },
    // Request validation's cost: time per request with checks ÷ without, same spec, same run.
    {
      name: "S12 time per request, request checks on ÷ --no-validate-requests",
      bare: rps(["stubtool openapi unchecked", "S12"], ["stubtool openapi checked", "S12"]),
      op: "≤",
      goal: 2,
    },
  ];
  console.log(
    "\n| target | ÷ bare (median (spread)) | ÷ floor (median (spread)) | goal (on the floor when there is one) | verdict |\n" +
      "| --- | --- | --- | --- | --- |",
  );
  for (const { name, bare: value, floor, op, goal } of targets) {
    const judged = (floor ?? value).median;
    const verdict = !Number.isFinite(judged) ? "-" : (op === "≥" ? judged >= goal : judged <= goal) ? "PASS" : "BELOW";
    console.log(
      `| ${name} | ${fmtRatio(value)} | ${floor === undefined ? "" : fmtRatio(floor)} | ${op} ${goal} | ${verdict} |`,
    );
  }
  const floors: [string, Ratio][] = [
    ["S1 req/s, deno-bare kept ÷ deno-bare", rps(kept, bare)],
    ["S1 req/s, node-bare kept ÷ deno-bare kept (the wires' floors)", rps(nodeKept, kept)],
    ["S7 req/s, node-bare kept ÷ deno-bare kept", rps(["node-bare kept", "S7"], keptS7)],
    ["S8 req/s, node-bare proxy ÷ deno-bare proxy", rps(["node-bare proxy", "S8"], ["deno-bare proxy", "S8"])],
    [
      "S8 req/s, node-bare proxy streamed ÷ node-bare proxy (reading the body whole)",
      rps(["node-bare proxy streamed", "S8"], ["node-bare proxy", "S8"]),
    ],
    ["startup, node-bare kept ÷ deno-bare", versus("startupMs", nodeKept, bare)],
    ["startup, node-bare kept +start ÷ node-bare kept", versus("startupMs", ["node-bare kept +start", "S1"], nodeKept)],
    [
      "startup, stubtool 20 (TypeScript) ÷ stubtool 20 js",
      versus("startupMs", ["stubtool 20", "S1"], ["stubtool 20 js", "S1"]),
    ],
    ["S7 req/s, deno-bare kept ÷ deno-bare json", rps(keptS7, ["deno-bare json", "S7"])],
    [
      "S8 req/s, deno-bare proxy kept ÷ deno-bare proxy",
      rps(["deno-bare proxy kept", "S8"], ["deno-bare proxy", "S8"]),
    ],
    [
      "S8 req/s, deno-bare proxy identity ÷ deno-bare proxy",
      rps(["deno-bare proxy identity", "S8"], ["deno-bare proxy", "S8"]),
    ],
    [
      "S8 req/s, deno-bare proxy node:http ÷ deno-bare proxy",
      rps(["deno-bare proxy node:http", "S8"], ["deno-bare proxy", "S8"]),
    ],
    [
      "S8 req/s, stubtool proxy ÷ deno-bare proxy identity",
      rps(["stubtool proxy", "S8"], ["deno-bare proxy identity", "S8"]),
    ],
    [
      "S8 req/s, stubtool proxy ÷ deno-bare proxy node:http",
      rps(["stubtool proxy", "S8"], ["deno-bare proxy node:http", "S8"]),
    ],
  ];
  console.log("\n| baselines against each other, same run | median ratio (spread) |\n| --- | --- |");
  for (const [name, value] of floors) console.log(`| ${name} | ${fmtRatio(value)} |`);
}

/**
 * S1 and S7 served from converted WireMock mappings, as ratios to the native stubs of the
 * same round, and the time to load {@link LOAD_FILES} mapping files.
 */
function printWireMock(rows: Row[], loads: Awaited<ReturnType<typeof wiremockLoads>>): void {
  const fmt = (n: number, digits = 0) => Number.isFinite(n) ? n.toFixed(digits) : "-";
  const pass = (ok: boolean, value: number) => Number.isFinite(value) ? ok ? "PASS" : "BELOW" : "-";
  const versus = ([server, scenario]: string[], [base, baseScenario]: string[]) =>
    ratio(rows, (r) => find(rows, r, server, scenario)?.rps, (r) => find(rows, r, base, baseScenario)?.rps);
  const targets: [string, number][] = [
    ["S1 req/s, stubtool wiremock 20 ÷ stubtool 20", versus(["stubtool wiremock 20", "S1"], ["stubtool 20", "S1"])],
    [
      "S7 req/s, stubtool wiremock payments ÷ stubtool payments",
      versus(["stubtool wiremock payments", "S7"], ["stubtool payments", "S7"]),
    ],
  ];
  console.log("\n| converted WireMock mappings | measured (median ratio) | goal | met |\n| --- | --- | --- | --- |");
  for (const [name, value] of targets) {
    console.log(`| ${name} | ${fmt(value, 2)} | ≥ 0.95 | ${pass(value >= 0.95, value)} |`);
  }
  const range = (values: number[]) => `${fmt(Math.min(...values))}–${fmt(Math.max(...values))}`;
  const inProcess = median(loads.map((l) => l.inProcessMs));
  const validate = median(loads.map((l) => l.validateMs));
  console.log(
    `| ${loads[0].files} mapping files loaded, in-process (read, convert, validate, register; ms, ` +
      `rounds ${range(loads.map((l) => l.inProcessMs))}) | ${fmt(inProcess)} | < ${LOAD_TARGET_MS} | ` +
      `${pass(inProcess < LOAD_TARGET_MS, inProcess)} |`,
  );
  console.log(
    `| validate --wiremock on them (ms, spawn to exit; rounds ${range(loads.map((l) => l.validateMs))}; ` +
      `an empty folder ${fmt(median(loads.map((l) => l.emptyMs)))}) | ${fmt(validate)} | < ${LOAD_TARGET_MS} | ` +
      `${pass(validate < LOAD_TARGET_MS, validate)} |`,
  );
}

if (import.meta.main) Deno.exit(await main());
