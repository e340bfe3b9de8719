// WireMock's recorded answers against the converted stubs: the mappings of a golden case go
// through the converter, a server serves what converted, and every request of the case is
// replayed. A request whose answer differs must be one of the listed known differences (a
// refused mapping, or a server difference docs/wiremock.md names); stubtool's 404 body differs
// by design, so a WireMock 404 is compared by status.
import assert from "node:assert/strict";
import { readWireMockFolder } from "../src/cli/loaders/wiremock_folder.ts";
import { validateConfig } from "../src/stubs/validate.ts";
import { stubServer } from "../mod.ts";
import { type GoldenCase, loadGoldenCases, materializeCase, replayCase, startUpstream } from "./_wiremock_goldens.ts";

const ADAPTERS = ["deno", "node"] as const;
const cases = new Map(loadGoldenCases().map((c) => [c.name, c]));

/** The requests that answer differently from WireMock, by case: request name → why. */
const KNOWN: Record<string, Record<string, string>> = {
  urls: {},
  query_parameters: {},
  headers: {},
  header_lines: {
    "equalTo A caseInsensitive: two lines, second matches":
      "WireMock lets the line nearest the text by a case-sensitive edit distance decide (b and a are as far from A; the first, b, wins): stubtool matches when one line does",
  },
  body_json: {},
  body_jsonpath: {},
  xml: {},
  faults: {
    "MALFORMED_RESPONSE_CHUNK with Connection: close":
      "stubtool's malformed_chunk always sends a broken chunk; WireMock under Connection: close sends a complete close-delimited body",
  },
  delays: {},
  responses: { "Content-Length set by the mapping": "stubtool's server sets content-length itself (refused)" },
  p20_more: {},
  p20_answers: {
    "xPath selecting an element":
      "the mapping is refused (WireMock renders an element as the JDK's indented XML text); stubtool's 404 answers",
  },
  p20_extras: {
    "too deep: x": "and / or nested more than 16 levels deep is refused",
    "date unreadable format: week": "an actualFormat with a letter stubtool does not read (w) is refused",
  },
};

/**
 * What differs besides on `--adapter deno` (Deno.serve), by case: it cannot send these (a [WARN] says so);
 * null for a difference of {@link KNOWN} that Deno does not have.
 */
const JOINED = "Deno.serve joins a header's lines before stubtool tests them";
const KNOWN_ON_DENO: Record<string, Record<string, string | null>> = {
  faults: Object.fromEntries(
    [
      "CONNECTION_RESET_BY_PEER",
      "CONNECTION_RESET_BY_PEER, kept alive",
      "EMPTY_RESPONSE",
      "EMPTY_RESPONSE, kept alive",
      "RANDOM_DATA_THEN_CLOSE",
      "RANDOM_DATA_THEN_CLOSE, kept alive",
      "fault wins over status, headers and body",
    ].map((name) => [name, "Deno.serve sends the status line and headers before it closes"]),
  ),
  headers: {
    "hasExactly on a header sent twice": "Deno.serve joins a header's lines before stubtool counts them",
    "equalTo against a header sent twice (first matches)": JOINED,
    "equalTo against a header sent twice (second matches)": JOINED,
  },
  header_lines: {
    ...Object.fromEntries(
      [
        "From equalTo b: two lines a and b",
        "and contains a, b: two lines a and b",
        "contains ' a': two lines x and a",
        "doesNotContain a: two lines, one without a",
        "doesNotMatch a.*: two lines, one not matching",
        "equalTo 'a, b': three lines a, b and c",
        "equalTo A caseInsensitive: two lines, first matches",
        "equalTo a: two lines, first matches",
        "equalTo a: two lines, second matches",
        "matches a[0-9]: two lines, first matches",
        "matches a[0-9]: two lines, second matches",
        "or a, b: two lines c and b",
      ].map((name) => [name, JOINED]),
    ),
    // The joined 'b, a' is not A: Deno.serve decides as WireMock did.
    "equalTo A caseInsensitive: two lines, second matches": null,
  },
  p20_more: {
    "hasExactly: two lines a and b": "Deno.serve joins a header's lines before stubtool counts them",
    "includes: a among two lines": "Deno.serve joins a header's lines before stubtool counts them",
    "equalTo 'a, b': two lines": JOINED,
    "contains 'a, b': two lines": JOINED,
    "and contains a, contains b: two lines": JOINED,
  },
  p20_extras: {
    ...Object.fromEntries(
      [
        "proxy: removed headers, added one, prefix stripped, stub headers added",
        "proxy: POST with a body through the adjusted proxy",
      ].map((name) => [name, "Deno.serve joins the lines of the stub's two-valued header added to the proxied answer"]),
    ),
    "nested header texts: two lines a and b": JOINED,
  },
  responses: {
    "multi-valued headers": "Deno.serve joins the lines of a header other than set-cookie",
    "statusMessage on 200": "Deno.serve sends the standard reason phrase",
  },
};

/** The names of the requests that differ when `goldenCase`'s converted stubs answer. */
async function differing(goldenCase: GoldenCase, adapter: "deno" | "node"): Promise<string[]> {
  // A case with a proxy mapping gets the loopback upstream, its port written into a copy of the case.
  const upstream = goldenCase.needsUpstream ? await startUpstream() : undefined;
  const copy = upstream ? await materializeCase(goldenCase.dir, upstream.port) : undefined;
  try {
    const folder = readWireMockFolder(copy?.dir ?? goldenCase.dir);
    const { config, problems } = validateConfig({ routes: folder.routes });
    assert.deepEqual(problems.filter((p) => p.level === "error"), []);
    await using server = await stubServer(0, { adapter, stubs: config!.routes });
    const requests = goldenCase.requests.map((r, i) =>
      goldenCase.golden.answers[i].status === 404 ? { ...r, compare: "status" } : r
    );
    return namesOf(goldenCase, requests, await replayCase(server.url, { ...goldenCase, requests }, upstream));
  } finally {
    await copy?.remove();
    await upstream?.close();
  }
}

/** The names of the requests the problems of a replay are about. */
function namesOf(goldenCase: GoldenCase, requests: GoldenCase["requests"], problemsSeen: string[]): string[] {
  const names = new Set<string>();
  for (const problem of problemsSeen) {
    // A body WireMock sends without a content type is converted to body_base64, which goes out as
    // application/octet-stream: a response difference of its own (this test is about matching).
    if (problem.endsWith(': header content-type: WireMock null, got ["application/octet-stream"]')) continue;
    const request = requests.find((r) => problem.startsWith(`${goldenCase.name}: ${r.name} (`));
    names.add(request?.name ?? problem);
  }
  return [...names].sort();
}

for (const [name, known] of Object.entries(KNOWN)) {
  for (const adapter of ADAPTERS) {
    Deno.test(`[${adapter}] WireMock golden '${name}': the converted stubs answer as WireMock did`, async () => {
      const goldenCase = cases.get(name)!;
      const expected = { ...known, ...adapter === "deno" ? KNOWN_ON_DENO[name] : {} };
      const names = Object.keys(expected).filter((request) => expected[request] !== null);
      assert.deepEqual(await differing(goldenCase, adapter), names.sort());
    });
  }
}
