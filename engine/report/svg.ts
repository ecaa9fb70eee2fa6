/**
 * Charts as inline SVG drawn from the facts: line charts with shaded interval bands (survival and
 * hazard curves, forecast bands, calibration) and bar charts (pattern sizes over time, risk). The
 * mapping is linear and declared on the element (`data-x-domain`, `data-y-domain`, `data-plot` =
 * left top width height), so a reader (or a test) can invert every plotted coordinate back to the
 * value it shows. Coordinates have two decimals.
 */
import { escapeHtml } from './markdown.ts';

export interface LineSeries {
  name: string;
  points: Array<[number, number]>;
  /** Interval band: [x, lower, upper]. */
  band?: Array<[number, number, number]>;
  dashed?: boolean;
}

const W = 640;
const BASE_TOP = 36;
const PLOT_HEIGHT = 210;
const BELOW_PLOT = 54; // tick labels and the axis label
const LEGEND_ROW = 16;
const TITLE_CHARS = 80;
const COLORS = ['#2563eb', '#dc2626', '#059669', '#d97706', '#7c3aed', '#0891b2'];

const r2 = (x: number) => Math.round(x * 100) / 100;

export interface Plot {
  left: number;
  top: number;
  width: number;
  height: number;
}

/** The plot area of a chart with `legendRows` legend rows between the title and the plot (a legend never covers data). */
const plotFor = (legendRows: number): Plot => ({ left: 64, top: BASE_TOP + legendRows * LEGEND_ROW, width: 552, height: PLOT_HEIGHT });

export interface Scale {
  x(v: number): number;
  y(v: number): number;
}

export function scaleFor(xDomain: [number, number], yDomain: [number, number], plot: Plot = plotFor(0)): Scale {
  const xs = xDomain[1] - xDomain[0] || 1;
  const ys = yDomain[1] - yDomain[0] || 1;
  return {
    x: (v) => r2(plot.left + ((v - xDomain[0]) / xs) * plot.width),
    y: (v) => r2(plot.top + plot.height - ((v - yDomain[0]) / ys) * plot.height),
  };
}

/**
 * "Nice" ticks as d3-array's `ticks` gives them (Bostock): a step of 1, 2 or 5 times a power of ten,
 * chosen so that about `count` ticks cover [lo, hi]; `niceDomain` widens the domain to whole steps (d3-scale's
 * `nice`), so the axis starts and ends on a tick.
 */
export function tickStep(lo: number, hi: number, count: number): number {
  const raw = Math.abs(hi - lo) / Math.max(1, count);
  if (!(raw > 0) || !Number.isFinite(raw)) return 1;
  const power = 10 ** Math.floor(Math.log10(raw));
  const error = raw / power;
  return power * (error >= Math.sqrt(50) ? 10 : error >= Math.sqrt(10) ? 5 : error >= Math.sqrt(2) ? 2 : 1);
}

export function niceDomain(lo: number, hi: number, count = 5): [number, number] {
  if (lo === hi) return [lo, lo + 1];
  let step = tickStep(lo, hi, count);
  let a = Math.floor(lo / step) * step;
  let b = Math.ceil(hi / step) * step;
  // Widening can change the step once (d3-scale's nice iterates the same way).
  step = tickStep(a, b, count);
  a = Math.floor(lo / step) * step;
  b = Math.ceil(hi / step) * step;
  return [round(a, step), round(b, step)];
}

/** Multiples of the nice step within [lo, hi], without floating-point dust (0.30000000000000004 is 0.3). */
export function niceTicks(lo: number, hi: number, count = 5): number[] {
  const step = tickStep(lo, hi, count);
  const out: number[] = [];
  for (let i = Math.ceil(lo / step - 1e-9); i * step <= hi + step * 1e-9; i++) out.push(round(i * step, step));
  return out;
}

function round(x: number, step: number): number {
  const digits = Math.max(0, -Math.floor(Math.log10(step)) + 1);
  return Number(x.toFixed(Math.min(20, digits)));
}

const tickLabel = (v: number) => String(v).replace('-', '−');

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/**
 * Ticks of a time axis (epoch ms, UTC): the first days of months, every 1, 2, 3, 6 or 12 months or whole
 * years, the finest that gives at most `max` ticks; labelled "Mar 2023" (or "2023" from yearly steps).
 */
