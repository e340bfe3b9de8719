/**
 * Records what WireMock's admin API answers to one run of calls, as the reference for
 * tests/wiremock_admin_test.ts (which sends the same calls to stubtool and compares the
 * JSON shapes). Run WireMock 3 on loopback first, e.g.
 *
 *     java -jar node_modules/wiremock/build/wiremock-standalone-3.13.2.jar \
 *       --port 18191 --bind-address 127.0.0.1 --root-dir /tmp/wm-admin --disable-banner
 *
 * then `deno run -A scripts/record_wiremock_admin.ts http://127.0.0.1:18191` (with an empty
 * root folder: `mappings/save` writes into it, and a saved mapping would load next time). Each step is
 * sent in order on a fresh server; its status and JSON body are written to
 * tests/fixtures/wiremock_admin.json.
 * @module
 */

/** One call of the run. */
export interface Step {
  name: string;
  method: string;
  path: string;
  body?: unknown;
  /** A body sent as is (not JSON-encoded). */
  raw?: string;
  headers?: Record<string, string>;
  /**
   * Where the answer's order matters: a path such as `mappings[].id`; the replay compares
   * those values, in order, exactly.
   */
  order?: string;
}

/** In a step's path, the id of the newest serve event (read from `GET /__admin/requests?limit=1` first). */
export const NEWEST_REQUEST = "{newest-request}";

const A = "8c5db8b0-2db4-4ad7-a99f-38c9b00da3f7";
const B = "22222222-2222-4222-8222-222222222222";
const hello = {
  id: A,
  request: { method: "GET", urlPath: "/hello" },
  response: { status: 200, jsonBody: { a: 1 }, headers: { "Content-Type": "application/json" } },
};
const flow = {
  id: B,
  name: "flow start",
  scenarioName: "flow",
  requiredScenarioState: "Started",
  newScenarioState: "two",
  request: { method: "POST", urlPath: "/flow" },
  response: { status: 201 },
};

const M1 = "44444444-4444-4444-8444-444444444444";
const M2 = "55555555-5555-4555-8555-555555555555";
const M3 = "66666666-6666-4666-8666-666666666666";
const UNKNOWN = "77777777-7777-4777-8777-777777777777";

/** A mapping of `/m/…` with a priority and, given a team, metadata. */
function ranked(id: string, priority: number, team?: string) {
  return {
    id,
    priority,
    request: { method: "GET", urlPath: `/m/${id === M1 ? 1 : id === M2 ? 2 : 3}` },
    response: { status: 200, body: id },
    ...(team === undefined ? {} : { metadata: { team } }),
  };
}

