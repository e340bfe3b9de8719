/**
 * The P21.5 figure: `serve --openapi api.github.com.json --mock` (GitHub's 13 MB description,
 * `@octokit/openapi`, 1,223 operations) started from nothing: time from spawn to the first
 * answered request (a mocked operation, `GET /meta`, answering 200 with its example), and the
 * process's peak RSS (`VmHWM`) once it answers. Prism is not run here (it is not installed); its
 * figure on the same spec, measured for issue #32, is printed as the reference. Run by
 * `bench/run.ts` in the full bench (not `--smoke`: a start takes seconds), or alone:
 *
 *   deno run -A bench/openapi_start.ts [--rounds 3] [--port 18181]
 * @module
 */

import { parseArgs } from "node:util";

const ROOT = new URL("..", import.meta.url).pathname;
const DENO = Deno.execPath();
/** GitHub's REST API description, as the dev dependency `@octokit/openapi` ships it. */
export const GITHUB_SPEC = `${ROOT}node_modules/@octokit/openapi/generated/api.github.com.json`;
/** Prism's start on GitHub's spec, measured for issue #32 (`prism mock api.github.com.json`): nothing recorded its memory. */
const PRISM_START_S = 34;

/** One start: seconds to the first answered request and peak RSS in MB. */
export interface StartFigure {
  startS: number;
  peakRssMb: number;
}

/** Peak resident memory of a process in MB (Linux `/proc`, `VmHWM`); NaN when the process is gone. */
function peakRssMb(pid: number): number {
  try {
    return Number(/VmHWM:\s+(\d+)/.exec(Deno.readTextFileSync(`/proc/${pid}/status`))?.[1] ?? NaN) / 1024;
  } catch {
    return NaN;
  }
}

/** Starts the mock of GitHub's spec `rounds` times on `port`, each to its first answer. */
export async function measureOpenApiStart(port: number, rounds: number): Promise<StartFigure[]> {
  const figures: StartFigure[] = [];
  for (let round = 0; round < rounds; round++) {
    const began = performance.now();
    const child = new Deno.Command(DENO, {
      args: ["run", "-A", "cli.ts", "serve", "--quiet", "--port", String(port), "--openapi", GITHUB_SPEC, "--mock"],
      cwd: ROOT,
      stdin: "null",
      stdout: "null",
      stderr: "null",
    }).spawn();
    try {
      let answered = false;
      while (!answered) {
        if (performance.now() - began > 300_000) throw new Error("serve --openapi (GitHub) did not answer in 300 s");
        try {
          const answer = await fetch(`http://127.0.0.1:${port}/meta`);
          const body = await answer.text();
          if (answer.status !== 200 || !body.includes("verifiable_password_authentication")) {
            throw new Error(`GET /meta answered ${answer.status}: ${body.slice(0, 200)}`);
          }
          answered = true;
        } catch (error) {
          if (!(error instanceof TypeError)) throw error; // not listening yet
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
      }
      figures.push({ startS: (performance.now() - began) / 1000, peakRssMb: peakRssMb(child.pid) });
    } finally {
      child.kill("SIGTERM");
      await child.status;
    }
  }
  return figures;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

/** Prints the figure: medians over the starts, against Prism's start. */
export function printOpenApiStart(figures: StartFigure[]): void {
  const start = median(figures.map((f) => f.startS));
  const rss = median(figures.map((f) => f.peakRssMb));
  console.log(
    `\nP21.5 serve --openapi api.github.com.json --mock (13 MB, 1,223 operations), ${figures.length} start(s): ` +
      `first answer after ${start.toFixed(1)} s, peak RSS ${rss.toFixed(0)} MB (median). ` +
      `Prism: ${PRISM_START_S} s to start (issue #32; its memory was not recorded); ` +
      `ratio ${(start / PRISM_START_S).toFixed(2)} (target < 0.33).`,
  );
}

if (import.meta.main) {
  const { values } = parseArgs({
    options: { rounds: { type: "string", default: "3" }, port: { type: "string", default: "18181" } },
  });
  printOpenApiStart(await measureOpenApiStart(Number(values.port), Number(values.rounds)));
}
