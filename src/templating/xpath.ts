/**
 * `xpath` conditions: XPath 1.0 expressions (the `xpath` library) run on a request body
 * parsed as XML, as WireMock 3's `matchesXPath`: with `xpath_namespaces` (prefix → URI) the
 * document is read with namespaces; without, names are matched as written in the body
 * (`//b` finds `<b>` in a default namespace; `*[name()='s:Body']` finds `<s:Body>`), as a
 * parser without namespace support reads it.
 * @module
 */

import { engine } from "./engine.ts";
import { ATTRIBUTE, CDATA, ELEMENT, parseXml, serializeXml, TEXT, withoutNamespaces, type XmlNode } from "./xml.ts";

/** A compiled XPath expression with its namespaces. */
export interface XPathExpression {
  /** The expression as written. */
  readonly expression: string;
  /** Prefix → namespace URI; undefined: the body is read without namespaces. */
  readonly namespaces?: Readonly<Record<string, string>>;
  /** True when the expression gives a number, text or boolean rather than nodes. */
  readonly scalar: boolean;
}

/**
 * What an expression found in a body: nodes (maybe none), the text of a number, string or
 * boolean, or why the body is not searched (`has more than 10000 nodes for xpath`).
 */
export type XPathFound = { nodes: XmlNode[] } | { value: string } | { problem: string };

/**
 * A body with more nodes than this (elements, attributes, text) is not searched with XPath: the
 * `xpath` library's node sets cost more than linear time in the nodes an expression visits.
 */
export const MAX_XPATH_NODES = 10_000;

interface Evaluator {
  evaluate(options: { node: unknown; namespaces?: Record<string, string> }): {
    toArray?: () => unknown[];
    stringValue(): string;
  };
}

const compiled = new Map<string, Evaluator>();
const unaware = new WeakMap<XmlNode, XmlNode>();

/** An empty document to try expressions on at load (names, prefixes, functions); made on first use. */
let probe: XmlNode | undefined;

function evaluator(expression: string): Evaluator {
  let found = compiled.get(expression);
  if (!found) {
    found = (engine("xml").xpath as unknown as { parse(e: string): Evaluator }).parse(expression);
    if (compiled.size < 10_000) compiled.set(expression, found);
  }
  return found;
}

/** xpath.js's axis numbers that sweep the document (`//` is descendant-or-self): ancestor(-or-self), descendant(-or-self), following(-sibling), preceding(-sibling). */
const SWEEPS = new Set([0, 1, 4, 5, 6, 7, 10, 11]);
const PARENT = 9, CHILD = 3;

/**
 * Why an expression's cost on a body cannot be bounded by a small multiple of its nodes, or
 * undefined. Refused: two sweeping steps in one path (`//a//b`, `//a/following::b`: every node
 * times every node), a sweeping step, an absolute path, `..` then a child step, or `id()` inside
 * a predicate (evaluated once per node). Each of these took seconds to minutes, or ran out of
 * memory, on bodies of a few kB (three sweeps over a chain of 990 elements: 15 s).
 */
function unboundedCost(tree: unknown): string | undefined {
  const SWEEP = "a sweeping axis (//, descendant, ancestor, following, preceding, siblings)";
  // deno-lint-ignore no-explicit-any -- xpath.js's expression tree, read here only
  const walk = (node: any, inPredicate: boolean): string | undefined => {
    if (node === null || typeof node !== "object") return undefined;
    if (Array.isArray(node)) {
      for (const item of node) {
        const problem = walk(item, inPredicate);
        if (problem) return problem;
      }
      return undefined;
    }
    if (inPredicate && node.functionName === "id") return "calls id() inside a predicate";
    let sweeps = 0;
    if (node.filter !== undefined && node.locationPath) {
      if (sweepsIn(node.filter) && node.locationPath.steps.some((s: { axis: number }) => SWEEPS.has(s.axis))) {
        return `uses ${SWEEP} twice in one path`;
      }
    }
    if (Array.isArray(node.steps)) {
      if (inPredicate && node.absolute) return "uses an absolute path inside a predicate";
      let parent = false;
      for (const step of node.steps as { axis: number }[]) {
        if (SWEEPS.has(step.axis)) {
          if (inPredicate) return `uses ${SWEEP} inside a predicate`;
          if (++sweeps > 1) return `uses ${SWEEP} twice in one path (write one //)`;
        }
        if (inPredicate && parent && step.axis === CHILD) {
          return "reads the siblings (.. then a child step) inside a predicate";
        }
        if (step.axis === PARENT) parent = true;
      }
    }
    for (const [key, value] of Object.entries(node)) {
      const problem = walk(value, inPredicate || key === "predicates" || key === "filterPredicates");
      if (problem) return problem;
    }
    return undefined;
  };
  // deno-lint-ignore no-explicit-any -- as above
  const sweepsIn = (node: any): boolean =>
    node !== null && typeof node === "object" &&
    (SWEEPS.has(node.axis) || Object.values(node).some((value) => sweepsIn(value)));
  return walk(tree, false);
}

/**
 * Compiles an expression: a syntax error, an undeclared prefix, an unknown function or a cost
 * that cannot be bounded ({@link unboundedCost}) is a problem phrased to follow the field's place.
 */
