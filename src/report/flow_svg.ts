/**
 * A scenario as a state diagram in SVG text: its states as boxes in a row (in the order the
 * transitions first name them), each declared transition an arrow labelled with its stub's id
 * and how often it was taken (forward arrows above the row, backward ones below, a state's
 * own loop above it), never-taken ones dashed, the states a scenario is in now highlighted
 * (with the scopes they are current in). One function from the report's `scenarios` entry to
 * markup: `report --format html` writes it on the server, and the live dashboard sends its
 * source to the browser (src/report/report_html.ts `_LIVE_RENDERERS`), so both draw the same
 * picture. It uses nothing but {@link escapeHtml}: no style attribute, no id (the page's CSP
 * and several diagrams on one page stay fine).
 * @module
 */

import type { CurrentState, ReportScenario, ReportTransition } from "./types.ts";
// A cycle with report_html.ts, harmless: neither module calls the other while it loads.
import { escapeHtml } from "./escape.ts";

/**
 * The scenario's state diagram as an `<svg>` element.
 *
 * @example
 * ```ts
 * import { scenarioSvg } from "./flow_svg.ts";
 * const svg = scenarioSvg({
 *   name: "checkout",
 *   transitions: [{ from: "Started", to: "paid", stub: "pay", taken: 0 }],
 * });
 * console.log(svg.includes('data-stub="pay" data-taken="0"')); // true
 * ```
 */
export function scenarioSvg(scenario: ReportScenario, current: readonly CurrentState[] = []): string {
  const transitions = Array.isArray(scenario.transitions) ? scenario.transitions : [];
  const mine = current.filter((c) => c && c.name === scenario.name);
  const states = flowStates(transitions, mine);
  const layout = flowLayout(states, transitions);
  const edges = layout.arrows.map((arrow) => flowEdge(arrow, layout));
  const nodes = states.map((s, i) => flowNode(s, i, mine, layout));
  const { width, height } = layout;
  return `<svg class="flow" role="img" width="${width}" height="${height}" ` +
    `viewBox="0 0 ${width} ${height}" data-scenario="${escapeHtml(String(scenario.name))}"><title>${
      escapeHtml(flowTitle(scenario.name, states, transitions, mine))
    }</title>${edges.join("")}${nodes.join("")}</svg>`;
}

/** The scenario's states in the order the transitions first name them, then the current ones. */
export function flowStates(transitions: readonly ReportTransition[], mine: readonly CurrentState[]): string[] {
  const states: string[] = [];
  const add = (s: string) => {
    if (!states.includes(s)) states.push(s);
  };
  for (const t of transitions) {
    add(String(t.from));
    add(String(t.to));
  }
  for (const c of mine) add(String(c.state));
  return states;
}

/** A state as its box shows it: `any state` for `*`, cut at 28 characters. */
export function flowStateLabel(s: string): string {
  return s === "*" ? "any state" : s.length > 28 ? `${s.slice(0, 27)}…` : s;
}

/** A coordinate to one decimal. */
export function flowRound(v: number): number {
  return Math.round(v * 10) / 10;
}

/** One transition's arrow: from box `i` to box `j`, above the row or below, and its bend. */
export interface FlowArrow {
  t: ReportTransition;
  i: number;
  j: number;
  above: boolean;
  bend: number;
}

/** Where a diagram's parts go: each box's left edge and width, the row's top, the arrows, the size. */
export interface FlowLayout {
  xs: number[];
  widths: number[];
  nodeHeight: number;
  rowY: number;
  arrows: FlowArrow[];
  width: number;
  height: number;
}

/** The boxes in a row, and each arrow's bend (parallel arrows bend further), which sets the height. */
export function flowLayout(states: readonly string[], transitions: readonly ReportTransition[]): FlowLayout {
  const nodeHeight = 30;
  const GAP = 70;
  const widths = states.map((s) => Math.max(80, flowStateLabel(s).length * 8 + 24));
  const xs: number[] = [];
  let x = 20;
  for (const w of widths) {
    xs.push(x);
    x += w + GAP;
  }
  const width = Math.max(x - GAP + 20, 200);
  // Each arrow: endpoints, its bend (negative: above the row) and the label's place.
  const seen = new Map<string, number>();
  const arrows = transitions.map((t) => {
    const i = states.indexOf(String(t.from));
    const j = states.indexOf(String(t.to));
    const key = i === j ? `${i}` : `${Math.min(i, j)}-${Math.max(i, j)}-${j > i}`;
    const k = seen.get(key) ?? 0;
    seen.set(key, k + 1);
    const above = j >= i;
    const bend = i === j ? 40 + 22 * k : 30 + 16 * Math.abs(i - j) + 22 * k;
    return { t, i, j, above, bend };
  });
  const top = Math.max(30, ...arrows.filter((a) => a.above).map((a) => a.bend + 22));
  const bottom = Math.max(30, ...arrows.filter((a) => !a.above).map((a) => a.bend + 22));
  return { xs, widths, nodeHeight, rowY: top, arrows, width, height: top + nodeHeight + bottom };
}

