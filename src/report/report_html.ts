/**
 * The coverage report as one self-contained HTML page: a coverage bar, the stub table
 * (unused stubs marked), the scenario transitions (never-taken ones marked), the requests
 * that matched no stub with the stubs that nearly matched and why, and the request journal.
 * `stubtool report --format html` writes it as a static file; the live dashboard
 * (`GET /__stubtool__/`, src/report/dashboard.ts) serves the same page with a refresh script.
 * No external assets, no framework; every string that came from a config, a request or a
 * saved report is escaped.
 * @module
 */

import type { OpenApiDrift } from "./openapi.ts";
import { escapeHtml, ESCAPES } from "./escape.ts";
import type {
  ClosestStub,
  CurrentState,
  JournalEntry,
  JournalSnapshot,
  Report,
  ReportStub,
  ReportTransition,
  ReportViolation,
  StubDetail,
  UnmatchedRequest,
} from "./types.ts";
import {
  flowEdge,
  flowLayout,
  flowNode,
  flowRound,
  flowStateLabel,
  flowStates,
  flowTitle,
  scenarioSvg,
} from "./flow_svg.ts";
import { VERSION } from "../version.ts";
import { patternText, queryLabel } from "../stubs/model.ts";
import { plural } from "../util/plural.ts";

/** Options of {@link renderHtmlReport}. */
export interface HtmlReportOptions {
  /** The request journal of a live server; saved reports have none. */
  journal?: JournalSnapshot;
  /** Where the data came from: a server URL, saved report files. */
  source?: string;
  /** When the page was made, `Date#toISOString()`; default now. */
  generatedAt?: string;
  /**
   * Makes the live dashboard: `script` runs in the page under a Content-Security-Policy
   * that allows only scripts and styles carrying `nonce`. Without it the page is static
   * and carries no script at all.
   */
  live?: { script: string; nonce: string };
  /** The drift against an OpenAPI document (`report --openapi`): a section of its own. */
  openapi?: OpenApiDrift;
  /** Each stub's details (`GET /__stubtool__/stubs`): its source, scenario and conditions in the stub table. */
  stubs?: StubDetail[];
  /** Where each scenario is now (`GET /__stubtool__/scenarios`): highlighted in the state diagrams. */
  states?: CurrentState[];
}

/** What the page shows besides the report and the journal (the live page polls these too). */
export interface PageExtras {
  /** Each stub's details, by id. */
  stubs?: StubDetail[];
  /** Where each scenario is now. */
  states?: CurrentState[];
  /** The live page: the stub table gets a filter box. */
  live?: boolean;
}

/** The Content-Security-Policy of the static page: no script, nothing loaded from anywhere. */
const STATIC_CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; " +
  "form-action 'none'";

/** The Content-Security-Policy of the live page: only its own nonce-tagged script and style, fetches to itself. */
export function liveCsp(nonce: string): string {
  return `default-src 'none'; script-src 'nonce-${nonce}'; style-src 'nonce-${nonce}'; connect-src 'self'; ` +
    "img-src data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";
}

