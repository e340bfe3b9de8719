/**
 * The admin API WireMock's clients speak, at `/__admin/`, in WireMock 3's JSON shapes
 * (src/formats/wiremock/shapes.ts), behind the same guard as `/__stubtool__/` (cross-origin
 * refusal, DNS-rebinding `Host` check, admin token):
 *
 * | Request | Answer |
 * | --- | --- |
 * | `GET /__admin/mappings` | `200 {"mappings":[…],"meta":{"total"}}`, by priority then newest |
 * | `POST /__admin/mappings` | `201` the mapping with its `id`/`uuid`; `422` `{"errors":[…]}` naming what does not convert |
 * | `DELETE /__admin/mappings` | `200 {}`: every stub is gone (`mappings/reset` brings the server's own back) |
 * | `GET\|PUT\|DELETE /__admin/mappings/{id}` | the mapping / `200` the new one / `200 {}`; unknown: empty `404` |
 * | `POST /__admin/mappings/import` | `200`: `{"mappings":[…], "importOptions"?}` added as one batch |
 * | `POST /__admin/mappings/reset` | `200`: back to the stubs the server started with; the journal emptied |
 * | `POST /__admin/mappings/find-by-metadata`, `…/remove-by-metadata` | the mappings whose metadata matches / `200 {}` |
 * | `POST /__admin/mappings/save` | `200`: admin mappings written into the `--wiremock` folder; none served `405` |
 * | `POST /__admin/reset` | `200`: that, and the journal, hit counts and scenarios start again |
 * | `GET\|DELETE /__admin/requests` | `200 {"requests":[serve events],"meta","requestJournalDisabled"}` newest first / `200 {}` |
 * | `GET\|DELETE /__admin/requests/{id}` | the serve event (unknown: empty `404`) / `200 {}` |
 * | `POST /__admin/requests/remove`, `…/remove-by-metadata` | `200 {"serveEvents":[…]}` removed |
 * | `GET /__admin/requests/unmatched/near-misses`, `POST near-misses/request` | `200 {"nearMisses":[…]}` |
 * | `GET\|POST\|PUT /__admin/settings` | `{"settings"}` / `200`; a global delay `422` |
 * | `GET /__admin/recordings/status` | `200 {"status":"NeverStarted"}` |
 * | `POST /__admin/requests/count` | `200 {"count","requestJournalDisabled"}` |
 * | `POST /__admin/requests/find` | `200 {"requests":[logged requests],"requestJournalDisabled"}` |
 * | `GET /__admin/requests/unmatched` | `200 {"requests":[…],"requestJournalDisabled"}` |
 * | `GET /__admin/scenarios` | `200 {"scenarios":[{id,name,state,possibleStates,mappings}]}` |
 * | `POST /__admin/scenarios/reset` | `200 {}` |
 * | `PUT /__admin/scenarios/{name}/state` | `200 {}`; unknown `404`; a state no mapping names `422` |
 * | `GET /__admin/health` | `200 {"status":"healthy",…}` |
 *
 * A mapping becomes an ordinary stub (`source: admin`) through the same converter as
 * `serve --wiremock` (`mappingsToConfig`), then the validator every stub passes; one that
 * does not convert is refused whole, never loaded with a broader match. The mapping as sent
 * is kept beside its stub, so `GET` gives it back as it was; other stubs are shown in a
 * best-effort WireMock shape. Requests to `/__admin/` are never counted or journaled.
 * @module
 */

import { mappingList, scenarioShape, stubToMapping } from "../../formats/wiremock/shapes.ts";
import { messageOf } from "../../error_message.ts";
import { NESTING_MESSAGE, tooDeep } from "../../util/nesting.ts";
import { VERSION } from "../../version.ts";
import type { StubsHost } from "../admin/admin.ts";
import type { ReservedGuard } from "../admin/guard.ts";
import { RouteTable } from "../admin/routes.ts";
import type { Incoming } from "../incoming.ts";
import type { JournalRecord } from "../journal/journal.ts";
import type { Respond } from "../response.ts";
import type { Route } from "../matching/route.ts";
import type { ScenarioEntry, SetStateResult } from "../matching/scenarios.ts";
import { stubInfo } from "../admin/stub_form.ts";
import { admitMappings, type Admitted } from "./wiremock_mappings.ts";
import { type Answer, type Body, EMPTY_OK, errors, json, WireMockJournal } from "./wiremock_journal.ts";
import { isObject } from "../../util/json_shape.ts";
import { PRIORITY_BAND } from "../../formats/wiremock/ranks.ts";
import { metadataTest } from "./wiremock_journal.ts";
import { saveMappings } from "./wiremock_save.ts";
import { isWireMockAdminPath, WIREMOCK_ADMIN_PREFIX } from "./lazy.ts";

