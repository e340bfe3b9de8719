/**
 * Which journaled requests a request pattern matches (`POST /__stubtool__/requests/find`,
 * `server.requests(pattern)`): the router's own matching, run on what the journal
 * kept of each request.
 * @module
 */

import { PATTERN_FIELDS, type RequestPattern, unknownField, validatePattern } from "../../stubs/validate.ts";
import { headerRecord, type Incoming } from "../incoming.ts";
import { type JournalRecord, scopeOf } from "../journal/journal.ts";
import { BodyView, RequestView } from "../request_view.ts";
import { Route } from "../matching/route.ts";
import { NEED_BODY, Router } from "../matching/router.ts";

/**
 * Validates a request pattern (`requests/find`, `server.requests`): each unknown field is
 * reported once, by this check, and the stub validator sees only the pattern's own fields
 * (it would report an unknown field a second time, in a stub's words).
 */
export function checkPattern(raw: unknown): { pattern?: RequestPattern; errors: string[] } {
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) return validatePattern(raw);
  const known: Record<string, unknown> = {};
  const errors: string[] = [];
  for (const [key, value] of Object.entries(raw)) {
    if ((PATTERN_FIELDS as readonly string[]).includes(key)) known[key] = value;
    else errors.push(`${unknownField("field", key, PATTERN_FIELDS)}; a pattern has no answer`);
  }
  const checked = validatePattern(known);
  errors.push(...checked.errors);
  return errors.length ? { errors } : checked;
}

/** A journaled request seen as an {@link Incoming} (headers only: its body is already read). */
function recordIncoming(record: JournalRecord): Incoming {
  let headers: Record<string, string> | undefined;
  const all = () => headers ??= record.headers ? headerRecord(record.headers) : {};
  return {
    method: record.method,
    target: record.target,
    header: (name) => all()[name] ?? null,
    headers: () => ({ ...all() }),
    headerSource: () => all(),
    // The lines as sent, when the wire kept them (node:http): header patterns read them as a live request's.
    headerLines: () => record.headerLines,
    hasBody: () => record.body !== undefined && record.body.byteLength > 0,
    read: () => Promise.resolve({ bytes: record.body ?? new Uint8Array(), complete: !record.bodyTruncated }),
    stream: () => null,
  };
}

/** A journaled request as the router reads a request (its body when the journal kept all of it). */
export function recordView(record: JournalRecord): RequestView {
  const incoming = recordIncoming(record);
  const q = record.target.indexOf("?");
  const view = new RequestView(
    incoming,
    record.method,
    q === -1 ? record.target : record.target.slice(0, q),
    q === -1 ? "" : record.target.slice(q + 1),
  );
  view.scope = scopeOf(record);
  view.body = !record.bodyTruncated
    ? new BodyView(record.body ?? new Uint8Array(), true, incoming.header("content-type"))
    : undefined;
  return view;
}

/**
 * The records `pattern` matches, in the order given. A method given must be the request's
 * own (a `GET` pattern does not take `HEAD` requests); a condition on a body the journal
 * kept only in part does not hold.
 */
export function findRequests(pattern: RequestPattern, records: readonly JournalRecord[]): JournalRecord[] {
  const route = new Route(pattern.stub, { id: "pattern", source: "api", batch: 0, order: 0 });
  const router = new Router<Route>();
  router.add(route);
  return records.filter((record) => {
    if (route.method !== "ANY" && record.method !== route.method) return false;
    const scope = scopeOf(record);
    if (route.scope !== undefined && scope !== route.scope) return false;
    const view = recordView(record);
    view.scope = scope;
    if (!pattern.anyPath) {
      const found = router.match(view);
      return found !== undefined && found !== NEED_BODY;
    }
    for (const condition of route.conditions) {
      if (condition.needsBody && view.body === undefined) return false;
      if (!condition.test(view, [], [])) return false;
    }
    return true;
  });
}

/**
 * The records that match `pattern` or nearly do (as the router explains a miss: one path
 * segment, the method, a query parameter, a header or the body differs), in the order
 * given: WireMock's near misses of a request pattern. A pattern without a path takes every
 * path, so only its other conditions are compared.
 */
export function nearRequests(
  pattern: RequestPattern,
  records: readonly JournalRecord[],
): { record: JournalRecord; exact: boolean }[] {
  const exact = new Set(findRequests(pattern, records));
  const route = new Route(pattern.stub, { id: "pattern", source: "api", batch: 0, order: 0 });
  const router = new Router<Route>();
  router.add(route);
  const out: { record: JournalRecord; exact: boolean }[] = [];
  for (const record of records) {
    if (exact.has(record)) {
      out.push({ record, exact: true });
      continue;
    }
    if (pattern.anyPath) continue;
    const misses = router.nearMisses(recordView(record));
    if (misses !== NEED_BODY && misses.length) out.push({ record, exact: false });
  }
  return out;
}