const CSS = `
:root {
  color-scheme: light dark;
  --bg: #ffffff; --fg: #1f2328; --muted: #59636e; --border: #d1d9e0; --panel: #f6f8fa;
  --accent: #0969da; --good: #1a7f37; --bad: #cf222e; --warn-bg: #fff8c5; --warn-fg: #6f4400;
}
@media (prefers-color-scheme: dark) {
  :root {
    --bg: #0d1117; --fg: #e6edf3; --muted: #9198a1; --border: #3d444d; --panel: #151b23;
    --accent: #4493f8; --good: #3fb950; --bad: #ff7b72; --warn-bg: #3a2d00; --warn-fg: #f2cc60;
  }
}
* { box-sizing: border-box; }
html { background: var(--bg); color: var(--fg); }
body { margin: 0; font: 15px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; }
a { color: var(--accent); }
a:focus-visible, button:focus-visible, .scroll:focus-visible {
  outline: 3px solid var(--accent); outline-offset: 2px;
}
.skip { position: absolute; left: -9999px; top: 0; }
.skip:focus { left: 8px; top: 8px; padding: 6px 10px; background: var(--bg); z-index: 1; }
header, main, footer { max-width: 1200px; margin: 0 auto; padding: 0 16px; }
header { padding-top: 14px; display: flex; flex-wrap: wrap; align-items: baseline; gap: 6px 18px; }
h1 { font-size: 20px; margin: 0; }
h1 span { font-weight: 400; color: var(--muted); }
h2 { font-size: 17px; margin: 22px 0 8px; }
h3 { font-size: 15px; margin: 14px 0 6px; }
.meta { margin: 0; color: var(--muted); font-size: 13px; display: flex; flex-wrap: wrap; align-items: center; gap: 8px; }
.meta.error { color: var(--bad); }
nav ul { list-style: none; margin: 0; padding: 0; display: flex; flex-wrap: wrap; gap: 4px 14px; font-size: 14px; }
button {
  font: inherit; font-size: 13px; color: var(--fg); background: var(--panel); border: 1px solid var(--border);
  border-radius: 6px; padding: 2px 10px; cursor: pointer;
}
button[aria-pressed="true"] { background: var(--warn-bg); color: var(--warn-fg); }
.coverage { display: flex; flex-wrap: wrap; align-items: center; gap: 8px 16px; }
meter { flex: 1 1 260px; height: 18px; min-width: 0; }
meter::-webkit-meter-bar { background: var(--panel); border: 1px solid var(--border); border-radius: 9px; height: 18px; }
meter::-webkit-meter-optimum-value { background: var(--good); border-radius: 9px; }
meter::-moz-meter-bar { background: var(--good); }
.coverage p { margin: 0; font-size: 16px; }
.stats { display: flex; flex-wrap: wrap; gap: 8px; margin: 12px 0 0; padding: 0; }
.stats div { border: 1px solid var(--border); border-radius: 8px; padding: 6px 12px; background: var(--panel); }
.stats dt { font-size: 12px; color: var(--muted); }
.stats dd { margin: 0; font-size: 18px; font-weight: 600; font-variant-numeric: tabular-nums; }
.scroll { overflow-x: auto; border: 1px solid var(--border); border-radius: 8px; }
table { border-collapse: collapse; width: 100%; }
caption { text-align: left; padding: 8px 10px; font-size: 13px; color: var(--muted); caption-side: top; }
th, td { text-align: left; padding: 6px 10px; border-top: 1px solid var(--border); vertical-align: top; }
thead th { font-size: 12px; font-weight: 600; color: var(--muted); background: var(--panel); white-space: nowrap; }
tbody th { font-weight: 400; }
.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
code { font: 13px/1.4 ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; overflow-wrap: anywhere; }
.method { font: 600 12px/1.6 ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; }
tr.unused { background: var(--warn-bg); }
.tag {
  display: inline-block; padding: 0 6px; border-radius: 10px; font-size: 11px; font-weight: 600;
  background: var(--warn-fg); color: var(--bg);
}
.hits-0 { color: var(--warn-fg); font-weight: 600; }
.s2, .s3 { color: var(--good); }
.s4, .s5 { color: var(--bad); }
.status { font-weight: 600; font-variant-numeric: tabular-nums; }
.closest { margin: 0; padding-left: 16px; }
.muted { color: var(--muted); }
time { white-space: nowrap; font-variant-numeric: tabular-nums; }
.note { font-size: 13px; color: var(--muted); margin: 6px 0 0; }
footer { color: var(--muted); font-size: 12px; padding-top: 24px; padding-bottom: 24px; }
.where { font-size: 13px; }
.where code { font-size: 12px; }
.filter { margin: 0 0 8px; font-size: 14px; }
.filter input {
  font: inherit; color: var(--fg); background: var(--bg); border: 1px solid var(--border); border-radius: 6px;
  padding: 2px 8px; width: min(320px, 100%);
}
details.req summary { cursor: pointer; }
details.req[open] summary { margin-bottom: 4px; }
.detail { font-weight: 400; border-left: 3px solid var(--border); padding: 2px 0 2px 10px; margin: 4px 0; }
.detail dl { margin: 0; display: grid; grid-template-columns: max-content 1fr; gap: 2px 12px; font-size: 13px; }
.detail dt { color: var(--muted); }
.detail dd { margin: 0; min-width: 0; overflow-wrap: anywhere; }
.detail h4 { font-size: 13px; margin: 8px 0 2px; }
.detail pre {
  margin: 0; padding: 6px 8px; background: var(--panel); border-radius: 6px; max-height: 320px; overflow: auto;
  font: 12px/1.4 ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; white-space: pre-wrap; overflow-wrap: anywhere;
}
.flows { display: flex; flex-direction: column; gap: 10px; margin-bottom: 10px; }
figure { margin: 0; }
figcaption { font-size: 13px; color: var(--muted); margin-bottom: 2px; }
svg.flow { display: block; font: 12px system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; }
.flow-node rect { fill: var(--panel); stroke: var(--muted); stroke-width: 1.5; }
.flow-node text { fill: var(--fg); font-size: 13px; }
.flow-node.current rect { fill: var(--accent); stroke: var(--accent); }
.flow-node.current text { fill: var(--bg); font-weight: 600; }
.flow-node.current text.flow-now { fill: var(--accent); font-size: 11px; }
.flow-edge path { stroke: var(--fg); stroke-width: 1.5; }
.flow-edge polygon, .flow-edge text { fill: var(--fg); }
.flow-edge.never path { stroke: var(--warn-fg); }
.flow-edge.never polygon, .flow-edge.never text { fill: var(--warn-fg); }
@media (max-width: 640px) {
  body { font-size: 14px; }
  header, main, footer { padding-left: 10px; padding-right: 10px; }
  th, td { padding: 5px 6px; }
  .stats dd { font-size: 16px; }
  .narrow-hide { display: none; }
  table.stacked, table.stacked tbody, table.stacked caption { display: block; }
  table.stacked thead {
    display: block; position: absolute; width: 1px; height: 1px; overflow: hidden; clip-path: inset(50%);
  }
  table.stacked tr {
    display: grid; grid-template-columns: 1fr auto auto; column-gap: 10px; padding: 6px 8px;
    grid-template-areas: "request request request" "time status ms" "why why why";
    border-top: 1px solid var(--border);
  }
  table.stacked td, table.stacked th { display: block; border: 0; padding: 1px 0; text-align: left; }
  table.stacked .c-request { grid-area: request; }
  table.stacked .c-time { grid-area: time; color: var(--muted); font-size: 13px; }
  table.stacked .c-status { grid-area: status; }
  table.stacked .c-ms { grid-area: ms; color: var(--muted); font-size: 13px; }
  table.stacked .c-ms::after { content: " ms"; }
  table.stacked .c-why { grid-area: why; }
}
`;

