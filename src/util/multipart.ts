/**
 * Multipart bodies (`multipart/form-data`, `multipart/mixed`, any `multipart/*`): the boundary
 * a content type names, and a bounded parse of the body into parts (headers, then the bytes of
 * each part). A body that is not well formed gives a problem, never an exception.
 * @module
 */

/** More parts than this and a body is not parsed (a condition on it does not hold). */
export const MAX_MULTIPART_PARTS = 1000;
/** The header block of one part may take at most this many bytes. */
export const MAX_PART_HEADER_BYTES = 16 * 1024;
/** A boundary longer than this is not read (RFC 2046 allows 70 characters). */
const MAX_BOUNDARY = 200;

/** One part of a multipart body. */
export interface MultipartPart {
  /** Its header lines in order: name lower-cased, value trimmed (folded lines joined by a space). */
  readonly headers: readonly (readonly [name: string, value: string])[];
  /** Its body, the bytes between the blank line after its headers and the next delimiter. */
  readonly body: Uint8Array;
}

/** The parts of a body, or why it could not be read. */
export type MultipartParse = { parts: MultipartPart[] } | { problem: string };

/**
 * The boundary of a `multipart/*` content type (type and parameter name in any case; a quoted
 * value without its quotes and escapes), or undefined when the type is not multipart or names
 * no usable boundary.
 *
 * @example
 * ```ts
 * import { multipartBoundary } from "./multipart.ts";
 * multipartBoundary('multipart/form-data; boundary="q b"'); // "q b"
 * multipartBoundary("text/plain; boundary=x"); // undefined
 * ```
 */
export function multipartBoundary(contentType: string | null): string | undefined {
  if (contentType === null) return undefined;
  const semi = contentType.indexOf(";");
  const type = (semi === -1 ? contentType : contentType.slice(0, semi)).trim().toLowerCase();
  if (!type.startsWith("multipart/") || semi === -1) return undefined;
  const params = contentType.slice(semi + 1);
  let i = 0;
  while (i < params.length) {
    const eq = params.indexOf("=", i);
    if (eq === -1) return undefined;
    const name = params.slice(i, eq).replace(/^[\s;]+/, "").trim().toLowerCase();
    let value: string;
    let j = eq + 1;
    while (params[j] === " " || params[j] === "\t") j++;
    if (params[j] === '"') {
      value = "";
      for (j++; j < params.length && params[j] !== '"'; j++) {
        value += params[j] === "\\" ? params[++j] ?? "" : params[j];
      }
      j = params.indexOf(";", j);
    } else {
      const end = params.indexOf(";", j);
      value = (end === -1 ? params.slice(j) : params.slice(j, end)).trim();
      j = end;
    }
    if (name === "boundary") return value !== "" && value.length <= MAX_BOUNDARY ? value : undefined;
    if (j === -1) return undefined;
    i = j + 1;
  }
  return undefined;
}

// One character per byte, so indexes in the text are indexes in the bytes.
const bytewise = new TextDecoder("latin1");
const utf8 = new TextDecoder();

/**
 * Splits a body on `boundary`. The first delimiter (`--boundary` followed by CRLF, or by `--`
 * for a body of no parts) may follow a preamble; each part is header lines, a blank line and
 * its data up to CRLF `--boundary`, which ends the body when `--` or the end of the body
 * follows and starts another part when CRLF does (anything else after it is data). Lines end
 * in CRLF; a header line that starts with a space or tab continues the one before; the
 * epilogue is ignored. More than `maxParts` parts, a header block over
 * {@link MAX_PART_HEADER_BYTES} or a body without its last delimiter is a problem.
 *
 * @example
 * ```ts
 * import { parseMultipart } from "./multipart.ts";
 * const body = new TextEncoder().encode('--B\r\nContent-Disposition: form-data; name="a"\r\n\r\nhi\r\n--B--\r\n');
 * const parsed = parseMultipart(body, "B");
 * // { parts: [{ headers: [["content-disposition", 'form-data; name="a"']], body: Uint8Array "hi" }] }
 * ```
 */
