/**
 * Golden answers recorded from WireMock 3 (`npm run goldens:wiremock`), and the means to replay
 * them against another server: load the cases from tests/fixtures/wiremock/, start the loopback
 * helper (proxy upstream and webhook receiver) when a case needs it, copy the case with the
 * helper's port filled in, serve that copy, then `replayCase` lists every difference.
 *
 * ```ts ignore
 * for (const goldenCase of loadGoldenCases()) {
 *   await using upstream = await startUpstream();
 *   const copy = await materializeCase(goldenCase.dir, upstream.port);
 *   // … serve copy.dir, then:
 *   assertEquals(await replayCase(server.url, goldenCase, upstream), []);
 * }
 * ```
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import {
  COMPARE_MODES,
  compareAnswer,
  exchange,
  type GoldenAnswer,
  type GoldenRequest,
  materializeCase,
  startUpstream,
  UPSTREAM_PLACEHOLDER,
} from "./_wiremock_wire.mjs";

export { materializeCase, startUpstream };
export type { GoldenAnswer, GoldenRequest };

/** The folder holding one subfolder per case. */
export const GOLDEN_CASES_DIR: string = join(import.meta.dirname ?? ".", "fixtures", "wiremock");

/** One case folder: WireMock's root-dir layout plus the requests and what WireMock answered. */
export interface GoldenCase {
  name: string;
  /** The case folder (`mappings/`, `__files/`, `requests.json`, `golden.json`). */
  dir: string;
  requests: GoldenRequest[];
  golden: { recorded_with: string; answers: GoldenAnswer[] };
  /** True when its mappings name the loopback helper (`${UPSTREAM_PORT}`): proxies and webhooks. */
  needsUpstream: boolean;
}

/** The loopback helper `startUpstream` returns. */
export type Upstream = Awaited<ReturnType<typeof startUpstream>>;

/** Every case under tests/fixtures/wiremock/, in name order. */
export function loadGoldenCases(dir: string = GOLDEN_CASES_DIR): GoldenCase[] {
  return readdirSync(dir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort()
    .map((name) => {
      const caseDir = join(dir, name);
      return {
        name,
        dir: caseDir,
        requests: JSON.parse(readFileSync(join(caseDir, "requests.json"), "utf8")),
        golden: JSON.parse(readFileSync(join(caseDir, "golden.json"), "utf8")),
        needsUpstream: mappingTexts(join(caseDir, "mappings")).some((text) => text.includes(UPSTREAM_PLACEHOLDER)),
      };
    });
}

function mappingTexts(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? mappingTexts(join(dir, entry.name))
      : entry.name.endsWith(".json")
      ? [readFileSync(join(dir, entry.name), "utf8")]
      : []
  );
}

/**
 * Sends the case's requests in order to `baseUrl` (a loopback http URL) over raw sockets and
 * returns every way an answer differs from WireMock's under its compare mode (empty: all match).
 * A case whose mappings call the helper needs `upstream`, the one whose port went into the copy.
 */
export async function replayCase(baseUrl: string, goldenCase: GoldenCase, upstream?: Upstream): Promise<string[]> {
  const url = new URL(baseUrl);
  if (url.protocol !== "http:" || !["127.0.0.1", "localhost", "[::1]"].includes(url.hostname)) {
    return [`${goldenCase.name}: replay only talks to a loopback http URL, got ${baseUrl}`];
  }
  if (goldenCase.needsUpstream && !upstream) {
    return [`${goldenCase.name}: its mappings use ${UPSTREAM_PLACEHOLDER}: pass the helper from startUpstream()`];
  }
  const port = Number(url.port || 80);
  const problems: string[] = [];
  for (const [i, request] of goldenCase.requests.entries()) {
    upstream?.clearHooks();
    const seen = await exchange(port, request);
    const hook = request.webhook ? await upstream?.nextHook(5000) : undefined;
    problems.push(
      ...compareAnswer(request, goldenCase.golden.answers[i], seen, hook).map((p) => `${goldenCase.name}: ${p}`),
    );
  }
  return problems;
}

const REQUEST_KEYS = [
  "name",
  "method",
  "path",
  "headers",
  "body",
  "body_base64",
  "compare",
  "body_shape",
  "min_elapsed_ms",
  "check_reason",
  "webhook",
  "connection",
  "vary_headers",
];

/** Everything wrong with a case's fixture files (empty: well-formed, and its golden fits its requests). */
export function checkCase(goldenCase: GoldenCase): string[] {
  const problems: string[] = [];
  const say = (message: string) => problems.push(`${goldenCase.name}: ${message}`);
  const { requests, golden } = goldenCase;
  if (!Array.isArray(requests) || requests.length === 0) return [`${goldenCase.name}: requests.json is not a list`];
  if (!/^WireMock \d+\.\d+\.\d+$/.test(golden?.recorded_with ?? "")) say(`golden.json: recorded_with is missing`);
  const answers = golden?.answers ?? [];
  if (answers.length !== requests.length) {
    say(`golden.json has ${answers.length} answers for ${requests.length} requests: re-run npm run goldens:wiremock`);
  }
  const names = new Set<string>();
  requests.forEach((request, i) => {
    const where = `requests[${i}]`;
    for (const key of Object.keys(request)) if (!REQUEST_KEYS.includes(key)) say(`${where}: unknown key '${key}'`);
    if (typeof request.name !== "string" || !request.name) say(`${where}: needs a name`);
    if (names.has(request.name)) say(`${where}: name '${request.name}' is used twice`);
    names.add(request.name);
    if (!/^[A-Z]+$/.test(request.method ?? "")) say(`${where}: method must be an upper-case token`);
    if (!request.path?.startsWith("/")) say(`${where}: path must start with /`);
    if (request.body !== undefined && request.body_base64 !== undefined) say(`${where}: body and body_base64 both set`);
    const compare = request.compare ?? "exact";
    if (!COMPARE_MODES.includes(compare)) say(`${where}: compare must be one of ${COMPARE_MODES.join(", ")}`);
    if ((compare === "shape") !== (request.body_shape !== undefined)) {
      say(`${where}: body_shape goes with compare "shape"`);
    }
    const answer = answers[i];
    if (!answer) return;
    if (answer.name !== request.name) say(`${where}: golden answer is for '${answer.name}', not '${request.name}'`);
    if (compare === "fault") {
      if (typeof answer.fault?.kind !== "string") say(`${where}: golden answer has no fault`);
      return;
    }
    if (typeof answer.status !== "number") say(`${where}: golden answer has no status`);
    if (compare === "status") return;
    if (!Array.isArray(answer.checked_headers)) say(`${where}: golden answer has no checked_headers`);
    for (const name of answer.checked_headers ?? []) {
      if (name !== name.toLowerCase()) say(`${where}: checked header '${name}' is not lower-case`);
    }
    const bodies = ["body", "body_base64", "body_json"].filter((key) => key in answer);
    if (bodies.length !== 1) say(`${where}: golden answer needs exactly one of body, body_base64, body_json`);
    if (compare === "json" && !("body_json" in answer)) say(`${where}: compare "json" but the golden body is not JSON`);
    if (compare === "shape" && !new RegExp(request.body_shape?.regex ?? "^$").test(answer.body ?? "")) {
      say(`${where}: the golden body does not fit its own body_shape`);
    }
    if (request.min_elapsed_ms !== undefined && !((answer.elapsed_ms ?? -1) >= request.min_elapsed_ms)) {
      say(`${where}: WireMock answered sooner than min_elapsed_ms`);
    }
    if (request.webhook && !answer.webhook) say(`${where}: WireMock's webhook never arrived`);
  });
  return problems;
}
