/**
 * How answers go out on the wire (P19.3): the reason phrase (`status_message`), a header list
 * as one line per value, a lognormal delay, a chunked dribble; on both adapters, with what
 * `--adapter deno` sends instead where Deno.serve cannot.
 */
import assert from "node:assert/strict";
import { connect } from "node:net";
import { stubServer } from "../mod.ts";
import { delayMs } from "../src/server/deadlines.ts";
import { validateConfig } from "../src/stubs/validate.ts";
import { ADAPTERS } from "./_http.ts";

/** The stubs of a config, validated. */
function stubs(routes: Record<string, unknown>[]) {
  const { config, problems } = validateConfig({ routes });
  assert.deepEqual(problems, []);
  return config!.routes;
}

/** One request over a raw socket: the bytes (Latin-1) and when each piece arrived (ms after sending). */
function exchange(port: number, path: string): Promise<{ text: string; arrivals: number[] }> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const arrivals: number[] = [];
    let text = "";
    const socket = connect(port, "127.0.0.1", () => {
      socket.write(`GET ${path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`);
    });
    socket.on("data", (chunk) => {
      text += chunk.toString("latin1");
      arrivals.push(performance.now() - started);
    });
    socket.on("close", () => resolve({ text, arrivals }));
    socket.on("error", reject);
  });
}

