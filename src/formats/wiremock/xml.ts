/**
 * WireMock's XML body patterns as stubtool conditions: `equalToXml` (+ `enablePlaceholders`,
 * custom placeholder delimiters, `exemptedComparisons`, `namespaceAwareness: STRICT`) as
 * `xml_equals` (+ `xml_placeholders`, `xml_ignore`); `matchesXPath` (an expression, or
 * `{expression, <matcher>}`, with `xPathNamespaces`) as an `xpath` entry (+ `xpath_namespaces`).
 * What stubtool cannot do as WireMock does is refused with the reason.
 * @module
 */

import { javaRegexToJs } from "./regex.ts";
import { isObject } from "../../util/json_shape.ts";
import { compileXmlEquals, XML_COMPARISONS, type XmlComparison, type XmlDelimiters } from "../../stubs/xml_equal.ts";
import { compileXPath, givesText } from "../../templating/xpath.ts";

/** What the converter of a mapping lends this one. */
export interface XmlContext {
  refuse(feature: string, why: string): void;
  /** One WireMock string matcher (`equalTo`, `contains`, `matches`, …) as a stubtool value pattern, or undefined (refused). */
  valuePattern(place: string, matcher: Record<string, unknown>): unknown;
}

const EQUAL_TO_XML_KEYS = [
  "equalToXml",
  "enablePlaceholders",
  "placeholderOpeningDelimiterRegex",
  "placeholderClosingDelimiterRegex",
  "exemptedComparisons",
  "namespaceAwareness",
  "ignoreOrderOfSameNode",
];

function shown(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "a list";
  if (typeof value === "object") return "an object";
  return typeof value === "string" ? JSON.stringify(value) : String(value);
}

/** A Java regex as JavaScript (no DOTALL, as `Pattern.compile` without flags), or undefined (refused). */
function javaRegex(feature: string, source: string, ctx: XmlContext): string | undefined {
  const js = javaRegexToJs(source, false);
  if ("problem" in js) {
    ctx.refuse(feature, `the Java pattern ${shown(source)} uses ${js.problem}`);
    return undefined;
  }
  return js.source;
}

/** The document of an `equalToXml` whose options stubtool takes, or undefined (refused). */
function equalToXmlDocument(
  feature: string,
  pattern: Record<string, unknown>,
  ctx: XmlContext,
): string | undefined {
  for (const key of Object.keys(pattern)) {
    if (!EQUAL_TO_XML_KEYS.includes(key)) {
      ctx.refuse(`${feature} ${key}`, "expected equalToXml with its own options only");
      return undefined;
    }
  }
  const doc = pattern.equalToXml;
  if (typeof doc !== "string") {
    ctx.refuse(feature, `expected the XML document as text, got ${shown(doc)}`);
    return undefined;
  }
  const awareness = pattern.namespaceAwareness;
  if (awareness !== undefined && awareness !== null && awareness !== "STRICT") {
    ctx.refuse(
      `${feature} namespaceAwareness: ${shown(awareness)}`,
      "stubtool compares namespace URIs as WireMock's default and STRICT do (LEGACY and NONE read prefixes as part of names)",
    );
    return undefined;
  }
  if (pattern.ignoreOrderOfSameNode === true) {
    ctx.refuse(
      `${feature} ignoreOrderOfSameNode`,
      "stubtool keeps elements of the same name in order (WireMock then sorts them by their text)",
    );
    return undefined;
  }
  return doc;
}

/**
 * `enablePlaceholders` (+ custom delimiters) as the document to compare (its
 * `${xmlunit.matchesRegex(…)}` regexes written as JavaScript) and `xml_placeholders`;
 * undefined when refused.
 */
