/**
 * The XML conditions of `request:` (src/stubs/request_xml.ts): `xml_equals` and `xpath` checked
 * at load, matched over real HTTP on both adapters, explained in near misses, and bounded
 * against hostile bodies (billion laughs, deep nesting).
 */
import assert from "node:assert/strict";
import { validateConfig } from "../src/stubs/validate.ts";
import { send, serverTest } from "./_http.ts";

const xml = (body: string) => ({ body, headers: { "content-type": "text/xml" } });

async function addStubs(server: Parameters<Parameters<typeof serverTest>[1]>[0], stubs: unknown[]) {
  const added = await send(server, "POST", "/__stubtool__/stubs", { body: JSON.stringify(stubs) });
  assert.equal(added.status, 201, JSON.stringify(added.json));
}

const SOAP = "http://schemas.xmlsoap.org/soap/envelope/";

serverTest(
  "xml_equals: whitespace, attribute order, prefixes and comments do not matter; text does",
  async (server) => {
    await addStubs(server, [{
      method: "POST",
      path: "/soap",
      request: {
        xml_equals:
          `<soap:Envelope xmlns:soap="${SOAP}"><soap:Body><getUser id="7" kind="full"/></soap:Body></soap:Envelope>`,
      },
      headers: { "content-type": "text/xml" },
      body: "<user>7</user>",
    }]);
    const hit = await send(
      server,
      "POST",
      "/soap",
      xml(
        `<?xml version="1.0"?>\n<s:Envelope xmlns:s="${SOAP}">\n  <!-- hi -->\n  <s:Body>\n    <getUser kind="full" id="7"></getUser>\n  </s:Body>\n</s:Envelope>`,
      ),
    );
    assert.equal(hit.status, 200);
    assert.equal(hit.text, "<user>7</user>");
    const miss = await send(
      server,
      "POST",
      "/soap",
      xml(`<s:Envelope xmlns:s="${SOAP}"><s:Body><getUser id="8" kind="full"/></s:Body></s:Envelope>`),
    );
    assert.equal(miss.status, 404);
    assert.equal(miss.json.closest[0].reason, "body XML at /Envelope/Body/getUser/@id is '8', stub wants '7'");
    const notXml = await send(server, "POST", "/soap", { body: "{}" });
    assert.equal(notXml.json.closest[0].reason, "body is not XML: missing root element");
  },
);

serverTest("xpath: namespaces, text patterns, xml_equals on an element; nothing found is a miss", async (server) => {
  await addStubs(server, [{
    method: "POST",
    path: "/orders",
    request: {
      xpath: {
        "/s:Envelope/s:Body/o:order": true,
        "//o:order/o:id/text()": { regex: "[0-9]+" },
        "//o:order/@currency": "EUR",
        "//o:line": {
          xml_equals: '<line xmlns="urn:o"><sku>${xmlunit.ignore}</sku><qty>2</qty></line>',
          xml_placeholders: true,
        },
      },
      xpath_namespaces: { s: SOAP, o: "urn:o" },
    },
    body: { ok: true },
  }]);
  const order = (id: string, qty: number) =>
    `<env:Envelope xmlns:env="${SOAP}"><env:Body><order xmlns="urn:o" currency="EUR"><id>${id}</id><line><qty>1</qty><sku>a</sku></line><line><qty>${qty}</qty><sku>b</sku></line></order></env:Body></env:Envelope>`;
  assert.equal((await send(server, "POST", "/orders", xml(order("42", 2)))).status, 200);
  const wrongId = await send(server, "POST", "/orders", xml(order("x", 2)));
  assert.equal(wrongId.json.closest[0].reason, "body at //o:order/o:id/text() is 'x', stub wants /[0-9]+/");
  const noLine = await send(server, "POST", "/orders", xml(order("42", 3)));
  assert.equal(noLine.json.closest[0].reason, "at //o:line: body XML at /line/qty/text() is '1', stub wants '2'");
  const other = await send(server, "POST", "/orders", xml("<other/>"));
  assert.equal(other.json.closest[0].reason, "body has nothing at /s:Envelope/s:Body/o:order");
});

serverTest(
  "xpath without xpath_namespaces matches local names in no namespace (as WireMock's JDK XPath)",
  async (server) => {
    await addStubs(server, [{ method: "POST", path: "/n", request: { xpath: { "//b": true } }, body: "found" }]);
    // `b` in a default namespace and `q:b` are both found by their local name; `c` is not there.
    assert.equal((await send(server, "POST", "/n", xml('<a xmlns="urn:x"><b/></a>'))).status, 200);
    assert.equal((await send(server, "POST", "/n", xml('<a xmlns:q="urn:x"><q:b/></a>'))).status, 200);
    assert.equal((await send(server, "POST", "/n", xml("<a><c/></a>"))).status, 404);
  },
);