/** `/search?q={term}`: a report stub's path with its required query, if any (also the text report's). */
export function stubTarget(stub: { path: string; query_params?: Record<string, unknown> }): string {
  // Saved reports are files anyone can edit: a query map that is not a mapping reads as none.
  const query: unknown = stub.query_params;
  if (typeof query !== "object" || query === null || Array.isArray(query) || Object.keys(query).length === 0) {
    return stub.path;
  }
  return `${stub.path}?${queryLabel(query as Record<string, unknown>)}`;
}

/** `<time>` showing the time of day (UTC), the full timestamp on hover. */
function timeCell(iso: string): string {
  const shown = /T(\d\d:\d\d:\d\d(?:\.\d+)?)Z$/.exec(iso)?.[1] ?? iso;
  return `<time datetime="${escapeHtml(iso)}" title="${escapeHtml(iso)}">${escapeHtml(shown)}</time>`;
}

/** A near miss's query map, when a (possibly hand-edited) saved report has a usable one. */
function queryOf(closest: ClosestStub | undefined): Record<string, unknown> | undefined {
  const query: unknown = closest?.query_params;
  // Inline, not isObject: this function runs in the live dashboard too (_LIVE_RENDERERS).
  return typeof query === "object" && query !== null && !Array.isArray(query)
    ? query as Record<string, unknown>
    : undefined;
}

function closestList(closest: readonly ClosestStub[] | undefined): string {
  // Saved reports are files anyone can edit: anything but a list reads as "none".
  if (!Array.isArray(closest) || closest.length === 0) return `<span class="muted">no stub came close</span>`;
  const items = closest.map((c) => {
    const code = `<code>${
      escapeHtml(`${c?.method} ${stubTarget({ path: `${c?.path}`, query_params: queryOf(c) })}`)
    }</code>`;
    return `<li>${typeof c?.id === "string" ? `<a href="#${stubAnchor(c.id)}">${code}</a>` : code}` +
      ` <span class="muted">— ${escapeHtml(`${c?.reason}`)}</span></li>`;
  });
  return `<ul class="closest">${items.join("")}</ul>`;
}

/**
 * A table in a keyboard-scrollable region, named by its caption. `head` entries are
 * `label` or `label|class`. A `stacked` table turns each row into a small card on narrow
 * screens; its elements carry explicit table roles, which some browsers drop when CSS
 * changes how a table displays.
 */
function table(id: string, caption: string, head: string[], rows: string[], stacked = false): string {
  const role = (name: string) => stacked ? ` role="${name}"` : "";
  const heads = head.map((h) => {
    const [label, cls] = h.split("|");
    return `<th scope="col"${role("columnheader")}${cls ? ` class="${cls}"` : ""}>${label}</th>`;
  });
  return `<div class="scroll" id="${id}-region" role="region" tabindex="0" aria-labelledby="${id}-caption">` +
    `<table id="${id}"${
      stacked ? ' class="stacked" role="table"' : ""
    }><caption id="${id}-caption">${caption}</caption>` +
    `<thead${role("rowgroup")}><tr${role("row")}>${heads.join("")}</tr></thead>` +
    `<tbody${role("rowgroup")}>${rows.join("")}</tbody></table></div>`;
}

/** The request cell of a stacked table: method and target, the row's header. */
function requestCell(method: string, target: string): string {
  // A page shows the start of a long target (they may be 64 KiB): the page stays small, the JSON keeps it whole.
  const shown = target.length > 300 ? `${target.slice(0, 300)}… (${target.length - 300} more characters)` : target;
  return `<th scope="row" role="rowheader" class="c-request"><span class="method">${escapeHtml(method)}</span> ` +
    `<code>${escapeHtml(shown)}</code></th>`;
}