/** A fixed sequence of numbers in [0, 1) (mulberry32), for draws a test can repeat. */
function seeded(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

for (const adapter of ADAPTERS) {
  Deno.test(`[${adapter}] status_message is the reason phrase of the status line`, async () => {
    await using server = await stubServer(0, {
      adapter,
      stubs: stubs([
        { method: "GET", path: "/fine", status_message: "Everything Fine", body: "ok" },
        { method: "GET", path: "/nope", status: 404, status_message: "Nope", template: true, body: "{{request.path}}" },
        { method: "GET", path: "/plain", status: 201 },
      ]),
    });
    const line = async (path: string) => (await exchange(server.getPort(), path)).text.split("\r\n")[0];
    if (adapter === "node") {
      assert.equal(await line("/fine"), "HTTP/1.1 200 Everything Fine");
      assert.equal(await line("/nope"), "HTTP/1.1 404 Nope");
    } else {
      // Deno.serve sends the standard reason phrase whatever the Response says (a [WARN] says so).
      assert.equal(await line("/fine"), "HTTP/1.1 200 OK");
      assert.equal(await line("/nope"), "HTTP/1.1 404 Not Found");
    }
    assert.equal(await line("/plain"), "HTTP/1.1 201 Created");
  });

  Deno.test(`[${adapter}] a header list goes out as one line per value (any header) on node:http`, async () => {
    await using server = await stubServer(0, {
      adapter,
      stubs: stubs([{
        method: "GET",
        path: "/h",
        headers: { "X-Multi": ["one", "two"], "set-cookie": ["a=1", "b=2"], "content-type": "text/plain" },
        body: "ok",
      }]),
    });
    const head = (await exchange(server.getPort(), "/h")).text.split("\r\n\r\n")[0].split("\r\n");
    const lines = (name: string) => head.filter((line) => line.toLowerCase().startsWith(`${name}:`));
    assert.deepEqual(lines("set-cookie").map((l) => l.toLowerCase()), ["set-cookie: a=1", "set-cookie: b=2"]);
    assert.deepEqual(
      lines("x-multi").map((l) => l.toLowerCase()),
      adapter === "node" ? ["x-multi: one", "x-multi: two"] : ["x-multi: one, two"],
    );
  });

  Deno.test(`[${adapter}] dribble sends the body in N chunks spread over M ms`, async () => {
    await using server = await stubServer(0, {
      adapter,
      stubs: stubs([{
        method: "GET",
        path: "/d",
        dribble: { chunks: 4, ms: 800 },
        headers: { "content-type": "text/plain" },
        body: "aaaabbbbccccdddd",
      }]),
    });
    const { text, arrivals } = await exchange(server.getPort(), "/d");
    const end = text.indexOf("\r\n\r\n");
    const [head, body] = [text.slice(0, end), text.slice(end + 4)];
    assert.match(head.toLowerCase(), /\r\ntransfer-encoding: chunked(\r\n|$)/);
    assert.doesNotMatch(head.toLowerCase(), /content-length/);
    assert.equal(body, "4\r\naaaa\r\n4\r\nbbbb\r\n4\r\ncccc\r\n4\r\ndddd\r\n0\r\n\r\n");
    // Pieces every 200 ms, the first after one interval: the whole takes about 800 ms.
    const total = arrivals[arrivals.length - 1];
    assert.ok(total >= 700 && total < 3000, `took ${total.toFixed(0)} ms`);
    assert.ok(arrivals.length >= 4, `the pieces arrived apart: ${arrivals.map(Math.round)}`);
  });

  Deno.test(`[${adapter}] a lognormal delay waits about its median`, async () => {
    await using server = await stubServer(0, {
      adapter,
      stubs: stubs([{ method: "GET", path: "/ln", delay: { median: 300, sigma: 0.05 }, body: "ok" }]),
    });
    const started = performance.now();
    assert.equal(await (await fetch(`${server.url}/ln`)).json(), "ok");
    const took = performance.now() - started;
    // e^(±5·0.05) bounds the draw to 234–385 ms with all but one chance in a million.
    assert.ok(took >= 230 && took < 2500, `took ${took.toFixed(0)} ms`);
  });
}

Deno.test("a lognormal delay is median · e^(sigma · z): half the draws below the median, 15.9 % above median · e^sigma", () => {
  const random = seeded(42);
  const draws = Array.from({ length: 20_000 }, () => delayMs({ median: 100, sigma: 0.5 }, random));
  const below = draws.filter((d) => d < 100).length / draws.length;
  const aboveOneSigma = draws.filter((d) => d > 100 * Math.exp(0.5)).length / draws.length;
  assert.ok(Math.abs(below - 0.5) < 0.02, `below the median: ${below}`);
  assert.ok(Math.abs(aboveOneSigma - 0.1587) < 0.015, `above one sigma: ${aboveOneSigma}`);
  assert.ok(draws.every((d) => d > 0 && Number.isFinite(d)));
  assert.equal(delayMs({ median: 100, sigma: 0 }, random), 100);
  assert.equal(
    // Draws 0.99 then 0: z = √(−2·ln 0.01) ≈ 3.03, so e^(10·z) times the median is far past any timer.
    delayMs({ median: 2_000_000_000, sigma: 10 }, ((draws) => () => draws.shift()!)([0.99, 0])),
    2_147_483_647,
    "capped at the longest timer",
  );
});

Deno.test("a lognormal delay with max draws again above it (ten times at most), then caps; plus is added after", () => {
  // Uniform draws for Box–Muller: (0.99, 0) gives z ≈ 3.03 (far above), (0.5, 0) gives z ≈ 1.18.
  const from = (draws: number[]) => () => draws.shift()!;
  const high = [0.99, 0];
  const mid = [0.5, 0];
  const z = (u: number) => Math.sqrt(-2 * Math.log(1 - u));
  // One draw above max, the second below: the second is taken.
  assert.equal(
    delayMs({ median: 100, sigma: 0.5, max: 200 }, from([...high, ...mid])),
    100 * Math.exp(0.5 * z(0.5)),
  );
  // Eleven draws above max: capped at max after the tenth redraw (a twelfth draw is never made).
  const eleven = Array.from({ length: 11 }, () => high).flat();
  assert.equal(delayMs({ median: 100, sigma: 0.5, max: 200 }, from([...eleven, ...mid])), 200);
  // plus is added after the cap.
  assert.equal(delayMs({ median: 100, sigma: 0.5, max: 200, plus: 50 }, from(eleven)), 250);
  assert.equal(delayMs({ median: 100, sigma: 0, plus: 25 }), 125);
  const random = seeded(7);
  const draws = Array.from({ length: 5_000 }, () => delayMs({ median: 60, sigma: 0.5, max: 70, plus: 100 }, random));
  assert.ok(draws.every((d) => d > 100 && d <= 170), `${Math.min(...draws)}..${Math.max(...draws)}`);
});

Deno.test("status_message, dribble and a lognormal delay are checked", () => {
  const check = (raw: Record<string, unknown>) =>
    validateConfig({ routes: [{ method: "GET", path: "/a", ...raw }] }).problems.map((p) => p.message);
  assert.deepEqual(check({ status_message: "two\nlines" }), [
    'status_message must be one line without control characters, each character up to U+00FF, got "two\\nlines"',
  ]);
  assert.deepEqual(check({ status_message: 7 }), ["status_message must be text (the reason phrase), got 7"]);
  assert.deepEqual(check({ dribble: { chunks: 0, ms: 10 } }), [
    "dribble.chunks must be a whole number from 1 to 10000, got 0",
  ]);
  assert.deepEqual(check({ dribble: { chunks: 2, ms: 10, x: 1 } })[0].startsWith("dribble: unknown field 'x'"), true);
  assert.deepEqual(check({ delay: { median: 10, sigma: -1 } }), ["delay.sigma must be a number from 0 to 10, got -1"]);
  assert.deepEqual(check({ delay: { median: 10 } }), ["delay.sigma must be a number from 0 to 10, got undefined"]);
  assert.deepEqual(check({ delay: { median: 10, sigma: 1, max: 5 } }), [
    "delay.max (5) must not be less than the median (10): it caps the draws above it",
  ]);
  assert.deepEqual(check({ delay: { median: 10, sigma: 1, plus: -1 } }), [
    "delay.plus must be milliseconds from 0 to 2147483647, got -1",
  ]);
  assert.ok(check({ delay: { median: 10, sigma: 1, cap: 5 } })[0].startsWith("delay: unknown field 'cap'"));
  assert.deepEqual(check({ delay: { median: 10, sigma: 1, max: 10, plus: 0 } }), []);
});
