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
const H = 300;
const PLOT = { left: 64, top: 36, width: 552, height: 210 };
const COLORS = ['#2563eb', '#dc2626', '#059669', '#d97706', '#7c3aed', '#0891b2'];

const r2 = (x: number) => Math.round(x * 100) / 100;

export interface Scale {
  x(v: number): number;
  y(v: number): number;
}

export function scaleFor(xDomain: [number, number], yDomain: [number, number]): Scale {
  const xs = xDomain[1] - xDomain[0] || 1;
  const ys = yDomain[1] - yDomain[0] || 1;
  return {
    x: (v) => r2(PLOT.left + ((v - xDomain[0]) / xs) * PLOT.width),
    y: (v) => r2(PLOT.top + PLOT.height - ((v - yDomain[0]) / ys) * PLOT.height),
  };
}

/** Tick label: at most 3 significant decimals, no exponent. */
const tick = (v: number) => String(Math.round(v * 1000) / 1000);

function frame(title: string, xDomain: [number, number], yDomain: [number, number], xLabel: string, yLabel: string, s: Scale, xTicks?: string[]): string[] {
  const parts: string[] = [];
  parts.push(`<text x="${W / 2}" y="20" text-anchor="middle" font-size="14" font-weight="600">${escapeHtml(title)}</text>`);
  parts.push(`<rect x="${PLOT.left}" y="${PLOT.top}" width="${PLOT.width}" height="${PLOT.height}" fill="none" stroke="#cbd5e1"/>`);
  for (let i = 0; i <= 4; i++) {
    const yv = yDomain[0] + ((yDomain[1] - yDomain[0]) * i) / 4;
    parts.push(`<text x="${PLOT.left - 6}" y="${r2(s.y(yv) + 4)}" text-anchor="end" font-size="10" fill="#475569">${tick(yv)}</text>`);
    if (!xTicks) {
      const xv = xDomain[0] + ((xDomain[1] - xDomain[0]) * i) / 4;
      parts.push(`<text x="${s.x(xv)}" y="${PLOT.top + PLOT.height + 14}" text-anchor="middle" font-size="10" fill="#475569">${tick(xv)}</text>`);
    }
  }
  parts.push(`<text x="${PLOT.left + PLOT.width / 2}" y="${H - 8}" text-anchor="middle" font-size="11">${escapeHtml(xLabel)}</text>`);
  parts.push(
    `<text x="14" y="${PLOT.top + PLOT.height / 2}" text-anchor="middle" font-size="11" transform="rotate(-90 14 ${PLOT.top + PLOT.height / 2})">${escapeHtml(yLabel)}</text>`,
  );
  return parts;
}

const svgOpen = (kind: string, title: string, xDomain: [number, number], yDomain: [number, number]) =>
  `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${W} ${H}" width="${W}" height="${H}" role="img" aria-label="${escapeHtml(title)}" data-chart="${kind}" data-x-domain="${xDomain[0]} ${xDomain[1]}" data-y-domain="${yDomain[0]} ${yDomain[1]}" data-plot="${PLOT.left} ${PLOT.top} ${PLOT.width} ${PLOT.height}">`;

function extent(values: number[], fallback: [number, number]): [number, number] {
  const finite = values.filter(Number.isFinite);
  if (!finite.length) return fallback;
  const lo = Math.min(...finite);
  const hi = Math.max(...finite);
  return lo === hi ? [lo, lo + 1] : [lo, hi];
}

export function lineChart(opts: {
  kind: string;
  title: string;
  xLabel: string;
  yLabel: string;
  series: LineSeries[];
  yDomain?: [number, number];
  xDomain?: [number, number];
}): string {
  const xs = opts.series.flatMap((s) => s.points.map((p) => p[0]));
  const ys = opts.series.flatMap((s) => [...s.points.map((p) => p[1]), ...(s.band ?? []).flatMap((b) => [b[1], b[2]])]);
  const xDomain = opts.xDomain ?? extent(xs, [0, 1]);
  const yDomain = opts.yDomain ?? [Math.min(0, ...ys.filter(Number.isFinite)), extent(ys, [0, 1])[1]];
  const s = scaleFor(xDomain, yDomain as [number, number]);
  const parts = [
    svgOpen(opts.kind, opts.title, xDomain, yDomain as [number, number]),
    ...frame(opts.title, xDomain, yDomain as [number, number], opts.xLabel, opts.yLabel, s),
  ];
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
    parts.push(`<text x="${PLOT.left + 8}" y="${PLOT.top + 14 + i * 14}" font-size="11" fill="${color}">${escapeHtml(series.name)}</text>`);
  });
  parts.push('</svg>');
  return parts.join('');
}

export function barChart(opts: { kind: string; title: string; xLabel: string; yLabel: string; bars: Array<{ label: string; value: number }> }): string {
  const n = opts.bars.length;
  const xDomain: [number, number] = [0, Math.max(n, 1)];
  const yDomain: [number, number] = [0, Math.max(1, ...opts.bars.map((b) => b.value))];
  const s = scaleFor(xDomain, yDomain);
  const parts = [svgOpen(opts.kind, opts.title, xDomain, yDomain), ...frame(opts.title, xDomain, yDomain, opts.xLabel, opts.yLabel, s, [])];
  const every = Math.max(1, Math.ceil(n / 12));
  opts.bars.forEach((b, i) => {
    const x0 = s.x(i + 0.1);
    const width = r2(s.x(i + 0.9) - x0);
    const y = s.y(b.value);
    parts.push(
      `<rect data-label="${escapeHtml(b.label)}" data-value="${b.value}" x="${x0}" y="${y}" width="${width}" height="${r2(s.y(0) - y)}" fill="${COLORS[0]}"/>`,
    );
    if (i % every === 0)
      parts.push(
        `<text x="${s.x(i + 0.5)}" y="${PLOT.top + PLOT.height + 14}" text-anchor="middle" font-size="10" fill="#475569">${escapeHtml(b.label)}</text>`,
      );
  });
  parts.push('</svg>');
  return parts.join('');
}
