/**
 * A registered stub written back in config form (`GET /__stubtool__/stubs`,
 * `server.stubs()`): the fields a config file would hold, plus `id`, `source` and
 * `hit_count`. Adding that form again gives the same stub.
 * @module
 */

import type { ResponseSpec } from "../../stubs/model.ts";
import { base64 } from "../journal/journal.ts";
import type { Route } from "../matching/route.ts";
import { webSocketConfig } from "../../stubs/websocket_field.ts";

/** A stub as `GET /__stubtool__/stubs` lists it. */
export interface StubInfo {
  /** The stub's id. */
  id: string;
  /** `config`, `inline`, `api`, `admin` or `wiremock`. */
  source: string;
  /** Where it was declared (`routes[1] of stubs.yaml`, `--stub[0]`); a config file's stub also has its `line`. */
  place?: string;
  /** A config file's stub: the 1-based line its `routes` entry starts on. */
  line?: number;
  /** Requests it answered since start or the last reset. */
  hit_count: number;
  /** The config fields (`method`, `path`, `status`, …). */
  [field: string]: unknown;
}

function response(spec: ResponseSpec, withDelay: boolean): Record<string, unknown> {
  const out: Record<string, unknown> = { status: spec.statusTemplate ?? spec.status };
  if (spec.statusMessage !== undefined) out.status_message = spec.statusMessage;
  if (spec.headers) out.headers = { ...spec.headers };
  if (spec.noContentType) out.headers = { ...spec.headers, "content-type": null };
  if (spec.file !== undefined) out.body_file = spec.filePath ?? spec.file;
  else if (spec.bytes) out.body_base64 = base64(spec.bytes);
  else if (spec.hasBody) out.body = spec.body;
  if (spec.stream) {
    out.stream = spec.stream.map(({ delayMs, ...event }) =>
      delayMs === undefined ? event : { ...event, delay_ms: delayMs }
    );
  }
  if (withDelay && spec.delay !== undefined) out.delay = spec.delay;
  return out;
}

/** `route` in config form, with its id, source and hit count. */
export function stubInfo(route: Route): StubInfo {
  const stub = route.stub;
  const info: StubInfo = { id: route.id, source: route.source, hit_count: route.hits };
  if (stub.place !== undefined) info.place = stub.place;
  if (stub.line !== undefined) info.line = stub.line;
  if (stub.name !== undefined) info.name = stub.name;
  info.method = stub.method;
  if (stub.head === false) info.head = false;
  info.path = stub.path;
  if (stub.query) info.query_params = { ...stub.query };
  if (stub.request) info.request = stub.request;
  if (stub.scope !== undefined) info.scope = stub.scope;
  if (stub.priority) info.priority = stub.priority;
  if (stub.fault) info.fault = stub.fault;
  if (stub.throttle) info.throttle = stub.throttle;
  if (stub.dribble) info.dribble = { ...stub.dribble };
  if (stub.proxy) info.proxy = stub.proxy;
  if (stub.scenario !== undefined) info.scenario = stub.scenario;
  if (stub.whenState !== undefined) info.when_state = stub.whenState;
  if (stub.setState !== undefined) info.set_state = stub.setState;
  if (stub.template) info.template = true;
  if (stub.templateParameters) info.template_parameters = stub.templateParameters;
  if (stub.callbacks) {
    info.callbacks = stub.callbacks.map((c) => ({
      method: c.method,
      url: c.url,
      ...(c.headers ? { headers: c.headers } : {}),
      ...(c.body !== undefined ? { body: c.body } : {}),
      ...(c.delayMs !== undefined ? { delay_ms: c.delayMs } : {}),
    }));
  }
  if (stub.websocket) info.websocket = webSocketConfig(stub.websocket);
  else if (stub.responseFunc || stub.proxy) {
    if (stub.responseFunc) info.response_func = true;
    if (stub.delay !== undefined) info.delay = stub.delay;
  } else if (stub.isSequence) {
    info.sequence = stub.responses.map((spec) => response(spec, true));
    if (stub.sequenceMode !== "repeat-last") info.sequence_mode = stub.sequenceMode;
  } else {
    Object.assign(info, response(stub.responses[0], true));
  }
  return info;
}
