// The WireMock golden fixtures themselves: each case is well-formed and its golden.json fits its
// requests.json, so a converter tested against them is measured against what WireMock said.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { checkCase, GOLDEN_CASES_DIR, loadGoldenCases, replayCase } from "./_wiremock_goldens.ts";

const cases = loadGoldenCases();

Deno.test("there are WireMock golden cases, each listed in the fixtures README", () => {
  assert(cases.length >= 15, `only ${cases.length} cases`);
  const readme = readFileSync(join(GOLDEN_CASES_DIR, "README.md"), "utf8");
  for (const goldenCase of cases) assert(readme.includes(`\`${goldenCase.name}\``), `README misses ${goldenCase.name}`);
});

for (const goldenCase of cases) {
  Deno.test(`WireMock golden case '${goldenCase.name}' is well-formed and recorded`, () => {
    assert.deepEqual(checkCase(goldenCase), []);
  });
}

Deno.test("a golden that lost an answer, or whose answer names another request, is caught", () => {
  const [first] = cases;
  const short = { ...first, golden: { ...first.golden, answers: first.golden.answers.slice(1) } };
  assert.notDeepEqual(checkCase(short), []);
  const swapped = { ...first, requests: [...first.requests].reverse() };
  assert.notDeepEqual(checkCase(swapped), []);
  const badMode = { ...first, requests: first.requests.map((r, i) => i === 0 ? { ...r, compare: "fuzzy" } : r) };
  assert(checkCase(badMode).some((p) => p.includes("compare must be one of")));
});

Deno.test("replay refuses a non-loopback URL and a helper-less proxy case", async () => {
  const [first] = cases;
  assert.deepEqual(await replayCase("http://192.0.2.1:8080", first), [
    `${first.name}: replay only talks to a loopback http URL, got http://192.0.2.1:8080`,
  ]);
  const proxy = cases.find((c) => c.needsUpstream)!;
  assert((await replayCase("http://127.0.0.1:9", proxy))[0].includes("startUpstream"));
});
