/**
 * The live dashboard at `GET /__stubtool__/`: the HTML report page (src/report/report_html.ts)
 * plus a small script that refetches the page every second and swaps in the new content
 * when it changed, keeping focus and scroll positions, without reloading. Plain DOM, no
 * framework; it runs in the browser, so it touches no runtime API (the server runs on Deno
 * and Node alike).
 * @module
 */

import type { JournalSnapshot, Report } from "./types.ts";
import { liveCsp, renderHtmlReport } from "./report_html.ts";

/** How often the page asks for new content, in milliseconds. */
export const REFRESH_MS = 1000;

/**
 * The refresh script. It polls only while the tab is visible and not paused, replaces
 * `#content` only when its markup changed (so a text selection survives quiet periods),
 * and says so when the server cannot be reached (then keeps trying).
 */
const SCRIPT = `(() => {
  "use strict";
  const content = document.getElementById("content");
  const status = document.getElementById("live-status");
  const meta = document.getElementById("live-meta");
  const pause = document.getElementById("live-pause");
  let last = content.innerHTML;
  let paused = false;
  let failing = false;
  const clock = () => new Date().toLocaleTimeString();
  const show = (text, error) => {
    status.textContent = text;
    meta.classList.toggle("error", error);
  };
  const swap = (fresh) => {
    const active = document.activeElement;
    const focusId = active && active !== content && content.contains(active) ? active.id : "";
    const scrolled = Array.from(content.querySelectorAll(".scroll[id]"), (el) => [el.id, el.scrollLeft]);
    content.replaceChildren(...Array.from(fresh.childNodes, (node) => document.importNode(node, true)));
    for (const [id, left] of scrolled) {
      const el = document.getElementById(id);
      if (el) el.scrollLeft = left;
    }
    if (focusId) document.getElementById(focusId)?.focus({ preventScroll: true });
  };
  /** Swaps in the content of a freshly fetched page, if it differs from what is shown. */
  const apply = (html) => {
    const next = new DOMParser().parseFromString(html, "text/html");
    const fresh = next.getElementById("content");
    if (!fresh) throw new Error("the answer is not a stubtool dashboard");
    if (fresh.innerHTML !== last) {
      last = fresh.innerHTML;
      swap(fresh);
      document.title = next.title;
      show("Live: changed at " + clock(), false);
    } else if (failing) show("Live: reconnected at " + clock(), false);
    failing = false;
  };
  const poll = async () => {
    if (!paused && !document.hidden) {
      try {
        const response = await fetch(location.pathname, { cache: "no-store", headers: { accept: "text/html" } });
        if (!response.ok) throw new Error("HTTP " + response.status);
        const html = await response.text();
        // Paused while the answer was on its way: keep what is shown.
        if (!paused) apply(html);
      } catch (error) {
        failing = true;
        show("Cannot reach the server (" + (error && error.message || error) + "); retrying", true);
      }
    }
    setTimeout(poll, ${REFRESH_MS});
  };
  pause.addEventListener("click", () => {
    paused = !paused;
    pause.setAttribute("aria-pressed", String(paused));
    show(paused ? "Paused" : "Live: refreshes every second", false);
  });
  setTimeout(poll, ${REFRESH_MS});
})();`;

/** A dashboard page and the response headers it needs. */
export interface DashboardPage {
  headers: Record<string, string>;
  html: string;
}

function nonce(): string {
  return btoa(String.fromCharCode(...crypto.getRandomValues(new Uint8Array(16))));
}

/**
 * The live dashboard for a report and journal: the page, and headers that serve it
 * uncached under a Content-Security-Policy allowing only its own script and style.
 *
 * @example
 * ```ts
 * import { dashboardPage } from "./dashboard.ts";
 * const report = {
 *   summary: { total_stubs: 0, matched_stubs: 0, unmatched_requests: 0 },
 *   stubs: [],
 *   unused_stubs: [],
 *   unmatched_requests: [],
 * };
 * const page = dashboardPage(report, { capacity: 500, total: 0, requests: [] });
 * console.log(page.headers["content-type"]); // "text/html; charset=utf-8"
 * ```
 */
export function dashboardPage(report: Report, journal: JournalSnapshot): DashboardPage {
  const n = nonce();
  return {
    headers: {
      "content-type": "text/html; charset=utf-8",
      "cache-control": "no-store",
      "content-security-policy": liveCsp(n),
      "x-content-type-options": "nosniff",
      "referrer-policy": "no-referrer",
    },
    html: renderHtmlReport(report, { journal, live: { script: SCRIPT, nonce: n } }),
  };
}
