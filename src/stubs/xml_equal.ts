/**
 * `xml_equals`: the body is this XML document, compared as WireMock 3's `equalToXml` does
 * (XMLUnit's comparison with WireMock's settings, as WireMock 3.13.2 was observed to answer):
 * whitespace between elements and around text does not matter, nor attribute order,
 * namespace prefixes, comments, or the order of child elements with different names;
 * elements of the same name keep their order. An element of the stub without a namespace
 * also matches one in a namespace. Text directly beside other content (mixed content) never
 * matches, as in WireMock. With placeholders, a text or attribute value that is exactly
 * `${xmlunit.ignore}`, `${xmlunit.isNumber}`, `${xmlunit.matchesRegex(RE)}` or
 * `${xmlunit.isDateTime}` accepts any value of that kind; `xml_ignore` leaves named XMLUnit
 * comparisons out.
 * @module
 */

import {
  attributes,
  CDATA,
  children,
  COMMENT,
  DOCTYPE,
  DOCUMENT,
  ELEMENT,
  parseXml,
  PI,
  TEXT,
  type XmlNode,
} from "../templating/xml.ts";
import { compileRegex, type LinearRegex } from "../util/regex.ts";
import { quoteValue } from "./quote.ts";

/** XMLUnit's comparison types that `xml_ignore` (WireMock's `exemptedComparisons`) may name, lower-cased. */
export const XML_COMPARISONS = [
  "attr_name_lookup",
  "attr_value",
  "child_lookup",
  "child_nodelist_length",
  "child_nodelist_sequence",
  "comment_value",
  "doctype_name",
  "doctype_public_id",
  "doctype_system_id",
  "element_num_attributes",
  "element_tag_name",
  "has_doctype_declaration",
  "namespace_prefix",
  "namespace_uri",
  "no_namespace_schema_location",
  "node_type",
  "processing_instruction_data",
  "processing_instruction_target",
  "schema_location",
  "text_value",
  "xml_encoding",
  "xml_standalone",
  "xml_version",
] as const;

/** One of {@link XML_COMPARISONS}. */
export type XmlComparison = typeof XML_COMPARISONS[number];

/** The placeholder keywords XMLUnit (and so WireMock) reads. */
export const XML_PLACEHOLDERS = ["ignore", "isNumber", "matchesRegex", "isDateTime"] as const;

/** Custom placeholder delimiters: regular expressions for the opening and closing marks (default `\$\{` and `\}`). */
export interface XmlDelimiters {
  readonly open: string;
  readonly close: string;
}

/** A text or attribute value of the stub's document read as a placeholder. */
interface Placeholder {
  readonly kind: typeof XML_PLACEHOLDERS[number];
  readonly regex?: LinearRegex;
  readonly text: string;
}

/** A compiled `xml_equals`. */
export interface XmlEquals {
  /** The stub's document, parsed. */
  readonly doc: XmlNode;
  /** Placeholders by node of {@link XmlEquals.doc} (text nodes and attributes). */
  readonly placeholders: ReadonlyMap<XmlNode, Placeholder>;
  /** Comparisons left out. */
  readonly ignore: ReadonlySet<XmlComparison>;
}

