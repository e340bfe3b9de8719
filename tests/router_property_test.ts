/**
 * Property tests: the trie router agrees with a plain reference matcher written
 * here from the contract's words, on random stub sets and random requests; and
 * substitution puts captured text in as literal text, never touching keys and never
 * evaluating what a capture holds.
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import { get, type StubBuilder } from "../mod.ts";
import { StubHandler } from "../src/server/handler.ts";
import { HEADER_VALUE_FORBIDDEN } from "../src/stubs/checks.ts";
import type { Method } from "../src/stubs/model.ts";
import { validateStub } from "../src/stubs/validate.ts";
import type { Incoming } from "../src/server/incoming.ts";
import { RequestView } from "../src/server/request_view.ts";
import { Route } from "../src/server/matching/route.ts";
import { NEED_BODY, Router } from "../src/server/matching/router.ts";

/** Each property runs this many cases; a fixed seed keeps CI reproducible (fast-check prints it on failure). */
const RUNS = 1000;
const SEED = 0x5eed;

// ---------------------------------------------------------------- the reference matcher

/** README "Choices": a segment is percent-decoded; a malformed escape keeps the segment as written. */
function referenceDecodeSegment(raw: string): string {
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw;
  }
}

const isHex = (byte: number) =>
  (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x46) || (byte >= 0x61 && byte <= 0x66);

/** application/x-www-form-urlencoded decoding of one name or value, byte by byte (WHATWG URL §5.1). */
function referenceFormDecode(text: string): string {
  const bytes = new TextEncoder().encode(text.replaceAll("+", " "));
  const out: number[] = [];
  for (let i = 0; i < bytes.length; i++) {
    if (bytes[i] === 0x25 && i + 2 < bytes.length && isHex(bytes[i + 1]) && isHex(bytes[i + 2])) {
      out.push(parseInt(String.fromCharCode(bytes[i + 1], bytes[i + 2]), 16));
      i += 2;
    } else out.push(bytes[i]);
  }
  return new TextDecoder().decode(new Uint8Array(out));
}

/** The request's query as name → every value, in order. */
function referenceQuery(raw: string): Map<string, string[]> {
  const query = new Map<string, string[]>();
  for (const piece of raw.split("&")) {
    if (piece === "") continue;
    const eq = piece.indexOf("=");
    const name = referenceFormDecode(eq === -1 ? piece : piece.slice(0, eq));
    const value = referenceFormDecode(eq === -1 ? "" : piece.slice(eq + 1));
    query.set(name, [...(query.get(name) ?? []), value]);
  }
  return query;
}

/** A stub as the reference sees it: raw template pieces and query requirements. */
interface RefStub {
  method: Method;
  /** Raw template pieces: literal text (still percent-encoded) or a placeholder. */
  pieces: ({ literal: string } | { param: string })[];
  /** Required query: name, and a literal value or undefined for a capture. */
  query: [name: string, literal: string | undefined][];
}

/**
 * Precedence without batches or conditions, by brute force: every stub is tried; among those that match, the one whose segment
 * kinds are static at the earliest depth where they differ wins, then one with required
 * query, then the first declared. Values: path captures in order, then query captures
 * (each the first value given).
 */
