/**
 * WireMock 3's `xPath` and `soapXPath` template helpers: `{{xPath request.body '/a/b/text()'}}`.
 * The body is read as XML through the one XML reader (src/templating/xml.ts, bounded) and the
 * expression run as `xpath` conditions run it (src/templating/xpath.ts: without namespaces, names
 * matched as written or by their local part). A number, string or boolean gives its XPath text
 * (`2`, `2.5`, `true`); nodes give a list that prints as its first node's text (an attribute's or
 * text's value; an element as XML) and that `each` walks; nothing found gives "". A body that is
 * not XML gives WireMock's `[ERROR: BODY is not valid XML]`.
 * @module
 */

import { compileXPath, evaluateXPath, nodeText } from "./xpath.ts";
import { parseXml, type XmlNode } from "./xml.ts";
import { engine } from "./engine.ts";
import { type Helper, text, Values } from "./template_helpers.ts";

/** The last body parsed (a template usually asks several expressions of one body). */
let last: { text: string; parsed: { doc: XmlNode } | { problem: string } } | undefined;

function parsed(body: string): { doc: XmlNode } | { problem: string } {
  if (last?.text !== body) last = { text: body, parsed: parseXml(body) };
  return last.parsed;
}

/** The prefix each helper puts before its expression. */
const PREFIXES: Record<string, string> = { xPath: "", soapXPath: "/Envelope/Body/" };

/**
 * Checks a call at load: two arguments, and a literal expression (`expression`, when written as
 * text) that compiles; throws the problem.
 */
export function checkXPathCall(name: string, params: number, expression: string | undefined): void {
  if (params !== 2) throw new Error(`write the XML, then the expression: {{${name} request.body '/a/b/text()'}}`);
  // The XML libraries load with the stub that calls a helper, whatever its expression (asking counts the demand).
  engine("xml");
  if (expression === undefined) return;
  const { problem } = compileXPath(PREFIXES[name] + expression);
  if (problem) throw new Error(`the expression ${JSON.stringify(PREFIXES[name] + expression)} ${problem}`);
}

/** What `xPath` (prefix "") or `soapXPath` (prefix `/Envelope/Body/`, as WireMock prepends it) gives. */
function xPathOf(prefix: string, args: unknown[]): unknown {
  if (args.length !== 3) throw new Error("write the XML, then the expression: {{xPath request.body '/a/b/text()'}}");
  const body = text(args[0]);
  const expression = prefix + text(args[1]);
  const { xpath, problem } = compileXPath(expression);
  if (!xpath) throw new Error(`the expression ${JSON.stringify(expression)} ${problem}`);
  const document = parsed(body);
  if (!("doc" in document)) return `[ERROR: ${body} is not valid XML]`;
  const found = evaluateXPath(xpath, document.doc);
  if ("problem" in found) throw new Error(`the body ${found.problem}`);
  if ("value" in found) return found.value;
  const values = new Values();
  for (const node of found.nodes) values.push(nodeText(node));
  return values;
}

/** The XPath helpers, by the names templates call them. */
export const XPATH_HELPERS: Record<string, Helper> = {
  xPath: (...args) => xPathOf(PREFIXES.xPath, args),
  soapXPath: (...args) => xPathOf(PREFIXES.soapXPath, args),
};