function coverageSection(report: Report, journal: JournalSnapshot | undefined): string {
  const { total_stubs: total, matched_stubs: matched, unmatched_requests: unmatched } = report.summary;
  const percent = total === 0 ? 0 : Math.floor((matched / total) * 100);
  const stats: [string, string, number | string][] = [
    ["stat-stubs", "Stubs", total],
    ["stat-exercised", "Exercised", matched],
    ["stat-unused", "Unused", total - matched],
    ["stat-unmatched", "Unmatched requests", unmatched],
  ];
  if (journal && journal.capacity > 0) stats.push(["stat-requests", "Requests seen", journal.total]);
  // Inline, not webSocketRuleCounts: this function runs in the live dashboard too (_LIVE_RENDERERS).
  const rules = report.stubs.flatMap((stub) => stub.websocket_rules ?? []);
  if (rules.length) {
    const matchedRules = rules.filter((rule) => rule.matches > 0).length;
    stats.push(["stat-websocket-rules", "WebSocket rules matched", `${matchedRules}/${rules.length}`]);
  }
  return `<section aria-labelledby="coverage-heading"><h2 id="coverage-heading">Coverage</h2>` +
    `<div class="coverage"><meter id="coverage-meter" min="0" max="${Math.max(total, 1)}" value="${matched}" ` +
    `aria-labelledby="coverage-text"></meter>` +
    `<p id="coverage-text"><strong>${matched} of ${total}</strong> ${total === 1 ? "stub" : "stubs"} exercised ` +
    `(${percent}%)</p></div>` +
    `<dl class="stats">${
      stats.map(([id, label, value]) => `<div><dt>${label}</dt><dd id="${id}">${value}</dd></div>`).join("")
    }</dl></section>`;
}

/** The id of a stub's row (`stub-` and its id, URL-encoded so it works as a fragment as written). */
function stubAnchor(id: string): string {
  return `stub-${escapeHtml(encodeURIComponent(String(id)))}`;
}

/** A stub's request conditions in short: `headers: x-api-key · body_contains`. */
function conditionsShort(request: unknown): string {
  if (typeof request !== "object" || request === null || Array.isArray(request)) return "";
  return Object.entries(request as Record<string, unknown>).map(([key, value]) =>
    typeof value === "object" && value !== null && !Array.isArray(value)
      ? `${key}: ${Object.keys(value).join(", ")}`
      : key
  ).join(" · ");
}

/**
 * Where a stub came from, in short: `stubs.yaml:7` for a config file's stub (its place is
 * `routes[1] of stubs.yaml`), else its place (`--stub[0]`, a WireMock file and mapping index,
 * an OpenAPI operation) or its source (`admin`, `api`).
 */
function stubSource(detail: StubDetail): string {
  const place = detail.place;
  const file = typeof place === "string" && typeof detail.line === "number"
    ? /^routes\[\d+\] of (.+)$/s.exec(place)?.[1]
    : undefined;
  if (file !== undefined) {
    return `<span title="${escapeHtml(String(place))}">${escapeHtml(`${file}:${detail.line}`)}</span>`;
  }
  return escapeHtml(String(place ?? detail.source ?? ""));
}

/** Where a stub came from, its scope, scenario and state condition, and its conditions, in a few short lines. */
function stubWhere(detail: StubDetail | undefined): string {
  if (!detail) return "";
  const code = (text: unknown) => `<code>${escapeHtml(String(text))}</code>`;
  const lines = [stubSource(detail)];
  if (detail.scope !== undefined) lines[0] += ` · scope ${code(detail.scope)}`;
  if (detail.scenario !== undefined) {
    const when = detail.when_state === undefined ? "any state" : code(detail.when_state);
    lines.push(
      `scenario ${code(detail.scenario)}: in ${when}${
        detail.set_state === undefined ? "" : ` → ${code(detail.set_state)}`
      }`,
    );
  }
  const conditions = conditionsShort(detail.request);
  if (conditions) lines.push(`<span class="muted">${escapeHtml(conditions)}</span>`);
  if (detail.priority) lines.push(`<span class="muted">priority ${escapeHtml(String(detail.priority))}</span>`);
  return lines.filter((l) => l !== "").join("<br>\n");
}

function stubRow(stub: ReportStub, index: number, details?: Map<string, StubDetail>): string {
  const unused = stub.hit_count === 0;
  const id = typeof stub.id === "string" ? stub.id : undefined;
  return `<tr${id === undefined ? "" : ` id="${stubAnchor(id)}"`}${unused ? ' class="unused"' : ""}>` +
    `<td class="num narrow-hide">${index + 1}</td>` +
    `<td class="narrow-hide">${id === undefined ? "" : `<code>${escapeHtml(id)}</code>`}</td>` +
    `<td class="method">${escapeHtml(stub.method)}</td>` +
    `<th scope="row"><code>${escapeHtml(stubTarget(stub))}</code></th>` +
    (details ? `<td class="where narrow-hide">${stubWhere(id === undefined ? undefined : details.get(id))}</td>` : "") +
    `<td class="num${unused ? " hits-0" : ""}">${stub.hit_count}${
      unused ? ' <span class="tag">unused</span>' : ""
    }</td>` +
    `</tr>`;
}

