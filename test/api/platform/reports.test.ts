/**
 * Reports end to end over real HTTP, a real worker and Postgres: an engine run over issues with known
 * hazard outcomes (test/helpers/forecastFixture.ts), then every report kind: the facts document is
 * byte-identical for the same run and kind (with its digest) and cites the pattern's member issue ids
 * from the run's membership relation; every numeral of the narrative resolves; the HTML is a
 * self-contained page whose SVG charts plot the facts' values; a custom template with a wrong number
 * fails with report_facts_mismatch and its positions; bad input (unknown kind, another workspace's
 * run or pattern, an unfinished run, an invalid template) is refused.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { checkNarrative } from '../../../engine/report/factCheck.ts';
import { demoToken, eventually, startTestApp, type TestApp } from '../../helpers/app.ts';
import { assertError, fresh } from '../../helpers/errors.ts';
import type { Client } from '../../helpers/http.ts';
import { serviceAccountToken } from '../../helpers/identities.ts';
import { forecastFixture } from '../../helpers/forecastFixture.ts';

let t: TestApp;
let api: Client;
test.before(async () => {
  t = await startTestApp({ worker: true });
  api = t.platform.as(await demoToken(t));
});
test.after(async () => t.close());

const { records } = await forecastFixture(Math.floor(Date.now() / 60_000) * 60_000);

let run: any;
let patterns: any[];

async function runEngine(): Promise<any> {
  const res = await api.post('/v1/engine/runs', {}, fresh());
  assert.is(res.status, 202, res.text);
  return eventually(
    async () => {
      const r = await api.get(`/v1/engine/runs/${res.body.run_id}`);
      if (r.body.status === 'failed') throw new Error(`run failed: ${r.body.error_detail}`);
      return r.body.status === 'succeeded' ? r.body : undefined;
    },
    90_000,
    'the engine run',
  );
}

async function report(body: Record<string, unknown>, caller = api): Promise<any> {
  const res = await caller.post('/v1/reports/jobs', body);
  assert.is(res.status, 202, res.text);
  assert.is(res.body.status, 'queued');
  return eventually(
    async () => {
      const r = await caller.get(`/v1/reports/jobs/${res.body.id}`);
      assert.is(r.status, 200, r.text);
      return ['succeeded', 'failed'].includes(r.body.status) ? r.body : undefined;
    },
    60_000,
    'the report',
  );
}

const storedFacts = async (id: string) =>
  (await t.app.pool.query<{ facts: string; facts_digest: string }>('select facts, facts_digest from report_jobs where id = $1', [id])).rows[0];

test('setup: issues with known hazard outcomes and an engine run through every stage', async () => {
  const res = await api.post('/v1/ingest/batch', { records }, fresh());
  assert.is(res.status, 202, res.text);
  run = await runEngine();
  patterns = (await api.get('/v1/patterns?limit=100')).body.data;
  assert.ok(patterns.length >= 3);
});

let fittedPattern: any;

test('pattern_brief: deterministic facts with digest, provenance down to issue ids, every numeral resolved', async () => {
  const hazards = await Promise.all(patterns.map(async (p) => ({ p, h: await api.get(`/v1/patterns/${p.id}/hazard`) })));
  fittedPattern = hazards.find(({ h }) => h.status === 200)!.p;
  const a = await report({ kind: 'pattern_brief', pattern_id: fittedPattern.id, run_id: run.id });
  assert.is(a.status, 'succeeded', JSON.stringify(a.error));
  assert.is(a.kind, 'pattern_brief');
  assert.is(a.run_id, run.id);
  assert.match(a.facts_digest, /^[0-9a-f]{64}$/);
  // Without run_id: the latest succeeded run, the same one here; the same facts, byte for byte.
  const b = await report({ kind: 'pattern_brief', pattern_id: fittedPattern.id });
  assert.is(b.run_id, run.id);
  const [fa, fb] = [await storedFacts(a.id), await storedFacts(b.id)];
  assert.is(fa.facts, fb.facts);
  assert.is(fa.facts_digest, fb.facts_digest);
  const { createHash } = await import('node:crypto');
  assert.is(createHash('sha256').update(fa.facts).digest('hex'), a.facts_digest);
  assert.equal(a.facts, JSON.parse(fa.facts));

  // Provenance: the member ids are the run's membership of the pattern (issues of the pattern now).
  const members = (
    await t.app.pool.query<{ id: string }>('select id from issues where workspace_id = $1 and pattern_id = $2 order by id', [
      t.demo.workspaceId,
      fittedPattern.id,
    ])
  ).rows.map((r) => r.id);
  assert.equal(a.facts.pattern.issues.issue_ids, members);
  assert.is(a.facts.pattern.issues.count.value, members.length);
  assert.is(a.facts.pattern.issue_count.value, fittedPattern.issue_count);
  assert.is(a.facts.hazard.status, 'fitted');
  const monthly = a.facts.pattern.occurrences_by_month.reduce((n: number, m: any) => n + m.count.value, 0);
  assert.is(monthly, a.facts.hazard.n_occurrences.value);

  const md: string = a.narrative.markdown;
  assert.ok(md.includes(fittedPattern.name));
  assert.ok(checkNarrative(md, a.facts).ok);
  assert.ok(checkNarrative(md, a.facts).checked > 10, 'the narrative cites numbers');
  assert.is(a.narrative.generator, 'templates');
});

// xmldom (installed with xml-crypto) parses the page; loaded untyped because its typings pull in the DOM lib globally.
const xmldom = '@xmldom/xmldom';
interface XmlElement {
  getAttribute(name: string): string | null;
  getElementsByTagName(tag: string): ArrayLike<XmlElement>;
}
const { DOMParser } = (await import(xmldom)) as { DOMParser: new (options?: unknown) => { parseFromString(text: string, type: string): XmlElement } };

/** Inverts the declared linear mapping of a chart: pixel -> value. */
function chartScale(svg: XmlElement) {
  const [x0, x1] = svg.getAttribute('data-x-domain')!.split(' ').map(Number);
  const [y0, y1] = svg.getAttribute('data-y-domain')!.split(' ').map(Number);
  const [left, top, width, height] = svg.getAttribute('data-plot')!.split(' ').map(Number);
  return { x: (v: number) => left + ((v - x0) / (x1 - x0)) * width, y: (v: number) => top + height - ((v - y0) / (y1 - y0)) * height };
}

