/**
 * The recorded WireMock 3.13.2 admin answers (tests/fixtures/wiremock_admin.json, written by
 * scripts/record_wiremock_admin.ts) and their replay against a stubtool server: each step's
 * status, JSON shape, order and empty bodies compared with WireMock's.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { type Recorded, sendStep, type Step } from "../scripts/record_wiremock_admin.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

export const FIXTURE = JSON.parse(
  Deno.readTextFileSync(new URL("./fixtures/wiremock_admin.json", import.meta.url)),
) as {
  steps: (Step & { answer: Recorded })[];
};

/** Objects whose keys are data (header names, query names, bodies), compared as "some object". */
const MAPS = new Set(["headers", "cookies", "queryParams", "formParams", "jsonBody", "data", "metadata"]);

/**
 * Where stubtool's answers leave out what WireMock writes: the client's address, the answer's
 * headers and body, and the unmatched report (the journal keeps none of them), the response
 * definition's body fields.
 */
const OMITTED = new Set([
  "requests[].response.headers",
  "requests[].response.bodyAsBase64",
  "requests[].response.body",
  "requests[].responseDefinition.jsonBody",
  "requests[].responseDefinition.body",
  "requests[].responseDefinition.headers",
  "requests[].subEvents",
  "requests[].stubMapping",
]);

function isEvent(value: unknown): boolean {
  return typeof value === "object" && value !== null && "wasMatched" in value;
}

/** Every path in `wm` that `ours` lacks or has with another type, except those {@link OMITTED}. */
function shapeDifferences(wm: unknown, ours: unknown, path = ""): string[] {
  // One serve event alone (`requests/{id}`) or removed ones (`serveEvents`) as in a list of them.
  if (path === "" && isEvent(wm)) return shapeDifferences({ requests: [wm] }, { requests: [ours] });
  if (path === "serveEvents") path = "requests";
  const kind = (v: unknown) => Array.isArray(v) ? "array" : v === null ? "null" : typeof v;
  const last = path.replace(/\[\]$/, "").split(".").pop()!;
  if (OMITTED.has(path)) return [];
  if (kind(wm) !== kind(ours)) return [`${path}: WireMock ${kind(wm)}, stubtool ${kind(ours)}`];
  if (MAPS.has(last)) return [];
  if (Array.isArray(wm)) {
    const theirs = ours as unknown[];
    if (wm.length === 0 || theirs.length === 0) {
      return wm.length === theirs.length ? [] : [`${path}: WireMock ${wm.length} items, stubtool ${theirs.length}`];
    }
    return shapeDifferences(wm[0], theirs[0], `${path}[]`);
  }
  if (kind(wm) !== "object") return [];
  const a = wm as Record<string, unknown>;
  const b = ours as Record<string, unknown>;
  const out: string[] = [];
  for (const key of new Set([...Object.keys(a), ...Object.keys(b)])) {
    const at = path ? `${path}.${key}` : key;
    if (!(key in b)) {
      if (!OMITTED.has(at)) out.push(`${at}: missing in stubtool`);
    } else if (!(key in a)) out.push(`${at}: not in WireMock`);
    else out.push(...shapeDifferences(a[key], b[key], at));
  }
  return out;
}

/** The values at `path` (`mappings[].id`: each mapping's id), in order. */
function pick(value: Json, path: string): unknown[] {
  const [list, ...rest] = path.split("[].");
  return (value[list] as Json[]).map((item) => rest.join(".").split(".").reduce((v, key) => v?.[key], item));
}

/** A served WireMock folder for the replay's `mappings/save` (WireMock writes into its root folder). */
export const SAVE_DIR = Deno.makeTempDirSync({ prefix: "stubtool-wm-save-" });
Deno.mkdirSync(join(SAVE_DIR, "mappings"));
globalThis.addEventListener("unload", () => Deno.removeSync(SAVE_DIR, { recursive: true }));

/** Sends every recorded step to `server`, checking each status, shape and order against WireMock's. */
export async function replayFixture(url: string): Promise<Map<string, Recorded>> {
  const answers = new Map<string, Recorded>();
  for (const step of FIXTURE.steps) {
    const wm = step.answer;
    const ours = await sendStep(url, step);
    answers.set(step.name, ours);
    assert.equal(ours.status, wm.status, `${step.name}: status`);
    // Stub answers and WireMock's own empty or text bodies (its 404 report) are not admin JSON.
    if (!step.path.startsWith("/__admin/") || wm.body === null || typeof wm.body === "string") {
      if (wm.body === null && step.path.startsWith("/__admin/")) assert.equal(ours.body, null, `${step.name}: empty`);
      continue;
    }
    assert.deepEqual(shapeDifferences(wm.body, ours.body), [], `${step.name}: shape`);
    if (step.order) assert.deepEqual(pick(ours.body, step.order), pick(wm.body, step.order), `${step.name}: order`);
  }
  return answers;
}
