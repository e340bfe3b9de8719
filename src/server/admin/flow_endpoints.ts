/**
 * The endpoints of stateful flows and webhooks under `/__stubtool__/`:
 * `GET /scenarios`, `PUT /scenarios/NAME` (`{"state": S}`, optional `?scope=`),
 * `POST /scenarios/reset`, and `GET /callbacks` (what the server sent after its answers).
 * @module
 */

import type { CallbackRecord } from "../callbacks/callbacks.ts";
import type { Incoming } from "../incoming.ts";
import { errorAnswer, type Respond, type ResponseHead } from "../response.ts";
import type { ScenarioEntry, SetStateResult } from "../matching/scenarios.ts";
import { scopeNameProblem } from "../../util/scope_name.ts";

/** What these endpoints ask of the server. */
export interface FlowHost {
  /** The largest request body accepted (`--max-body`). */
  maxBody: number;
  scenarios(): ScenarioEntry[];
  /** Scopes whose scenario states were dropped past the bound (listed as `dropped_scopes` when any). */
  droppedScenarioScopes?(): number;
  setScenarioState(name: string, state: string, scope: string | null): SetStateResult;
  resetScenarios(): void;
  callbacks(): CallbackRecord[];
}

/** The endpoints' paths, for the 404 that lists what exists. */
export const FLOW_ENDPOINTS = [
  "GET /__stubtool__/scenarios",
  "PUT /__stubtool__/scenarios/{name}",
  "POST /__stubtool__/scenarios/reset",
  "GET /__stubtool__/callbacks",
];

const JSON_200: ResponseHead = { status: 200, headers: { "content-type": "application/json" } };
const NO_CONTENT: ResponseHead = { status: 204, headers: {} };

function refuseMethod<R>(path: string, allow: string, method: string, respond: Respond<R>): R {
  return respond(...errorAnswer(405, `${path} accepts ${allow}, not ${method}`, {}, { allow }));
}

/** Answers `endpoint` (the path after `/__stubtool__/`) when it is one of these; undefined otherwise. */
export function answerFlow<R>(
  host: FlowHost,
  incoming: Incoming,
  endpoint: string,
  params: URLSearchParams,
  respond: Respond<R>,
): { answer: R | Promise<R> } | undefined {
  const method = incoming.method;
  const path = `/__stubtool__/${endpoint}`;
  if (endpoint === "callbacks") {
    if (method !== "GET" && method !== "HEAD") return { answer: refuseMethod(path, "GET, HEAD", method, respond) };
    return { answer: respond(JSON_200, JSON.stringify({ callbacks: host.callbacks() })) };
  }
  if (endpoint === "scenarios") {
    if (method !== "GET" && method !== "HEAD") return { answer: refuseMethod(path, "GET, HEAD", method, respond) };
    const dropped = host.droppedScenarioScopes?.() ?? 0;
    const body = { scenarios: host.scenarios(), ...(dropped ? { dropped_scopes: dropped } : {}) };
    return { answer: respond(JSON_200, JSON.stringify(body)) };
  }
  if (endpoint === "scenarios/reset") {
    if (method !== "POST") return { answer: refuseMethod(path, "POST", method, respond) };
    host.resetScenarios();
    return { answer: respond(NO_CONTENT, null) };
  }
  if (!endpoint.startsWith("scenarios/")) return undefined;
  if (method !== "PUT") return { answer: refuseMethod(path, "PUT", method, respond) };
  let name: string;
  try {
    name = decodeURIComponent(endpoint.slice("scenarios/".length));
  } catch {
    return { answer: respond(...errorAnswer(400, `the scenario name in ${path} is not valid percent-encoding`)) };
  }
  return { answer: setState(host, incoming, name, params.get("scope"), respond) };
}

async function setState<R>(
  host: FlowHost,
  incoming: Incoming,
  name: string,
  scope: string | null,
  respond: Respond<R>,
): Promise<R> {
  const usage = `send {"state": "NAME"}, for example {"state": "Started"}`;
  let state: unknown;
  try {
    const { bytes, complete } = await incoming.read(host.maxBody);
    if (!complete) return respond(...errorAnswer(413, `the body is larger than ${host.maxBody} bytes (--max-body)`));
    state = (JSON.parse(new TextDecoder().decode(bytes)) as { state?: unknown })?.state;
  } catch {
    return respond(...errorAnswer(400, `the body is not JSON: ${usage}`));
  }
  if (typeof state !== "string") return respond(...errorAnswer(400, `state is missing: ${usage}`));
  const scopeProblem = scopeNameProblem(scope, "?scope=");
  if (scopeProblem) return respond(...errorAnswer(400, scopeProblem));
  const result = host.setScenarioState(name, state, scope || null);
  if (result === "unknown scenario") {
    const known = host.scenarios().map((s) => s.name).filter((n, i, all) => all.indexOf(n) === i);
    return respond(...errorAnswer(404, `no scenario is named '${name}'`, { scenarios: known }));
  }
  if (result === "unknown state") {
    // 422 as WireMock answers it: the body is well formed, but no stub of the scenario names that state.
    const declared = host.scenarios().find((s) => s.name === name)?.states ?? [];
    const states = declared.includes("Started") ? declared : ["Started", ...declared];
    return respond(
      ...errorAnswer(422, `scenario '${name}' has no state '${state}' (its states: ${states.join(", ")})`, { states }),
    );
  }
  const entry = { name, state, ...(scope ? { scope } : {}) };
  return respond(JSON_200, JSON.stringify(entry));
}