const points = (el: XmlElement) =>
  el
    .getAttribute('points')!
    .trim()
    .split(/\s+/)
    .map((p: string) => p.split(',').map(Number));
const byAttr = (root: XmlElement, tag: string, attr: string, value: string) =>
  Array.from(root.getElementsByTagName(tag)).find((e) => e.getAttribute(attr) === value)!;

test('pattern_brief HTML: a self-contained page whose SVG charts plot the facts', async () => {
  const r = await report({ kind: 'pattern_brief', pattern_id: fittedPattern.id });
  const html: string = r.narrative.html;
  const errors: string[] = [];
  const doc = new DOMParser({
    errorHandler: { warning: () => {}, error: (m: string) => errors.push(m), fatalError: (m: string) => errors.push(m) },
  }).parseFromString(html, 'application/xhtml+xml');
  assert.equal(errors, [], 'the page is well-formed');
  assert.is(doc.getElementsByTagName('h1').length, 1);
  assert.ok(doc.getElementsByTagName('h2').length >= 3);
  assert.ok(doc.getElementsByTagName('table').length >= 1);
  assert.not.match(html, /<script|<link|src=|@import|url\(/, 'no external assets');

  const svgs = Array.from(doc.getElementsByTagName('svg'));
  const kinds = svgs.map((s) => s.getAttribute('data-chart'));
  assert.equal(kinds, ['pattern_size', 'survival', 'hazard', 'forecast']);
  const series = r.facts.hazard.series;

  // Survival curve: every point at the position of (t, S(t)); the band spans the interval.
  const survival = svgs[1];
  const s = chartScale(survival);
  const plotted = points(byAttr(survival, 'polyline', 'data-series', 'survival S(t)'));
  assert.is(plotted.length, series.times_days.length);
  plotted.forEach(([px, py], i) => {
    assert.ok(Math.abs(px - s.x(series.times_days[i])) < 0.01, `x of point ${i}`);
    assert.ok(Math.abs(py - s.y(series.survival[i])) < 0.01, `y of point ${i}`);
  });
  const band = points(byAttr(survival, 'polygon', 'data-band', 'survival S(t)'));
  assert.is(band.length, 2 * series.times_days.length);
  assert.ok(Math.abs(band[0][1] - s.y(series.survival_upper[0])) < 0.01);

  // Forecast band: expected occurrences by horizon, interval from lower to upper.
  const forecast = svgs[3];
  const fs = chartScale(forecast);
  const fc = r.facts.hazard.forecast;
  points(byAttr(forecast, 'polyline', 'data-series', 'expected occurrences')).forEach(([px, py], i) => {
    assert.ok(Math.abs(px - fs.x(fc[i].horizon_days.value)) < 0.01);
    assert.ok(Math.abs(py - fs.y(fc[i].expected.value)) < 0.01);
  });

  // Pattern size over time: a bar per month, its height the month's count.
  const sizes = svgs[0];
  const bs = chartScale(sizes);
  const bars = Array.from(sizes.getElementsByTagName('rect')).filter((e) => e.getAttribute('data-label'));
  assert.is(bars.length, r.facts.pattern.occurrences_by_month.length);
  bars.forEach((bar, i) => {
    const m = r.facts.pattern.occurrences_by_month[i];
    assert.is(bar.getAttribute('data-label'), m.month.value);
    assert.ok(Math.abs(Number(bar.getAttribute('y')) - bs.y(m.count.value)) < 0.01);
  });
});

test('workspace_risk, recommendation_case and backtest_accuracy: facts, checked narratives and charts', async () => {
  const risk = await report({ kind: 'workspace_risk' });
  assert.is(risk.status, 'succeeded', JSON.stringify(risk.error));
  assert.is(risk.facts.totals.patterns.value, patterns.length);
  const top = risk.facts.top_patterns;
  assert.equal(
    top.map((p: any) => p.id),
    [...patterns]
      .sort((a, b) => b.risk_score - a.risk_score || b.issue_count - a.issue_count || (a.id < b.id ? -1 : 1))
      .slice(0, 10)
      .map((p) => p.id),
  );
  for (const p of top) assert.is(p.issues.issue_ids.length, p.issue_count.value);
  assert.ok(risk.narrative.html.includes('data-chart="risk"'));
  assert.ok(risk.narrative.html.includes('data-chart="pattern_sizes"'));

  const rec = await report({ kind: 'recommendation_case', pattern_id: fittedPattern.id });
  assert.is(rec.status, 'succeeded', JSON.stringify(rec.error));
  assert.match(rec.narrative.markdown, /^# Recommendation case: /);
  assert.ok(rec.narrative.html.includes('data-chart="cost_forecast"'));

  const bt = await report({ kind: 'backtest_accuracy', run_id: run.id });
  assert.is(bt.status, 'succeeded', JSON.stringify(bt.error));
  assert.ok(Array.isArray(bt.facts.backtest.origins));
  for (const r of [risk, rec, bt]) assert.ok(checkNarrative(r.narrative.markdown, r.facts).ok);
});

test('a custom template: placeholders render with their format; a hard-coded wrong number fails with its position', async () => {
  const good = await report({
    kind: 'pattern_brief',
    pattern_id: fittedPattern.id,
    template: '# {{pattern.name}}\n\n{{pattern.issue_count|int}} issues, risk {{pattern.risk_score}}, last seen {{pattern.last_seen_at}}.',
  });
  assert.is(good.status, 'succeeded', JSON.stringify(good.error));
  assert.is(good.narrative.generator, 'custom_template');
  assert.ok(good.narrative.markdown.includes(`${fittedPattern.issue_count} issues`));

  const wrongCount = fittedPattern.issue_count + 7919;
  const template = `# {{pattern.name}}\n\nThis pattern has ${wrongCount} issues and a risk score of {{pattern.risk_score}}.`;
  const bad = await report({ kind: 'pattern_brief', pattern_id: fittedPattern.id, template });
  assert.is(bad.status, 'failed');
  assert.is(bad.error.code, 'report_facts_mismatch');
  const rendered = template.replace('{{pattern.name}}', fittedPattern.name);
  assert.equal(bad.error.details.numerals, [{ text: String(wrongCount), position: rendered.indexOf(String(wrongCount)) }]);
  assert.not.ok('narrative' in bad);
  assert.match(bad.facts_digest, /^[0-9a-f]{64}$/);
  const job = await api.get(`/v1/jobs/${(await t.app.pool.query('select job_run_id from report_jobs where id = $1', [bad.id])).rows[0].job_run_id}`);
  assert.is(job.body.status, 'failed');
  assert.is(job.body.attempts, 1, 'a mismatch is not retried');

  const missing = await report({ kind: 'pattern_brief', pattern_id: fittedPattern.id, template: 'Risk {{pattern.no_such_fact}}.' });
  assert.is(missing.status, 'failed');
  assert.is(missing.error.code, 'unprocessable');
  assert.is(missing.error.details.template[0].message, 'no fact at pattern.no_such_fact');
});

test('bad input: unknown kind, missing pattern, invalid template, unknown or unfinished run, another workspace', async () => {
  assertError(await api.post('/v1/reports/jobs', { kind: 'weekly_digest' }), 400, 'validation_error', {
    kind: 'must be one of pattern_brief, workspace_risk, recommendation_case, backtest_accuracy',
  });
  assertError(await api.post('/v1/reports/jobs', { kind: 'pattern_brief' }), 400, 'validation_error', { pattern_id: 'is required for this kind' });
  const invalid = await api.post('/v1/reports/jobs', { kind: 'workspace_risk', template: 'Risk {{pattern.name}} and {{totals.patterns|pct9}} {{' });
  assertError(invalid, 422, 'unprocessable');
  assert.equal(
    invalid.body.error.details.placeholders.map((p: any) => p.message),
    [
      "unknown section 'pattern'; a workspace_risk report has kind, run, totals, top_patterns, alerts",
      `unknown format 'pct9'; formats are auto, int, fixed1, fixed2, fixed3, pct0, pct1, pct2, money0, money2, days0, days1, weeks1, ratio1, ratio2, words, date, month`,
      'unbalanced placeholder braces',
    ],
  );
  assertError(await api.post('/v1/reports/jobs', { kind: 'workspace_risk', run_id: '00000000-0000-4000-8000-000000000000' }), 404, 'not_found');
  assertError(await api.post('/v1/reports/jobs', { kind: 'pattern_brief', pattern_id: '00000000-0000-4000-8000-000000000000' }), 404, 'not_found');
  assertError(await api.get('/v1/reports/jobs/00000000-0000-4000-8000-000000000000'), 404, 'not_found');

  // A run that has not succeeded: queued behind nothing, caught before the worker finishes it.
  await t.worker!.stop();
  const queued = await api.post('/v1/engine/runs', {}, fresh());
  const conflict = await api.post('/v1/reports/jobs', { kind: 'workspace_risk', run_id: queued.body.run_id });
  assertError(conflict, 409, 'conflict');
  assert.match(conflict.body.error.message, /has not succeeded \(it is queued\)/);

  // Scopes: reports:write to request, reports:read to read.
  const reader = t.platform.as(await serviceAccountToken(api, ['reports:read']));
  assertError(await reader.post('/v1/reports/jobs', { kind: 'workspace_risk' }), 403, 'forbidden');
});

test.run();
