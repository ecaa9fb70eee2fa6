/**
 * The two charts of the insights pages, drawn as inline SVG (no chart library, nothing fetched):
 * risk against size for every pattern, and a pattern's hazard curve with its interval band. Each
 * has a text alternative; the same numbers are in the tables and facts next to them.
 */
import type { InsightPatternSummary, PatternForecast } from './types.ts';

const W = 640;
const H = 300;
const PAD = { left: 64, right: 16, top: 12, bottom: 40 };

const ticks = (max: number, count = 5) => {
  const raw = max / count;
  const step = 10 ** Math.floor(Math.log10(raw || 1));
  const nice = [1, 2, 5, 10].map((m) => m * step).find((s) => s >= raw) ?? raw;
  return Array.from({ length: Math.floor(max / nice) + 1 }, (_, i) => i * nice);
};

const fmt = (n: number) => (n >= 100 || Number.isInteger(n) ? String(Math.round(n)) : n < 0.01 ? n.toExponential(0) : n.toPrecision(2));

/** Risk score (0-100) against size (records, log scale) of every pattern. */
export function RiskSizeChart({ patterns }: { patterns: InsightPatternSummary[] }) {
  const maxSize = Math.max(2, ...patterns.map((p) => p.size));
  const logMax = Math.log10(maxSize);
  const x = (size: number) => PAD.left + (Math.log10(Math.max(1, size)) / logMax) * (W - PAD.left - PAD.right);
  const y = (risk: number) => PAD.top + (1 - risk / 100) * (H - PAD.top - PAD.bottom);
  const sizeTicks = [1, 10, 100, 1000, 10000, 100000].filter((t) => t <= maxSize * 1.01);
  const top = patterns.slice(0, 3).map((p) => `${p.name} (risk ${p.risk_score}, ${p.size} records)`);
  return (
    <figure class="chart">
      <svg viewBox={`0 0 ${W} ${H}`} role="img" aria-label={`Risk against size of ${patterns.length} patterns. Highest risk: ${top.join('; ')}.`}>
        {[0, 25, 50, 75, 100].map((r) => (
          <g key={r}>
            <line class="chart__grid" x1={PAD.left} x2={W - PAD.right} y1={y(r)} y2={y(r)} />
            <text class="chart__tick" x={PAD.left - 6} y={y(r) + 4} text-anchor="end">
              {r}
            </text>
          </g>
        ))}
        {sizeTicks.map((s) => (
          <text key={s} class="chart__tick" x={x(s)} y={H - PAD.bottom + 16} text-anchor="middle">
            {s}
          </text>
        ))}
        <text class="chart__label" x={(W + PAD.left) / 2} y={H - 6} text-anchor="middle">
          Size (records, log scale)
        </text>
        <text class="chart__label" transform={`translate(12 ${(H - PAD.bottom) / 2}) rotate(-90)`} text-anchor="middle">
          Risk score
        </text>
        {patterns.map((p) => (
          <circle key={p.id} class="chart__point" cx={x(p.size)} cy={y(p.risk_score)} r={5}>
            <title>{`${p.name}: risk ${p.risk_score}, ${p.size} records`}</title>
          </circle>
        ))}
      </svg>
      <figcaption>
        Each dot is a pattern: higher is riskier, further right is larger (hover a dot for its name). The table below lists the same patterns, highest risk
        first.
      </figcaption>
    </figure>
  );
}

/** h(t) with its pointwise interval as a band, and a marker at the time since the last occurrence. */
export function HazardChart({ forecast, level }: { forecast: Extract<PatternForecast, { status: 'fitted' }>; level: number }) {
  const c = forecast.hazard_curve;
  const maxT = c.times_days.at(-1) ?? 1;
  const maxH = Math.max(...c.upper.filter(Number.isFinite), ...c.hazard) * 1.05 || 1;
  const x = (t: number) => PAD.left + (t / maxT) * (W - PAD.left - PAD.right);
  const y = (h: number) => PAD.top + (1 - Math.min(h, maxH) / maxH) * (H - PAD.top - PAD.bottom);
  const line = c.times_days.map((t, i) => `${x(t)},${y(c.hazard[i])}`).join(' ');
  const band = [...c.times_days.map((t, i) => `${x(t)},${y(c.upper[i])}`), ...c.times_days.map((t, i) => `${x(t)},${y(c.lower[i])}`).reverse()].join(' ');
  const now = forecast.since_last_days;
  const pct = Math.round(level * 100);
  return (
    <figure class="chart">
      <svg
        viewBox={`0 0 ${W} ${H}`}
        role="img"
        aria-label={`Recurrence rate per day against days since an occurrence (${forecast.model} model), with its ${pct}% interval. Today is ${Math.round(now)} days after the last occurrence.`}
      >
        {ticks(maxH, 4).map((h) => (
          <g key={h}>
            <line class="chart__grid" x1={PAD.left} x2={W - PAD.right} y1={y(h)} y2={y(h)} />
            <text class="chart__tick" x={PAD.left - 6} y={y(h) + 4} text-anchor="end">
              {fmt(h)}
            </text>
          </g>
        ))}
        {ticks(maxT, 6).map((t) => (
          <text key={t} class="chart__tick" x={x(t)} y={H - PAD.bottom + 16} text-anchor="middle">
            {fmt(t)}
          </text>
        ))}
        <polygon class="chart__band" points={band} />
        <polyline class="chart__line" points={line} />
        {now <= maxT && (
          <g>
            <line class="chart__now" x1={x(now)} x2={x(now)} y1={PAD.top} y2={H - PAD.bottom} />
            <text class="chart__tick" x={x(now) + 4} y={PAD.top + 12}>
              today
            </text>
          </g>
        )}
        <text class="chart__label" x={(W + PAD.left) / 2} y={H - 6} text-anchor="middle">
          Days since an occurrence
        </text>
        <text class="chart__label" transform={`translate(12 ${(H - PAD.bottom) / 2}) rotate(-90)`} text-anchor="middle">
          Recurrences per day
        </text>
      </svg>
      <figcaption>The line is the expected recurrence rate; the shaded band is its {pct}% interval.</figcaption>
    </figure>
  );
}
