/**
 * The XML conditions of `request:`: `xml_equals` (+ `xml_placeholders`, `xml_ignore`) and
 * `xpath` (+ `xpath_namespaces`), checked and compiled at load.
 * @module
 */

import type { RequestMatch, XPathCheck } from "./model.ts";
import { compileValuePattern } from "./patterns.ts";
import {
  compileXmlEquals,
  XML_COMPARISONS,
  type XmlComparison,
  type XmlDelimiters,
  type XmlEquals,
} from "./xml_equal.ts";
import { compileXPath } from "../templating/xpath.ts";
import { isObject } from "../util/json_shape.ts";

function shown(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "a list";
  if (typeof value === "object") return "a mapping";
  return typeof value === "string" ? JSON.stringify(value) : String(value);
}

/** `xml_equals` with its `xml_placeholders` and `xml_ignore`, at `place` (`request`, or an xpath entry). */
function xmlEquals(
  place: string,
  spec: { xml_equals?: unknown; xml_placeholders?: unknown; xml_ignore?: unknown },
  errors: string[],
): XmlEquals | undefined {
  const { xml_equals: doc, xml_placeholders: placeholders, xml_ignore: ignore } = spec;
  let ok = true;
  let delimiters: boolean | XmlDelimiters = false;
  if (placeholders !== undefined) {
    if (typeof placeholders === "boolean") delimiters = placeholders;
    else if (
      isObject(placeholders) && typeof placeholders.open === "string" && typeof placeholders.close === "string" &&
      placeholders.open !== "" && placeholders.close !== "" && Object.keys(placeholders).length === 2
    ) delimiters = { open: placeholders.open, close: placeholders.close };
    else {
      errors.push(
        `${place}.xml_placeholders must be true, false or {open: REGEX, close: REGEX} (the delimiters), got ${
          shown(placeholders)
        }`,
      );
      ok = false;
    }
    if (doc === undefined) {
      errors.push(`${place}.xml_placeholders applies to xml_equals; add xml_equals or remove it`);
      ok = false;
    }
  }
  let comparisons: XmlComparison[] = [];
  if (ignore !== undefined) {
    if (!Array.isArray(ignore) || ignore.some((v) => !(XML_COMPARISONS as readonly unknown[]).includes(v))) {
      errors.push(`${place}.xml_ignore must be a list of ${XML_COMPARISONS.join(", ")}, got ${shown(ignore)}`);
      ok = false;
    } else if (doc === undefined) {
      errors.push(`${place}.xml_ignore relaxes xml_equals; add xml_equals or remove xml_ignore`);
      ok = false;
    } else comparisons = ignore as XmlComparison[];
  }
  if (doc === undefined) return undefined;
  if (typeof doc !== "string" || doc.trim() === "") {
    errors.push(`${place}.xml_equals must be an XML document (text), got ${shown(doc)}`);
    return undefined;
  }
  const { value, problem } = compileXmlEquals(doc, delimiters, comparisons);
  if (!value) {
    errors.push(`${place}.xml_equals ${problem}`);
    return undefined;
  }
  return ok ? value : undefined;
}

/** `request.xml_equals` (+ `xml_placeholders`, `xml_ignore`). */
export function compileXmlConditions(
  request: Record<string, unknown>,
  match: RequestMatch,
  written: Record<string, unknown>,
  errors: string[],
): void {
  if (request.xml_equals !== undefined || request.xml_placeholders !== undefined || request.xml_ignore !== undefined) {
    const value = xmlEquals("request", request, errors);
    if (value) match.xmlEquals = value;
    for (const key of ["xml_equals", "xml_placeholders", "xml_ignore"]) {
      if (request[key] !== undefined) written[key] = request[key];
    }
  }
  compileXPathConditions(request.xpath, request.xpath_namespaces, match, written, errors);
}

/** `request.xpath`: expressions to `true`, a value pattern or `{xml_equals}`; `xpath_namespaces`: prefix → URI. */
function compileXPathConditions(
  spec: unknown,
  namespaces: unknown,
  match: RequestMatch,
  written: Record<string, unknown>,
  errors: string[],
): void {
  let ns: Record<string, string> | undefined;
  if (namespaces !== undefined) {
    if (
      !isObject(namespaces) || Object.keys(namespaces).length === 0 ||
      Object.entries(namespaces).some(([k, v]) => typeof v !== "string" || v === "" || !/^[A-Za-z_][\w.-]*$/.test(k))
    ) {
      errors.push(`request.xpath_namespaces must be a mapping of prefixes to namespace URIs, got ${shown(namespaces)}`);
      return;
    }
    if (spec === undefined) {
      errors.push("request.xpath_namespaces applies to request.xpath; add xpath or remove it");
      return;
    }
    ns = namespaces as Record<string, string>;
    written.xpath_namespaces = namespaces;
  }
  if (spec === undefined) return;
  if (!isObject(spec) || Object.keys(spec).length === 0) {
    errors.push(
      `request.xpath must be a mapping of XPath expressions to true (found), a value pattern or {xml_equals: DOC}, got ${
        shown(spec)
      }`,
    );
    return;
  }
  const list: [ReturnType<typeof compileXPath>["xpath"] & object, XPathCheck][] = [];
  for (const [expression, check] of Object.entries(spec)) {
    const place = `request.xpath.${expression}`;
    const { xpath, problem } = compileXPath(expression, ns);
    if (!xpath) {
      errors.push(`${place} ${problem}`);
      continue;
    }
    const compiled = xPathCheck(place, check, errors);
    if (compiled !== undefined) list.push([xpath, compiled]);
  }
  match.xpath = list;
  written.xpath = spec;
}

/** The check of one `request.xpath` entry at `place`: `true` (found), `{xml_equals…}` or a value pattern. */
function xPathCheck(place: string, check: unknown, errors: string[]): XPathCheck | undefined {
  if (check === true) return "present";
  if (isObject(check) && Object.hasOwn(check, "xml_equals")) {
    const extra = Object.keys(check).filter((k) => !["xml_equals", "xml_placeholders", "xml_ignore"].includes(k));
    if (extra.length) {
      errors.push(`${place}: xml_equals takes xml_placeholders and xml_ignore only, got ${extra.join(", ")}`);
      return undefined;
    }
    const value = xmlEquals(place, check, errors);
    return value ? { xmlEquals: value } : undefined;
  }
  const { pattern, problem: bad } = compileValuePattern(check);
  if (!pattern) errors.push(`${place} must be true (found), {xml_equals: DOC} or a value pattern: ${bad}`);
  else if (pattern.names.length) {
    errors.push(`${place} captures nothing: leave out {name} placeholders and named groups`);
  } else if (pattern.multi) {
    errors.push(`${place} cannot use has_exactly or includes: any one of several results may match; use any`);
  } else return pattern;
  return undefined;
}