const XMLNS = "http://www.w3.org/2000/xmlns/";
const XSI = "http://www.w3.org/2001/XMLSchema-instance";
const NUMBER = /^[-+]?[0-9]*\.?[0-9]+([eE][-+]?[0-9]+)?$/;
/** What Java's lenient `SimpleDateFormat` parses at the start of a value: `yyyy-MM-dd…`, or `MMM d, y…` (en-US). */
const DATE = /^(?:\d+-\d+-\d+|(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.? \d+, \d+)/i;

/**
 * Compiles `xml_equals` (with `xml_placeholders`: `true` for `${…}`, or custom delimiters;
 * `xml_ignore`: comparisons to leave out). A problem is phrased to follow the field's place.
 */
export function compileXmlEquals(
  text: string,
  placeholders: boolean | XmlDelimiters,
  ignore: readonly XmlComparison[] = [],
): { value?: XmlEquals; problem?: string } {
  const parsed = parseXml(text);
  if ("problem" in parsed) return { problem: parsed.problem };
  const found = new Map<XmlNode, Placeholder>();
  if (placeholders !== false) {
    const delimiters = placeholders === true ? { open: "\\$\\{", close: "\\}" } : placeholders;
    const reader = placeholderReader(delimiters);
    if ("problem" in reader) return { problem: reader.problem };
    const problem = collectPlaceholders(parsed.doc, reader.read, found);
    if (problem) return { problem };
  }
  return { value: { doc: parsed.doc, placeholders: found, ignore: new Set(ignore) } };
}

type ReadPlaceholder = (text: string) => Placeholder | { problem: string } | undefined;

/** Reads placeholders between the delimiters: a known keyword must be the whole (trimmed) value. */
function placeholderReader(delimiters: XmlDelimiters): { read: ReadPlaceholder } | { problem: string } {
  const body = `(?:${delimiters.open})\\s*xmlunit\\.(.+)\\s*(?:${delimiters.close})`;
  const whole = compileRegex(`\\s*${body}\\s*`);
  const anywhere = compileRegex(`.*?${body}.*`);
  if ("problem" in whole) return { problem: `placeholder delimiters ${whole.problem}` };
  if ("problem" in anywhere) return { problem: `placeholder delimiters ${anywhere.problem}` };
  const read: ReadPlaceholder = (text) => {
    const exact = whole.regex.match(text);
    const found = exact ?? anywhere.regex.match(text);
    if (!found) return undefined;
    const content = (found.numbered[1] ?? "").trim();
    const args = /^(.*?)\s*\((.+)\)\s*$/s.exec(content);
    const keyword = (args ? args[1] : content).trim();
    if (!(XML_PLACEHOLDERS as readonly string[]).includes(keyword)) return undefined; // read as text, as XMLUnit does
    if (!exact) {
      return { problem: `placeholder ${quoteValue(text.trim())} must be the whole value (XMLUnit never matches it)` };
    }
    const kind = keyword as Placeholder["kind"];
    if (kind === "matchesRegex") {
      const source = args?.[2].trim() ?? "";
      if (!args || source === "") return { problem: `\${xmlunit.matchesRegex(RE)} needs a regular expression` };
      if (args[2].includes(",")) {
        return {
          problem: `\${xmlunit.matchesRegex(…)}: XMLUnit cuts its argument at ',' (write the regex without one)`,
        };
      }
      const compiled = compileRegex(source);
      if ("problem" in compiled) return { problem: `\${xmlunit.matchesRegex(${source})} ${compiled.problem}` };
      return { kind, regex: compiled.regex, text: text.trim() };
    }
    if (args) {
      return {
        problem:
          `\${xmlunit.${keyword}(…)} takes no argument here (a date format is not read; use \${xmlunit.isDateTime})`,
      };
    }
    return { kind, text: text.trim() };
  };
  return { read };
}

/** Finds the placeholders of a document's text nodes and attribute values; the first problem, if any. */
function collectPlaceholders(node: XmlNode, read: ReadPlaceholder, out: Map<XmlNode, Placeholder>): string | undefined {
  for (const child of children(node)) {
    if (child.nodeType === TEXT || child.nodeType === CDATA) {
      const found = read(child.nodeValue ?? "");
      if (found && "problem" in found) return found.problem;
      if (found) out.set(child, found);
    } else if (child.nodeType === ELEMENT) {
      for (const attr of attributes(child)) {
        const found = read(attr.nodeValue ?? "");
        if (found && "problem" in found) return found.problem;
        if (found) out.set(attr, found);
      }
      const problem = collectPlaceholders(child, read, out);
      if (problem) return problem;
    }
  }
  return undefined;
}

/** Does a value (undefined: none there) meet a placeholder? */
function meets(placeholder: Placeholder, value: string | undefined): boolean {
  if (placeholder.kind === "ignore") return true;
  if (value === undefined) return false;
  const text = value.trim();
  switch (placeholder.kind) {
    case "isNumber":
      return NUMBER.test(text);
    case "matchesRegex":
      return placeholder.regex!.find(text);
    case "isDateTime":
      return DATE.test(text);
  }
}

/** The content XMLUnit compares after WireMock's settings: no comments or doctype, text trimmed, blank text gone. */
function content(node: XmlNode): XmlNode[] {
  const out: XmlNode[] = [];
  for (const child of children(node)) {
    if (child.nodeType === COMMENT || child.nodeType === DOCTYPE) continue;
    // The XML declaration (`<?xml version="1.0"?>`), which xmldom keeps as a processing instruction.
    if (child.nodeType === PI && child.nodeName === "xml" && node.nodeType === DOCUMENT) continue;
    if ((child.nodeType === TEXT || child.nodeType === CDATA) && (child.nodeValue ?? "").trim() === "") continue;
    out.push(child);
  }
  return out;
}

function textOf(node: XmlNode): string {
  return (node.nodeValue ?? "").trim();
}

/** How a reason names a node's place: `/Envelope/Body/getUser`. */
function step(path: string, node: XmlNode): string {
  if (node.nodeType === ELEMENT) return `${path}/${node.localName ?? node.nodeName}`;
  if (node.nodeType === PI) return `${path}/processing-instruction(${node.nodeName})`;
  return `${path}/text()`;
}

/** A comparison's outcome: undefined when equal, else the reason. */
type Outcome = string | undefined;

/**
 * Compares a parsed body with a compiled `xml_equals` document. Returns undefined when it
 * matches, else the first difference (`body XML at /order/id has text '8', stub wants '7'`).
 */
export function equalXml(expected: XmlEquals, actual: XmlNode): Outcome {
  return compareContent(expected, content(expected.doc), content(actual), "");
}

/** Compares a node found in a body (an element) with the document, as if it were the whole body. */
export function equalXmlNode(expected: XmlEquals, node: XmlNode): Outcome {
  return compareContent(expected, content(expected.doc), [node], "");
}

function skip(expected: XmlEquals, type: XmlComparison): boolean {
  return expected.ignore.has(type);
}

/** Compares the content of two nodes: counts, then pairs (sorted by name, as WireMock's node matcher), then leftovers. */
function compareContent(expected: XmlEquals, control: XmlNode[], test: XmlNode[], path: string): Outcome {
  const at = path || "/";
  if (control.length !== test.length && !skip(expected, "child_nodelist_length")) {
    const only = control.length === 1 ? expected.placeholders.get(control[0]) : undefined;
    if (!(only && test.length === 0 && meets(only, undefined))) {
      return `body XML at ${at} has ${test.length} child node(s), stub wants ${control.length}`;
    }
  }
  // WireMock sorts children by local name, which fails on text beside other nodes: such content never matches.
  if (mixed(control) || mixed(test)) return `body XML at ${at} mixes text with other nodes (WireMock never matches it)`;
  const sortedControl = sortByName(control);
  const sortedTest = sortByName(test);
  const taken = new Set<number>();
  let last = -1;
  const unmatched: XmlNode[] = [];
  for (const c of sortedControl) {
    const found = findPartner(c, sortedTest, last, taken);
    if (found < 0) {
      unmatched.push(c);
      continue;
    }
    taken.add(found);
    last = found;
    const reason = compareNode(expected, c, sortedTest[found], step(path, c));
    if (reason) return reason;
  }
  for (const c of unmatched) {
    if (skip(expected, "child_lookup")) continue;
    const placeholder = expected.placeholders.get(c);
    if (placeholder && meets(placeholder, undefined)) continue;
    return c.nodeType === ELEMENT
      ? `body XML at ${at} has no element ${c.localName ?? c.nodeName}${nsNote(c)}`
      : `body XML at ${at} has no ${c.nodeType === PI ? "processing instruction" : "text"} like the stub's`;
  }
  return undefined;
}

function nsNote(node: XmlNode): string {
  return node.namespaceURI ? ` in namespace ${node.namespaceURI}` : "";
}

function mixed(list: XmlNode[]): boolean {
  return list.length >= 2 && list.some((n) => n.nodeType !== ELEMENT);
}

function sortByName(list: XmlNode[]): XmlNode[] {
  return list.map((node, i) => ({ node, i }))
    .sort((a, b) => {
      const x = a.node.localName ?? "", y = b.node.localName ?? "";
      return x < y ? -1 : x > y ? 1 : a.i - b.i;
    })
    .map((e) => e.node);
}

/** XMLUnit's default node matcher: the next free test node after the last match (then from the start) that fits. */
function findPartner(control: XmlNode, test: XmlNode[], last: number, taken: Set<number>): number {
  const fits = (t: XmlNode) => {
    if (control.nodeType === ELEMENT && t.nodeType === ELEMENT) {
      return control.localName === t.localName &&
        (control.namespaceURI === null || control.namespaceURI === t.namespaceURI);
    }
    const textual = (n: XmlNode) => n.nodeType === TEXT || n.nodeType === CDATA;
    return control.nodeType === t.nodeType || (textual(control) && textual(t));
  };
  for (let i = last + 1; i < test.length; i++) if (!taken.has(i) && fits(test[i])) return i;
  for (let i = 0; i < last && i < test.length; i++) if (!taken.has(i) && fits(test[i])) return i;
  return -1;
}

function compareNode(expected: XmlEquals, c: XmlNode, t: XmlNode, path: string): Outcome {
  const placeholder = expected.placeholders.get(c);
  if (c.nodeType !== t.nodeType && !skip(expected, "node_type")) {
    // Text against CDATA: only a placeholder reads past the difference.
    if (!placeholder) return `body XML at ${path} is ${kind(t)}, stub wants ${kind(c)}`;
    if (!meets(placeholder, textOf(t))) {
      return `body XML at ${path} is ${quoteValue(textOf(t))}, stub wants ${placeholder.text}`;
    }
  }
  switch (c.nodeType) {
    case ELEMENT:
      return compareElement(expected, c, t, path);
    case TEXT:
    case CDATA: {
      if (skip(expected, "text_value")) return undefined;
      const got = textOf(t);
      if (placeholder) {
        return meets(placeholder, got)
          ? undefined
          : `body XML at ${path} is ${quoteValue(got)}, stub wants ${placeholder.text}`;
      }
      return got === textOf(c)
        ? undefined
        : `body XML at ${path} is ${quoteValue(got)}, stub wants ${quoteValue(textOf(c))}`;
    }
    case PI:
      if (c.nodeName !== t.nodeName && !skip(expected, "processing_instruction_target")) {
        return `body XML at ${path} has target ${quoteValue(t.nodeName)}, stub wants ${quoteValue(c.nodeName)}`;
      }
      if ((c.nodeValue ?? "") !== (t.nodeValue ?? "") && !skip(expected, "processing_instruction_data")) {
        return `body XML at ${path} has data ${quoteValue(t.nodeValue ?? "")}, stub wants ${
          quoteValue(c.nodeValue ?? "")
        }`;
      }
      return undefined;
  }
  return undefined;
}

function kind(node: XmlNode): string {
  return node.nodeType === CDATA
    ? "CDATA"
    : node.nodeType === TEXT
    ? "text"
    : node.nodeType === ELEMENT
    ? "an element"
    : "a node";
}

/** Attributes XMLUnit counts: not namespace declarations, not `xsi:schemaLocation` / `xsi:noNamespaceSchemaLocation`. */
function splitAttributes(node: XmlNode): { plain: XmlNode[]; schema?: XmlNode; noNsSchema?: XmlNode } {
  const plain: XmlNode[] = [];
  let schema: XmlNode | undefined, noNsSchema: XmlNode | undefined;
  for (const attr of attributes(node)) {
    if (attr.namespaceURI === XMLNS || attr.nodeName === "xmlns" || attr.nodeName.startsWith("xmlns:")) continue;
    if (attr.namespaceURI === XSI && attr.localName === "schemaLocation") schema = attr;
    else if (attr.namespaceURI === XSI && attr.localName === "noNamespaceSchemaLocation") noNsSchema = attr;
    else plain.push(attr);
  }
  return { plain, schema, noNsSchema };
}

/** XMLUnit's attribute lookup: a namespaced attribute by namespace and local name, another by its name in no namespace. */
function findAttribute(list: XmlNode[], attr: XmlNode): XmlNode | undefined {
  if (attr.namespaceURI) {
    return list.find((a) => a.namespaceURI === attr.namespaceURI && a.localName === attr.localName);
  }
  return list.find((a) => !a.namespaceURI && a.nodeName === attr.nodeName);
}

function compareElement(expected: XmlEquals, c: XmlNode, t: XmlNode, path: string): Outcome {
  if (c.namespaceURI !== null && c.namespaceURI !== t.namespaceURI && !skip(expected, "namespace_uri")) {
    return `body XML at ${path} is in namespace ${t.namespaceURI ?? "(none)"}, stub wants ${c.namespaceURI}`;
  }
  if (c.localName !== t.localName && !skip(expected, "element_tag_name")) {
    return `body XML at ${path} is element ${t.localName}, stub wants ${c.localName}`;
  }
  const ca = splitAttributes(c), ta = splitAttributes(t);
  if (ca.plain.length !== ta.plain.length && !skip(expected, "element_num_attributes")) {
    const excused = ca.plain.filter((a) =>
      expected.placeholders.get(a)?.kind === "ignore" && findAttribute(ta.plain, a) === undefined
    ).length;
    if (ca.plain.length - excused !== ta.plain.length) {
      return `body XML at ${path} has ${ta.plain.length} attribute(s), stub wants ${ca.plain.length}`;
    }
  }
  for (
    const [type, want, got] of [
      ["schema_location", ca.schema, ta.schema],
      ["no_namespace_schema_location", ca.noNsSchema, ta.noNsSchema],
    ] as const
  ) {
    if (want && (got?.nodeValue ?? null) !== want.nodeValue && !skip(expected, type)) {
      return `body XML at ${path} has ${want.nodeName} ${quoteValue(got?.nodeValue ?? "")}, stub wants ${
        quoteValue(want.nodeValue ?? "")
      }`;
    }
  }
  for (const attr of ca.plain) {
    const placeholder = expected.placeholders.get(attr);
    const other = findAttribute(ta.plain, attr);
    const name = attr.localName ?? attr.nodeName;
    if (!other) {
      if (skip(expected, "attr_name_lookup") || (placeholder && meets(placeholder, undefined))) continue;
      return `body XML at ${path} has no attribute ${name}${nsNote(attr)}`;
    }
    if (skip(expected, "attr_value")) continue;
    const got = other.nodeValue ?? "";
    const ok = placeholder ? meets(placeholder, got) : got === (attr.nodeValue ?? "");
    if (!ok) {
      return `body XML at ${path}/@${name} is ${quoteValue(got)}, stub wants ${
        placeholder ? placeholder.text : quoteValue(attr.nodeValue ?? "")
      }`;
    }
  }
  return compareContent(expected, content(c), content(t), path);
}
