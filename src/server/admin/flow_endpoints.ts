/**
 * The endpoints of stateful flows and webhooks under `/__stubtool__/`:
 * `GET /scenarios`, `PUT /scenarios/NAME` (`{"state": S}`, optional `?scope=`),
 * `POST /scenarios/reset`, and `GET /callbacks` (what the server sent after its answers).
 * @module
 */

import type { CallbackRecord } from "../callbacks/callbacks.ts";
import type { Incoming } from "../incoming.ts";
import { errorAnswer, jsonAnswer, type Respond, type ResponseHead } from "../response.ts";
import type { ReservedCall, ReservedHandler, RouteRow } from "./routes.ts";
import type { ScenarioEntry, SetStateResult } from "../matching/scenarios.ts";

/** What these endpoints ask of the server. */
export interface FlowHost {
  /** The largest request body accepted (`--max-body`). */
  maxBody: number;
  scenarios(): ScenarioEntry[];
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

const NO_CONTENT: ResponseHead = { status: 204, headers: {} };

/** `PUT /__stubtool__/scenarios/{name}`: the name percent-decoded, or 400 when it does not decode. */
function putState<R>(host: FlowHost, call: ReservedCall<R>, params: Record<string, string>): R | Promise<R> {
  let name: string;
  try {
    name = decodeURIComponent(params.name);
  } catch {
    return call.respond(...errorAnswer(400, `the scenario name in ${call.pathname} is not valid percent-encoding`));
  }
  return setState(host, call.incoming, name, call.query.get("scope"), call.respond);
}

/** The routes of these endpoints under `/__stubtool__/`. */
export const FLOW_ROUTES: readonly RouteRow<ReservedHandler<FlowHost>>[] = [
  {
    method: ["GET", "HEAD"],
    pattern: "callbacks",
    handler: (host, { respond }) => respond(...jsonAnswer({ callbacks: host.callbacks() })),
  },
  {
    method: ["GET", "HEAD"],
    pattern: "scenarios",
    handler: (host, { respond }) => respond(...jsonAnswer({ scenarios: host.scenarios() })),
  },
  {
    method: "POST",
    pattern: "scenarios/reset",
    handler: (host, { respond }) => {
      host.resetScenarios();
      return respond(NO_CONTENT, null);
    },
  },
  { method: "PUT", pattern: "scenarios/{name*}", handler: putState },
];

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
  return respond(...jsonAnswer(entry));
}