function referenceMatch(
  stubs: readonly RefStub[],
  method: string,
  rawPath: string,
  rawQuery: string,
): { order: number; values: string[] } | undefined {
  const segments = rawPath.slice(1).split("/").map(referenceDecodeSegment);
  const query = referenceQuery(rawQuery);
  let best: { order: number; values: string[]; kinds: boolean[]; rank: number; weight: number } | undefined;
  // a GET stub answers HEAD only when no HEAD stub matches.
  const candidates = stubs.map((stub, order) => ({ stub, order }));
  const headMatches = method === "HEAD" &&
    stubs.some((stub) => stub.method === "HEAD" && referenceMatch([stub], "HEAD", rawPath, rawQuery) !== undefined);
  candidates.forEach(({ stub, order }) => {
    if (headMatches && stub.method === "GET") return;
    const rank = stub.method === method ? 0 : method === "HEAD" && stub.method === "GET" ? 1 : -1;
    if (rank === -1 || stub.pieces.length !== segments.length) return;
    const values: string[] = [];
    for (let i = 0; i < segments.length; i++) {
      const piece = stub.pieces[i];
      if ("param" in piece) {
        if (segments[i] === "") return;
        values.push(segments[i]);
      } else if (referenceDecodeSegment(piece.literal) !== segments[i]) return;
    }
    for (const [name, literal] of stub.query) {
      const given = query.get(name);
      if (!given) return;
      if (literal === undefined) values.push(given[0]);
      else if (!given.includes(literal)) return;
    }
    const kinds = stub.pieces.map((piece) => "literal" in piece);
    const weight = stub.query.length;
    if (!best || beats(kinds, rank, weight, best)) best = { order, values, kinds, rank, weight };
  });
  return best && { order: best.order, values: best.values };
}

/**
 * Does a later-declared candidate beat the current best? Static before placeholder at the
 * earliest differing segment; then more conditions (each required query parameter counts
 * one); then the request's own method before a GET answering HEAD; ties keep the
 * earlier one.
 */
function beats(
  kinds: boolean[],
  rank: number,
  weight: number,
  best: { kinds: boolean[]; rank: number; weight: number },
): boolean {
  for (let i = 0; i < kinds.length; i++) {
    if (kinds[i] !== best.kinds[i]) return kinds[i];
  }
  if (rank !== best.rank) return rank < best.rank;
  return weight > best.weight;
}

// ---------------------------------------------------------------- generators

/**
 * Template literals, several of which decode to the same segment (`é` and `%C3%A9`, `a` and
 * `%61`), plus an encoded slash, a malformed escape, an encoded lone surrogate (decoding
 * fails, so it stays as written), unicode and an empty segment.
 */
const LITERALS = [
  "a",
  "b",
  "%61",
  "",
  "é",
  "%C3%A9",
  "a%2Fb",
  "%zz",
  "%ED%A0%80",
  "日本",
  "%E6%97%A5%E6%9C%AC",
  "%7Bx%7D",
];
/** Request segments: the literals, a few that match no literal, and an emoji in both forms. */
const REQUEST_SEGMENTS = [...LITERALS, "c", "A", "{x}", "%", "%F0%9F%98%80", "😀", "a/b".replace("/", "%2f")];
const QUERY_NAMES = ["q", "sort", "a b", "é", "__proto__", "constructor"];
/** Required literal values (`{x}` would be a capture, so it is only ever sent). */
const QUERY_VALUES = ["asc", "desc", "", "a b", "é", "%zz"];

const methodArb = fc.constantFrom<Method>("GET", "GET", "GET", "POST");

const stubArb: fc.Arbitrary<RefStub> = fc.record({
  method: methodArb,
  pieces: fc.array(
    fc.oneof(
      { weight: 3, arbitrary: fc.constantFrom(...LITERALS).map((literal) => ({ literal })) },
      { weight: 2, arbitrary: fc.constant({ param: "" }) },
    ),
    { minLength: 1, maxLength: 3 },
  ).map((pieces) => pieces.map((piece, i) => "param" in piece ? { param: `p${i}` } : piece)),
  query: fc.uniqueArray(
    fc.tuple(fc.constantFrom(...QUERY_NAMES), fc.option(fc.constantFrom(...QUERY_VALUES), { nil: undefined })),
    { maxLength: 2, selector: ([name]) => name },
  ),
});

/** How a query name or value is written in the request. */
function encodeQueryPart(text: string, how: number): string {
  switch (how) {
    case 0:
      return encodeURIComponent(text);
    case 1:
      return encodeURIComponent(text).replaceAll("%20", "+");
    default:
      return text.replaceAll("%", "%25").replaceAll("&", "%26").replaceAll("=", "%3D").replaceAll("+", "%2B");
  }
}

