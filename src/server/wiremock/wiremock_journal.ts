/**
 * The shapes and helpers of WireMock's admin answers, and its request journal over
 * stubtool's journal (`/__admin/requests…`).
 * @module
 */

import { mappingsToConfig, type WireMockWarning } from "../../formats/wiremock/mapping.ts";
import { javaRegexToJs } from "../../formats/wiremock/regex.ts";
import { compileRegex } from "../../util/regex.ts";
import { loggedRequest, serveEvent, type WireMockError, wireMockErrors } from "../../formats/wiremock/shapes.ts";
import { checkPattern, findRequests } from "../admin/find.ts";
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
    let events = records.map((r, k) => this.#event(r, k)).reverse();
    if (params.get("unmatched") === "true") events = events.filter((e) => !e.wasMatched);
    const total = events.length;
    if (params.has("limit")) events = events.slice(0, Math.max(0, Number(params.get("limit")) || 0));
    return json({ requests: events, meta: { total }, requestJournalDisabled: !on });
  }

  #event(record: JournalRecord, k: number) {
    const route = record.id === undefined ? undefined : this.#host.route(record.id);
    // Serve event ids: stable for a record while it is kept (its arrival time and place).
    const id = `00000000-0000-4000-8000-${(record.time * 1000 + (k % 1000)).toString(16).padStart(12, "0")}`;
    const mapping = route ? this.#mappingOf(route) : record.id !== undefined ? { id: record.id } : undefined;
    return serveEvent(id, logged(record), record.status, record.ms, mapping);
  }

  unmatched(): Answer {
    const { records, on } = this.#host.journal();
    return json({
      requests: records.filter((r) => r.id === undefined).map(logged),
      requestJournalDisabled: !on,
    });
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

/** A journal record as WireMock's `LoggedRequest`. */
function logged(record: JournalRecord) {
  return loggedRequest({
    method: record.method,
    target: record.target,
    time: record.time,
    headers: record.headers ? headerRecord(record.headers) : {},
    body: record.body,
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
