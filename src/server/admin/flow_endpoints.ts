/**
 * The endpoints of stateful flows and webhooks under `/__stubtool__/`:
 * `GET /scenarios` (optional `?scope=`), `GET /scenarios/NAME` and `PUT /scenarios/NAME` (`{"state": S}`; both
 * with an optional `?scope=`),
 * `POST /scenarios/reset`, and `GET /callbacks` (what the server sent after its answers).
 * @module
 */

import type { CallbackRecord } from "../callbacks/callbacks.ts";
import type { Incoming } from "../incoming.ts";
import { errorAnswer, jsonAnswer, type Respond, type ResponseHead } from "../response.ts";
import type { ReservedCall, ReservedHandler, RouteRow } from "./routes.ts";
import { type ScenarioEntry, type SetStateResult, STARTED } from "../matching/scenarios.ts";
import { scopeNameProblem } from "../../util/scope_name.ts";

/** What these endpoints ask of the server. */
export interface FlowHost {
  /** The largest request body accepted (`--max-body`). */
  maxBody: number;
  /** Every scenario's state; with `scope`, as that scope sees each. */
  scenarios(scope?: string): ScenarioEntry[];
  /** One scenario (as `scope` sees it, when given); undefined when no stub names it. */
  scenario(name: string, scope: string | null): ScenarioEntry | undefined;
  /** Scopes whose scenario states were dropped past the bound (listed as `dropped_scopes` when any). */
  droppedScenarioScopes?(): number;
  setScenarioState(name: string, state: string, scope: string | null): SetStateResult;
  /** Why the scenario or state is refused, naming the close one when one is (`did you mean 'cart'?`). */
  scenarioRefusal(name: string, state: string): string;
  /** The states a scenario takes (`Started` first). */
  scenarioStates(name: string): string[];
  resetScenarios(): void;
  callbacks(): CallbackRecord[];
}

/** The endpoints' paths, for the 404 that lists what exists. */
export const FLOW_ENDPOINTS = [
  "GET /__stubtool__/scenarios[?scope=NAME]",
  "GET|PUT /__stubtool__/scenarios/{name}",
  "POST /__stubtool__/scenarios/reset",
  "GET /__stubtool__/callbacks",
];

const NO_CONTENT: ResponseHead = { status: 204, headers: {} };

/**
 * `GET|PUT /__stubtool__/scenarios/{name}` (optional `?scope=`): the name percent-decoded, or 400 when it does
 * not decode; GET answers that scenario (404 naming a close one), PUT moves it.
 */
function oneScenario<R>(host: FlowHost, call: ReservedCall<R>, params: Record<string, string>): R | Promise<R> {
  let name: string;
  try {
    name = decodeURIComponent(params.name);
  } catch {
    return call.respond(...errorAnswer(400, `the scenario name in ${call.pathname} is not valid percent-encoding`));
  }
  const scope = call.query.get("scope") || null;
  if (call.incoming.method !== "PUT") {
    const entry = host.scenario(name, scope);
    if (entry) return call.respond(...jsonAnswer(entry));
    const known = host.scenarios().map((s) => s.name).filter((n, i, all) => all.indexOf(n) === i);
    return call.respond(...errorAnswer(404, host.scenarioRefusal(name, STARTED), { scenarios: known }));
  }
  return setState(host, call.incoming, name, scope, call.respond);
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
    handler: (host, { respond, query }) => {
      const dropped = host.droppedScenarioScopes?.() ?? 0;
      const scenarios = host.scenarios(query.get("scope") || undefined);
      return respond(...jsonAnswer({ scenarios, ...(dropped ? { dropped_scopes: dropped } : {}) }));
    },
  },
  {
    method: "POST",
    pattern: "scenarios/reset",
    handler: (host, { respond }) => {
      host.resetScenarios();
      return respond(NO_CONTENT, null);
    },
  },
  { method: ["GET", "HEAD", "PUT"], pattern: "scenarios/{name*}", handler: oneScenario },
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
  const scopeProblem = scopeNameProblem(scope, "?scope=");
  if (scopeProblem) return respond(...errorAnswer(400, scopeProblem));
  const result = host.setScenarioState(name, state, scope || null);
  if (result === "unknown scenario") {
    const known = host.scenarios().map((s) => s.name).filter((n, i, all) => all.indexOf(n) === i);
    return respond(...errorAnswer(404, host.scenarioRefusal(name, state), { scenarios: known }));
  }
  if (result === "unknown state") {
    // 422 as WireMock answers it: the body is well formed, but no stub of the scenario names that state.
    const states = host.scenarioStates(name);
    return respond(...errorAnswer(422, host.scenarioRefusal(name, state), { states }));
  }
  const entry = { name, state, ...(scope ? { scope } : {}) };
  return respond(...jsonAnswer(entry));
}