/** The run: every endpoint, each shape WireMock answers with (success and refusal). */
export const STEPS: Step[] = [
  { name: "add a mapping", method: "POST", path: "/__admin/mappings", body: hello },
  { name: "add a scenario mapping", method: "POST", path: "/__admin/mappings", body: flow },
  { name: "a matched request", method: "GET", path: "/hello?x=1&x=2", headers: { "x-a": "b", cookie: "c=d" } },
  {
    name: "an unmatched request",
    method: "POST",
    path: "/nothing",
    raw: "abc",
    headers: { "content-type": "text/plain" },
  },
  { name: "list mappings", method: "GET", path: "/__admin/mappings" },
  { name: "get a mapping", method: "GET", path: `/__admin/mappings/${A}` },
  { name: "list requests", method: "GET", path: "/__admin/requests" },
  {
    name: "count requests",
    method: "POST",
    path: "/__admin/requests/count",
    body: { method: "GET", urlPath: "/hello" },
  },
  { name: "find requests", method: "POST", path: "/__admin/requests/find", body: { method: "POST" } },
  { name: "unmatched requests", method: "GET", path: "/__admin/requests/unmatched" },
  { name: "list scenarios", method: "GET", path: "/__admin/scenarios" },
  { name: "set a scenario state", method: "PUT", path: "/__admin/scenarios/flow/state", body: { state: "two" } },
  {
    name: "set an undeclared scenario state",
    method: "PUT",
    path: "/__admin/scenarios/flow/state",
    body: { state: "zzz" },
  },
  { name: "set an unknown scenario's state", method: "PUT", path: "/__admin/scenarios/nope/state", body: {} },
  { name: "reset scenarios", method: "POST", path: "/__admin/scenarios/reset" },
  {
    name: "replace a mapping",
    method: "PUT",
    path: `/__admin/mappings/${A}`,
    body: { request: { method: "GET", urlPath: "/hello" }, response: { status: 202 } },
  },
  { name: "add a duplicate id", method: "POST", path: "/__admin/mappings", body: hello },
  { name: "add broken JSON", method: "POST", path: "/__admin/mappings", raw: "{not json" },
  { name: "delete a mapping", method: "DELETE", path: `/__admin/mappings/${A}` },
  {
    name: "delete an unknown mapping",
    method: "DELETE",
    path: "/__admin/mappings/00000000-0000-4000-8000-000000000000",
  },
  {
    name: "import mappings",
    method: "POST",
    path: "/__admin/mappings/import",
    body: {
      mappings: [
        {
          id: "11111111-1111-4111-8111-111111111111",
          request: { method: "GET", urlPath: "/i" },
          response: { status: 200 },
        },
        {
          id: "33333333-3333-4333-8333-333333333333",
          request: { method: "GET", urlPath: "/i" },
          response: { status: 204 },
        },
      ],
    },
  },
  { name: "the first imported mapping wins a tie", method: "GET", path: "/i" },
  { name: "clear requests", method: "DELETE", path: "/__admin/requests" },
  { name: "count after clearing", method: "POST", path: "/__admin/requests/count", body: {} },
  { name: "reset mappings", method: "POST", path: "/__admin/mappings/reset" },
  { name: "reset", method: "POST", path: "/__admin/reset" },
  { name: "add again", method: "POST", path: "/__admin/mappings", body: hello },
  { name: "delete every mapping", method: "DELETE", path: "/__admin/mappings" },
  { name: "list no mappings", method: "GET", path: "/__admin/mappings" },
  { name: "health", method: "GET", path: "/__admin/health" },
  // P20.3: the endpoints WireMock's clients call besides P17.5's.
  { name: "add a ranked mapping with metadata", method: "POST", path: "/__admin/mappings", body: ranked(M1, 3, "a") },
  { name: "add a default mapping with metadata", method: "POST", path: "/__admin/mappings", body: ranked(M2, 5, "b") },
  { name: "add a second ranked mapping", method: "POST", path: "/__admin/mappings", body: ranked(M3, 3) },
  { name: "mappings by priority, then newest", method: "GET", path: "/__admin/mappings", order: "mappings[].id" },
  { name: "a request to the team a mapping", method: "GET", path: "/m/1" },
  { name: "a request to the team b mapping", method: "GET", path: "/m/2" },
  { name: "a first unmatched request", method: "GET", path: "/u/1" },
  { name: "a second unmatched request", method: "GET", path: "/u/2", headers: { "X-Mixed-Case": "v" } },
  { name: "unmatched, newest first", method: "GET", path: "/__admin/requests/unmatched", order: "requests[].url" },
  {
    name: "requests, newest first",
    method: "GET",
    path: "/__admin/requests",
    order: "requests[].request.url",
  },
  { name: "get a serve event", method: "GET", path: `/__admin/requests/${NEWEST_REQUEST}` },
  { name: "get an unknown serve event", method: "GET", path: `/__admin/requests/${UNKNOWN}` },
  { name: "near misses of unmatched requests", method: "GET", path: "/__admin/requests/unmatched/near-misses" },
  {
    name: "near misses of a request",
    method: "POST",
    path: "/__admin/near-misses/request",
    body: { url: "/m/9", method: "GET" },
  },
  {
    name: "near misses of a request pattern",
    method: "POST",
    path: "/__admin/near-misses/request-pattern",
    body: { method: "GET", urlPath: "/u/3" },
  },
  { name: "requests since a time to come", method: "GET", path: "/__admin/requests?since=2100-01-01T00:00:00Z" },
  { name: "reset the journal with POST requests/reset", method: "POST", path: "/__admin/requests/reset" },
  { name: "delete a serve event", method: "DELETE", path: `/__admin/requests/${NEWEST_REQUEST}` },
  { name: "delete an unknown serve event", method: "DELETE", path: `/__admin/requests/${UNKNOWN}` },
  { name: "after deleting one", method: "GET", path: "/__admin/requests", order: "requests[].request.url" },
  { name: "remove requests by pattern", method: "POST", path: "/__admin/requests/remove", body: { urlPath: "/u/1" } },
  {
    name: "remove requests by metadata",
    method: "POST",
    path: "/__admin/requests/remove-by-metadata",
    body: { matchesJsonPath: { expression: "$.team", equalTo: "a" } },
  },
  { name: "after removing", method: "GET", path: "/__admin/requests", order: "requests[].request.url" },
  {
    name: "find mappings by metadata",
    method: "POST",
    path: "/__admin/mappings/find-by-metadata",
    body: { matchesJsonPath: "$.team" },
    order: "mappings[].id",
  },
  {
    name: "find no mappings by metadata",
    method: "POST",
    path: "/__admin/mappings/find-by-metadata",
    body: { equalToJson: { team: "z" } },
  },
  {
    name: "remove mappings by metadata",
    method: "POST",
    path: "/__admin/mappings/remove-by-metadata",
    body: { equalToJson: { team: "b" } },
  },
  { name: "after removing by metadata", method: "GET", path: "/__admin/mappings", order: "mappings[].id" },
  { name: "settings", method: "GET", path: "/__admin/settings" },
  { name: "update settings", method: "POST", path: "/__admin/settings", body: { extended: { x: 1 } } },
  { name: "settings after an update", method: "GET", path: "/__admin/settings" },
  { name: "put settings", method: "PUT", path: "/__admin/settings", body: { proxyPassThrough: true } },
  { name: "patch settings", method: "PATCH", path: "/__admin/settings", body: {} },
  { name: "settings not JSON", method: "POST", path: "/__admin/settings", raw: "{" },
  { name: "update settings with no fixed delay", method: "POST", path: "/__admin/settings", body: { fixedDelay: 0 } },
  { name: "recording status", method: "GET", path: "/__admin/recordings/status" },
  { name: "mappings reset empties the journal", method: "POST", path: "/__admin/mappings/reset" },
  { name: "requests after a mappings reset", method: "GET", path: "/__admin/requests" },
  // Last: WireMock writes into its root folder (record on an empty one), stubtool into the served --wiremock folder.
  { name: "add a mapping to save", method: "POST", path: "/__admin/mappings", body: hello },
  { name: "save mappings", method: "POST", path: "/__admin/mappings/save" },
];