function xmlPlaceholders(
  feature: string,
  doc: string,
  pattern: Record<string, unknown>,
  ctx: XmlContext,
): { doc: string; delimiters: true | XmlDelimiters } | undefined {
  const open = pattern.placeholderOpeningDelimiterRegex, close = pattern.placeholderClosingDelimiterRegex;
  if (open !== undefined || close !== undefined) {
    const jsOpen = javaRegex(
      `${feature} placeholderOpeningDelimiterRegex`,
      typeof open === "string" ? open : "\\$\\{",
      ctx,
    );
    const jsClose = javaRegex(
      `${feature} placeholderClosingDelimiterRegex`,
      typeof close === "string" ? close : "\\}",
      ctx,
    );
    if (jsOpen === undefined || jsClose === undefined) return undefined;
    if (doc.includes("xmlunit.matchesRegex")) {
      ctx.refuse(
        `${feature} matchesRegex`,
        "stubtool reads ${xmlunit.matchesRegex(…)} with the default delimiters only",
      );
      return undefined;
    }
    return { doc, delimiters: { open: jsOpen, close: jsClose } };
  }
  // The regex of ${xmlunit.matchesRegex(RE)} is Java's: written as JavaScript for stubtool.
  let failed = false;
  const written = doc.replace(
    /(\$\{\s*xmlunit\.matchesRegex\()(.*)(\)\s*\})/g,
    (_, a: string, re: string, b: string) => {
      const js = failed ? undefined : javaRegex(`${feature} \${xmlunit.matchesRegex(${re})}`, re, ctx);
      if (js === undefined) failed = true;
      return a + (js ?? re) + b;
    },
  );
  return failed ? undefined : { doc: written, delimiters: true };
}

/** `exemptedComparisons` as `xml_ignore` (lower case, each once), or undefined (refused). */
function exemptedComparisons(
  feature: string,
  list: unknown,
  ctx: XmlContext,
): XmlComparison[] | undefined {
  if (list === undefined || list === null) return [];
  const names = Array.isArray(list) ? list.map((v) => typeof v === "string" ? v.toLowerCase() : v) : undefined;
  if (!names || names.some((n) => !(XML_COMPARISONS as readonly unknown[]).includes(n))) {
    ctx.refuse(`${feature} exemptedComparisons`, `expected a list of XMLUnit comparison types, got ${shown(list)}`);
    return undefined;
  }
  return [...new Set(names as XmlComparison[])];
}

/**
 * `equalToXml` and its options as `{xml_equals, xml_placeholders?, xml_ignore?}`; undefined
 * when refused. `feature` names the place in warnings (`bodyPatterns[0] equalToXml`).
 */
export function equalToXmlCondition(
  feature: string,
  pattern: Record<string, unknown>,
  ctx: XmlContext,
): Record<string, unknown> | undefined {
  const doc = equalToXmlDocument(feature, pattern, ctx);
  if (doc === undefined) return undefined;
  const out: Record<string, unknown> = { xml_equals: doc };
  if (pattern.enablePlaceholders === true) {
    const placeholders = xmlPlaceholders(feature, doc, pattern, ctx);
    if (!placeholders) return undefined;
    out.xml_equals = placeholders.doc;
    out.xml_placeholders = placeholders.delimiters;
  }
  const ignore = exemptedComparisons(feature, pattern.exemptedComparisons, ctx);
  if (!ignore) return undefined;
  if (ignore.length) out.xml_ignore = ignore;
  const { problem } = compileXmlEquals(
    out.xml_equals as string,
    (out.xml_placeholders ?? false) as boolean | XmlDelimiters,
    ignore,
  );
  if (problem) {
    ctx.refuse(feature, `the expected document ${problem}`);
    return undefined;
  }
  return out;
}

/**
 * `matchesXPath` (+ `xPathNamespaces`) as `[expression, check, namespaces?]` for `xpath`;
 * undefined when refused.
 */
export function matchesXPathCondition(
  place: string,
  pattern: Record<string, unknown>,
  ctx: XmlContext,
): [string, unknown, Record<string, string> | undefined] | undefined {
  const feature = `${place} matchesXPath`;
  const extra = Object.keys(pattern).filter((k) => k !== "matchesXPath" && k !== "xPathNamespaces");
  if (extra.length) {
    ctx.refuse(`${feature} + ${extra.join(", ")}`, "expected matchesXPath with xPathNamespaces only");
    return undefined;
  }
  let namespaces: Record<string, string> | undefined;
  const ns = pattern.xPathNamespaces;
  if (ns !== undefined && ns !== null) {
    if (!isObject(ns) || Object.values(ns).some((v) => typeof v !== "string" || v === "")) {
      ctx.refuse(`${feature} xPathNamespaces`, `expected an object of prefix → namespace URI, got ${shown(ns)}`);
      return undefined;
    }
    if (Object.keys(ns).length) namespaces = ns as Record<string, string>;
  }
  const spec = pattern.matchesXPath;
  const expression = typeof spec === "string" ? spec : isObject(spec) ? spec.expression : undefined;
  if (typeof expression !== "string" || expression.trim() === "") {
    ctx.refuse(feature, `expected an XPath expression, got ${shown(expression)}`);
    return undefined;
  }
  const { xpath, problem } = compileXPath(expression, namespaces);
  if (!xpath) {
    ctx.refuse(feature, `the expression ${shown(expression)} ${problem} (WireMock never matches it)`);
    return undefined;
  }
  if (typeof spec === "string") return [expression, true, namespaces];
  const { expression: _, ...matcher } = spec as Record<string, unknown>;
  const check = xPathCheck(feature, expression, xpath.scalar || givesText(expression), matcher, ctx);
  return check === undefined ? undefined : [expression, check, namespaces];
}