interface RequestSpec {
  /** `stub`: the method of the stub the request is built from (GET for a random path). */
  method: Method | "HEAD" | "stub";
  /** Index of the stub the request is built from, or undefined for a random path. */
  from: number | undefined;
  /** Built on a stub: also send the query it requires (a capture gets a random value). */
  satisfy: boolean;
  fills: string[];
  trailing: "keep" | "add" | "drop";
  query: [string, string, number][];
  /** Raw junk appended to the query string. */
  junk: string;
}

const requestArb: fc.Arbitrary<RequestSpec> = fc.record({
  method: fc.constantFrom<Method | "HEAD" | "stub">("stub", "stub", "stub", "GET", "POST", "HEAD"),
  from: fc.option(fc.nat(), { nil: undefined, freq: 6 }),
  satisfy: fc.constantFrom(true, true, true, false),
  fills: fc.array(fc.constantFrom(...REQUEST_SEGMENTS), { minLength: 1, maxLength: 4 }),
  trailing: fc.constantFrom("keep", "keep", "keep", "keep", "keep", "add", "drop"),
  query: fc.array(
    fc.tuple(fc.constantFrom(...QUERY_NAMES, "x"), fc.constantFrom(...QUERY_VALUES, "{x}", "other"), fc.nat(2)),
    { maxLength: 4 },
  ),
  junk: fc.constantFrom("", "", "&", "&&=", "&%zz", "&q", "&=x"),
});

function templateOf(stub: RefStub): string {
  return "/" + stub.pieces.map((piece) => "param" in piece ? `{${piece.param}}` : piece.literal).join("/");
}

/** The raw request path and query for a spec: built on a stub's template, or random. */
function requestOf(stubs: readonly RefStub[], spec: RequestSpec): { method: string; path: string; query: string } {
  let method = spec.method === "stub" ? "GET" : spec.method;
  let pieces: string[];
  const pairs = spec.query.slice();
  if (spec.from !== undefined && stubs.length > 0) {
    const stub = stubs[spec.from % stubs.length];
    if (spec.method === "stub") method = stub.method;
    pieces = stub.pieces.map((piece, i) => "param" in piece ? spec.fills[i % spec.fills.length] : piece.literal);
    if (spec.satisfy) {
      stub.query.forEach(([name, literal], i) => pairs.splice(i, 0, [name, literal ?? spec.fills[i], i % 3]));
    }
  } else pieces = spec.fills.slice();
  if (spec.trailing === "add") pieces.push("");
  if (spec.trailing === "drop" && pieces.length > 1 && pieces.at(-1) === "") pieces.pop();
  const query = pairs.map(([name, value, how]) => `${encodeQueryPart(name, how)}=${encodeQueryPart(value, how)}`)
    .join("&") + spec.junk;
  return { method, path: "/" + pieces.join("/"), query };
}

/** The router's input for a stub: the template and query as the product validates them. */
function routableOf(stub: RefStub, order: number): Route {
  const query = Object.create(null) as Record<string, string>;
  for (const [name, literal] of stub.query) query[name] = literal ?? `{q_${name.replace(/\W/g, "_")}}`;
  const { stub: valid, errors } = validateStub({
    method: stub.method,
    path: templateOf(stub),
    ...(stub.query.length ? { query_params: query } : {}),
  });
  assert.deepEqual(errors, [], templateOf(stub));
  return new Route(valid!, { id: String(order), source: "api", batch: 0, order });
}

/** A request as the router reads it. */
function viewOf(method: string, path: string, query: string): RequestView {
  return new RequestView({ header: () => null } as unknown as Incoming, method, path, query);
}

/** The router's answer, or undefined (a query-only stub set never asks for the body). */
function matchOf(router: Router<Route>, method: string, path: string, query: string) {
  const found = router.match(viewOf(method, path, query));
  assert.notEqual(found, NEED_BODY);
  return found === NEED_BODY ? undefined : found;
}

// ---------------------------------------------------------------- properties