/** A request to a WireMock admin endpoint, as its task sees it. */
interface WireMockCall {
  incoming: Incoming;
  query: URLSearchParams;
}

/** One endpoint's task: the request and the path's parameters (as written) in, WireMock's answer out. */
type WireMockTask = (call: WireMockCall, params: Record<string, string>) => Answer | Promise<Answer>;

export { WIREMOCK_ADMIN_PREFIX };

/** What the WireMock admin endpoints ask of the server. */
export interface WireMockAdminHost extends StubsHost {
  /** Hit counts, the journal, unmatched requests and scenarios start again. */
  reset(): void;
  /** Forgets the journaled requests only. */
  clearJournal(): void;
  /** The journal's records, oldest first; `on` is false when the journal is off. */
  journal(): { records: JournalRecord[]; on: boolean };
  /** Forgets the journaled records `which` picks; returns them, oldest first. */
  removeRequests(which: (record: JournalRecord) => boolean): JournalRecord[];
  /** The stubs that nearly match a request (the router's explanation of a miss), closest first. */
  nearMisses(record: JournalRecord): Route[];
  /** The WireMock folders the server serves (`serve --wiremock`), first given first: `mappings/save` writes into the first. */
  wiremockDirs?: readonly string[];
  scenarios(): ScenarioEntry[];
  setScenarioState(name: string, state: string): SetStateResult;
  resetScenarios(): void;
}

/**
 * The mount at `/__admin/`: every request passes the guard first. It keeps each mapping a
 * client added as sent (by stub id), as long as the stub it became is still there.
 */
export class WireMockAdminMount {
  readonly #host: WireMockAdminHost;
  readonly #guard: ReservedGuard;
  readonly #started: number;
  readonly #journal: WireMockJournal;
  /** The mappings added here, by id, with the route each became (a route replaced elsewhere drops it). */
  readonly #mappings = new Map<string, { route: Route; mapping: Record<string, unknown> }>();
  /** WireMock's global settings as set over `/__admin/settings` (kept and shown; none changes an answer). */
  #settings: Record<string, unknown> = { proxyPassThrough: true };

  /** `started`: when the server started (`/__admin/health`'s uptime counts from it). */
  constructor(host: WireMockAdminHost, guard: ReservedGuard, started = Date.now()) {
    this.#started = started;
    this.#host = host;
    this.#guard = guard;
    this.#journal = new WireMockJournal(host, (route) => this.#mappingOf(route));
  }

  /** Is `pathname` this mount's (`/__admin/…`, or `/__admin` itself)? */
  owns(pathname: string): boolean {
    return isWireMockAdminPath(pathname);
  }

  /** Answers a request under `/__admin/`, or the guard's refusal. Never throws. */
  answer<R>(incoming: Incoming, pathname: string, rawQuery: string, respond: Respond<R>): R | Promise<R> {
    const endpoint = pathname.slice(WIREMOCK_ADMIN_PREFIX.length);
    const refusal = this.#guard.check(incoming, pathname, endpoint, rawQuery);
    if (refusal) return respond(...refusal);
    let answer: Answer | Promise<Answer>;
    try {
      answer = this.#route(incoming, endpoint, new URLSearchParams(rawQuery));
    } catch (error) {
      answer = errors(500, { code: 10, title: `stubtool could not answer: ${messageOf(error)}` });
    }
    if (answer instanceof Promise) {
      return answer.then(
        (a) => respond(...a),
        (error) => respond(...errors(500, { code: 10, title: `stubtool could not answer: ${messageOf(error)}` })),
      );
    }
    return respond(...answer);
  }

