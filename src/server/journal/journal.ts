/**
 * The request journal (`GET /__stubtool__/requests`, `requests/find`, the dashboard): the
 * most recent stub requests, each with what was sent (headers, the first 64 KiB of the
 * body) and how it was answered — the stub that matched, or the stubs that nearly did
 * . Bounded in entries (`--journal-size`) and in bytes (`--journal-bytes`):
 * the oldest requests go first. Nothing is formatted until someone reads it.
 * @module
 */

import type { ClosestStub, JournalEntry, JournalSnapshot } from "../../report/types.ts";
import { headerRecord, type HeaderSource } from "../incoming.ts";
import { SCOPE_HEADER, scopeFrom } from "../scope.ts";

/** How many requests the journal keeps by default (`--journal-size`, `journalSize`). */
export const DEFAULT_JOURNAL_SIZE = 500;
/** How many bytes of request targets, headers and bodies it keeps by default (`--journal-bytes`). */
export const DEFAULT_JOURNAL_BYTES = 16 * 1024 * 1024;
/** How much of each request body the journal keeps. */
export const JOURNAL_BODY_MAX = 64 * 1024;

/**
 * One request as the handler records it: filled in as the handler learns each field,
 * added to the journal when the response is ready.
 */
export interface JournalRecord {
  method: string;
  /** Path with the query string, as requested. */
  target: string;
  /** When the request arrived, `Date.now()`. */
  time: number;
  status: number;
  /** Time from arrival to the response, in milliseconds (0 for an answer given at once: see the handler). */
  ms: number;
  /** The matched stub (`GET /users/{id}`); unset when nothing matched. */
  stub: string | undefined;
  /** The matched stub's id. */
  id: string | undefined;
  /** For a request that matched nothing: the stubs that nearly matched (the 404's `closest`). */
  closest: ClosestStub[] | undefined;
  /** The request's `x-stubtool-scope`, when it was read. */
  scope: string | null;
  /** The request headers as the runtime holds them (read only when the journal is). */
  headers: HeaderSource | undefined;
  /** The first {@link JOURNAL_BODY_MAX} bytes of the body, when it had one. */
  body: Uint8Array | undefined;
  /** The body was longer than {@link JournalRecord.body}. */
  bodyTruncated: boolean;
  /** A WebSocket message of the connection `target` opened, not a request: `in` from the client, `out` to it (its text is the body). */
  message?: "in" | "out";
  /**
   * The record's id while the journal keeps it: an RFC 4122 UUID, made when the record is
   * first read (set by {@link Journal.records}; a request never read costs none).
   */
  uuid?: string;
  /** The client's address, when the journal is on and the runtime tells it. */
  clientIp?: string;
  /** The header lines as sent (`[name, value, …]`, names in their case), when the wire keeps them. */
  headerLines?: readonly string[];
  /** The replica that served it (`serve --state`: `HOST:PORT`), for a request another replica journaled; unset for this one's own. */
  replica?: string;
}

/** Which journaled requests to list (`GET /__stubtool__/requests?…`); every given field must hold. */
export interface JournalFilter {
  /** The request method. */
  method?: string;
  /** The request path exactly, without the query. */
  path?: string;
  /** The id of the stub that answered. */
  stub?: string;
  /** Only requests no stub matched. */
  unmatched?: boolean;
  /** Only requests that carried `x-stubtool-scope: <scope>`. */
  scope?: string;
  /** Only the newest `limit`. */
  limit?: number;
}

const utf8 = new TextDecoder("utf-8", { fatal: true });
const utf8Out = new TextEncoder();

/** Targets longer than this are kept as bytes (see `Journal`'s targets). */
const LONG_TARGET = 1024;

/** A kept target as text again. */
function targetText(target: string | Uint8Array): string {
  return typeof target === "string" ? target : utf8.decode(target);
}

/** What a record costs the byte budget: its target and body (headers are bounded by the runtime's head limit). */
function cost(target: string | Uint8Array, body: Uint8Array | undefined): number {
  return (typeof target === "string" ? target.length : target.byteLength) + (body?.byteLength ?? 0) + 64;
}

/** The path of a target, without the query. */
function pathOf(target: string): string {
  const q = target.indexOf("?");
  return q === -1 ? target : target.slice(0, q);
}

/**
 * The most recent {@link JournalRecord}s: at most `capacity`, and at most `maxBytes` of
 * targets and bodies; the oldest fall out first.
 *
 * @example
 * ```ts
 * import { Journal } from "./journal.ts";
 * const journal = new Journal(2);
 * for (const target of ["/a", "/b", "/c"]) {
 *   journal.add({
 *     method: "GET", target, time: 0, status: 404, ms: 0.5, stub: undefined, id: undefined, closest: [],
 *     scope: null, headers: undefined, body: undefined, bodyTruncated: false,
 *   });
 * }
 * const { total, requests } = journal.snapshot();
 * console.log(total, requests.map((r) => r.target)); // 3 [ "/b", "/c" ]
 * ```
 */