/** One step's answer: the status and the JSON body (`null` for an empty one, the text when not JSON). */
export interface Recorded {
  status: number;
  body: unknown;
}

/** Sends one step to the server at `base`. */
export async function sendStep(base: string, step: Step): Promise<Recorded> {
  let path = step.path;
  if (path.includes(NEWEST_REQUEST)) {
    const newest = await (await fetch(base + "/__admin/requests?limit=1")).json();
    path = path.replace(NEWEST_REQUEST, newest.requests[0].id);
  }
  const body = step.raw ?? (step.body === undefined ? undefined : JSON.stringify(step.body));
  const response = await fetch(base + path, { method: step.method, body, headers: step.headers });
  const text = await response.text();
  let parsed: unknown = null;
  if (text.trim() !== "") {
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = text;
    }
  }
  return { status: response.status, body: parsed };
}

if (import.meta.main) {
  const base = Deno.args[0] ?? "http://127.0.0.1:18191";
  await fetch(base + "/__admin/reset", { method: "POST" }).then((r) => r.body?.cancel());
  await fetch(base + "/__admin/mappings", { method: "DELETE" }).then((r) => r.body?.cancel());
  const steps = [];
  for (const step of STEPS) steps.push({ ...step, answer: await sendStep(base, step) });
  const out = new URL("../tests/fixtures/wiremock_admin.json", import.meta.url);
  Deno.writeTextFileSync(out, JSON.stringify({ wiremock: "3.13.2", steps }, null, 2) + "\n");
  console.log(`wrote ${steps.length} steps to ${out.pathname}`);
}
