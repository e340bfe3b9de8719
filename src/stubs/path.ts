/**
 * Path templates (`/users/{id}?q={term}`) and request paths, both split into
 * percent-decoded segments so that the router compares like with like.
 * @module
 */

/** Paths under this prefix belong to stubtool itself. */
export const RESERVED_PREFIX = "/__stubtool__/";

/**
 * A template segment: literal text, a `{name}` placeholder that captures one segment, or
 * (last only) a `{name*}` catch-all that captures one or more remaining segments, or a
 * `{name**}` catch-all (`orNone`) that captures whatever follows, even nothing (so `/{all**}`
 * also matches `/`, and `/api/{all**}` matches `/api/` but not `/api`).
 */
export type Segment =
  | { param: false; value: string }
  | { param: true; name: string; rest?: boolean; orNone?: boolean };

/** A parsed path template. */
export interface PathTemplate {
  /**
   * Display form: decoded segments joined, placeholders as `{name}`, no query. A static
   * segment that holds a character the template syntax would misread (`/ ? # { }`, or a `%`
   * that would decode) keeps it percent-encoded, so parsing this form again gives the same
   * segments.
   */
  path: string;
  segments: Segment[];
  /** Query parameters from a `?query` part, when there is one. */
  query?: Record<string, string>;
}

const PLACEHOLDER = /^\{([A-Za-z0-9_]+)\}$/;
/** A catch-all segment: `{name*}` (one or more segments) or `{name**}` (zero or more). */
const CATCH_ALL = /^\{([A-Za-z0-9_]+)\*(\*?)\}$/;
/** A `{name}` placeholder anywhere in a string. */
export const PLACEHOLDER_ANYWHERE = /\{([A-Za-z0-9_]+)\}/g;