export class Journal {
  /** How many requests it keeps. */
  readonly capacity: number;
  /** How many bytes of targets and bodies it keeps. */
  readonly maxBytes: number;
  // One array per field rather than the records themselves: a record dies young, while the
  // ring outlives many collections; fields in arrays keep the old generation small (p99).
  #methods: string[] = [];
  /**
   * Short targets as strings; long ones as UTF-8 bytes: ArrayBuffers live outside V8's heap,
   * while long strings kept among short-lived garbage pin its old-space pages (measured: 270
   * kept 60 KiB targets held 182 MB RSS as strings, 73 MB as bytes).
   */
  #targets: (string | Uint8Array)[] = [];
  #times: number[] = [];
  #statuses: number[] = [];
  #ms: number[] = [];
  #stubs: (string | undefined)[] = [];
  #ids: (string | undefined)[] = [];
  #closest: (ClosestStub[] | undefined)[] = [];
  #scopes: (string | null)[] = [];
  #headers: (HeaderSource | undefined)[] = [];
  #bodies: (Uint8Array | undefined)[] = [];
  #cut: boolean[] = [];
  #messages: ("in" | "out" | undefined)[] = [];
  /** Each record's UUID, made on first read. */
  #uuids: (string | undefined)[] = [];
  #clientIps: (string | undefined)[] = [];
  #headerLines: (readonly string[] | undefined)[] = [];
  #replicas: (string | undefined)[] = [];
  #costs: number[] = [];
  /** Where the oldest kept record is. */
  #head = 0;
  #size = 0;
  #bytes = 0;
  #total = 0;
  /** Counts changes (requests added, clears). */
  version = 0;
  /**
   * Each kept record's place among the requests this process journaled (from 1), 0 for one
   * another replica journaled: `serve --state` reads the new ones of its own at each batch
   * ({@link Journal.ownSince}), so sharing the journal costs a request nothing.
   */
  #seqs: number[] = [];
  /** Requests this process journaled since start. */
  #ownSeq = 0;

  constructor(capacity: number = DEFAULT_JOURNAL_SIZE, maxBytes: number = DEFAULT_JOURNAL_BYTES) {
    if (!Number.isSafeInteger(capacity) || capacity < 0) {
      throw new RangeError(`journalSize must be a whole number of 0 or more, got ${capacity}`);
    }
    if (!Number.isSafeInteger(maxBytes) || maxBytes < 0) {
      throw new RangeError(`journalBytes must be a whole number of 0 or more, got ${maxBytes}`);
    }
    this.capacity = capacity;
    this.maxBytes = maxBytes;
  }

  /** Records one finished request; the oldest fall out to keep within both bounds. */
  add(record: JournalRecord): void {
    this.#keep(record, ++this.#ownSeq);
  }

  /** Records a request another replica journaled (`serve --state`), within the same bounds; not sent on. */
  keep(record: JournalRecord): void {
    this.#keep(record, 0);
  }

  /**
   * The mark of the newest request this process journaled: pass it to {@link Journal.ownSince}
   * later to get the ones journaled after it.
   */
  get ownMark(): number {
    return this.#ownSeq;
  }

