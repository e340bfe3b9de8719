/**
 * The handler's own work for S1, without sockets: `StubHandler.handle` on `GET /users/42` over
 * the 20-stub config (route among 20 stubs, count the hit, journal the request, fill `{id}`),
 * against the work node-bare kept does per request (copy the headers into a ring of 500, build
 * the same body) and the work node-bare stubs does (what the contract asks of a stub server
 * for S1, written by hand for this config: servers/stub_work.mjs), each in a loop; nanoseconds per request,
 * medians of rounds. All three answers end in the same stand-in for the adapter's write (a
 * header list and `Buffer.byteLength`). What the handler costs beyond the floor here is what
 * S1 on the default wire pays beyond its adapter (see the side-by-side figures of `npm run bench`).
 *
 *   deno run -A bench/handler.ts [--rounds 5] [--requests 1000000]   (npm run bench runs it too)
 * @module
 */

import { parseArgs } from "node:util";
import { Buffer } from "node:buffer";
import { StubHandler } from "../src/server/handler.ts";
import type { Incoming } from "../src/server/incoming.ts";
import type { AnswerBody, ResponseHead } from "../src/server/response.ts";
import { validateConfig } from "../src/stubs/validate.ts";
import { withTemplating } from "../src/templating/engine.ts";
import { median } from "./measure.ts";
import { makeConfig } from "./scenarios.ts";
import { stubWork } from "./servers/stub_work.mjs";

/** wrk's S1 request as the node adapter shows it. */
const HEADERS: Record<string, string> = { host: "127.0.0.1:18080" };
const LINES = ["Host", "127.0.0.1:18080"];
function request(target: string): Incoming {
  return {
    method: "GET",
    target,
    header: (name) => HEADERS[name] ?? null,
    headers: () => ({ ...HEADERS }),
    headerSource: () => HEADERS,
    hasBody: () => false,
    read: () => Promise.reject(new Error("no body")),
    stream: () => null,
    clientIp: () => "127.0.0.1",
    headerLines: () => LINES,
    repeatsHeaders: () => false,
  };
}

let written = 0;
/** The adapter's part, as node.ts does it before writing: a header list with the body's length. */
function write(head: ResponseHead, body: AnswerBody): void {
  const flat: string[] = [];
  for (const name in head.headers) flat.push(name, head.headers[name]);
  flat.push("content-length", String(Buffer.byteLength(body as string)));
  written += flat.length;
}

const userBody = (id: string) =>
  `{"id":"${id}","name":"Ada","profile":{"roles":["admin","dev"],"links":{"self":"/users/${id}"}}}`;
const json = { status: 200, headers: { "content-type": "application/json" } };
const kept = new Array(500);
let next = 0;
/** node-bare kept's work for one S1 request. */
function floor(incoming: Incoming): void {
  kept[next++ % kept.length] = { ...incoming.headerSource() };
  write(json, userBody(incoming.target.slice(7)));
}

/** Nanoseconds per request of each loop, one per round. */
export interface HandlerWork {
  rounds: number;
  requests: number;
  times: Record<string, number[]>;
}

/** Runs both loops `rounds` times, `requests` requests each, after checking the S1 answer. */
export async function measureHandler(rounds: number, requests: number): Promise<HandlerWork> {
  const config = await withTemplating(() => validateConfig(makeConfig(20)));
  if (!config.config) throw new Error(`the S1 config does not validate: ${JSON.stringify(config.problems)}`);
  const handler = new StubHandler(config.config.routes);
  const check = handler.handle(request("/users/42"), (head, body) => [head.status, body] as const);
  if (check instanceof Promise || check[0] !== 200 || check[1] !== userBody("42")) {
    throw new Error(`the S1 stub answered ${JSON.stringify(check)}`);
  }
  const work = stubWork(makeConfig(20).routes);
  const byHandCheck = work("GET", "/users/42", HEADERS);
  if (byHandCheck.status !== 200 || byHandCheck.text !== userBody("42")) {
    throw new Error(`stub_work.mjs answered ${JSON.stringify(byHandCheck)}`);
  }
  const byHand = (incoming: Incoming) => {
    const { status, type, text } = work(incoming.method, incoming.target, incoming.headerSource());
    write({ status, headers: { "content-type": type } }, text);
  };
  const runs: Record<string, (incoming: Incoming) => unknown> = {
    "node-bare kept's work": floor,
    "node-bare stubs' work": byHand,
    "StubHandler.handle": (incoming) => handler.handle(incoming, write),
  };
  const times: Record<string, number[]> = Object.fromEntries(Object.keys(runs).map((name) => [name, []]));
  for (let round = 0; round < rounds; round++) {
    for (const [name, run] of Object.entries(runs)) {
      const started = performance.now();
      for (let i = 0; i < requests; i++) run(request("/users/42"));
      times[name].push((performance.now() - started) * 1e6 / requests);
    }
  }
  if (written === 0) throw new Error("nothing was written");
  return { rounds, requests, times };
}

export function printHandler({ rounds, requests, times }: HandlerWork): void {
  console.log(
    `\nS1's per-request work without sockets (bench/handler.ts), ns per request, median (spread) of ${rounds} ` +
      `round(s) of ${requests}:`,
  );
  for (const [name, ns] of Object.entries(times)) {
    console.log(
      `  ${name.padEnd(22)} ${median(ns).toFixed(0)} (${Math.min(...ns).toFixed(0)}–${Math.max(...ns).toFixed(0)})`,
    );
  }
}

if (import.meta.main) {
  const { values: flags } = parseArgs({
    args: Deno.args,
    options: { rounds: { type: "string", default: "5" }, requests: { type: "string", default: "1000000" } },
  });
  printHandler(await measureHandler(Number(flags.rounds), Number(flags.requests)));
}
