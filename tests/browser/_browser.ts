/**
 * Headless Chromium for the dashboard tests and scripts/screenshot.ts: playwright-core
 * drives the browser that `npm test` found or installed (scripts/provision.mjs: the system's
 * Chromium or Chrome, Debian's `chromium` package, or the Chromium build inside the npm
 * package @sparticuz/chromium), passed in `CHROMIUM_PATH`; never a browser from a vendor. Each launch gets a fresh profile in a temporary directory and the
 * flags that keep Chromium from reaching out to the network it may not have.
 * @module
 */

import { existsSync } from "node:fs";
import { type BrowserContext, chromium } from "playwright-core";

/** Where the browser is: `CHROMIUM_PATH`, else the first of the usual places that exists. */
export function chromiumPath(): string | undefined {
  const fromEnv = Deno.env.get("CHROMIUM_PATH");
  if (fromEnv) return fromEnv;
  return ["/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome"].find((p) => existsSync(p));
}

const ARGS = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--no-first-run",
  "--disable-quic",
];

/** A browser context with its own profile directory; disposing closes it and removes the directory. */
export interface Browser extends AsyncDisposable {
  context: BrowserContext;
}

/** Launches headless Chromium (throws when none is found: `node scripts/provision.mjs chromium` gets one). */
export async function launch(options: { colorScheme?: "light" | "dark" } = {}): Promise<Browser> {
  const executablePath = chromiumPath();
  if (!executablePath) {
    throw new Error(
      "no Chromium found: run `npm test -- browser` (it finds or installs one), or set CHROMIUM_PATH to one",
    );
  }
  const profile = await Deno.makeTempDir({ prefix: "stubtool-chromium-" });
  let context: BrowserContext;
  try {
    context = await chromium.launchPersistentContext(profile, {
      executablePath,
      headless: true,
      args: ARGS,
      viewport: { width: 1280, height: 800 },
      colorScheme: options.colorScheme ?? "light",
      timeout: 30_000,
    });
  } catch (error) {
    await Deno.remove(profile, { recursive: true }).catch(() => {});
    throw error;
  }
  return {
    context,
    async [Symbol.asyncDispose]() {
      await context.close().catch(() => {});
      await Deno.remove(profile, { recursive: true }).catch(() => {});
    },
  };
}