Deno.test("property: the trie router picks the same stub and captures as the brute-force reference", () => {
  let matched = 0;
  fc.assert(
    fc.property(
      fc.array(stubArb, { maxLength: 10 }),
      fc.array(requestArb, { minLength: 1, maxLength: 8 }),
      (stubs, requests) => {
        const router = new Router<Route>();
        stubs.forEach((stub, i) => router.add(routableOf(stub, i)));
        for (const spec of requests) {
          const { method, path, query } = requestOf(stubs, spec);
          const expected = referenceMatch(stubs, method, path, query);
          const found = matchOf(router, method, path, query);
          const actual = found && { order: found.route.order, values: [...found.values] };
          if (expected) matched++;
          assert.deepEqual(actual, expected, `${method} ${path}?${query} against ${stubs.map(templateOf)}`);
        }
      },
    ),
    { numRuns: RUNS, seed: SEED },
  );
  // The generators must make matches common, or the property says little.
  assert.ok(matched > RUNS, `only ${matched} requests matched`);
});

Deno.test("property: the order stubs are added in does not matter, only their declared order", () => {
  fc.assert(
    fc.property(
      fc.array(stubArb, { minLength: 1, maxLength: 8 }).chain((stubs) =>
        fc.tuple(fc.constant(stubs), fc.shuffledSubarray(stubs.map((_, i) => i), { minLength: stubs.length }))
      ),
      fc.array(requestArb, { minLength: 1, maxLength: 6 }),
      ([stubs, permutation], requests) => {
        const inOrder = new Router<Route>();
        const shuffled = new Router<Route>();
        stubs.forEach((stub, i) => inOrder.add(routableOf(stub, i)));
        for (const i of permutation) shuffled.add(routableOf(stubs[i], i));
        for (const spec of requests) {
          const { method, path, query } = requestOf(stubs, spec);
          const a = matchOf(inOrder, method, path, query);
          const b = matchOf(shuffled, method, path, query);
          assert.deepEqual(b && [b.route.order, [...b.values]], a && [a.route.order, [...a.values]]);
        }
      },
    ),
    { numRuns: RUNS / 2, seed: SEED },
  );
});

const REASON =
  /^(method differs \(stub is [A-Z]+\)|segment \d+ is (empty|'.*'|".*"), stub has ('.*'|".*")|trailing slash \(stub has (one|none)\)|missing query parameter '.*'|query parameter '.*' is ('.*'|".*")( \(and \d+ more\))?, stub wants ('.*'|".*"))$/s;

Deno.test("property: a miss is explained by at most 3 distinct stubs, each with a known reason", () => {
  fc.assert(
    fc.property(fc.array(stubArb, { maxLength: 10 }), requestArb, (stubs, spec) => {
      const router = new Router<Route>();
      stubs.forEach((stub, i) => router.add(routableOf(stub, i)));
      const { method, path, query } = requestOf(stubs, spec);
      if (matchOf(router, method, path, query)) return;
      const misses = router.nearMisses(viewOf(method, path, query));
      if (misses === NEED_BODY) throw new Error("a query-only stub set asked for the body");
      assert.ok(misses.length <= 3);
      assert.equal(new Set(misses.map((m) => m.route)).size, misses.length, "no stub twice");
      for (const miss of misses) assert.match(miss.reason, REASON);
    }),
    { numRuns: RUNS, seed: SEED },
  );
});

// ---------------------------------------------------------------- substitution

/** Text that looks like code or templates: none of it may be evaluated or substituted again. */
const TRICKY = [
  "{other}",
  "{id}",
  "{q}",
  "{{id}}",
  "${id}",
  "${globalThis.x=1}",
  "__proto__",
  "constructor",
  "{__proto__}",
  '"',
  "\\",
  "\\u0041",
  "</script>",
  "%",
  "é",
  "😀",
  "{",
  "}",
  "\r\nx-evil: 1",
  "\u0000",
  "\u0001",
  "\t",
  "ÿ",
];
const trickyText = fc.array(fc.oneof(fc.constantFrom(...TRICKY), fc.string({ maxLength: 4 })), { maxLength: 4 })
  .map((parts) => parts.join(""));