export function compileXPath(
  expression: string,
  namespaces?: Readonly<Record<string, string>>,
): { xpath?: XPathExpression; problem?: string } {
  probe ??= (parseXml("<probe/>") as { doc: XmlNode }).doc;
  let result;
  try {
    result = evaluator(expression).evaluate({ node: probe, namespaces: namespaces ? { ...namespaces } : undefined });
  } catch (error) {
    const message = (error as Error).message;
    const prefix = /Cannot resolve QName (\S+)/.exec(message);
    if (prefix) {
      return {
        problem: namespaces
          ? `uses the prefix ${prefix[1]}: that xpath_namespaces does not declare`
          : `uses the prefix ${prefix[1]}: declare it in xpath_namespaces (without them a prefix never resolves)`,
      };
    }
    return { problem: `is not an XPath 1.0 expression stubtool reads: ${message.split("\n")[0]}` };
  }
  const costly = unboundedCost((evaluator(expression) as unknown as { expression: unknown }).expression);
  if (costly) {
    return { problem: `${costly}: its cost grows faster than the body (refused to keep matching bounded)` };
  }
  return { xpath: { expression, namespaces, scalar: typeof result.toArray !== "function" } };
}

/** The position of a node in its document's order (element, its attributes, its children), once numbered. */
const ORDER = Symbol("document order");
type Ordered = XmlNode & { [ORDER]?: number; compareDocumentPosition?: (other: Ordered) => number };
/** Documents numbered for XPath: true, or the reason they are not searched. */
const prepared = new WeakMap<XmlNode, true | string>();

/**
 * Where `other` lies from `this` in document order, in O(1) from the numbers {@link prepare}
 * gave (the `xpath` library sorts node sets with it; xmldom's own walks the parent's children,
 * which made a predicate over 8,000 siblings take 15 s). Only preceding (2) or following (4):
 * all the library reads. A node not numbered (an XPath namespace node) asks xmldom's.
 */
function compareOrder(this: Ordered, other: Ordered): number {
  const a = this[ORDER], b = other?.[ORDER];
  if (a === undefined || b === undefined) {
    const proto = Object.getPrototypeOf(this) as { compareDocumentPosition(o: unknown): number };
    return proto.compareDocumentPosition.call(this, other);
  }
  return a === b ? 0 : a < b ? 4 : 2;
}

/**
 * Counts a document's nodes and, when there are at most {@link MAX_XPATH_NODES}, numbers them
 * in document order for {@link compareOrder}; once per document.
 */
function prepare(doc: XmlNode): true | string {
  const known = prepared.get(doc);
  if (known !== undefined) return known;
  const nodes: Ordered[] = [];
  const walk = (node: Ordered): boolean => {
    nodes.push(node);
    for (const attr of Array.from(node.attributes ?? [])) nodes.push(attr);
    if (nodes.length > MAX_XPATH_NODES) return false;
    for (const child of Array.from(node.childNodes ?? [])) if (!walk(child)) return false;
    return true;
  };
  if (!walk(doc)) {
    const problem = `has more than ${MAX_XPATH_NODES} nodes (elements, attributes, text): not searched with xpath`;
    prepared.set(doc, problem);
    return problem;
  }
  nodes.forEach((node, i) => {
    node[ORDER] = i;
    node.compareDocumentPosition = compareOrder;
  });
  prepared.set(doc, true);
  return true;
}

/**
 * Runs an expression on a parsed body (read with namespaces); a failure finds nothing; a body
 * with more than {@link MAX_XPATH_NODES} nodes is not searched.
 */
export function evaluateXPath(compiled: XPathExpression, doc: XmlNode): XPathFound {
  const ready = prepare(doc);
  if (ready !== true) return { problem: ready };
  let node = doc;
  if (!compiled.namespaces) {
    let copy = unaware.get(doc);
    if (!copy) {
      unaware.set(doc, copy = withoutNamespaces(doc));
      prepare(copy);
    }
    node = copy;
  }
  try {
    const result = evaluator(compiled.expression).evaluate({
      node,
      namespaces: compiled.namespaces ? { ...compiled.namespaces } : undefined,
    });
    if (typeof result.toArray === "function") return { nodes: result.toArray() as XmlNode[] };
    return { value: result.stringValue() };
  } catch {
    return { nodes: [] };
  }
}

/** A node found as text for a value pattern: an attribute's or text's value, an element as XML (`<b id="7">1</b>`). */
export function nodeText(node: XmlNode): string {
  if (node.nodeType === ATTRIBUTE || node.nodeType === TEXT || node.nodeType === CDATA) return node.nodeValue ?? "";
  if (node.nodeType === ELEMENT) return serializeXml(node);
  return node.nodeValue ?? serializeXml(node);
}

/**
 * Whether an expression surely gives text, not elements: it ends in `text()` or an attribute
 * step, or is a function call (`count(…)`, `string(…)`). WireMock compares an element as its
 * JDK-indented serialization, which stubtool does not reproduce byte for byte.
 */
export function givesText(expression: string): boolean {
  const e = expression.trim();
  return /\/text\(\)$/.test(e) || /\/@[\w.*:-]+$/.test(e) || /^@[\w.*:-]+$/.test(e) ||
    /^[a-z][\w-]*\(.*\)$/s.test(e) && !/^(?:id)\(/.test(e);
}