export function timeTicks(lo: number, hi: number, max = 7): Array<{ at: number; label: string }> {
  const start = new Date(lo);
  const first = { y: start.getUTCFullYear(), m: start.getUTCMonth() };
  const spanMonths = (new Date(hi).getUTCFullYear() - first.y) * 12 + new Date(hi).getUTCMonth() - first.m + 1;
  const steps = [1, 2, 3, 6, 12, 24, 60, 120];
  const step = steps.find((k) => Math.ceil(spanMonths / k) <= max) ?? 120;
  const out: Array<{ at: number; label: string }> = [];
  // Month-aligned: steps of a year start in January, smaller steps at multiples of the step.
  let index = first.y * 12 + first.m;
  index = Math.ceil(index / step) * step;
  for (let at = Date.UTC(Math.floor(index / 12), index % 12, 1); at <= hi; index += step, at = Date.UTC(Math.floor(index / 12), index % 12, 1)) {
    if (at < lo) continue;
    out.push({ at, label: step >= 12 ? String(Math.floor(index / 12)) : `${MONTHS[index % 12]} ${Math.floor(index / 12)}` });
  }
  return out;
}

export type XAxis = { kind: 'linear' } | { kind: 'time' } | { kind: 'labels'; labels: Array<{ at: number; label: string }> };

function frame(
  title: string,
  xDomain: [number, number],
  yDomain: [number, number],
  xLabel: string,
  yLabel: string,
  s: Scale,
  plot: Plot,
  xAxis: XAxis,
): string[] {
  const parts: string[] = [];
  const bottom = plot.top + plot.height;
  // About 80 characters of 14px bold fit the width; a longer title is cut (the full one is the aria-label).
  const shown = title.length > TITLE_CHARS ? `${title.slice(0, TITLE_CHARS - 1).trimEnd()}…` : title;
  parts.push(`<text x="${W / 2}" y="20" text-anchor="middle" font-size="14" font-weight="600">${escapeHtml(shown)}</text>`);
  parts.push(`<rect x="${plot.left}" y="${plot.top}" width="${plot.width}" height="${plot.height}" fill="none" stroke="#cbd5e1"/>`);
  for (const yv of niceTicks(yDomain[0], yDomain[1])) {
    parts.push(`<line x1="${plot.left}" x2="${plot.left + plot.width}" y1="${s.y(yv)}" y2="${s.y(yv)}" stroke="#f1f5f9"/>`);
    parts.push(`<text x="${plot.left - 6}" y="${r2(s.y(yv) + 4)}" text-anchor="end" font-size="10" fill="#475569" data-tick="y">${tickLabel(yv)}</text>`);
  }
  const xTicks =
    xAxis.kind === 'labels'
      ? xAxis.labels
      : xAxis.kind === 'time'
        ? timeTicks(xDomain[0], xDomain[1])
        : niceTicks(xDomain[0], xDomain[1]).map((at) => ({ at, label: tickLabel(at) }));
  for (const t of xTicks) {
    parts.push(`<line x1="${s.x(t.at)}" x2="${s.x(t.at)}" y1="${bottom}" y2="${bottom + 4}" stroke="#94a3b8"/>`);
    parts.push(`<text x="${s.x(t.at)}" y="${bottom + 16}" text-anchor="middle" font-size="10" fill="#475569" data-tick="x">${escapeHtml(t.label)}</text>`);
  }
  parts.push(`<text x="${plot.left + plot.width / 2}" y="${bottom + BELOW_PLOT - 10}" text-anchor="middle" font-size="11">${escapeHtml(xLabel)}</text>`);
  parts.push(
    `<text x="14" y="${plot.top + plot.height / 2}" text-anchor="middle" font-size="11" transform="rotate(-90 14 ${plot.top + plot.height / 2})">${escapeHtml(yLabel)}</text>`,
  );
  return parts;
}

const svgOpen = (kind: string, title: string, xDomain: [number, number], yDomain: [number, number], plot: Plot) => {
  const height = plot.top + plot.height + BELOW_PLOT;
  return `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${W} ${height}" width="${W}" height="${height}" role="img" aria-label="${escapeHtml(title)}" data-chart="${kind}" data-x-domain="${xDomain[0]} ${xDomain[1]}" data-y-domain="${yDomain[0]} ${yDomain[1]}" data-plot="${plot.left} ${plot.top} ${plot.width} ${plot.height}">`;
};

function extent(values: number[], fallback: [number, number]): [number, number] {
  const finite = values.filter(Number.isFinite);
  if (!finite.length) return fallback;
  const lo = Math.min(...finite);
  const hi = Math.max(...finite);
  return lo === hi ? [lo, lo + 1] : [lo, hi];
}