export function parseMultipart(bytes: Uint8Array, boundary: string, maxParts = MAX_MULTIPART_PARTS): MultipartParse {
  const text = bytewise.decode(bytes);
  const dash = "--" + boundary;
  // The first delimiter: anywhere (a preamble before it), followed by CRLF or `--`.
  let at = -1;
  for (let from = 0;;) {
    at = text.indexOf(dash, from);
    if (at === -1) return { problem: `the body has no --${boundary} line` };
    const after = text.slice(at + dash.length, at + dash.length + 2);
    if (after === "\r\n" || after === "--") break;
    from = at + 1;
  }
  const parts: MultipartPart[] = [];
  let pos = at + dash.length;
  const delimiter = "\r\n" + dash;
  while (text.startsWith("\r\n", pos)) {
    if (parts.length === maxParts) return { problem: `the body has more than ${maxParts} parts` };
    pos += 2;
    let headers: [string, string][] = [];
    let start: number;
    if (text.startsWith("\r\n", pos)) start = pos + 2;
    else {
      const end = text.indexOf("\r\n\r\n", pos);
      if (end === -1 || end - pos > MAX_PART_HEADER_BYTES) {
        return {
          problem: end === -1
            ? `part ${parts.length + 1} has no blank line after its headers`
            : `part ${parts.length + 1} has more than ${MAX_PART_HEADER_BYTES} bytes of headers`,
        };
      }
      headers = headerLines(utf8.decode(bytes.subarray(pos, end)));
      start = end + 4;
    }
    // The next delimiter: CRLF --boundary followed by CRLF, `--` or the end of the body.
    let next = start - 2;
    for (;;) {
      next = text.indexOf(delimiter, next);
      if (next === -1) return { problem: `part ${parts.length + 1} does not end with a --${boundary} line` };
      const after = text.slice(next + delimiter.length, next + delimiter.length + 2);
      if (after === "\r\n" || after === "--" || after === "") break;
      next++;
    }
    // The CRLF before a delimiter belongs to it; a part whose data is empty has the delimiter right after its headers.
    parts.push({ headers, body: bytes.subarray(start, Math.max(start, next)) });
    pos = next + delimiter.length;
  }
  return { parts };
}

/** A part's header block as [lower-case name, trimmed value] pairs; a folded line joins the one before. */
function headerLines(block: string): [string, string][] {
  const out: [string, string][] = [];
  for (const line of block.split("\r\n")) {
    if ((line.startsWith(" ") || line.startsWith("\t")) && out.length) {
      const last = out[out.length - 1];
      last[1] = `${last[1]} ${line.trim()}`.trim();
      continue;
    }
    const colon = line.indexOf(":");
    if (colon <= 0) continue;
    out.push([line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim()]);
  }
  return out;
}

/**
 * The field name of a part whose `Content-Disposition` is `form-data` with a non-empty `name`
 * (quoted or not), or undefined: the parts a form field reader (and WireMock) sees.
 *
 * @example
 * ```ts
 * import { formFieldName } from "./multipart.ts";
 * formFieldName('form-data; name="file"; filename="a.txt"'); // "file"
 * formFieldName("attachment; name=x"); // undefined
 * ```
 */
export function formFieldName(disposition: string | undefined): string | undefined {
  if (disposition === undefined) return undefined;
  const [type, ...params] = disposition.split(";");
  if (type.trim().toLowerCase() !== "form-data") return undefined;
  for (const param of params) {
    const eq = param.indexOf("=");
    if (eq === -1 || param.slice(0, eq).trim().toLowerCase() !== "name") continue;
    let value = param.slice(eq + 1).trim();
    if (value.length >= 2 && value.startsWith('"') && value.endsWith('"')) value = value.slice(1, -1);
    return value === "" ? undefined : value;
  }
  return undefined;
}