function stubsSection(report: Report, extras: PageExtras = {}): string {
  const details = Array.isArray(extras.stubs) && extras.stubs.length
    ? new Map(extras.stubs.map((s) => [String(s.id), s]))
    : undefined;
  const filter = extras.live && report.stubs.length
    ? `<p class="filter"><label for="stubs-filter">Filter stubs</label> <input type="search" id="stubs-filter" ` +
      `autocomplete="off" placeholder="id, path, source, scenario…"></p>`
    : "";
  const body = report.stubs.length === 0
    ? `<p class="muted">No stubs are defined: every request gets 404 and is recorded as unmatched.</p>`
    : table(
      "stubs-table",
      `${plural(report.stubs.length, "stub", "stubs")} in declaration order; ${
        plural(report.unused_stubs.length, "unused stub is", "unused stubs are")
      } highlighted`,
      [
        "#|num narrow-hide",
        "Id|narrow-hide",
        "Method",
        "Path",
        ...(details ? ["Source, scenario, conditions|narrow-hide"] : []),
        "Hits|num",
      ],
      report.stubs.map((stub, i) => stubRow(stub, i, details)),
    );
  return `<section id="stubs" aria-labelledby="stubs-heading"><h2 id="stubs-heading">Stubs</h2>${filter}${body}` +
    `</section>`;
}

function transitionRow(scenario: string, t: ReportTransition): string {
  const never = t.taken === 0;
  return `<tr${never ? ' class="unused"' : ""}><th scope="row">${escapeHtml(scenario)}</th>` +
    `<td><code>${escapeHtml(t.from)}</code> → <code>${escapeHtml(t.to)}</code></td>` +
    `<td><code>${escapeHtml(t.stub)}</code></td>` +
    `<td class="num${never ? " hits-0" : ""}">${t.taken}${never ? ' <span class="tag">never taken</span>' : ""}</td>` +
    `</tr>`;
}

/**
 * Flow coverage: every declared scenario transition and how often it was taken. Without
 * scenarios the section is there but hidden, so the live page can fill it when stubs with
 * a scenario arrive.
 */
function flowsSection(report: Report, extras: PageExtras = {}): string {
  const scenarios = Array.isArray(report.scenarios) ? report.scenarios : [];
  const open = `<section id="scenarios" aria-labelledby="scenarios-heading"`;
  if (scenarios.length === 0) return `${open} hidden><h2 id="scenarios-heading">Scenarios</h2></section>`;
  const rows = scenarios.flatMap((s) => s.transitions.map((t) => transitionRow(s.name, t)));
  const never = scenarios.flatMap((s) => s.transitions).filter((t) => t.taken === 0).length;
  const body = rows.length === 0
    ? `<p class="muted">${
      plural(scenarios.length, "scenario", "scenarios")
    }, but no stub sets a state: there are no transitions to take.</p>`
    : table(
      "scenarios-table",
      `${plural(rows.length, "declared transition", "declared transitions")} of ${
        plural(scenarios.length, "scenario", "scenarios")
      }; ${plural(never, "transition never taken is", "transitions never taken are")} highlighted`,
      ["Scenario", "From → to", "Stub", "Taken|num"],
      rows,
    );
  const states = Array.isArray(extras.states) ? extras.states : [];
  const pictures = scenarios.filter((s) => Array.isArray(s.transitions) && s.transitions.length).map((s) =>
    `<figure><figcaption>${escapeHtml(String(s.name))}</figcaption><div class="scroll">${
      scenarioSvg(s, states)
    }</div></figure>`
  );
  return `${open}><h2 id="scenarios-heading">Scenarios</h2>${
    pictures.length ? `<div class="flows">${pictures.join("")}</div>` : ""
  }${body}` +
    `</section>`;
}

