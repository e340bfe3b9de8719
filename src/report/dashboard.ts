/**
 * The live dashboard at `GET /__stubtool__/`: the HTML report page (src/report/report_html.ts)
 * plus a small script that polls the report, the journal, the stubs and the scenarios' states
 * as JSON every second (`/__stubtool__/report`, `/requests`, `/stubs`, `/scenarios`) and, when
 * any changed, renders the
 * sections that changed with the same functions the server uses, keeping focus and scroll
 * positions, the filter box and the open request details, without reloading. An idle poll costs
 * four small JSON answers and a string
 * comparison. No HTML page is ever parsed again (a parsed page's nonce-tagged `<style>` is a
 * CSP violation in Chromium). Plain DOM, no framework; it runs in the browser, so it touches
 * no runtime API (the server runs on Deno and Node alike).
 * @module
 */

import type { CurrentState, JournalSnapshot, Report, StubDetail } from "./types.ts";
import { _LIVE_RENDERERS, liveCsp, renderHtmlReport } from "./report_html.ts";

/** How often the page asks for new content, in milliseconds. */
export const REFRESH_MS = 1000;

/**
 * The page's renderers as browser JavaScript (`sections(report, journal)` gives each live
 * section's key and markup), from the source of the functions the server renders with.
 */
export const _RENDERERS: string = `const ESCAPES = ${JSON.stringify(_LIVE_RENDERERS.ESCAPES)};
${_LIVE_RENDERERS.functions.map((fn) => fn.toString()).join("\n")}
const sections = (report, journal, extras) => [
  ["coverage", coverageSection(report, journal)],
  ["stubs", stubsSection(report, extras)],
  ["scenarios", flowsSection(report, extras)],
  ["unmatched", unmatchedSection(report, journal)],
  ["violations", violationsSection(report)],
  ["journal", journalSection(journal)],
];`;

/**
 * The refresh script. It polls only while the tab is visible and not paused, re-renders a
 * section only when its markup changed (so a text selection elsewhere survives), and says
 * so when the server cannot be reached (then keeps trying).
 */
const SCRIPT = `(() => {
  "use strict";
  ${_RENDERERS}
  const base = location.pathname.replace(/[^/]*$/, "");
  const status = document.getElementById("live-status");
  const meta = document.getElementById("live-meta");
  const pause = document.getElementById("live-pause");
  const section = (key) => document.querySelector('main > section[aria-labelledby="' + key + '-heading"]');
  /** The markup last rendered per section; unset until the first poll compares with the served page. */
  const rendered = new Map();
  let last = "";
  let paused = false;
  let failing = false;
  const clock = () => new Date().toLocaleTimeString();
  const show = (text, error) => {
    status.textContent = text;
    meta.classList.toggle("error", error);
  };
  /** Parses one section's markup (a template's content is inert: nothing in it runs or loads). */
  const parse = (html) => {
    const template = document.createElement("template");
    template.innerHTML = html;
    return template.content.firstElementChild;
  };
  /**
   * Puts \`fresh\` in place of \`old\`, keeping the focused element (by id), what is typed in
   * an input, the request details that are open and horizontal scroll positions.
   */
  const replace = (old, fresh) => {
    const active = document.activeElement;
    const focusId = active && old.contains(active) ? active.id : "";
    const caret = focusId && active.selectionStart !== undefined ? [active.selectionStart, active.selectionEnd] : null;
    const scrolled = Array.from(old.querySelectorAll(".scroll[id]"), (el) => [el.id, el.scrollLeft]);
    for (const input of old.querySelectorAll("input[id]")) {
      const twin = fresh.querySelector("#" + CSS.escape(input.id));
      if (twin) twin.value = input.value;
    }
    for (const details of old.querySelectorAll("details[open][id]")) {
      const twin = fresh.querySelector("#" + CSS.escape(details.id));
      if (twin) twin.open = true;
    }
    old.replaceWith(fresh);
    for (const [id, left] of scrolled) {
      const el = document.getElementById(id);
      if (el) el.scrollLeft = left;
    }
    if (focusId) {
      const el = document.getElementById(focusId);
      el?.focus({ preventScroll: true });
      if (caret && el && el.setSelectionRange) el.setSelectionRange(caret[0], caret[1]);
    }
    filterStubs();
  };
  /** Hides the stub rows whose text does not hold what the filter box says (case-insensitive). */
  const filterStubs = () => {
    const input = document.getElementById("stubs-filter");
    const wanted = input ? input.value.trim().toLowerCase() : "";
    for (const row of document.querySelectorAll("#stubs-table tbody tr")) {
      row.hidden = wanted !== "" && !row.textContent.toLowerCase().includes(wanted);
    }
  };
  document.addEventListener("input", (event) => {
    if (event.target && event.target.id === "stubs-filter") filterStubs();
  });
  /** Renders the sections whose markup changed; true when any did. */
  const apply = (report, journal, extras) => {
    let changed = false;
    for (const [key, html] of sections(report, journal, extras)) {
      if (rendered.get(key) === html) continue;
      const old = section(key);
      if (!old) throw new Error("the page has no " + key + " section");
      const fresh = parse(html);
      const first = !rendered.has(key);
      rendered.set(key, html);
      if (first && fresh.outerHTML === old.outerHTML) continue;
      replace(old, fresh);
      changed = true;
    }
    if (changed) {
      const { total_stubs: total, matched_stubs: matched } = report.summary;
      document.title = "stubtool dashboard: " + matched + "/" + total + " stubs exercised";
    }
    return changed;
  };
  const text = async (endpoint) => {
    const response = await fetch(base + endpoint, { cache: "no-store", headers: { accept: "application/json" } });
    if (!response.ok) throw new Error(endpoint + ": HTTP " + response.status);
    return response.text();
  };
  const poll = async () => {
    if (!paused && !document.hidden) {
      try {
        const texts = await Promise.all(["report", "requests", "stubs", "scenarios"].map(text));
        // Paused while the answers were on their way: keep what is shown.
        if (!paused) {
          const all = JSON.stringify(texts);
          const same = all === last;
          last = all;
          const [report, journal, stubs, scenarios] = texts.map((t) => JSON.parse(t));
          const extras = { stubs: stubs.stubs, states: scenarios.scenarios, live: true };
          if (!same && apply(report, journal, extras)) {
            show("Live: changed at " + clock(), false);
          } else if (failing) show("Live: reconnected at " + clock(), false);
          failing = false;
        }
      } catch (error) {
        failing = true;
        last = "";
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
export function dashboardPage(
  report: Report,
  journal: JournalSnapshot,
  extras: { stubs?: StubDetail[]; states?: CurrentState[] } = {},
): DashboardPage {
  const n = nonce();
  return {
    headers: {
      "content-type": "text/html; charset=utf-8",
      "cache-control": "no-store",
      "content-security-policy": liveCsp(n),
      "x-content-type-options": "nosniff",
      "referrer-policy": "no-referrer",
    },
    html: renderHtmlReport(report, { journal, ...extras, live: { script: SCRIPT, nonce: n } }),
  };
}
