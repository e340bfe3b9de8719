/**
 * The one home of reading XML (stub documents, request bodies), bounded: at most
 * {@link MAX_XML_CHARS} characters and {@link MAX_XML_DEPTH} levels, no DTD internal subset
 * (so no entity is ever declared or expanded: a billion-laughs body is refused before it is
 * parsed), no external entity or DTD fetched. Parsing is `@xmldom/xmldom`'s, loaded only when a
 * stub has an XML condition (src/templating/engine.ts: a check that parses asks for it); the
 * result is read through the small {@link XmlNode} shape so callers do not depend on its types.
 * @module
 */

import { engine } from "./engine.ts";

/** A body longer than this is not parsed as XML (parsing costs about 1 ms per kB on a busy machine). */
export const MAX_XML_CHARS = 256 * 1024;

/** XML nested deeper than this is not parsed (checked in one pass before parsing). */
export const MAX_XML_DEPTH = 1000;

/** DOM node types this module reads. */
export const ELEMENT = 1, ATTRIBUTE = 2, TEXT = 3, CDATA = 4, PI = 7, COMMENT = 8, DOCUMENT = 9, DOCTYPE = 10;

/** The parts of a DOM node the XML conditions read. */
export interface XmlNode {
  readonly nodeType: number;
  readonly nodeName: string;
  readonly localName: string | null;
  readonly namespaceURI: string | null;
  readonly prefix: string | null;
  readonly nodeValue: string | null;
  readonly childNodes: ArrayLike<XmlNode>;
  readonly attributes?: ArrayLike<XmlNode> | null;
  readonly tagName?: string;
  readonly data?: string;
  readonly target?: string;
}

/**
 * Parses XML text, or says why not (`is not XML: unclosed xml tag(s): a`, `declares a DTD
 * internal subset`, `is nested deeper than 1000 levels`, `is longer than … characters`).
 */
export function parseXml(text: string): { doc: XmlNode } | { problem: string } {
  if (text.length > MAX_XML_CHARS) return { problem: `is longer than ${MAX_XML_CHARS} characters` };
  const doctype = text.indexOf("<!DOCTYPE");
  if (doctype >= 0) {
    const end = text.indexOf(">", doctype);
    const open = text.indexOf("[", doctype);
    if (open >= 0 && (end < 0 || open < end)) {
      return { problem: "declares a DTD internal subset (stubtool does not read DTDs or expand entities)" };
    }
  }
  if (deeperThan(text, MAX_XML_DEPTH)) return { problem: `is nested deeper than ${MAX_XML_DEPTH} levels` };
  let failure: string | undefined;
  const parser = new (engine("xml").DOMParser)({
    onError: (level: string, message: string) => {
      if (level === "warning") return;
      failure ??= message;
      throw new Error(message);
    },
  });
  try {
    const doc = parser.parseFromString(text, "text/xml") as unknown as XmlNode & { documentElement: unknown };
    if (failure !== undefined || !doc.documentElement) {
      return { problem: `is not XML: ${failure ?? "no root element"}` };
    }
    return { doc };
  } catch (error) {
    return { problem: `is not XML: ${(failure ?? (error as Error).message).replace(/\s+/g, " ").slice(0, 120)}` };
  }
}

/**
 * Is the markup nested deeper than `max` elements? One pass: start tags open a level, end
 * tags close one; comments, CDATA, processing instructions and quoted attribute values are skipped.
 */
function deeperThan(text: string, max: number): boolean {
  let depth = 0;
  let i = text.indexOf("<");
  while (i >= 0 && i < text.length) {
    const next = text[i + 1];
    if (next === "/") depth--;
    else if (next === "!" || next === "?") {
      const close = text.startsWith("<!--", i) ? "-->" : text.startsWith("<![CDATA[", i) ? "]]>" : ">";
      const end = text.indexOf(close, i + 2);
      if (end < 0) return false;
      i = text.indexOf("<", end + close.length);
      continue;
    } else {
      let j = i + 1, quote = "";
      for (; j < text.length; j++) {
        const c = text[j];
        if (quote) {
          if (c === quote) quote = "";
        } else if (c === '"' || c === "'") quote = c;
        else if (c === ">") break;
      }
      if (text[j - 1] !== "/" && ++depth > max) return true;
      i = text.indexOf("<", j);
      continue;
    }
    i = text.indexOf("<", i + 1);
  }
  return false;
}

/** The element children and other content of a node, as a list. */
export function children(node: XmlNode): XmlNode[] {
  return Array.from(node.childNodes ?? []);
}

/** The attributes of an element, as a list. */
export function attributes(node: XmlNode): XmlNode[] {
  return Array.from(node.attributes ?? []);
}

/**
 * A copy of a document as a parser without namespace support reads it (WireMock's XPath
 * without `xPathNamespaces`): every element and attribute is in no namespace, its name as
 * written (`name()` is `s:Body`) and its local name the part after the colon (`//Body` finds
 * it, as the JDK's XPath does); `xmlns` declarations are ordinary attributes.
 */
export function withoutNamespaces(doc: XmlNode): XmlNode {
  const out = new (engine("xml").DOMImplementation)().createDocument(null, "", null);
  // deno-lint-ignore no-explicit-any -- xmldom's node types, built and read here only
  const copy = (node: XmlNode, into: any): void => {
    for (const child of children(node)) {
      switch (child.nodeType) {
        case ELEMENT: {
          const element = out.createElement(child.nodeName);
          // As the JDK reads such a node: the local name is the part after the colon, in no namespace.
          element.localName = localPart(child.nodeName);
          for (const attr of attributes(child)) {
            element.setAttribute(attr.nodeName, attr.nodeValue ?? "");
            const node = element.getAttributeNode(attr.nodeName);
            if (node) node.localName = localPart(attr.nodeName);
          }
          into.appendChild(element);
          copy(child, element);
          break;
        }
        case TEXT:
          into.appendChild(out.createTextNode(child.nodeValue ?? ""));
          break;
        case CDATA:
          into.appendChild(out.createCDATASection(child.nodeValue ?? ""));
          break;
        case COMMENT:
          into.appendChild(out.createComment(child.nodeValue ?? ""));
          break;
        case PI:
          into.appendChild(out.createProcessingInstruction(child.nodeName, child.nodeValue ?? ""));
          break;
      }
    }
  };
  copy(doc, out);
  return out as unknown as XmlNode;
}

function localPart(name: string): string {
  return name.slice(name.indexOf(":") + 1);
}

/** A node written as XML text (`<b id="7">1</b>`). */
export function serializeXml(node: XmlNode): string {
  // deno-lint-ignore no-explicit-any -- xmldom's node type
  return new (engine("xml").XMLSerializer)().serializeToString(node as any);
}
