/**
 * The report as a self-contained HTML page: the narrative (markdown.ts), then charts drawn as inline
 * SVG from the facts (svg.ts), and a provenance footer with the facts digest. No scripts, fonts,
 * images or style sheets from elsewhere. The page is well-formed XML (XHTML polyglot), so any XML or
 * HTML parser reads it.
 */
import type { Facts } from './facts.ts';
import { escapeHtml, markdownToHtml } from './markdown.ts';
import { barChart, lineChart, type LineSeries } from './svg.ts';
import { DAY_MS } from '../time.ts';

type F = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
const v = (x: F | null | undefined): number => (x && typeof x.value === 'number' ? x.value : NaN);
/** "2023-03" as the epoch ms of its first day (UTC): time axes plot dates, not indexes. */
const monthStart = (month: string) => Date.parse(`${month}-01T00:00:00Z`);

const STYLE = `body{font:15px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#0f172a;max-width:760px;margin:2rem auto;padding:0 1rem}
h1{font-size:1.6rem;margin-bottom:.2rem}h2{font-size:1.2rem;margin-top:1.8rem;border-bottom:1px solid #e2e8f0;padding-bottom:.2rem}
table{border-collapse:collapse;margin:.8rem 0;width:100%}th,td{border:1px solid #e2e8f0;padding:.3rem .5rem;text-align:left}th{background:#f8fafc}
code{background:#f1f5f9;padding:0 .2rem;border-radius:3px;font-size:.85em}.meta{color:#64748b;font-size:.85rem}figure{margin:1.2rem 0}svg{max-width:100%;height:auto}`;

/** Survival and hazard curves of a fitted pattern, with their interval bands. */
function curveCharts(hazard: F | null): string[] {
  if (!hazard || hazard.status !== 'fitted') return [];
  const c = hazard.series;
  const t: number[] = c.times_days;
  const survival: LineSeries = {
    name: 'survival S(t)',
    points: t.map((x, i) => [x, c.survival[i]]),
    band: t.map((x, i) => [x, c.survival_lower[i], c.survival_upper[i]]),
  };
  const hz: LineSeries = { name: 'hazard h(t)', points: t.map((x, i) => [x, c.hazard[i]]), band: t.map((x, i) => [x, c.hazard_lower[i], c.hazard_upper[i]]) };
  return [
    lineChart({
      kind: 'survival',
      title: 'Survival: probability the gap lasts longer than t',
      xLabel: 'days since an occurrence',
      yLabel: 'S(t)',
      series: [survival],
      yDomain: [0, 1],
    }),
    lineChart({ kind: 'hazard', title: 'Hazard: recurrence rate per day', xLabel: 'days since an occurrence', yLabel: 'h(t) per day', series: [hz] }),
  ];
}

function forecastChart(forecast: F[], title: string): string[] {
  if (!forecast?.length) return [];
  const series: LineSeries = {
    name: 'expected occurrences',
    points: forecast.map((f) => [v(f.horizon_days), v(f.expected)]),
    band: forecast.map((f) => [v(f.horizon_days), v(f.lower), v(f.upper)]),
  };
  return [
    lineChart({
      kind: 'forecast',
      title,
      xLabel: 'horizon (days)',
      yLabel: 'occurrences',
      series: [series],
      xDomain: [0, Math.max(...forecast.map((f) => v(f.horizon_days)))],
    }),
  ];
}

function sizeChart(byMonth: F[], title: string): string[] {
  if (!byMonth?.length) return [];
  return [
    barChart({ kind: 'pattern_size', title, xLabel: 'month', yLabel: 'occurrences', bars: byMonth.map((m) => ({ label: m.month.value, value: v(m.count) })) }),
  ];
}

