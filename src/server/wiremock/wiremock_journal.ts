/**
 * The shapes and helpers of WireMock's admin answers, and its request journal over
 * stubtool's journal (`/__admin/requests…`).
 * @module
 */

import { mappingsToConfig, type WireMockWarning } from "../../formats/wiremock/mapping.ts";
import { javaRegexToJs } from "../../formats/wiremock/regex.ts";
import { compileRegex } from "../../util/regex.ts";
import { loggedRequest, serveEvent, type WireMockError, wireMockErrors } from "../../formats/wiremock/shapes.ts";
import { checkPattern, findRequests, nearRequests } from "../admin/find.ts";
import { headerRecord } from "../incoming.ts";
import type { JournalRecord } from "../journal/journal.ts";
import { jsonAnswer, type ResponseHead } from "../response.ts";
import type { Route } from "../matching/route.ts";
import { isObject } from "../../util/json_shape.ts";

export const EMPTY_OK: ResponseHead = { status: 200, headers: {} };
/** A request pattern's URL matchers that count and find apply themselves (the converter refuses them for stubs). */
const URL_KEYS = ["url", "urlPattern", "urlPathPattern"] as const;

export type Answer = [ResponseHead, string | null];
/** A request body read as JSON (with its text), or the answer that refuses it. */
export type Body = { value: unknown; text: string } | { answer: Answer };

/** `value` as a JSON answer (the server's one JSON answer, {@link jsonAnswer}). */
export function json(value: unknown, status = 200): Answer {
  return jsonAnswer(value, status);
}

export function errors(status: number, ...list: WireMockError[]): Answer {
  return json(wireMockErrors(...list), status);
}

/** A converter warning as a WireMock error: the feature in the title, the whole line in the detail. */
export function refusal(warning: WireMockWarning): WireMockError {
  return {
    code: 10,
    title: `'${warning.feature}' is not supported by stubtool`,
    detail: warning.message,
  };
}

/** What the journal endpoints read of the server. */
export interface WireMockJournalHost {
  route(id: string): Route | undefined;
  /** The journal's records, oldest first; `on` is false when the journal is off. */
  journal(): { records: JournalRecord[]; on: boolean };
  /** Forgets the journaled records `which` picks; returns them, oldest first. */
  removeRequests(which: (record: JournalRecord) => boolean): JournalRecord[];
}

/**
 * WireMock's request journal over stubtool's: `GET /__admin/requests` (serve events),
 * `requests/unmatched`, and `requests/count` / `requests/find` with WireMock request patterns.
 */
export class WireMockJournal {
  readonly #host: WireMockJournalHost;
  readonly #mappingOf: (route: Route) => Record<string, unknown>;

  constructor(host: WireMockJournalHost, mappingOf: (route: Route) => Record<string, unknown>) {
    this.#host = host;
    this.#mappingOf = mappingOf;
  }

  /** Journal records as serve events, newest first (`?limit=N`, `?unmatched=true`). */
  requests(params: URLSearchParams): Answer {
    const { records, on } = this.#host.journal();
    let events = records.map((r) => this.#event(r)).reverse();
    if (params.get("unmatched") === "true") events = events.filter((e) => !e.wasMatched);
    const total = events.length;
    // `?since=`: only requests after that time (the total still counts them all, as WireMock's does).
    const since = params.has("since") ? Date.parse(params.get("since")!) : NaN;
    if (!Number.isNaN(since)) events = events.filter((e) => e.request.loggedDate > since);
    if (params.has("limit")) events = events.slice(0, Math.max(0, Number(params.get("limit")) || 0));
    return json({ requests: events, meta: { total }, requestJournalDisabled: !on });
  }

  #event(record: JournalRecord) {
    const mapping = this.#mappingOfRecord(record);
    return serveEvent(record.uuid ?? crypto.randomUUID(), logged(record), record.status, record.ms, mapping);
  }