/** Decodes `%xx` escapes; a malformed escape is kept as written rather than rejected. */
export function decodeSegment(segment: string): string {
  if (!segment.includes("%")) return segment;
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/** Splits a request pathname (`/a/b%20c/`) into decoded segments (`["a", "b c", ""]`). */
export function splitRequestPath(pathname: string): string[] {
  const raw = pathname.slice(1).split("/");
  for (let i = 0; i < raw.length; i++) {
    if (raw[i].includes("%")) raw[i] = decodeSegment(raw[i]);
  }
  return raw;
}

const MISREAD_IN_SEGMENT = /[/?#{}\\\t\n\r]/;
const ENCODE_IN_SEGMENT = /[%/?#{}\\\t\n\r]/g;
/** Characters URL parsing rewrites (`\` becomes `/`) or drops, so a request never carries them raw. */
const REWRITTEN_BY_URL = /[\\\t\n\r]/;

/**
 * The display form of a decoded static segment: as is, unless parsing it again would read
 * it differently (`a/b` as two segments, `{id}` as a placeholder, `%41` as `A`); then `%`,
 * `/`, `?`, `#`, `{`, `}`, `\`, tab, CR and LF are percent-encoded.
 */
export function displaySegment(value: string): string {
  if (!MISREAD_IN_SEGMENT.test(value) && decodeSegment(value) === value) return value;
  return value.replace(ENCODE_IN_SEGMENT, (c) => "%" + c.charCodeAt(0).toString(16).toUpperCase().padStart(2, "0"));
}

/** A placeholder segment as written: `{name}`, `{name*}` or `{name**}`. */
export function placeholderText(segment: { name: string; rest?: boolean; orNone?: boolean }): string {
  return `{${segment.name}${segment.orNone ? "**" : segment.rest ? "*" : ""}}`;
}

/** Is this string the whole of a `{name}` placeholder? Returns the name. */
export function placeholderName(value: string): string | undefined {
  // Most values are not placeholders; tell them apart without running the regex.
  if (value.charCodeAt(0) !== 0x7b /* { */) return undefined;
  return PLACEHOLDER.exec(value)?.[1];
}

/**
 * A template of plain segments: whole-segment `{name}` placeholders, and literal segments
 * that are not empty, `.` or `..` and hold no character that is escaped, decoded,
 * rewritten or special to templates (`% { } ? # \\`, whitespace).
 */
const PLAIN_PATH = /^(?:\/(?:\{[A-Za-z0-9_]+\}|(?!\.\.?(?:\/|$))[\w.~!$&'()*+,;=:@-]+))+$/;
/** The problems of a plain template: shared, never written to. */
const NO_PROBLEMS: string[] = [];

/**
 * Parses a path template. Returns the template, or the problems that make it invalid,
 * each phrased as `path ...` so the caller can prefix the place.
 */
export function parsePathTemplate(raw: string): { template?: PathTemplate; problems: string[] } {
  const segments = plainSegments(raw);
  if (segments) return { template: { path: raw, segments, query: undefined }, problems: NO_PROBLEMS };
  return parseTemplateInFull(raw);
}

/**
 * The segments of a plain template (placeholders, and literal segments that need no
 * decoding and no checks: its own display path), or undefined for any other: the common
 * case, parsed in one split.
 */
export function plainSegments(raw: string): Segment[] | undefined {
  if (!PLAIN_PATH.test(raw) || raw.startsWith(RESERVED_PREFIX.slice(0, -1))) return undefined;
  // `/:id` and `/*` (other routers' syntax) get the full parse, which says what to write.
  if (raw.includes("/:") || raw.includes("/*")) return undefined;
  const segments: (string | Segment)[] = raw.slice(1).split("/");
  for (let k = 0; k < segments.length; k++) {
    const piece = segments[k] as string;
    if (piece.charCodeAt(0) !== 0x7b /* { */) {
      segments[k] = { param: false, value: piece };
      continue;
    }
    const name = piece.slice(1, -1);
    // A name used twice is an error the full parse explains.
    for (let j = 0; j < k; j++) {
      if ((segments[j] as Segment).param && (segments[j] as { name: string }).name === name) return undefined;
    }
    segments[k] = { param: true, name };
  }
  return segments as Segment[];
}

/**
 * A path piece that is not a placeholder, as a literal segment (decoded); other routers' `:id`
 * and `*` and a stray brace are problems and no segment, and so is one no URL can hold.
 */
function literalSegment(piece: string, problems: string[]): Segment | undefined {
  if (/^:[A-Za-z_][A-Za-z0-9_]*$/.test(piece)) {
    problems.push(`path segment '${piece}' is not a placeholder here: write {${piece.slice(1)}}`);
    return undefined;
  }
  if (piece === "*" || piece === "**") {
    problems.push(
      `path segment '${piece}' is not a wildcard here: write {rest*} as the last segment (it matches one or more segments)`,
    );
    return undefined;
  }
  if (piece.includes("{") || piece.includes("}")) {
    problems.push(
      `path segment '${piece}' is not a placeholder: write a whole segment as {name} (letters, digits, _)`,
    );
    return undefined;
  }
  const value = decodeSegment(piece);
  if (value === "." || value === "..") {
    problems.push(
      `path segment '${piece}' can never match: URLs resolve '.' and '..' segments before a request arrives`,
    );
  } else if (REWRITTEN_BY_URL.test(piece)) {
    problems.push(
      `path segment ${
        JSON.stringify(piece)
      } can never match: URLs turn '\\' into '/' and drop tabs and line breaks; write %5C, %09, %0A or %0D`,
    );
  }
  return { param: false, value };
}

/** The query part of a path template (`/search?q=1`) as required values; undefined when empty. */
function templateQuery(search: string, problems: string[]): Record<string, string> | undefined {
  const query = Object.create(null) as Record<string, string>;
  for (const [key, value] of new URLSearchParams(search)) {
    if (key === "") {
      problems.push(`path query part has an empty parameter name`);
    } else if (Object.hasOwn(query, key)) {
      problems.push(`path query parameter '${key}' appears twice`);
    } else query[key] = value;
  }
  return Object.keys(query).length === 0 ? undefined : query;
}

/**
 * {@link parsePathTemplate} without its shortcut for plain templates; exported so a test
 * can check that the shortcut gives the same result.
 * @internal
 */
export function parseTemplateInFull(raw: string): { template?: PathTemplate; problems: string[] } {
  const problems: string[] = [];
  if (!raw.startsWith("/")) {
    return { problems: [`path must start with '/', got ${JSON.stringify(raw)}`] };
  }
  if (raw.includes("#")) {
    return { problems: [`path must not contain '#' (fragments never reach a server)`] };
  }
  const queryStart = raw.indexOf("?");
  const pathPart = queryStart === -1 ? raw : raw.slice(0, queryStart);
  let names: Set<string> | undefined;
  // Each piece is replaced by its segment in place: the split array already has the right
  // size, and the stub keeps it (a fresh array grows to 16 slots on its first push).
  const segments: (string | Segment)[] = pathPart.slice(1).split("/");
  let count = 0;
  for (let k = 0; k < segments.length; k++) {
    const piece = segments[k] as string;
    const name = placeholderName(piece);
    const catchAll = name === undefined ? CATCH_ALL.exec(piece) : null;
    const rest = catchAll?.[1];
    if (name !== undefined || rest !== undefined) {
      const captured = (name ?? rest)!;
      names ??= new Set();
      if (names.has(captured)) problems.push(`path uses placeholder {${captured}} twice; give each one its own name`);
      names.add(captured);
      if (rest !== undefined && k !== segments.length - 1) {
        problems.push(`path segment '${piece}' must be the last one: ${piece} takes every segment after it`);
      }
      segments[count++] = rest === undefined
        ? { param: true, name: captured }
        : catchAll![2]
        ? { param: true, name: captured, rest: true, orNone: true }
        : { param: true, name: captured, rest: true };
    } else {
      const segment = literalSegment(piece, problems);
      if (segment) segments[count++] = segment;
    }
  }
  segments.length = count; // a piece with a stray brace is a problem, not a segment
  // Without a problem or a `%`, every piece displays as written: the display form is the path itself.
  const path = problems.length === 0 && !pathPart.includes("%")
    ? pathPart
    : "/" + (segments as Segment[]).map((s) => s.param ? placeholderText(s) : displaySegment(s.value)).join("/");
  if (path.startsWith(RESERVED_PREFIX) || path === RESERVED_PREFIX.slice(0, -1)) {
    problems.push(`path '${path}' is under ${RESERVED_PREFIX}, which stubtool reserves for itself`);
  }
  const query = queryStart === -1 ? undefined : templateQuery(raw.slice(queryStart + 1), problems);
  return problems.length ? { problems } : { template: { path, segments: segments as Segment[], query }, problems };
}