function charts(f: F): string[] {
  switch (f.kind) {
    case 'pattern_brief':
      return [
        ...sizeChart(f.pattern.occurrences_by_month, 'Pattern size over time: occurrences per month'),
        ...curveCharts(f.hazard),
        ...forecastChart(f.hazard?.forecast, 'Forecast: expected occurrences by horizon'),
      ];
    case 'recommendation_case': {
      const horizons: F[] = f.financials?.horizons ?? [];
      const cost: LineSeries = {
        name: 'expected cost',
        points: horizons.map((h) => [v(h.horizon_days), v(h.expected_cost.estimate)]),
        band: horizons.map((h) => [v(h.horizon_days), v(h.expected_cost.lower), v(h.expected_cost.upper)]),
      };
      const costChart = horizons.length
        ? [
            lineChart({
              kind: 'cost_forecast',
              title: `Expected cost without the fix (${f.financials.currency})`,
              xLabel: 'horizon (days)',
              yLabel: f.financials.currency,
              series: [cost],
              xDomain: [0, Math.max(...horizons.map((h) => v(h.horizon_days)))],
            }),
          ]
        : [];
      return [
        ...costChart,
        ...forecastChart(f.hazard?.forecast, 'Forecast: expected occurrences by horizon'),
        ...curveCharts(f.hazard),
        ...sizeChart(f.pattern.occurrences_by_month, 'Pattern size over time: occurrences per month'),
      ];
    }
    case 'workspace_risk': {
      const top: F[] = f.top_patterns;
      const out = top.length
        ? [
            barChart({
              kind: 'risk',
              title: 'Risk score of the riskiest patterns',
              xLabel: 'pattern (rank)',
              yLabel: 'risk score',
              bars: top.map((p, i) => ({ label: String(i + 1), value: v(p.risk_score) })),
            }),
          ]
        : [];
      const months = [...new Set(top.slice(0, 5).flatMap((p) => p.occurrences_by_month.map((m: F) => m.month.value as string)))].sort();
      if (months.length) {
        const series: LineSeries[] = top.slice(0, 5).map((p, i) => ({
          name: `#${i + 1} ${String(p.name).slice(0, 60)}`,
          points: p.occurrences_by_month.map((m: F) => [monthStart(m.month.value), v(m.count)] as [number, number]),
        }));
        const first = monthStart(months[0]);
        const last = monthStart(months.at(-1)!);
        out.push(
          lineChart({
            kind: 'pattern_sizes',
            title: 'Pattern sizes over time: occurrences per month',
            xLabel: 'month',
            yLabel: 'occurrences',
            series,
            xDomain: [first, last > first ? last : first + 31 * DAY_MS],
            xAxis: { kind: 'time' },
          }),
        );
      }
      const withForecast = top.find((p) => p.forecast.length);
      if (withForecast) out.push(...forecastChart(withForecast.forecast, `Forecast of the riskiest fitted pattern: ${String(withForecast.name).slice(0, 50)}`));
      return out;
    }
    case 'backtest_accuracy': {
      const overall = f.backtest.overall;
      const out: string[] = [];
      if (overall) {
        const bins = (overall.calibration as F[]).filter((b) => b.mean_forecast && b.observed_rate);
        out.push(
          lineChart({
            kind: 'calibration',
            title: 'Calibration: observed rate against forecast probability',
            xLabel: 'mean forecast probability',
            yLabel: 'observed rate',
            series: [
              { name: 'observed', points: bins.map((b) => [v(b.mean_forecast), v(b.observed_rate)]) },
              {
                name: 'perfect calibration',
                points: [
                  [0, 0],
                  [1, 1],
                ],
                dashed: true,
              },
            ],
            xDomain: [0, 1],
            yDomain: [0, 1],
          }),
        );
      }
      const scored = (f.backtest.origins as F[]).filter((o) => o.scores);
      if (scored.length) {
        const at = scored.map((o) => Date.parse(o.origin_at.value));
        const [lo, hi] = [Math.min(...at), Math.max(...at)];
        out.push(
          lineChart({
            kind: 'brier',
            title: 'Brier score by origin (lower is better)',
            xLabel: 'origin',
            yLabel: 'Brier score',
            series: [{ name: 'Brier', points: scored.map((o, i) => [at[i], v(o.scores.brier)]) }],
            xDomain: [lo, hi > lo ? hi : lo + DAY_MS],
            xAxis: { kind: 'time' },
          }),
        );
      }
      return out;
    }
    default:
      return [];
  }
}

const TITLES: Record<string, string> = {
  pattern_brief: 'Pattern brief',
  workspace_risk: 'Workspace risk',
  recommendation_case: 'Recommendation case',
  backtest_accuracy: 'Backtest accuracy',
};

/** The page of a report: narrative Markdown (already fact-checked), charts from the facts, provenance. */
export function renderHtml(facts: Facts, markdown: string, factsDigest: string): string {
  const f = facts as F;
  const title = TITLES[f.kind] + (f.pattern?.name ? `: ${f.pattern.name}` : '');
  // The narrative's own first heading is the page title.
  const body = markdownToHtml(markdown.replace(/^#\s+.*\n?/, ''));
  const figures = charts(f)
    .map((svg) => `<figure>${svg}</figure>`)
    .join('\n');
  return `<!DOCTYPE html>
<html xmlns="http://www.w3.org/1999/xhtml" lang="en">
<head>
<meta charset="utf-8"/>
<meta name="viewport" content="width=device-width, initial-scale=1"/>
<title>${escapeHtml(title)}</title>
<style>${STYLE}</style>
</head>
<body>
<h1>${escapeHtml(title)}</h1>
<p class="meta">Engine run <code>${escapeHtml(f.run.id)}</code>, as of ${escapeHtml(String(f.run.as_of).slice(0, 10))}</p>
${body}
${figures ? `<h2>Charts</h2>\n${figures}` : ''}
<p class="meta">Facts digest (SHA-256) <code>${factsDigest}</code>. Every number in the text above resolves to this facts document.</p>
</body>
</html>
`;
}
