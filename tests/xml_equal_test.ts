/**
 * xml_equals: WireMock's equalToXml, replayed against what WireMock 3.13.2 answered.
 */
import assert from "node:assert/strict";

const assertEquals = (a: unknown, b: unknown) => assert.deepEqual(a, b);
import { compileXmlEquals, equalXml, type XmlDelimiters } from "../src/stubs/xml_equal.ts";
import { parseXml, type XmlNode } from "../src/templating/xml.ts";
import { loadTemplating } from "../src/templating/engine.ts";
import { javaRegexToJs } from "../src/formats/wiremock/regex.ts";

await loadTemplating();

/** Observed cases stubtool refuses on purpose (at load, or the body is not read), with the reason. */
const REFUSED: Record<string, string> = {
  "ph isDateTime fmt": "a SimpleDateFormat pattern is not read: the stub is refused at load",
  "dtd entity": "a body with a DTD internal subset is not parsed (no entity expansion)",
};

interface Observed {
  name: string;
  pattern: Record<string, unknown>;
  body: string;
  matches: boolean;
}

const observed: { equalToXml: Observed[] } = JSON.parse(
  await Deno.readTextFile(new URL("./fixtures/xml/wiremock_observed.json", import.meta.url)),
);

/** WireMock's equalToXml options as the compiler takes them. */
function compileFrom(pattern: Record<string, unknown>) {
  const js = (java: unknown) => {
    const out = javaRegexToJs(java as string);
    if ("problem" in out) throw new Error(out.problem);
    return out.source;
  };
  const delimiters: boolean | XmlDelimiters = pattern.placeholderOpeningDelimiterRegex
    ? { open: js(pattern.placeholderOpeningDelimiterRegex), close: js(pattern.placeholderClosingDelimiterRegex) }
    : pattern.enablePlaceholders === true;
  const ignore = ((pattern.exemptedComparisons ?? []) as string[]).map((s) => s.toLowerCase());
  // deno-lint-ignore no-explicit-any -- the names come from WireMock's enum
  return compileXmlEquals(pattern.equalToXml as string, delimiters, ignore as any);
}

function body(text: string): XmlNode | undefined {
  const parsed = parseXml(text);
  return "doc" in parsed ? parsed.doc : undefined;
}

Deno.test("xml_equals answers as WireMock 3.13.2 did on every observed equalToXml case", () => {
  const wrong: string[] = [];
  for (const c of observed.equalToXml) {
    if (REFUSED[c.name]) {
      const refused = compileFrom(c.pattern).problem !== undefined || body(c.body) === undefined;
      if (!refused) wrong.push(`${c.name}: expected stubtool to refuse it (${REFUSED[c.name]})`);
      continue;
    }
    const { value, problem } = compileFrom(c.pattern);
    let got: boolean;
    if (!value) got = false;
    else {
      const doc = body(c.body);
      got = doc !== undefined && equalXml(value, doc) === undefined;
    }
    if (got !== c.matches) {
      wrong.push(`${c.name}: stubtool ${got}, WireMock ${c.matches}${problem ? ` (${problem})` : ""}`);
    }
  }
  assertEquals(wrong, []);
  assert(observed.equalToXml.length > 60);
});

Deno.test("xml_equals near misses say where and why", () => {
  const { value } = compileXmlEquals('<order xmlns="urn:o"><id>7</id><item sku="a"/></order>', false);
  const reason = (text: string) => equalXml(value!, body(text)!);
  assertEquals(reason('<o:order xmlns:o="urn:o"><o:item sku="a"/><o:id>7</o:id></o:order>'), undefined);
  assertEquals(
    reason('<order xmlns="urn:o"><id>8</id><item sku="a"/></order>'),
    "body XML at /order/id/text() is '8', stub wants '7'",
  );
  assertEquals(
    reason('<order xmlns="urn:o"><id>7</id><item sku="b"/></order>'),
    "body XML at /order/item/@sku is 'b', stub wants 'a'",
  );
  assertEquals(
    reason('<order xmlns="urn:x"><id>7</id><item sku="a"/></order>'),
    "body XML at / has no element order in namespace urn:o",
  );
  assertEquals(
    reason('<order xmlns="urn:o"><id>7</id></order>'),
    "body XML at /order has 1 child node(s), stub wants 2",
  );
});

Deno.test("xml_equals placeholders: isNumber, matchesRegex (found anywhere), isDateTime, ignore on a missing attribute", () => {
  const { value } = compileXmlEquals(
    '<a id="${xmlunit.ignore}"><n>${xmlunit.isNumber}</n><r>${xmlunit.matchesRegex([0-9]+)}</r><d>${xmlunit.isDateTime}</d></a>',
    true,
  );
  const check = (text: string) => equalXml(value!, body(text)!);
  assertEquals(check("<a><n>-1.5e3</n><r>ab12</r><d>2024-01-02T03:04:05Z</d></a>"), undefined);
  assertEquals(check('<a id="x"><n> 7 </n><r>9</r><d>Jan 2, 2024</d></a>'), undefined);
  assertEquals(
    check("<a><n>0x1F</n><r>9</r><d>2024-01-02</d></a>"),
    "body XML at /a/n/text() is '0x1F', stub wants ${xmlunit.isNumber}",
  );
  assertEquals(
    check("<a><n>1</n><r>x</r><d>2024-01-02</d></a>"),
    "body XML at /a/r/text() is 'x', stub wants ${xmlunit.matchesRegex([0-9]+)}",
  );
  assertEquals(
    check("<a><n>1</n><r>1</r><d>yesterday</d></a>"),
    "body XML at /a/d/text() is 'yesterday', stub wants ${xmlunit.isDateTime}",
  );
});

Deno.test("xml_equals refuses at load what it cannot read, naming the problem", () => {
  assertEquals(compileXmlEquals("<a>", false).problem, "is not XML: unclosed xml tag(s): a");
  assertEquals(
    compileXmlEquals("<a>id-${xmlunit.ignore}</a>", true).problem,
    "placeholder 'id-${xmlunit.ignore}' must be the whole value (XMLUnit never matches it)",
  );
  assertEquals(
    compileXmlEquals("<a>${xmlunit.matchesRegex((a)\\1)}</a>", true).problem?.startsWith(
      "${xmlunit.matchesRegex((a)\\1)}",
    ),
    true,
  );
  assertEquals(
    compileXmlEquals("<a>${xmlunit.isDateTime(dd-MM-yyyy)}</a>", true).problem,
    "${xmlunit.isDateTime(…)} takes no argument here (a date format is not read; use ${xmlunit.isDateTime})",
  );
  // An unknown keyword is text, as XMLUnit reads it.
  assert(compileXmlEquals("<a>${xmlunit.foo}</a>", true).value);
});