Deno.test("xml conditions: load errors name the place and the fix", () => {
  const problems = (request: unknown) =>
    validateConfig({ routes: [{ method: "POST", path: "/x", request }] }).problems.map((p) => p.message);
  assert.deepEqual(problems({ xml_equals: "<a>" }), [
    "request.xml_equals is not XML: unclosed xml tag(s): a",
  ]);
  assert.deepEqual(problems({ xpath: { "//s:b": true } }), [
    "request.xpath.//s:b uses the prefix s: declare it in xpath_namespaces (without them a prefix never resolves)",
  ]);
  assert.deepEqual(problems({ xpath: { "//[": true } }), [
    "request.xpath.//[ is not an XPath 1.0 expression stubtool reads: XPath parse error",
  ]);
  assert.deepEqual(problems({ xml_ignore: ["text_value"] }), [
    "request.xml_ignore relaxes xml_equals; add xml_equals or remove xml_ignore",
  ]);
  assert.deepEqual(problems({ xml_equals: "<a/>", xml_ignore: ["nope"] }).length, 1);
});

serverTest(
  "attack: a billion-laughs body is refused before parsing (no entity expansion): bounded time, the server keeps answering",
  async (server) => {
    await addStubs(server, [
      { method: "POST", path: "/x", request: { xml_equals: "<lolz>lol</lolz>" }, body: "hit" },
      { method: "GET", path: "/health", body: "up" },
    ]);
    const levels = Array.from({ length: 9 }, (_, i) => `<!ENTITY lol${i + 1} "${`&lol${i};`.repeat(10)}">`).join("");
    const bomb = `<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol0 "lol">${levels}]><lolz>&lol9;</lolz>`;
    const started = performance.now();
    const [answer, health] = await Promise.all([
      send(server, "POST", "/x", xml(bomb)),
      send(server, "GET", "/health"),
    ]);
    const elapsed = performance.now() - started;
    assert.equal(answer.status, 404);
    assert.equal(
      answer.json.closest[0].reason,
      "body declares a DTD internal subset (stubtool does not read DTDs or expand entities)",
    );
    assert.equal(health.json, "up");
    assert.ok(elapsed < 2000, `took ${elapsed} ms`);
    // Deep nesting and oversized bodies are refused by a bound, not parsed.
    const deep = await send(server, "POST", "/x", xml("<a>".repeat(20_000) + "</a>".repeat(20_000)));
    assert.equal(deep.json.closest[0].reason, "body is nested deeper than 1000 levels");
    const big = await send(server, "POST", "/x", xml(`<lolz>${"x".repeat(300_000)}</lolz>`));
    assert.equal(big.json.closest[0].reason, "body is longer than 262144 characters");
  },
);

Deno.test("xpath: expressions whose cost grows faster than the body are refused at load; WireMock's common ones load", () => {
  const problems = (expression: string) =>
    validateConfig({ routes: [{ method: "POST", path: "/x", request: { xpath: { [expression]: true } } }] })
      .problems.map((p) => p.message);
  const sweep = "a sweeping axis (//, descendant, ancestor, following, preceding, siblings)";
  const tail = ": its cost grows faster than the body (refused to keep matching bounded)";
  assert.deepEqual(problems("//*//*//*"), [
    `request.xpath.//*//*//* uses ${sweep} twice in one path (write one //)${tail}`,
  ]);
  assert.deepEqual(problems("count(//*[.//*[.//*]])"), [
    `request.xpath.count(//*[.//*[.//*]]) uses ${sweep} inside a predicate${tail}`,
  ]);
  assert.deepEqual(problems("//a[../b]"), [
    `request.xpath.//a[../b] reads the siblings (.. then a child step) inside a predicate${tail}`,
  ]);
  assert.deepEqual(problems("//a[@id = /r/x]"), [
    `request.xpath.//a[@id = /r/x] uses an absolute path inside a predicate${tail}`,
  ]);
  for (
    const common of ["/a/b/text()", "//*[local-name()='Body']", "count(//item)", "//item[@id='1']/@kind", "//a[../@x]"]
  ) {
    assert.deepEqual(problems(common), [], common);
  }
});

serverTest(
  "attack: xpath over 10,000 sibling elements answered in bounded time (predicate node sets were sorted in quadratic time: 26 s at 8,000)",
  async (server) => {
    await addStubs(server, [
      { method: "POST", path: "/x", request: { xpath: { "//*[local-name()='a'][@id='z']": true } }, body: "hit" },
      { method: "GET", path: "/health", body: "up" },
    ]);
    // 9,000 siblings and a chain 990 deep: 9,992 nodes, under the cap; 39 kB.
    const wide = `<r>${"<a/>".repeat(9_000)}${"<a>".repeat(989)}<a id="z"/>${"</a>".repeat(989)}</r>`;
    const started = performance.now();
    const [answer, health] = await Promise.all([
      send(server, "POST", "/x", xml(wide)),
      (async () => {
        const asked = performance.now();
        const reply = await send(server, "GET", "/health");
        return { reply, took: performance.now() - asked };
      })(),
    ]);
    const elapsed = performance.now() - started;
    assert.equal(answer.status, 200);
    assert.equal(health.reply.json, "up");
    assert.ok(elapsed < 2000, `took ${elapsed} ms`);
    assert.ok(health.took < 1000, `health took ${health.took} ms`);
    // Over 10,000 nodes (20,000 elements, 80 kB): not searched, and the near miss says why.
    const over = await send(server, "POST", "/x", xml(`<r>${"<a/>".repeat(20_000)}</r>`));
    assert.equal(over.status, 404);
    assert.equal(
      over.json.closest[0].reason,
      "body has more than 10000 nodes (elements, attributes, text): not searched with xpath",
    );
  },
);