/**
 * The matcher of `matchesXPath: {expression, <matcher>}` as the check of an `xpath` entry
 * (`true`, `{xml_equals…}` or a value pattern); undefined when refused. `text` tells whether the
 * expression gives text (a scalar, `text()`, an attribute) rather than elements.
 */
function xPathCheck(
  feature: string,
  expression: string,
  text: boolean,
  matcher: Record<string, unknown>,
  ctx: XmlContext,
): unknown {
  const kind = Object.keys(matcher).find((k) => k !== "caseInsensitive") ?? "";
  if (kind === "") return true;
  if (kind === "equalToXml") {
    if (text) {
      ctx.refuse(
        `${feature} equalToXml`,
        "WireMock parses the text found as a document; stubtool's xpath compares elements with xml_equals",
      );
      return undefined;
    }
    return equalToXmlCondition(`${feature} equalToXml`, matcher, ctx);
  }
  if (kind === "absent") {
    ctx.refuse(
      `${feature} absent`,
      "WireMock never matches it (nothing found is a miss, and a value found is not absent)",
    );
    return undefined;
  }
  if (!["equalTo", "contains", "doesNotContain", "matches", "doesNotMatch", "and", "or"].includes(kind)) {
    ctx.refuse(
      `${feature} ${kind}`,
      "stubtool's xpath takes equalTo, contains, doesNotContain, matches, doesNotMatch, and, or and equalToXml",
    );
    return undefined;
  }
  if (!text) {
    ctx.refuse(
      `${feature} ${kind}`,
      `WireMock compares an element found as its JDK-indented XML text, which stubtool does not reproduce byte for byte; select text() or an attribute (${expression}/text())`,
    );
    return undefined;
  }
  return ctx.valuePattern(feature, matcher);
}

/** An `xPath` / `soapXPath` call in a template, with its expression when written as text. */
const XPATH_CALL = /\b(xPath|soapXPath)\b(?:\s+(?:[^\s'"(){}]+|\([^()]*\))\s+(?:'([^']*)'|"([^"]*)"))?/g;

/**
 * The problems of WireMock 3's `xPath` / `soapXPath` helpers in a template's text (body, header
 * values): each call needs a literal expression that gives text, an attribute or a number,
 * string or boolean. An expression that may give elements is refused: WireMock renders an
 * element as the JDK's indented XML text, which stubtool does not reproduce byte for byte.
 */
export function xPathHelperProblems(template: string): { feature: string; problem: string }[] {
  const problems: { feature: string; problem: string }[] = [];
  for (const match of template.matchAll(XPATH_CALL)) {
    const [, name] = match;
    // Only calls inside {{…}}: an even count of "{{" minus "}}" before it means plain text.
    const before = template.slice(0, match.index);
    if ((before.match(/\{\{/g)?.length ?? 0) <= (before.match(/\}\}/g)?.length ?? 0)) continue;
    const written = match[2] ?? match[3];
    if (written === undefined) {
      problems.push({
        feature: `${name} (template)`,
        problem: "stubtool converts a call whose expression is written as text ('…'), so it can tell what it selects",
      });
      continue;
    }
    const expression = (name === "soapXPath" ? "/Envelope/Body/" : "") + written;
    const { xpath, problem } = compileXPath(expression);
    if (!xpath) {
      problems.push({ feature: `${name} ${shown(written)}`, problem: `the expression ${problem}` });
    } else if (!xpath.scalar && !givesText(expression)) {
      problems.push({
        feature: `${name} ${shown(written)}`,
        problem:
          `it may select elements, which WireMock renders as the JDK's indented XML text (not reproduced byte for byte); select text() or an attribute (${written}/text())`,
      });
    }
  }
  return problems;
}
