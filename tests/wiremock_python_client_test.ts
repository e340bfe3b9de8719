/**
 * WireMock's Python client (`pip install wiremock`, 2.7.0), which cannot be installed here:
 * the HTTP call each of its admin methods makes (wiremock/resources/*\/resource.py at tag 2.7.0
 * of github.com/wiremock/python-wiremock), one row each, checked against the call recorded
 * from WireMock 3.13.2 (tests/fixtures/wiremock_admin.json) and replayed against stubtool with
 * the answers compared (status, JSON shape, order, empty bodies). What the client then does
 * with the answer: `handle_response` raises on any status but 200, 201 and 204, so a row's
 * recorded status says whether the Python method succeeds against WireMock, and stubtool
 * answers the same status.
 */
import assert from "node:assert/strict";
import { FIXTURE, replayFixture, SAVE_DIR } from "./_wiremock_admin.ts";
import { NEWEST_REQUEST } from "../scripts/record_wiremock_admin.ts";
import { serverTest } from "./_http.ts";

/** One admin method of the Python client and the request it sends. */
interface Call {
  /** `Class.method` as the client names it. */
  python: string;
  method: "GET" | "POST" | "PUT" | "DELETE";
  /** The path under the server (the client's `/__admin` base, then the resource's endpoint). */
  path: string;
  /** What the client sends as JSON (`json=`/`data=json.dumps`), when it sends a body. */
  body?: unknown;
  /** The recorded step that is this call. */
  step: string;
}

const A = "8c5db8b0-2db4-4ad7-a99f-38c9b00da3f7";

/** Every admin method of wiremock 2.7.0's resources, in its files' order. */
const CALLS: Call[] = [
  // wiremock/resources/mappings/resource.py
  { python: "Mappings.create_mapping", method: "POST", path: "/__admin/mappings", step: "add a mapping" },
  { python: "Mappings.retrieve_all_mappings", method: "GET", path: "/__admin/mappings", step: "list mappings" },
  { python: "Mappings.retrieve_mapping", method: "GET", path: `/__admin/mappings/${A}`, step: "get a mapping" },
  { python: "Mappings.update_mapping", method: "PUT", path: `/__admin/mappings/${A}`, step: "replace a mapping" },
  { python: "Mappings.persist_mappings", method: "POST", path: "/__admin/mappings/save", step: "save mappings" },
  { python: "Mappings.reset_mappings", method: "POST", path: "/__admin/mappings/reset", step: "reset mappings" },
  { python: "Mappings.delete_all_mappings", method: "DELETE", path: "/__admin/mappings", step: "delete every mapping" },
  { python: "Mappings.delete_mapping", method: "DELETE", path: `/__admin/mappings/${A}`, step: "delete a mapping" },
  {
    python: "Mappings.delete_mapping_by_metadata",
    method: "POST",
    path: "/__admin/mappings/remove-by-metadata",
    body: { equalToJson: { team: "b" } },
    step: "remove mappings by metadata",
  },
  // wiremock/resources/near_misses/resource.py
  {
    python: "NearMisses.find_nearest_misses_by_request",
    method: "POST",
    path: "/__admin/near-misses/request",
    body: { url: "/m/9", method: "GET" },
    step: "near misses of a request",
  },
  {
    python: "NearMisses.find_nearest_misses_by_request_pattern",
    method: "POST",
    path: "/__admin/near-misses/request-pattern",
    body: { method: "GET", urlPath: "/u/3" },
    step: "near misses of a request pattern",
  },
  // wiremock/resources/requests/resource.py
  { python: "Requests.get_all_received_requests", method: "GET", path: "/__admin/requests", step: "list requests" },
  {
    python: "Requests.get_all_received_requests(since=…)",
    method: "GET",
    path: "/__admin/requests?since=2100-01-01T00:00:00Z",
    step: "requests since a time to come",
  },
  {
    python: "Requests.get_request",
    method: "GET",
    path: `/__admin/requests/${NEWEST_REQUEST}`,
    step: "get a serve event",
  },
  {
    // Posts to /requests/reset, which WireMock 3 answers 404: the method raises against WireMock too.
    python: "Requests.reset_request_journal",
    method: "POST",
    path: "/__admin/requests/reset",
    step: "reset the journal with POST requests/reset",
  },
  {
    python: "Requests.get_matching_request_count",
    method: "POST",
    path: "/__admin/requests/count",
    body: { method: "GET", urlPath: "/hello" },
    step: "count requests",
  },
  {
    python: "Requests.get_matching_requests",
    method: "POST",
    path: "/__admin/requests/find",
    body: { method: "POST" },
    step: "find requests",
  },
  {
    python: "Requests.get_unmatched_requests",
    method: "GET",
    path: "/__admin/requests/unmatched",
    step: "unmatched requests",
  },
  {
    python: "Requests.get_unmatched_requests_near_misses",
    method: "GET",
    path: "/__admin/requests/unmatched/near-misses",
    step: "near misses of unmatched requests",
  },
  // wiremock/resources/scenarios/resource.py
  {
    python: "Scenarios.reset_all_scenarios",
    method: "POST",
    path: "/__admin/scenarios/reset",
    step: "reset scenarios",
  },
  // wiremock/resources/settings/resource.py (GlobalSetting has one field, fixedDelay; stubtool takes 0 only)
  {
    python: "GlobalSettings.update_global_settings",
    method: "POST",
    path: "/__admin/settings",
    body: { fixedDelay: 0 },
    step: "update settings with no fixed delay",
  },
];

Deno.test("the Python client's calls (wiremock 2.7.0): each is a call recorded from WireMock 3.13.2, as the client sends it", () => {
  const steps = new Map(FIXTURE.steps.map((step) => [step.name, step]));
  for (const call of CALLS) {
    const step = steps.get(call.step);
    assert.ok(step, `${call.python}: no recorded step '${call.step}'`);
    assert.deepEqual(
      [step.method, step.path],
      [call.method, call.path],
      `${call.python}: the recorded call is the client's`,
    );
    if (call.body !== undefined) assert.deepEqual(step.body, call.body, `${call.python}: body`);
  }
  assert.equal(new Set(CALLS.map((c) => c.python)).size, CALLS.length);
});

serverTest(
  "the Python client's calls (wiremock 2.7.0) get WireMock 3.13.2's statuses and shapes from stubtool, and succeed or raise as against WireMock",
  async (server) => {
    const answers = await replayFixture(server.url);
    const steps = new Map(FIXTURE.steps.map((step) => [step.name, step]));
    const succeeds = (status: number) => [200, 201, 204].includes(status);
    for (const call of CALLS) {
      const ours = answers.get(call.step)!;
      const theirs = steps.get(call.step)!.answer;
      assert.equal(succeeds(ours.status), succeeds(theirs.status), `${call.python}: handle_response`);
    }
    // The one the client cannot use against WireMock 3 either.
    assert.equal(answers.get("reset the journal with POST requests/reset")!.status, 404);
  },
  { wiremockDirs: [SAVE_DIR] },
);