/** One transition's arrow: its path, head and label, dashed when never taken. */
export function flowEdge({ t, i, j, above, bend }: FlowArrow, layout: FlowLayout): string {
  const { xs, widths, rowY, nodeHeight } = layout;
  const n = flowRound;
  const never = Number(t.taken) === 0;
  const cx = (s: number) => xs[s] + widths[s] / 2;
  let d: string;
  let end: [number, number];
  let ctrl: [number, number];
  let labelAt: [number, number];
  if (i === j) {
    const c = cx(i);
    const y = rowY;
    const start: [number, number] = [c - 12, y];
    end = [c + 12, y];
    const c1: [number, number] = [c - 30, y - bend * 1.3];
    ctrl = [c + 30, y - bend * 1.3];
    d = `M${n(start[0])},${n(start[1])} C${n(c1[0])},${n(c1[1])} ${n(ctrl[0])},${n(ctrl[1])} ${n(end[0])},${n(end[1])}`;
    labelAt = [c, y - bend - 6];
  } else {
    const y = above ? rowY : rowY + nodeHeight;
    const sx = cx(i) + (j > i ? 10 : -10);
    const ex = cx(j) + (j > i ? -10 : 10);
    end = [ex, y];
    const mid = (sx + ex) / 2;
    ctrl = [mid, above ? y - 2 * bend : y + 2 * bend];
    d = `M${n(sx)},${n(y)} Q${n(ctrl[0])},${n(ctrl[1])} ${n(ex)},${n(y)}`;
    labelAt = [mid, above ? y - bend - 6 : y + bend + 14];
  }
  const dx = end[0] - ctrl[0];
  const dy = end[1] - ctrl[1];
  const len = Math.hypot(dx, dy) || 1;
  const [ux, uy] = [dx / len, dy / len];
  const head = [
    [end[0], end[1]],
    [end[0] - 9 * ux + 4.5 * uy, end[1] - 9 * uy - 4.5 * ux],
    [end[0] - 9 * ux - 4.5 * uy, end[1] - 9 * uy + 4.5 * ux],
  ].map(([px, py]) => `${n(px)},${n(py)}`).join(" ");
  const text = `${t.stub} ×${Number(t.taken)}`;
  return `<g class="flow-edge${never ? " never" : ""}" data-from="${escapeHtml(String(t.from))}" data-to="${
    escapeHtml(String(t.to))
  }" data-stub="${escapeHtml(String(t.stub))}" data-taken="${Number(t.taken)}"><title>${
    escapeHtml(`${t.from} → ${t.to} by stub ${t.stub}: taken ${Number(t.taken)} times${never ? " (never)" : ""}`)
  }</title><path d="${d}" fill="none"${never ? ' stroke-dasharray="5 4"' : ""}/><polygon points="${head}"/>` +
    `<text x="${n(labelAt[0])}" y="${n(labelAt[1])}" text-anchor="middle">${escapeHtml(text)}</text></g>`;
}

/** State `s`'s box (number `i`), highlighted with the scopes it is current in. */
export function flowNode(s: string, i: number, mine: readonly CurrentState[], layout: FlowLayout): string {
  const { xs, widths, rowY, nodeHeight } = layout;
  const n = flowRound;
  const scopes = mine.filter((c) => String(c.state) === s).map((c) => c.scope === undefined ? "now" : c.scope);
  const now = scopes.length > 0;
  const cx = xs[i] + widths[i] / 2;
  return `<g class="flow-node${now ? " current" : ""}" data-state="${escapeHtml(s)}"${
    now ? ` data-current="${escapeHtml(scopes.join(" "))}"` : ""
  }><rect x="${xs[i]}" y="${rowY}" width="${widths[i]}" height="${nodeHeight}" rx="15"/>` +
    `<text x="${n(cx)}" y="${rowY + 19}" text-anchor="middle">${escapeHtml(flowStateLabel(s))}</text>${
      now
        ? `<text class="flow-now" x="${n(cx)}" y="${rowY + nodeHeight + 13}" text-anchor="middle">${
          escapeHtml(scopes.join(", ").slice(0, 40))
        }</text>`
        : ""
    }</g>`;
}

/** The diagram's title: its counts, the transitions never taken and the current states. */
export function flowTitle(
  name: string,
  states: readonly string[],
  transitions: readonly ReportTransition[],
  mine: readonly CurrentState[],
): string {
  const never = transitions.filter((t) => Number(t.taken) === 0).length;
  const nowText = mine.length
    ? `; now ${mine.map((c) => `${c.state}${c.scope === undefined ? "" : ` (scope ${c.scope})`}`).join(", ")}`
    : "";
  const count = (k: number, word: string) => `${k} ${word}${k === 1 ? "" : "s"}`;
  return `Scenario ${name}: ${count(states.length, "state")}, ${count(transitions.length, "transition")}` +
    `${never ? ` (${never} never taken)` : ""}${nowText}`;
}