  /**
   * The requests this process journaled after `mark` that are still kept, newest first, at
   * most `limit` (those another replica journaled are left out). Reads only the kept records,
   * newest first, and stops at the first one of `mark` or before.
   */
  ownSince(mark: number, limit: number): JournalRecord[] {
    const out: JournalRecord[] = [];
    for (let k = this.#size - 1; k >= 0 && out.length < limit; k--) {
      const i = (this.#head + k) % this.capacity;
      const seq = this.#seqs[i];
      if (seq === 0) continue;
      if (seq <= mark) break;
      out.push(this.#record(i));
    }
    return out;
  }

  #keep(record: JournalRecord, seq: number): void {
    this.#total++;
    this.version++;
    if (this.capacity === 0) return;
    let body = record.body;
    // A view of a larger buffer (the first 64 KiB of a long body) would keep all of it alive
    // while the budget counts only the view: keep a copy of just the view.
    if (body && body.byteLength !== body.buffer.byteLength) body = body.slice();
    let cut = record.bodyTruncated;
    const target = record.target.length > LONG_TARGET ? utf8Out.encode(record.target) : record.target;
    let size = cost(target, body);
    if (size > this.maxBytes && body) {
      // One request alone over the budget keeps no body rather than emptying the journal.
      size -= body.byteLength;
      body = undefined;
      cut = true;
    }
    while (this.#size > 0 && (this.#size >= this.capacity || this.#bytes + size > this.maxBytes)) this.#dropOldest();
    const i = (this.#head + this.#size) % this.capacity;
    this.#methods[i] = record.method;
    this.#targets[i] = target;
    this.#times[i] = record.time;
    this.#statuses[i] = record.status;
    this.#ms[i] = record.ms;
    this.#stubs[i] = record.stub;
    this.#ids[i] = record.id;
    this.#closest[i] = record.closest;
    this.#scopes[i] = record.scope;
    this.#headers[i] = record.headers;
    this.#bodies[i] = body;
    this.#cut[i] = cut;
    this.#messages[i] = record.message;
    this.#uuids[i] = record.uuid;
    this.#clientIps[i] = record.clientIp;
    this.#headerLines[i] = record.headerLines;
    this.#replicas[i] = record.replica;
    this.#seqs[i] = seq;
    this.#costs[i] = size;
    this.#size++;
    this.#bytes += size;
  }

  #dropOldest(): void {
    const i = this.#head;
    this.#bytes -= this.#costs[i];
    // Let go of what the slot holds now, not when it is reused.
    this.#targets[i] = "";
    this.#headers[i] = undefined;
    this.#headerLines[i] = undefined;
    this.#bodies[i] = undefined;
    this.#closest[i] = undefined;
    this.#head = (i + 1) % this.capacity;
    this.#size--;
  }

  /** Forgets every request (reset). */
  clear(): void {
    this.version++;
    for (
      const field of [
        this.#headers,
        this.#bodies,
        this.#closest,
        this.#targets,
        this.#uuids,
        this.#clientIps,
        this.#headerLines,
        this.#replicas,
      ]
    ) {
      field.length = 0;
    }
    this.#head = 0;
    this.#size = 0;
    this.#bytes = 0;
    this.#total = 0;
  }

  /** Requests journaled since start or the last reset. */
  get total(): number {
    return this.#total;
  }

  /** The kept records, oldest first (for `requests/find`). */
  records(): JournalRecord[] {
    const out: JournalRecord[] = [];
    for (let k = 0; k < this.#size; k++) {
      const i = (this.#head + k) % this.capacity;
      out.push(this.#record(i, this.#uuids[i] ??= crypto.randomUUID()));
    }
    return out;
  }

  /** The record in slot `i` (its UUID when it has been given one). */
  #record(i: number, uuid = this.#uuids[i]): JournalRecord {
    return {
      method: this.#methods[i],
      target: targetText(this.#targets[i]),
      time: this.#times[i],
      status: this.#statuses[i],
      ms: this.#ms[i],
      stub: this.#stubs[i],
      id: this.#ids[i],
      closest: this.#closest[i],
      scope: this.#scopes[i],
      headers: this.#headers[i],
      body: this.#bodies[i],
      bodyTruncated: this.#cut[i],
      ...(this.#messages[i] ? { message: this.#messages[i] } : {}),
      uuid,
      clientIp: this.#clientIps[i],
      headerLines: this.#headerLines[i],
      ...(this.#replicas[i] === undefined ? {} : { replica: this.#replicas[i] }),
    };
  }

  /**
   * Forgets the kept records `which` picks (WireMock's `DELETE /__admin/requests/{id}` and
   * `requests/remove`) and returns them, oldest first; the rest keep their order and ids.
   */
  removeWhere(which: (record: JournalRecord) => boolean): JournalRecord[] {
    const all = this.records();
    const removed = all.filter(which);
    if (removed.length === 0) return removed;
    const gone = new Set(removed);
    const seqs = all.map((_, k) => this.#seqs[(this.#head + k) % this.capacity]);
    const total = this.#total;
    this.clear();
    // Put back with their places: with `--state`, the ones already sent are not sent again.
    all.forEach((record, k) => gone.has(record) || this.#keep(record, seqs[k]));
    this.#total = total;
    return removed;
  }

  /** Has the journal dropped requests since start or reset (so a search may miss some)? */
  get complete(): boolean {
    return this.#total === this.#size;
  }

  /** The kept requests that pass `filter`, oldest first, as the endpoint serves them. */
  snapshot(filter: JournalFilter = {}): JournalSnapshot {
    let records = this.records().filter((r) =>
      (filter.method === undefined || r.method === filter.method) &&
      (filter.path === undefined || pathOf(r.target) === filter.path) &&
      (filter.stub === undefined || r.id === filter.stub) &&
      (filter.unmatched !== true || r.id === undefined) &&
      (filter.scope === undefined || scopeOf(r) === filter.scope)
    );
    if (filter.limit !== undefined && records.length > filter.limit) records = records.slice(-filter.limit);
    return { capacity: this.capacity, total: this.#total, requests: records.map(journalEntry) };
  }
}

/**
 * The `x-stubtool-scope` a journaled request carried: read when it was answered, or else
 * now from its kept headers (the header is read per request only when something needs it).
 */
export function scopeOf(record: JournalRecord): string | null {
  if (record.scope !== null || !record.headers) return record.scope;
  const headers = record.headers;
  const value = headers instanceof Headers ? headers.get(SCOPE_HEADER) : headers[SCOPE_HEADER];
  return scopeFrom(Array.isArray(value) ? value.join(", ") : value);
}

/** One record as `GET /__stubtool__/requests` lists it. */
export function journalEntry(record: JournalRecord): JournalEntry {
  const { method, target, status, stub, id, closest, time: arrived, ms } = record;
  const time = new Date(arrived).toISOString();
  const duration_ms = Math.round(ms * 1000) / 1000;
  const entry: JournalEntry = stub !== undefined
    ? { time, method, target, status, id, stub, duration_ms }
    : { time, method, target, status, closest: closest ?? [], duration_ms };
  entry.headers = record.headers ? headerRecord(record.headers) : {};
  if (record.headerLines) {
    const lines: [string, string][] = [];
    for (let i = 0; i + 1 < record.headerLines.length; i += 2) {
      lines.push([record.headerLines[i], record.headerLines[i + 1]]);
    }
    entry.header_lines = lines;
  }
  if (record.body && record.body.byteLength) {
    const text = textOf(record.body, record.bodyTruncated);
    if (text !== undefined) entry.body = text;
    else entry.body_base64 = base64(record.body);
  }
  if (record.bodyTruncated) entry.body_truncated = true;
  if (record.message) {
    entry.message = record.message;
    if (closest) entry.closest = closest;
  }
  if (record.replica !== undefined) entry.replica = record.replica;
  return entry;
}

/**
 * One journaled request as it travels between replicas (`serve --state`): plain JSON, the
 * headers as lower-cased names and the body as base64.
 */
export interface SharedRecord {
  method: string;
  target: string;
  time: number;
  status: number;
  ms: number;
  stub?: string;
  id?: string;
  closest?: ClosestStub[];
  scope: string | null;
  headers: Record<string, string>;
  body?: string;
  cut?: true;
  /** The replica that served it: `HOST:PORT` (see `RedisState.name`). */
  replica?: string;
}

/** A record as another replica receives it; `replica` names the one that served it. */
export function sharedRecord(record: JournalRecord, replica?: string): SharedRecord {
  const shared: SharedRecord = {
    method: record.method,
    target: record.target,
    time: record.time,
    status: record.status,
    ms: record.ms,
    scope: scopeOf(record),
    headers: record.headers ? headerRecord(record.headers) : {},
  };
  if (record.stub !== undefined) shared.stub = record.stub;
  if (record.id !== undefined) shared.id = record.id;
  if (record.closest !== undefined) shared.closest = record.closest;
  if (record.body?.byteLength) shared.body = base64(record.body);
  if (record.bodyTruncated) shared.cut = true;
  if (replica !== undefined) shared.replica = replica;
  return shared;
}

/** Another replica's record, to {@link Journal.keep}. */
export function recordOf(shared: SharedRecord): JournalRecord {
  return {
    method: shared.method,
    target: shared.target,
    time: shared.time,
    status: shared.status,
    ms: shared.ms,
    stub: shared.stub,
    id: shared.id,
    closest: shared.closest,
    scope: shared.scope,
    headers: shared.headers,
    body: shared.body === undefined ? undefined : Uint8Array.from(atob(shared.body), (c) => c.charCodeAt(0)),
    bodyTruncated: shared.cut === true,
    ...(typeof shared.replica === "string" ? { replica: shared.replica } : {}),
  };
}

/** The bytes as UTF-8 text, or undefined when they are not (a cut body may end inside a character). */
function textOf(bytes: Uint8Array, cut: boolean): string | undefined {
  for (let drop = 0; drop <= (cut ? 3 : 0) && drop < bytes.length; drop++) {
    try {
      return utf8.decode(drop ? bytes.subarray(0, bytes.length - drop) : bytes);
    } catch { /* not text, or a character cut in half: try without the last bytes */ }
  }
  return undefined;
}

/** Standard base64 of bytes. */
export function base64(bytes: Uint8Array): string {
  let binary = "";
  for (let i = 0; i < bytes.length; i += 0x8000) {
    binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  }
  return btoa(binary);
}