  /** The mapping that answered `record`, as shown now (only its id when it is gone). */
  #mappingOfRecord(record: JournalRecord): Record<string, unknown> | undefined {
    if (record.id === undefined) return undefined;
    const route = this.#host.route(record.id);
    return route ? this.#mappingOf(route) : { id: record.id };
  }

  /**
   * `POST /__admin/near-misses/request-pattern`: the journaled requests, newest first, that
   * match the pattern (`distance` 0) or nearly do (`distance` 0.5: stubtool's value, not
   * WireMock's), each with the pattern as sent.
   */
  patternNearMisses(body: Body): Answer {
    if ("answer" in body) return body.answer;
    const pattern = requestPattern(body.value);
    if ("answer" in pattern) return pattern.answer;
    const { records } = this.#host.journal();
    const near = nearRequests(pattern.pattern, records).filter(({ record, exact }) => !exact || pattern.url(record));
    return json({
      nearMisses: near.reverse().map(({ record, exact }) => ({
        request: logged(record),
        requestPattern: body.value ?? {},
        matchResult: { subEvents: [], diffDescriptions: [], distance: exact ? 0 : 0.5 },
      })),
    });
  }

  /** `GET /__admin/requests/{id}`: the serve event, or WireMock's empty 404. */
  request(id: string): Answer {
    const record = this.#host.journal().records.find((r) => r.uuid === id);
    return record ? json(this.#event(record)) : [{ status: 404, headers: {} }, null];
  }

  /** `DELETE /__admin/requests/{id}`: `200 {}`, known or not, as WireMock answers. */
  removeRequest(id: string): Answer {
    this.#host.removeRequests((r) => r.uuid === id);
    return json({});
  }

  /** `POST /__admin/requests/remove`: the records a request pattern matches go; `{"serveEvents": [...]}`. */
  remove(body: Body): Answer {
    const found = this.#matching(body);
    if (Array.isArray(found)) return found;
    const chosen = new Set(found.records.map((r) => r.uuid));
    return this.#removed((r) => chosen.has(r.uuid));
  }

  /** `POST /__admin/requests/remove-by-metadata`: the records whose mapping's metadata the pattern matches go. */
  removeByMetadata(body: Body): Answer {
    if ("answer" in body) return body.answer;
    const test = metadataTest(body.value);
    if ("answer" in test) return test.answer;
    return this.#removed((r) => {
      const mapping = this.#mappingOfRecord(r);
      return mapping !== undefined && test.test(mapping.metadata);
    });
  }

  #removed(which: (record: JournalRecord) => boolean): Answer {
    // Records read through the journal carry their uuid; compare by it (removeWhere reads them anew).
    const ids = new Set(this.#host.journal().records.filter(which).map((r) => r.uuid));
    const removed = this.#host.removeRequests((r) => ids.has(r.uuid));
    return json({ serveEvents: removed.map((r) => this.#event(r)) });
  }

  /** `GET /__admin/requests/unmatched`: newest first, as WireMock lists them. */
  unmatched(): Answer {
    const { records, on } = this.#host.journal();
    return json({
      requests: records.filter((r) => r.id === undefined).map(logged).reverse(),
      requestJournalDisabled: !on,
    });
  }

  /**
   * `GET /__admin/requests/unmatched/near-misses`: for each unmatched request, newest first,
   * the stubs that nearly matched it (the 404's `closest`), closest first, in WireMock's
   * shape. `distance` orders them (smaller is closer); its value is stubtool's, not WireMock's.
   */
  unmatchedNearMisses(): Answer {
    const { records } = this.#host.journal();
    const nearMisses = [];
    for (const record of records.filter((r) => r.id === undefined).reverse()) {
      const closest = record.closest ?? [];
      for (const [i, near] of closest.entries()) {
        const route = near.id === undefined ? undefined : this.#host.route(near.id);
        if (!route) continue;
        nearMisses.push({
          request: logged(record),
          stubMapping: this.#mappingOf(route),
          matchResult: { subEvents: [], diffDescriptions: [], distance: (i + 1) / (closest.length + 1) },
        });
      }
    }
    return json({ nearMisses });
  }

  /** The journaled records a WireMock request pattern matches, or the 422 that says why it cannot be used. */
  #matching(body: Body): { records: JournalRecord[]; on: boolean } | Answer {
    if ("answer" in body) return body.answer;
    const pattern = requestPattern(body.value);
    if ("answer" in pattern) return pattern.answer;
    const { records, on } = this.#host.journal();
    return { records: findRequests(pattern.pattern, records).filter(pattern.url), on };
  }

  count(body: Body): Answer {
    const found = this.#matching(body);
    if (Array.isArray(found)) return found;
    return json({ count: found.records.length, requestJournalDisabled: !found.on });
  }

  find(body: Body): Answer {
    const found = this.#matching(body);
    if (Array.isArray(found)) return found;
    return json({ requests: found.records.map(logged), requestJournalDisabled: !found.on });
  }
}

/**
 * Header lines as sent (`[name, value, …]`) as WireMock's journal shows them: each name in the
 * case it was first sent in, values of a name sent twice joined by `, `.
 */
function linesRecord(lines: readonly string[]): Record<string, string> {
  const out: Record<string, string> = Object.create(null);
  const names = new Map<string, string>();
  for (let i = 0; i + 1 < lines.length; i += 2) {
    const lower = lines[i].toLowerCase();
    const name = names.get(lower);
    if (name === undefined) {
      names.set(lower, lines[i]);
      out[lines[i]] = lines[i + 1];
    } else out[name] += `, ${lines[i + 1]}`;
  }
  return { ...out };
}

/**
 * A metadata pattern (`mappings/find-by-metadata`, `…/remove-by-metadata`): one WireMock
 * string-value pattern (`equalToJson`, `matchesJsonPath`, …) applied to a mapping's
 * `metadata` as JSON text, through the matchers `bodyPatterns` use. A mapping without
 * metadata never matches.
 */
export function metadataTest(raw: unknown): { test: (metadata: unknown) => boolean } | { answer: Answer } {
  if (!isObject(raw)) return { answer: errors(422, { code: 10, title: "a metadata pattern is a JSON object" }) };
  const found = requestPattern({ bodyPatterns: [raw] });
  if ("answer" in found) return found;
  const test = (metadata: unknown) => {
    if (!isObject(metadata)) return false;
    const record: JournalRecord = {
      method: "GET",
      target: "/",
      time: 0,
      status: 0,
      ms: 0,
      stub: undefined,
      id: undefined,
      closest: undefined,
      scope: null,
      headers: { "content-type": "application/json" },
      body: new TextEncoder().encode(JSON.stringify(metadata)),
      bodyTruncated: false,
    };
    return findRequests(found.pattern, [record]).length === 1;
  };
  return { test };
}

/** A journal record as WireMock's `LoggedRequest`. */
function logged(record: JournalRecord) {
  return loggedRequest({
    method: record.method,
    target: record.target,
    time: record.time,
    headers: record.headerLines ? linesRecord(record.headerLines) : record.headers ? headerRecord(record.headers) : {},
    body: record.body,
    clientIp: record.clientIp,
    bodyTruncated: record.bodyTruncated,
  });
}

/**
 * A WireMock request pattern (`requests/count`, `requests/find`) as a stubtool request
 * pattern, through the mapping converter's request part, plus the URL matchers the
 * journal can apply to what was sent: `url` (the path and query exactly), `urlPattern` and
 * `urlPathPattern` (Java regular expressions over the whole URL / the path). A pattern
 * without a path matcher matches every path.
 */
export function requestPattern(
  raw: unknown,
): { pattern: NonNullable<ReturnType<typeof checkPattern>["pattern"]>; url: (r: JournalRecord) => boolean } | {
  answer: Answer;
} {
  if (raw === undefined) raw = {};
  if (!isObject(raw)) return { answer: errors(422, { code: 10, title: "a request pattern is a JSON object" }) };
  const rest: Record<string, unknown> = { ...raw };
  const tests: ((r: JournalRecord) => boolean)[] = [];
  for (const key of URL_KEYS) {
    const value = rest[key];
    if (value === undefined) continue;
    delete rest[key];
    if (typeof value !== "string") {
      return { answer: errors(422, { code: 10, source: { pointer: `/${key}` }, title: `${key} must be text` }) };
    }
    if (key === "url") {
      tests.push((r) => r.target === value);
      continue;
    }
    const js = javaRegexToJs(value);
    const compiled = "problem" in js ? js : compileRegex(js.source);
    if ("problem" in compiled) {
      return {
        answer: errors(422, {
          code: 10,
          source: { pointer: `/${key}` },
          title: `'${key}' is not supported: ${compiled.problem}`,
        }),
      };
    }
    const regex = compiled.regex;
    tests.push(
      key === "urlPattern" ? (r) => regex.test(r.target) : (r) => {
        const q = r.target.indexOf("?");
        return regex.test(q === -1 ? r.target : r.target.slice(0, q));
      },
    );
  }
  const anyPath = rest.urlPath === undefined && rest.urlPathTemplate === undefined;
  if (anyPath) rest.urlPath = "/";
  const converted = mappingsToConfig({ request: rest, response: { status: 200 } }, "pattern");
  if (converted.warnings.length || converted.routes.length !== 1) {
    return { answer: errors(422, ...converted.warnings.map(refusal)) };
  }
  const route = converted.routes[0];
  const fields: Record<string, unknown> = {};
  if (route.method !== undefined && route.method !== "ANY") fields.method = route.method;
  if (!anyPath) fields.path = route.path;
  if (route.query_params !== undefined) fields.query_params = route.query_params;
  if (route.request !== undefined) fields.request = route.request;
  const { pattern, errors: problems } = checkPattern(fields);
  if (!pattern) return { answer: errors(422, ...problems.map((title) => ({ code: 10, title }))) };
  return { pattern, url: (r) => tests.every((t) => t(r)) };
}
