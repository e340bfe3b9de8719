// Every WireMock golden case replayed against stubtool serving the case's folder as it is:
// `serve --wiremock DIR` (the CLI), the Node adapter with the same converted stubs, and
// `import wiremock` + `serve --config`. Each case lists the requests stubtool answers as
// WireMock did; every other request's mapping is refused, and it must get stubtool's own 404
// (never a wrong answer) while the refusal is printed as a [WARN] line. The lists grow as the
// converter learns more.
import assert from "node:assert/strict";
import { join } from "node:path";
import { runCli, startServe } from "./_cli.ts";
import {
  type GoldenCase,
  loadGoldenCases,
  materializeCase,
  startUpstream,
  type Upstream,
} from "./_wiremock_goldens.ts";
import { compareAnswer, exchange, parseAnswer } from "./_wiremock_wire.mjs";
import { loadWireMockFolder } from "../src/cli/loaders/wiremock_folder.ts";
import { stubServer } from "../mod.ts";

/**
 * Per case: the requests answered exactly as WireMock answered them, and the requests a
 * converted mapping answers differently (a known difference, with why). Every other request's
 * mapping is refused by the converter.
 */
const EXPECTED: Record<string, {
  answered: string[];
  differs?: Record<string, string>;
  /** Answered by serve --wiremock (the folder's __files) but not by an imported config. */
  serve_only?: string[];
}> = JSON.parse(
  Deno.readTextFileSync(new URL("./fixtures/wiremock_serve_expected.json", import.meta.url)),
);

/** What one replay saw: the names of the requests answered as WireMock did, and every other problem. */
interface Replay {
  answered: string[];
  /** Requests answered neither as WireMock did nor with stubtool's 404, and how. */
  problems: string[];
  details: string[];
}

/** Sends the case's requests in order; a request not answered as WireMock did must get stubtool's 404. */
async function replay(baseUrl: string, goldenCase: GoldenCase, upstream: Upstream | undefined): Promise<Replay> {
  const port = Number(new URL(baseUrl).port);
  const result: Replay = { answered: [], problems: [], details: [] };
  for (const [i, request] of goldenCase.requests.entries()) {
    upstream?.clearHooks();
    const seen = await exchange(port, request);
    const hook = request.webhook ? await upstream?.nextHook(5000) : undefined;
    const differences = compareAnswer(request, goldenCase.golden.answers[i], seen, hook);
    if (differences.length === 0) {
      result.answered.push(request.name);
      continue;
    }
    const answer = parseAnswer(seen.bytes, request.method);
    const body = new TextDecoder().decode(answer?.body ?? new Uint8Array());
    if (answer?.status !== 404 || (request.method !== "HEAD" && !body.includes('"error":"no stub matched"'))) {
      result.problems.push(request.name);
      result.details.push(`${request.name}: neither WireMock's answer nor stubtool's 404: ${differences.join("; ")}`);
    }
  }
  return result;
}

for (const goldenCase of loadGoldenCases()) {
  Deno.test(`WireMock case '${goldenCase.name}': served from its folder, each request answered as WireMock did or refused with a warning`, async () => {
    const upstream = goldenCase.needsUpstream ? await startUpstream() : undefined;
    const copy = await materializeCase(goldenCase.dir, upstream?.port ?? 9);
    try {
      const loaded = loadWireMockFolder(copy.dir);
      const refused = [...new Set(loaded.problems.map((p) => p.place ?? ""))];
      const want = EXPECTED[goldenCase.name] ?? { answered: [] };
      const runs: [string, Replay][] = [];

      // The CLI: serve --wiremock DIR.
      {
        const served = await startServe(["--port", "0", "--quiet", "--wiremock", copy.dir]);
        await using _ = served.process;
        runs.push(["serve --wiremock", await replay(served.url, goldenCase, upstream)]);
        // Every refused mapping is named by a [WARN] line.
        for (const place of refused) {
          assert.match(
            served.process.stderr,
            new RegExp(`^\\[WARN\\] ${escape(place)}: '[^']+' is not supported: `, "m"),
          );
        }
      }
      // The Node adapter, with the same stubs.
      {
        await using server = await stubServer(0, {
          adapter: "node",
          wiremock: [loadWireMockFolder(copy.dir).stubs],
          wiremockDirs: [copy.dir],
        });
        runs.push(["node adapter", await replay(server.url, goldenCase, upstream)]);
      }
      // import wiremock, then serve --config.
      {
        const out = join(copy.dir, "imported.yaml");
        const imported = await runCli(["import", "wiremock", copy.dir, "-o", out]);
        assert.equal(imported.code, 0, imported.stderr);
        const served = await startServe(["--port", "0", "--quiet", "--config", out]);
        await using _ = served.process;
        runs.push(["import + serve --config", await replay(served.url, goldenCase, upstream)]);
      }
      if (Deno.env.get("WIREMOCK_DISCOVER")) {
        console.log(
          `DISCOVER ${JSON.stringify([goldenCase.name, runs.map(([how, r]) => [how, r.answered, r.details])])}`,
        );
      }
      for (const [how, result] of runs) {
        // What the served folder's __files answer (P20.5) an imported config does not: it has no folder.
        const answered = how === "import + serve --config"
          ? want.answered.filter((name) => !(want.serve_only ?? []).includes(name))
          : want.answered;
        assert.deepEqual(result.answered, answered, `${how}: the requests answered as WireMock did`);
        assert.deepEqual(
          result.problems,
          Object.keys(want.differs ?? {}),
          `${how}: only the known differences answer other than WireMock or a 404:\n${result.details.join("\n")}`,
        );
      }
    } finally {
      await copy.remove();
      await upstream?.close();
    }
  });
}

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