/**
 * A line chart. Unless given, the y domain is [min(0, data), max] widened to nice ticks; the x domain
 * the data's extent (nice for a linear axis; a time axis, epoch ms, keeps the data's months). The
 * legend (when there is more than one series) sits in rows between the title and the plot.
 */
export function lineChart(opts: {
  kind: string;
  title: string;
  xLabel: string;
  yLabel: string;
  series: LineSeries[];
  yDomain?: [number, number];
  xDomain?: [number, number];
  xAxis?: XAxis;
}): string {
  const xAxis = opts.xAxis ?? { kind: 'linear' };
  const xs = opts.series.flatMap((s) => s.points.map((p) => p[0]));
  const ys = opts.series.flatMap((s) => [...s.points.map((p) => p[1]), ...(s.band ?? []).flatMap((b) => [b[1], b[2]])]);
  const dataX = extent(xs, [0, 1]);
  const xDomain = opts.xDomain ?? (xAxis.kind === 'linear' ? niceDomain(dataX[0], dataX[1]) : dataX);
  const yDomain = opts.yDomain ?? niceDomain(Math.min(0, ...ys.filter(Number.isFinite)), extent(ys, [0, 1])[1]);
  const legend = opts.series.length > 1 ? opts.series : [];
  const plot = plotFor(legend.length);
  const s = scaleFor(xDomain, yDomain, plot);
  const parts = [svgOpen(opts.kind, opts.title, xDomain, yDomain, plot), ...frame(opts.title, xDomain, yDomain, opts.xLabel, opts.yLabel, s, plot, xAxis)];
  legend.forEach((series, i) => {
    const color = COLORS[i % COLORS.length];
    const y = BASE_TOP + i * LEGEND_ROW;
    parts.push(
      `<g data-legend="${escapeHtml(series.name)}"><line x1="${plot.left}" x2="${plot.left + 18}" y1="${y - 4}" y2="${y - 4}" stroke="${color}" stroke-width="2"${series.dashed ? ' stroke-dasharray="5 4"' : ''}/><text x="${plot.left + 24}" y="${y}" font-size="11" fill="#0f172a">${escapeHtml(series.name)}</text></g>`,
    );
  });
  opts.series.forEach((series, i) => {
    const color = COLORS[i % COLORS.length];
    if (series.band?.length) {
      const upper = series.band.map((b) => `${s.x(b[0])},${s.y(b[2])}`);
      const lower = [...series.band].reverse().map((b) => `${s.x(b[0])},${s.y(b[1])}`);
      parts.push(
        `<polygon data-band="${escapeHtml(series.name)}" points="${[...upper, ...lower].join(' ')}" fill="${color}" fill-opacity="0.15" stroke="none"/>`,
      );
    }
    const points = series.points.map((p) => `${s.x(p[0])},${s.y(p[1])}`).join(' ');
    parts.push(
      `<polyline data-series="${escapeHtml(series.name)}" points="${points}" fill="none" stroke="${color}" stroke-width="2"${series.dashed ? ' stroke-dasharray="5 4"' : ''}/>`,
    );
  });
  parts.push('</svg>');
  return parts.join('');
}

/** A bar chart over labelled categories (months: "2023-03"); the value axis has nice ticks. */
export function barChart(opts: { kind: string; title: string; xLabel: string; yLabel: string; bars: Array<{ label: string; value: number }> }): string {
  const n = opts.bars.length;
  const xDomain: [number, number] = [0, Math.max(n, 1)];
  const yDomain = niceDomain(0, Math.max(1, ...opts.bars.map((b) => b.value)));
  const plot = plotFor(0);
  const s = scaleFor(xDomain, yDomain, plot);
  const every = Math.max(1, Math.ceil(n / 8));
  const labels = opts.bars.flatMap((b, i) => (i % every === 0 ? [{ at: i + 0.5, label: b.label }] : []));
  const parts = [
    svgOpen(opts.kind, opts.title, xDomain, yDomain, plot),
    ...frame(opts.title, xDomain, yDomain, opts.xLabel, opts.yLabel, s, plot, { kind: 'labels', labels }),
  ];
  opts.bars.forEach((b, i) => {
    const x0 = s.x(i + 0.1);
    const width = r2(s.x(i + 0.9) - x0);
    const y = s.y(b.value);
    parts.push(
      `<rect data-label="${escapeHtml(b.label)}" data-value="${b.value}" x="${x0}" y="${y}" width="${width}" height="${r2(s.y(0) - y)}" fill="${COLORS[0]}"/>`,
    );
  });
  parts.push('</svg>');
  return parts.join('');
}