/** A request body as received: text (JSON pretty-printed), or binary as its size and the hex of its head. */
function bodyView(entry: JournalEntry): string {
  const cut = entry.body_truncated ? `<p class="muted">(only the first 64 KiB were kept)</p>` : "";
  if (typeof entry.body === "string") {
    let text = entry.body;
    const type = String(entry.headers?.["content-type"] ?? "");
    if (/json/i.test(type) || /^\s*[[{]/.test(text)) {
      try {
        text = JSON.stringify(JSON.parse(text), null, 2);
      } catch {
        // Not JSON after all: shown as sent.
      }
    }
    return `<pre>${escapeHtml(text)}</pre>${cut}`;
  }
  if (typeof entry.body_base64 === "string") {
    let bytes = "";
    try {
      bytes = atob(entry.body_base64);
    } catch {
      return `<p class="muted">a body the journal could not decode</p>`;
    }
    const head = Array.from(bytes.slice(0, 64), (c) => c.charCodeAt(0).toString(16).padStart(2, "0")).join(" ");
    return `<p>binary, ${bytes.length} bytes${bytes.length > 64 ? "; the first 64 in hex:" : " in hex:"}</p>` +
      `<pre>${head}</pre>${cut}`;
  }
  return `<p class="muted">no body</p>`;
}

/**
 * A request's detail, opened from its row: the URL, which stub answered (a link to its row) or
 * each close stub and why it did not match, the headers and the body as received (when the
 * journal still holds them).
 */
function requestDetail(
  key: string,
  method: string,
  target: string,
  entry: JournalEntry | undefined,
  closest: readonly ClosestStub[] | undefined,
): string {
  const shown = target.length > 300 ? `${target.slice(0, 300)}… (${target.length - 300} more characters)` : target;
  const id = entry && typeof entry.id === "string" ? entry.id : undefined;
  const answered = entry && entry.stub !== undefined
    ? `${id === undefined ? "" : `stub <a href="#${stubAnchor(id)}"><code>${escapeHtml(id)}</code></a> `}<code>${
      escapeHtml(String(entry.stub))
    }</code>`
    : `no stub; ${closestList(closest)}`;
  const rows = [
    ["Method", `<code>${escapeHtml(method)}</code>`],
    // The journal keeps targets up to 64 KiB; the page shows up to 2 KiB of one (the JSON keeps it whole).
    [
      "URL",
      `<code>${
        escapeHtml(
          target.length > 2048 ? `${target.slice(0, 2048)}… (${target.length - 2048} more characters)` : target,
        )
      }</code>`,
    ],
    ["Answered by", answered],
  ];
  if (entry) rows.push(["Status", escapeHtml(String(entry.status))]);
  if (entry && typeof entry.replica === "string") {
    rows.push(["Served by", `replica <code>${escapeHtml(entry.replica)}</code>`]);
  }
  let rest: string;
  if (!entry) {
    rest = `<p class="muted">The journal no longer holds (or never held) this request's headers and body.</p>`;
  } else {
    const headers = entry.headers && typeof entry.headers === "object" ? Object.entries(entry.headers) : [];
    rest = `<h4>Headers</h4>${
      headers.length
        ? `<dl>${
          headers.map(([name, value]) =>
            `<dt><code>${escapeHtml(name)}</code></dt><dd><code>${escapeHtml(String(value))}</code></dd>`
          )
            .join("")
        }</dl>`
        : `<p class="muted">none kept</p>`
    }<h4>Body</h4>${bodyView(entry)}`;
  }
  return `<details class="req" id="${key}"><summary><span class="method">${escapeHtml(method)}</span> <code>${
    escapeHtml(shown)
  }</code></summary><div class="detail"><dl>${
    rows.map(([dt, dd]) => `<dt>${dt}</dt><dd>${dd}</dd>`).join("")
  }</dl>${rest}</div></details>`;
}

/** The request cell of a stacked table with a detail that opens: the row's header. */
function requestDetailCell(detail: string): string {
  return `<th scope="row" role="rowheader" class="c-request">${detail}</th>`;
}

/**
 * The journal entry of an unmatched request: the unanswered one with the same method and
 * target closest in time (the two records are made a moment apart).
 */
function journalEntryOf(
  byTarget: Map<string, JournalEntry[]>,
  request: UnmatchedRequest,
  target: string,
): JournalEntry | undefined {
  const candidates = byTarget.get(`${request.method} ${target}`) ?? [];
  const at = Date.parse(request.timestamp);
  let best: JournalEntry | undefined;
  let distance = 60_000;
  for (const entry of candidates) {
    const d = Math.abs(Date.parse(entry.time) - at);
    if (d <= distance) [best, distance] = [entry, d];
  }
  return best;
}

function unmatchedRow(request: UnmatchedRequest, key: string, entry: JournalEntry | undefined): string {
  const target = request.query ? `${request.path}?${request.query}` : request.path;
  return `<tr role="row"><td role="cell" class="c-time">${timeCell(request.timestamp)}</td>` +
    `${requestDetailCell(requestDetail(key, request.method, target, entry, request.closest))}` +
    `<td role="cell" class="c-why">${closestList(request.closest)}</td></tr>`;
}

function unmatchedSection(report: Report, journal?: JournalSnapshot): string {
  const kept = report.unmatched_requests.length;
  const total = report.summary.unmatched_requests;
  let body: string;
  if (kept === 0 && total === 0) body = `<p class="muted">None: every request matched a stub.</p>`;
  else {
    const dropped = total - kept;
    body = table(
      "unmatched-table",
      `Requests that matched no stub, newest first${
        dropped > 0 ? ` (the newest ${kept} of ${total}; the server keeps --max-unmatched)` : ""
      }, with the stubs that came closest`,
      ["Time (UTC)", "Request", "Closest stubs and why they did not match"],
      (() => {
        const byTarget = new Map<string, JournalEntry[]>();
        for (const entry of journal && Array.isArray(journal.requests) ? journal.requests : []) {
          if (entry.stub !== undefined) continue;
          const k = `${entry.method} ${entry.target}`;
          const list = byTarget.get(k);
          if (list) list.push(entry);
          else byTarget.set(k, [entry]);
        }
        const first = total - kept;
        return report.unmatched_requests.map((request, i) =>
          unmatchedRow(
            request,
            `miss-${first + i}`,
            journalEntryOf(byTarget, request, request.query ? `${request.path}?${request.query}` : request.path),
          )
        ).reverse();
      })(),
      true,
    );
  }
  return `<section id="unmatched" aria-labelledby="unmatched-heading"><h2 id="unmatched-heading">Unmatched requests` +
    `</h2>${body}</section>`;
}

function violationRow(v: ReportViolation): string {
  return `<tr><th scope="row"><code>${escapeHtml(`${v?.operation}`)}</code></th>` +
    `<td><code>${escapeHtml(`${v?.location ?? ""}`)}</code></td><td>${escapeHtml(`${v?.message}`)}</td>` +
    `<td class="num">${Number(v?.count)}</td></tr>`;
}

/**
 * Requests that broke the OpenAPI spec the server checks them against (`serve --openapi SPEC
 * --mock`), beside the unmatched requests. A report without the `violations` key (the server
 * checks no requests) has the section hidden, so the live page can fill it.
 */
function violationsSection(report: Report): string {
  const open = `<section id="violations" aria-labelledby="violations-heading"`;
  // Saved reports are files anyone can edit: anything but a list reads as no key.
  if (!Array.isArray(report.violations)) {
    return `${open} hidden><h2 id="violations-heading">Requests that broke the spec</h2></section>`;
  }
  const total = report.violations.reduce((sum, v) => sum + (Number(v?.count) || 0), 0);
  const body = report.violations.length === 0
    ? `<p class="muted">None: every request the spec's operations matched followed the spec.</p>`
    : table(
      "violations-table",
      `${plural(total, "violation", "violations")} of the OpenAPI spec the server checks requests against, ` +
        `answered 422, 400 or 401`,
      ["Operation", "Location", "Message", "Count|num"],
      report.violations.map(violationRow),
    );
  return `${open}><h2 id="violations-heading">Requests that broke the spec</h2>${body}</section>`;
}

function driftSection(drift: OpenApiDrift): string {
  const uncovered = drift.uncovered_operations.length === 0
    ? `<p class="muted">None: a stub covers every operation.</p>`
    : table(
      "uncovered-table",
      `${plural(drift.uncovered_operations.length, "operation", "operations")} of the spec no stub covers`,
      ["Method", "Path", "Operation ID"],
      drift.uncovered_operations.map((op) =>
        `<tr><td class="method">${escapeHtml(op.method)}</td><th scope="row"><code>${
          escapeHtml(op.path)
        }</code></th><td>${op.operation_id ? `<code>${escapeHtml(op.operation_id)}</code>` : ""}</td></tr>`
      ),
    );
  const unstubbed = drift.unstubbed_requests.length === 0
    ? `<p class="muted">None: no unmatched request calls an operation of the spec.</p>`
    : table(
      "unstubbed-table",
      `Unmatched requests that call an operation of the spec (a real endpoint nobody stubbed), newest first`,
      ["Time (UTC)", "Request", "Spec operation"],
      drift.unstubbed_requests.slice().reverse().map((request) =>
        `<tr role="row"><td role="cell" class="c-time">${timeCell(request.timestamp)}</td>` +
        `${requestCell(request.method, request.query ? `${request.path}?${request.query}` : request.path)}` +
        `<td role="cell" class="c-why"><code>${escapeHtml(request.operation)}</code></td></tr>`
      ),
      true,
    );
  return `<section id="openapi" aria-labelledby="openapi-heading"><h2 id="openapi-heading">OpenAPI drift</h2>` +
    `<p class="note">Against <code>${escapeHtml(drift.spec)}</code> (OpenAPI ${escapeHtml(drift.version)}, ${
      plural(drift.operations, "operation", "operations")
    })</p><h3>Operations no stub covers</h3>${uncovered}<h3>Unmatched requests the spec describes</h3>${unstubbed}` +
    `</section>`;
}

/** Milliseconds to one decimal; 0 (an answer given at once, not timed) as `<0.1`. */
function duration(ms: number): string {
  return ms === 0 ? '<span title="answered at once">&lt;0.1</span>' : escapeHtml(Number(ms).toFixed(1));
}

function journalRow(entry: JournalEntry, key: string): string {
  const status = Number(entry.status);
  const answered = entry.stub !== undefined
    ? typeof entry.id === "string"
      ? `<a href="#${stubAnchor(entry.id)}"><code>${escapeHtml(entry.stub)}</code></a>`
      : `<code>${escapeHtml(entry.stub)}</code>`
    : `<span class="tag">no stub</span>${
      Array.isArray(entry.closest) && entry.closest.length ? ` ${closestList(entry.closest)}` : ""
    }`;
  return `<tr role="row"><td role="cell" class="c-time">${timeCell(entry.time)}</td>` +
    `${requestDetailCell(requestDetail(key, entry.method, entry.target, entry, entry.closest))}` +
    `<td role="cell" class="c-status num status s${Math.floor(status / 100)}">${status}</td>` +
    `<td role="cell" class="c-why">${answered}</td>` +
    `<td role="cell" class="c-ms num">${duration(entry.duration_ms)}</td></tr>`;
}

function journalSection(journal: JournalSnapshot | undefined): string {
  let body: string;
  if (!journal) {
    body = `<p class="muted">Saved reports carry no request journal. ` +
      `<code>stubtool report --url URL --format html</code> against a running server includes it.</p>`;
  } else if (journal.capacity === 0) {
    body = `<p class="muted">The request journal is off (<code>--journal-size 0</code>).</p>`;
  } else if (journal.requests.length === 0) {
    body = `<p class="muted">No requests yet.</p>`;
  } else {
    const kept = journal.requests.length;
    body = table(
      "journal-table",
      `The ${plural(kept, "most recent request", "most recent requests")}, newest first${
        journal.total > kept ? ` (${journal.total} since start or reset; the journal keeps ${journal.capacity})` : ""
      }`,
      ["Time (UTC)", "Request", "Status|num", "Answered by", "ms|num"],
      journal.requests.map((entry, i) => journalRow(entry, `req-${journal.total - kept + i}`)).reverse(),
      true,
    );
  }
  return `<section id="journal" aria-labelledby="journal-heading"><h2 id="journal-heading">Recent requests</h2>` +
    `${body}</section>`;
}

/**
 * The parts of the page that change while a server runs, as plain functions for the
 * dashboard's script (src/report/dashboard.ts): it sends their source to the browser, which
 * renders the polled JSON with them, so live and static pages cannot differ. Each uses only
 * the others and `ESCAPES`; a helper one of them starts to use must be listed here.
 */
export const _LIVE_RENDERERS = {
  ESCAPES,
  functions: [
    escapeHtml,
    patternText,
    queryLabel,
    stubTarget,
    stubAnchor,
    conditionsShort,
    stubSource,
    stubWhere,
    queryOf,
    plural,
    timeCell,
    closestList,
    table,
    requestCell,
    coverageSection,
    stubRow,
    stubsSection,
    transitionRow,
    scenarioSvg,
    flowStates,
    flowStateLabel,
    flowRound,
    flowLayout,
    flowEdge,
    flowNode,
    flowTitle,
    flowsSection,
    bodyView,
    requestDetail,
    requestDetailCell,
    journalEntryOf,
    unmatchedRow,
    unmatchedSection,
    violationRow,
    violationsSection,
    duration,
    journalRow,
    journalSection,
  ],
};

/**
 * The report as one HTML page (static unless `live` is given). Everything from the report,
 * the journal and `source` is escaped; the page loads nothing from anywhere.
 *
 * @example
 * ```ts
 * import { renderHtmlReport } from "./report_html.ts";
 * const html = renderHtmlReport({
 *   summary: { total_stubs: 1, matched_stubs: 0, unmatched_requests: 0 },
 *   stubs: [{ method: "GET", path: "/<b>", hit_count: 0 }],
 *   unused_stubs: [{ method: "GET", path: "/<b>" }],
 *   unmatched_requests: [],
 * });
 * console.log(html.includes("<code>/&lt;b&gt;</code>")); // true
 * ```
 */
export function renderHtmlReport(report: Report, options: HtmlReportOptions = {}): string {
  const { journal, source, live, openapi } = options;
  const extras: PageExtras = { stubs: options.stubs, states: options.states, live: live !== undefined };
  const generatedAt = options.generatedAt ?? new Date().toISOString();
  const { total_stubs: total, matched_stubs: matched } = report.summary;
  const kind = live ? "dashboard" : "coverage report";
  const nonce = live ? ` nonce="${escapeHtml(live.nonce)}"` : "";
  const from = source ? ` from <code>${escapeHtml(source)}</code>` : "";
  const meta = live
    ? `<p class="meta" id="live-meta"><span id="live-status">Live: refreshes every second</span>` +
      `<button type="button" id="live-pause" aria-pressed="false">Pause updates</button></p>`
    : `<p class="meta">Generated <time datetime="${escapeHtml(generatedAt)}">${
      escapeHtml(generatedAt.replace("T", " ").replace(/\.\d+Z$|Z$/, ""))
    } UTC</time>${from}</p>`;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
${
    live
      ? ""
      : `<meta http-equiv="Content-Security-Policy" content="${STATIC_CSP}">\n`
  }<title>stubtool ${kind}: ${matched}/${total} stubs exercised</title>
<link rel="icon" href="data:,">
<style${nonce}>${CSS}</style>
</head>
<body>
<a class="skip" href="#unmatched">Skip to unmatched requests</a>
<header>
<h1>stubtool <span>${kind}</span></h1>
${meta}
<nav aria-label="Sections"><ul><li><a href="#stubs">Stubs</a></li>${
    report.scenarios?.length ? `<li><a href="#scenarios">Scenarios</a></li>` : ""
  }<li><a href="#unmatched">Unmatched requests</a></li>${
    Array.isArray(report.violations) ? `<li><a href="#violations">Spec violations</a></li>` : ""
  }${
    openapi ? `<li><a href="#openapi">OpenAPI drift</a></li>` : ""
  }<li><a href="#journal">Recent requests</a></li></ul></nav>
</header>
<main id="content">
${coverageSection(report, journal)}
${stubsSection(report, extras)}
${flowsSection(report, extras)}
${unmatchedSection(report, journal)}
${violationsSection(report)}
${openapi ? `${driftSection(openapi)}\n` : ""}${journalSection(journal)}
</main>
<footer>stubtool ${VERSION}</footer>
${live ? `<script${nonce}>${live.script}</script>\n` : ""}</body>
</html>
`;
}
