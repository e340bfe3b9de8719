/**
 * Regenerates docs/dashboard.png, the dashboard screenshot in the README: serves
 * examples/stubs.yaml, sends a handful of matched and unmatched requests (one with a JSON body, whose detail
 * is shown open), and photographs
 * `GET /__stubtool__/` in headless Chromium at 1280 px (the browser the tests use:
 * `npm run screenshot` gets it from scripts/provision.mjs, or set CHROMIUM_PATH).
 *
 *   deno run -A scripts/screenshot.ts              # light, docs/dashboard.png
 *   deno run -A scripts/screenshot.ts --dark out.png
 *
 * @module
 */

import { dirname, resolve } from "node:path";
import { parseArgs } from "node:util";
import { fileURLToPath } from "node:url";
import { stubServer } from "../mod.ts";
import { loadConfigFile } from "../src/stubs/config.ts";
import { launch } from "../tests/browser/_browser.ts";

const ROOT = fileURLToPath(new URL("..", import.meta.url));

/** What the pictured client sends: mostly right, a few near misses the dashboard explains. */
const TRAFFIC: [method: string, path: string][] = [
  ["GET", "/users"],
  ["GET", "/users?role=admin"],
  ["GET", "/users/1"],
  ["GET", "/users/2"],
  ["POST", "/users"],
  ["GET", "/users/search?q=ada"],
  ["GET", "/orders/o-1/status"],
  ["GET", "/orders/o-1/status"],
  ["GET", "/users/1/orders/7"],
  ["PUT", "/users/1"],
  ["GET", "/users/search"],
  ["GET", "/users/1/orders"],
  ["GET", "/payments/health/"],
];

async function main(): Promise<number> {
  const { values, positionals } = parseArgs({
    args: Deno.args,
    options: { dark: { type: "boolean", default: false } },
    allowPositionals: true,
  });
  const out = positionals[0] ?? `${ROOT}docs/dashboard.png`;
  // Relative, so the stub table shows `examples/stubs.yaml:9`, not this machine's path.
  Deno.chdir(ROOT);
  const { config, problems } = await loadConfigFile("examples/stubs.yaml");
  if (!config) {
    console.error(problems.map((p) => p.message).join("\n"));
    return 1;
  }
  await using server = await stubServer(0, { stubs: config.routes });
  for (const [method, path] of TRAFFIC) {
    const body = method === "PUT" ? JSON.stringify({ name: "Ada Lovelace", role: "admin" }) : undefined;
    const headers = body ? { "content-type": "application/json", "x-request-id": "r-42" } : undefined;
    const response = await fetch(server.url + path, { method, body, headers });
    await response.body?.cancel();
  }
  await using browser = await launch({ colorScheme: values.dark ? "dark" : "light" });
  const page = await browser.context.newPage();
  await page.goto(`${server.url}/__stubtool__/`);
  // One request's detail open: its headers, its body and the stubs that came close.
  await page.locator("#unmatched-table details.req summary", { hasText: "PUT" }).first().click();
  await Deno.mkdir(dirname(resolve(out)), { recursive: true });
  await page.screenshot({ path: out, fullPage: true });
  console.log(`[screenshot] ${out}`);
  return 0;
}

if (import.meta.main) Deno.exit(await main());