  /**
   * The endpoints, one task each (WireMock's admin answers HEAD as GET). The first pattern
   * that matches owns the path: `mappings/import` is never a mapping's id.
   */
  readonly #routes = new RouteTable<WireMockTask>([
    { method: "GET", pattern: "health", handler: () => this.#health() },
    { method: "GET", pattern: "mappings", handler: ({ query }) => json(mappingList(this.#listMappings(query))) },
    {
      method: "POST",
      pattern: "mappings",
      handler: ({ incoming }) => this.#read(incoming).then((body) => this.#addMapping(body)),
    },
    {
      method: "DELETE",
      pattern: "mappings",
      handler: () => {
        this.#host.remove(() => true);
        this.#mappings.clear();
        return json({});
      },
    },
    {
      method: "POST",
      pattern: "mappings/remove",
      handler: ({ incoming }) => this.#read(incoming).then((body) => this.#removeMapping(body)),
    },
    {
      method: "POST",
      pattern: "mappings/import",
      handler: ({ incoming }) => this.#read(incoming).then((body) => this.#import(body)),
    },
    {
      method: "POST",
      pattern: "mappings/reset",
      handler: () => {
        // WireMock 3 empties the request journal too.
        this.#host.resetStubs();
        this.#host.clearJournal();
        return [EMPTY_OK, null];
      },
    },
    {
      method: "POST",
      pattern: "mappings/find-by-metadata",
      handler: ({ incoming }) => this.#read(incoming).then((body) => this.#findByMetadata(body)),
    },
    {
      method: "POST",
      pattern: "mappings/remove-by-metadata",
      handler: ({ incoming }) => this.#read(incoming).then((body) => this.#removeByMetadata(body)),
    },
    { method: "POST", pattern: "mappings/save", handler: () => this.#save() },
    { method: "GET", pattern: "settings", handler: () => json({ settings: this.#settings }) },
    {
      method: "POST",
      pattern: "settings",
      handler: ({ incoming }) => this.#read(incoming).then((body) => this.#updateSettings(body)),
    },
    {
      method: "PUT",
      pattern: "settings",
      handler: ({ incoming }) => this.#read(incoming).then((body) => this.#updateSettings(body)),
    },
    { method: "GET", pattern: "recordings/status", handler: () => json({ status: "NeverStarted" }) },
    {
      method: "POST",
      pattern: "reset",
      handler: () => {
        this.#host.resetStubs();
        this.#host.reset();
        return [EMPTY_OK, null];
      },
    },
    { method: "GET", pattern: "requests", handler: ({ query }) => this.#journal.requests(query) },
    {
      method: "DELETE",
      pattern: "requests",
      handler: () => {
        this.#host.clearJournal();
        return json({});
      },
    },
    {
      method: "POST",
      pattern: "requests/count",
      handler: ({ incoming }) => this.#read(incoming).then((body) => this.#journal.count(body)),
    },
    {
      method: "POST",
      pattern: "requests/find",
      handler: ({ incoming }) => this.#read(incoming).then((body) => this.#journal.find(body)),
    },
    { method: "GET", pattern: "requests/unmatched", handler: () => this.#journal.unmatched() },
    {
      method: "POST",
      pattern: "requests/remove",
      handler: ({ incoming }) => this.#read(incoming, true).then((body) => this.#journal.remove(body)),
    },
    {
      method: "POST",
      pattern: "requests/remove-by-metadata",
      handler: ({ incoming }) => this.#read(incoming).then((body) => this.#journal.removeByMetadata(body)),
    },
    // WireMock's clients ask for near misses when a verification fails, to word the error.
    {
      method: "POST",
      pattern: "near-misses/request",
      handler: ({ incoming }) => this.#read(incoming, true).then((body) => this.#requestNearMisses(body)),
    },
    {
      method: "POST",
      pattern: "near-misses/request-pattern",
      handler: ({ incoming }) => this.#read(incoming, true).then((body) => this.#journal.patternNearMisses(body)),
    },
    { method: "GET", pattern: "requests/unmatched/near-misses", handler: () => this.#journal.unmatchedNearMisses() },
    { method: "GET", pattern: "requests/{id}", handler: (_call, { id }) => this.#journal.request(decoded(id)) },
    {
      method: "DELETE",
      pattern: "requests/{id}",
      handler: (_call, { id }) => this.#journal.removeRequest(decoded(id)),
    },
    { method: "GET", pattern: "scenarios", handler: () => json({ scenarios: this.#scenarios() }) },
    {
      method: "POST",
      pattern: "scenarios/reset",
      handler: () => {
        this.#host.resetScenarios();
        return json({});
      },
    },
    {
      method: "GET",
      pattern: "mappings/{id}",
      handler: (_call, { id }) => {
        const route = this.#host.route(decoded(id));
        return route ? json(this.#mappingOf(route)) : notFound(`no mapping has id ${decoded(id)}`);
      },
    },
    {
      method: "PUT",
      pattern: "mappings/{id}",
      handler: ({ incoming }, { id }) => this.#read(incoming).then((body) => this.#replace(decoded(id), body)),
    },
    {
      method: "DELETE",
      pattern: "mappings/{id}",
      handler: (_call, params) => {
        const id = decoded(params.id);
        if (this.#host.remove((r) => r.id === id).length === 0) return notFound(`no mapping has id ${id}`);
        this.#mappings.delete(id);
        return json({});
      },
    },
    {
      method: "PUT",
      pattern: "scenarios/{name}/state",
      handler: ({ incoming }, { name }) =>
        this.#read(incoming, true).then((body) => this.#setState(decoded(name), body)),
    },
  ]);

  #route(incoming: Incoming, endpoint: string, query: URLSearchParams): Answer | Promise<Answer> {
    const method = incoming.method === "HEAD" ? "GET" : incoming.method;
    const path = endpoint.endsWith("/") ? endpoint.slice(0, -1) : endpoint;
    const match = this.#routes.match(method, path);
    // WireMock answers an empty 404 to a path it has no endpoint for, and to a method an endpoint does not take.
    if (!match) return notFound(`stubtool has no WireMock admin endpoint /__admin/${endpoint}`);
    if ("allow" in match) return notFound(`/__admin/${path} accepts ${match.allow.join(", ")}, not ${incoming.method}`);
    return match.handler({ incoming, query }, match.params);
  }

  /**
   * `POST /__admin/near-misses/request` with a logged request (`url`, `method`, `headers`,
   * `body`): the stubs that nearly match it, as the 404 of that request would name them, in
   * WireMock's shape and listing order (`distance` follows that order; its value is stubtool's).
   */
  #requestNearMisses(body: Body): Answer {
    if ("answer" in body) return body.answer;
    const sent = body.value ?? {};
    if (!isObject(sent) || typeof (sent.url ?? "/") !== "string" || typeof (sent.method ?? "GET") !== "string") {
      return errors(422, { code: 10, title: 'the body is a logged request: {"url": "/path?query", "method": "GET"}' });
    }
    const url = String(sent.url ?? "/");
    const method = String(sent.method ?? "GET");
    const headers: Record<string, string> = {};
    if (isObject(sent.headers)) {
      for (const [name, value] of Object.entries(sent.headers)) {
        headers[name.toLowerCase()] = Array.isArray(value) ? value.join(", ") : String(value);
      }
    }
    const text = typeof sent.body === "string" ? sent.body : undefined;
    const record: JournalRecord = {
      method,
      target: url.startsWith("/") ? url : `/${url}`,
      time: Date.now(),
      status: 0,
      ms: 0,
      stub: undefined,
      id: undefined,
      closest: undefined,
      scope: null,
      headers,
      body: text === undefined ? undefined : new TextEncoder().encode(text),
      bodyTruncated: false,
    };
    const q = url.indexOf("?");
    const request = {
      url,
      method,
      ...(isObject(sent.headers) ? { headers: sent.headers } : {}),
      ...(text === undefined ? {} : { body: text }),
      browserProxyRequest: false,
      port: -1,
      queryParams: queryParams(q === -1 ? "" : url.slice(q + 1)),
      formParams: {},
    };
    // Closest first; WireMock lists equally near ones in its listing order, as here.
    const misses = this.#host.nearMisses(record);
    const routes = this.#ordered().filter((r) => misses.includes(r));
    return json({
      nearMisses: routes.map((route, i) => ({
        request,
        stubMapping: this.#mappingOf(route),
        matchResult: { subEvents: [], diffDescriptions: [], distance: (i + 1) / (routes.length + 1) },
      })),
    });
  }

  #health(): Answer {
    return json({
      status: "healthy",
      message: "stubtool is ok",
      version: VERSION,
      uptimeInSeconds: Math.floor((Date.now() - this.#started) / 1000),
      timestamp: new Date().toISOString(),
    });
  }

  /** The body as JSON (`undefined` for an empty one when `emptyOk`), or WireMock's 422. */
  async #read(incoming: Incoming, emptyOk = false): Promise<Body> {
    let text: string;
    try {
      const { bytes, complete } = await incoming.read(this.#host.maxBody);
      if (!complete) {
        return { answer: errors(413, { code: 10, title: `the body is larger than ${this.#host.maxBody} bytes` }) };
      }
      text = new TextDecoder().decode(bytes);
    } catch (error) {
      return { answer: errors(400, { code: 10, title: `could not read the request body: ${messageOf(error)}` }) };
    }
    if (text.trim() === "" && emptyOk) return { value: undefined, text };
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (error) {
      return { answer: errors(422, { code: 10, source: {}, title: "Error parsing JSON", detail: messageOf(error) }) };
    }
    // Every reader after this one recurses: a body nested past the limit stops here, placed.
    const deep = tooDeep(value);
    if (deep !== undefined) return { answer: errors(400, { code: 10, title: `body ${deep}: ${NESTING_MESSAGE}` }) };
    return { value, text };
  }

  /** The mapping `route` is shown as: the one a client sent, or its config form in WireMock's shape. */
  #mappingOf(route: Route): Record<string, unknown> {
    const kept = this.#mappings.get(route.id);
    if (kept && kept.route === route) return kept.mapping;
    return stubToMapping(stubInfo(route) as Record<string, unknown>);
  }

  /** Every stub as a mapping, by WireMock priority then newest (`?limit=`, `?offset=` as WireMock pages them). */
  #listMappings(params: URLSearchParams): Record<string, unknown>[] {
    const routes = this.#ordered();
    const offset = Number(params.get("offset") ?? 0) || 0;
    const limit = params.has("limit") ? Number(params.get("limit")) : Infinity;
    return routes.slice(offset, Number.isFinite(limit) ? offset + limit : undefined).map((r) => this.#mappingOf(r));
  }

  /** The stubs in WireMock's listing order: by priority (1 first), then the newest first. */
  #ordered(): Route[] {
    const priority = (route: Route) => {
      const kept = this.#mappings.get(route.id);
      if (kept && kept.route === route) return Number(kept.mapping.priority ?? 5);
      return 5 - Math.floor((route.stub.priority ?? 0) / PRIORITY_BAND);
    };
    const routes = [...this.#host.routes()].reverse();
    const ranks = new Map(routes.map((r) => [r, priority(r)]));
    return routes.sort((a, b) => ranks.get(a)! - ranks.get(b)!);
  }

  /** The stubs whose mapping's `metadata` the body's pattern matches, in listing order. */
  #byMetadata(body: Body): { routes: Route[] } | { answer: Answer } {
    if ("answer" in body) return body;
    const found = metadataTest(body.value);
    if ("answer" in found) return found;
    return { routes: this.#ordered().filter((r) => found.test(this.#mappingOf(r).metadata)) };
  }

  #findByMetadata(body: Body): Answer {
    const found = this.#byMetadata(body);
    if ("answer" in found) return found.answer;
    return json(mappingList(found.routes.map((r) => this.#mappingOf(r))));
  }

  #removeByMetadata(body: Body): Answer {
    const found = this.#byMetadata(body);
    if ("answer" in found) return found.answer;
    const ids = new Set(found.routes.map((r) => r.id));
    for (const gone of this.#host.remove((r) => ids.has(r.id))) this.#mappings.delete(gone);
    return json({});
  }

  /**
   * `POST /__admin/mappings/save`: the mappings added over `/__admin/` written into the
   * served `--wiremock` folder, one file each, as WireMock writes them; `405` when the
   * server serves none.
   */
  #save(): Answer {
    const dir = this.#host.wiremockDirs?.[0];
    if (dir === undefined) {
      return errors(405, {
        code: 405,
        title: "mappings/save writes into the folder of serve --wiremock DIR, and this server serves none",
        detail: "start stubtool with --wiremock DIR to save the mappings added over /__admin/ into DIR/mappings",
      });
    }
    const mappings = [...this.#mappings.values()].filter((kept) => this.#host.route(kept.route.id) === kept.route);
    const problem = saveMappings(dir, mappings.map((kept) => kept.mapping));
    if (problem) return errors(500, { code: 10, title: `mappings/save could not write: ${problem}` });
    return [EMPTY_OK, null];
  }

  /**
   * `POST|PUT /__admin/settings`: WireMock's global settings, replaced whole (a field not sent
   * goes back to its default). `fixedDelay` and `delayDistribution` delay every answer in
   * WireMock: stubtool refuses them (422) rather than keep them without effect.
   */
  #updateSettings(body: Body): Answer {
    if ("answer" in body) return body.answer;
    const sent = body.value;
    if (!isObject(sent)) return errors(422, { code: 10, source: { pointer: "/" }, title: "Error parsing JSON" });
    const KNOWN = ["fixedDelay", "delayDistribution", "extended", "proxyPassThrough"];
    for (const key of Object.keys(sent)) {
      if (!KNOWN.includes(key)) {
        return errors(422, {
          code: 10,
          source: { pointer: `/${key}` },
          title: "Error parsing JSON",
          detail: `Unrecognized field "${key}"`,
        });
      }
    }
    for (const key of ["fixedDelay", "delayDistribution"]) {
      const value = sent[key];
      if (value !== undefined && value !== null && value !== 0) {
        return errors(422, {
          code: 10,
          source: { pointer: `/${key}` },
          title: `'${key}' is not supported by stubtool`,
          detail: "a global delay over /__admin/settings is not applied by stubtool: set the delay on the mappings",
        });
      }
    }
    const settings: Record<string, unknown> = {};
    if (isObject(sent.extended)) settings.extended = sent.extended;
    settings.proxyPassThrough = sent.proxyPassThrough === true;
    this.#settings = settings;
    return [EMPTY_OK, null];
  }

  /** Adds admitted mappings as one batch; a taken id is WireMock's 422 "Duplicate stub mapping ID". */
  #addBatch(admitted: readonly Admitted[]): Answer | undefined {
    const { routes, problems } = this.#host.add(admitted.map((a) => a.stub), "admin");
    if (!routes) {
      const id = problems[0] ? admitted[problems[0].index]?.mapping.id : undefined;
      return errors(422, {
        code: 109,
        title: "Duplicate stub mapping ID",
        detail: `ID of the provided stub mapping '${id}' is already taken by another stub mapping`,
      });
    }
    routes.forEach((route, i) => this.#mappings.set(route.id, { route, mapping: admitted[i].mapping }));
    return undefined;
  }

  async #addMapping(body: Body): Promise<Answer> {
    if ("answer" in body) return body.answer;
    const result = await admitMappings(this.#host, [body.value], body.text);
    if ("answer" in result) return result.answer;
    const refused = this.#addBatch(result.admitted);
    if (refused) return refused;
    return json(result.admitted[0].mapping, 201);
  }

  /**
   * `POST /__admin/mappings/import`: every mapping, or none. A mapping whose id is taken
   * replaces that stub (WireMock's default `duplicatePolicy: OVERWRITE`; `IGNORE` keeps the
   * old one); `deleteAllNotInImport: true` removes every other stub first. Within the import,
   * the first mapping wins a tie (WireMock adds an import's mappings last to first).
   */
  async #import(body: Body): Promise<Answer> {
    if ("answer" in body) return body.answer;
    const doc = body.value;
    if (!isObject(doc) || !Array.isArray(doc.mappings)) {
      return errors(422, { code: 10, title: 'an import is {"mappings": [...], "importOptions"?: {...}}' });
    }
    const options = isObject(doc.importOptions) ? doc.importOptions : {};
    const ignore = options.duplicatePolicy === "IGNORE";
    const result = await admitMappings(this.#host, doc.mappings, body.text);
    // From here to the batch's addition nothing awaits: no request sees part of the import.
    if ("answer" in result) return result.answer;
    let admitted = result.admitted;
    const ids = new Set(admitted.map((a) => a.mapping.id as string));
    if (ids.size !== admitted.length) {
      return errors(422, {
        code: 109,
        title: "Duplicate stub mapping ID",
        detail: "two mappings of the import have one id",
      });
    }
    if (ignore) admitted = admitted.filter((a) => !this.#host.route(a.mapping.id as string));
    const replaced = ignore ? new Set<string>() : ids;
    this.#host.remove((r) =>
      options.deleteAllNotInImport === true ? !ids.has(r.id) || replaced.has(r.id) : replaced.has(r.id)
    );
    for (const id of replaced) this.#mappings.delete(id);
    // One batch: the first declared wins a tie within it, as the first mapping of a WireMock import does.
    return this.#addBatch(admitted) ?? [EMPTY_OK, null];
  }

  /**
   * `POST /__admin/mappings/remove` (the Java client's `removeStubMapping`): the mapping with
   * the body's id, else the ones added with the same request part.
   */
  #removeMapping(body: Body): Answer {
    if ("answer" in body) return body.answer;
    const sent = body.value;
    if (!isObject(sent)) return errors(422, { code: 10, title: "the body is a mapping" });
    const id = typeof sent.id === "string" ? sent.id : typeof sent.uuid === "string" ? sent.uuid : undefined;
    const request = JSON.stringify(sent.request ?? null);
    const ids = id !== undefined
      ? [id]
      : [...this.#mappings].filter(([, kept]) => JSON.stringify(kept.mapping.request ?? null) === request).map(([k]) =>
        k
      );
    const removed = this.#host.remove((r) => ids.includes(r.id));
    for (const gone of removed) this.#mappings.delete(gone);
    // WireMock answers an empty 200, whether it removed one or not.
    return [EMPTY_OK, null];
  }

  async #replace(id: string, body: Body): Promise<Answer> {
    if (!this.#host.route(id)) return notFound(`no mapping has id ${id}`);
    if ("answer" in body) return body.answer;
    if (!isObject(body.value)) return errors(422, { code: 10, title: "PUT takes one mapping" });
    const result = await admitMappings(this.#host, [{ ...body.value, id, uuid: id }], body.text);
    if ("answer" in result) return result.answer;
    const { mapping, stub } = result.admitted[0];
    const { route } = this.#host.replaceStub(id, stub);
    if (!route) return notFound(`no mapping has id ${id}`);
    this.#mappings.set(id, { route, mapping });
    return json(mapping);
  }

  #scenarios() {
    const routes = this.#host.routes();
    return this.#host.scenarios().filter((s) => s.scope === undefined).map((s) =>
      scenarioShape(
        s.name,
        s.state,
        s.states,
        routes.filter((r) => r.stub.scenario === s.name).map((r) => this.#mappingOf(r)),
      )
    );
  }

  /** `PUT /__admin/scenarios/{name}/state` with `{"state": S}`; an empty body means `Started`. */
  #setState(name: string, body: Body): Answer {
    if ("answer" in body) return body.answer;
    const scenario = this.#host.scenarios().find((s) => s.name === name && s.scope === undefined);
    if (!scenario) return errors(404, { code: 404, title: `Scenario ${name} does not exist` });
    const value = body.value;
    const state = value === undefined
      ? "Started"
      : isObject(value) && typeof value.state === "string"
      ? value.state
      : undefined;
    if (state === undefined) return errors(422, { code: 10, title: 'the body is {"state": "NAME"}' });
    // As WireMock: only a state some mapping names (an empty body aside, which means Started).
    if (value !== undefined && !scenario.states.includes(state)) {
      return errors(422, { code: 11, title: `Scenario ${name} does not support state ${state}` });
    }
    this.#host.setScenarioState(name, state);
    return json({});
  }
}

/** A query string's parameters as WireMock lists them: `{name: {key, values}}`. */
function queryParams(query: string): Record<string, { key: string; values: string[] }> {
  const out: Record<string, { key: string; values: string[] }> = {};
  for (const [key, value] of new URLSearchParams(query)) (out[key] ??= { key, values: [] }).values.push(value);
  return out;
}

function decoded(part: string): string {
  try {
    return decodeURIComponent(part);
  } catch {
    return part;
  }
}

/** WireMock's answer to an id it does not know: `404` with an empty body (`title` says why, for this code's readers). */
function notFound(_title: string): Answer {
  return [{ status: 404, headers: {} }, null];
}