/** A captured value: never empty (a placeholder needs a segment), never `.`/`..` (URLs resolve them). */
const captureArb = trickyText.filter((text) => text !== "" && text !== "." && text !== "..");

/** Body text mentioning known and unknown placeholders. */
const bodyText = fc.array(fc.oneof(fc.constantFrom(...TRICKY, "{id}", "{q}"), fc.string({ maxLength: 3 })), {
  maxLength: 4,
}).map((parts) => parts.join(""));

const bodyArb: fc.Arbitrary<unknown> = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    bodyText,
    fc.integer(),
    fc.boolean(),
    fc.constant(null),
    fc.array(tie("value"), { maxLength: 3 }),
    fc.dictionary(bodyText, tie("value"), { maxKeys: 3 }),
  ),
})).value;

/** The reference substitution: one pass over each string; a key is never a template. */
function substitute(value: unknown, captures: Record<string, string>): unknown {
  if (typeof value === "string") {
    return value.replace(
      /\{([A-Za-z0-9_]+)\}/g,
      (whole, name) => Object.hasOwn(captures, name) ? captures[name] : whole,
    );
  }
  if (Array.isArray(value)) return value.map((item) => substitute(item, captures));
  if (typeof value === "object" && value !== null) {
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) {
      Object.defineProperty(out, key, { value: substitute(item, captures), enumerable: true, writable: true });
    }
    return out;
  }
  return value;
}

/** JSON.parse that keeps `__proto__` as a plain key (it does already: own data property). */
const parse = (text: string): unknown => JSON.parse(text);

Deno.test("property: captured text goes into body strings literally; keys are untouched; nothing is evaluated", async () => {
  const marker = globalThis as { x?: unknown };
  await fc.assert(
    fc.asyncProperty(bodyArb, captureArb, captureArb, async (body, id, q) => {
      const stub = (get("/e/{id}?q={q}") as StubBuilder).body(body).toStub();
      const handler = new StubHandler([stub]);
      const target = `/e/${encodeURIComponent(id)}?q=${encodeURIComponent(q)}`;
      const response = await handler.fetch(new Request("http://stub" + target));
      assert.equal(response.status, 200, target);
      assert.deepEqual(parse(await response.text()), substitute(body, { id, q }));
    }),
    { numRuns: RUNS, seed: SEED },
  );
  assert.equal(marker.x, undefined, "no captured text was evaluated");
  assert.equal(({} as Record<string, unknown>).x, undefined, "no prototype was touched");
});

Deno.test("property: a header template gets the captured text literally, or a 500 for that request only", async () => {
  await fc.assert(
    // The builder accepts only header text without control characters (tab aside) or characters past U+00FF.
    fc.asyncProperty(
      bodyText.filter((t) => !HEADER_VALUE_FORBIDDEN.test(t) && !/[\u0100-\uffff]/.test(t)),
      captureArb,
      async (template, id) => {
        const handler = new StubHandler([get("/h/{id}").header("x-v", template).body("ok").toStub()]);
        const sent = encodeURIComponent(id);
        const response = await handler.fetch(new Request(`http://stub/h/${sent}`));
        // Header values take a path capture as it was sent, percent-encoded (issue: a decoded
        // capture changed a Location's meaning or could not be sent at all).
        const expected = substitute(template, { id: sent }) as string;
        await response.body?.cancel();
        if (HEADER_VALUE_FORBIDDEN.test(expected) || /[\u0100-\uffff]/.test(expected)) {
          assert.equal(response.status, 500, JSON.stringify(expected));
        } else {
          assert.equal(response.status, 200, JSON.stringify(expected));
          // Headers trim surrounding whitespace, as HTTP does.
          assert.equal(response.headers.get("x-v"), expected.replace(/^[\t ]+|[\t ]+$/g, ""));
        }
      },
    ),
    { numRuns: RUNS, seed: SEED },
  );
});
