/**
 * The operator's dashboard (docs/grafana/svc.json) and alert rules (docs/prometheus/alerts.yml):
 * promtool accepts the rules and their unit tests pass, and every metric they query is one that svc
 * exports (so a renamed metric cannot silently blank a panel or disarm an alert).
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { registry } from '../../lib/metrics.ts';
import { projectRoot } from '../../fixtures/svcProcess.ts';
import { toolAvailable } from '../helpers/tools.ts';

const alertsFile = path.join(projectRoot, 'docs/prometheus/alerts.yml');
const dashboard = JSON.parse(readFileSync(path.join(projectRoot, 'docs/grafana/svc.json'), 'utf8'));

/** Metric names a PromQL expression reads (identifiers followed by `{`, `[` or used bare), minus functions and keywords. */
function metricNames(expr: string): string[] {
  const withoutStrings = expr
    .replace(/"(?:[^"\\]|\\.)*"/g, '""')
    .replace(/\{[^}]*\}/g, '{}')
    .replace(/\[[^\]]*\]/g, '[]');
  const words = [...withoutStrings.matchAll(/\b([a-zA-Z_:][a-zA-Z0-9_:]*)\b(?!\s*\()/g)].map((m) => m[1]);
  const keywords = new Set([
    'by',
    'without',
    'on',
    'ignoring',
    'group_left',
    'group_right',
    'and',
    'or',
    'unless',
    'bool',
    'offset',
    'le',
    'job',
    'task',
    'surface',
    'route',
    'method',
    'status',
    'stage',
    'outcome',
    'instance',
    'e',
  ]);
  return [...new Set(words.filter((w) => !keywords.has(w) && !/^\d/.test(w) && w.includes('_')))];
}

async function exportedNames(): Promise<Set<string>> {
  const names = new Set<string>(['up']);
  for (const metric of await registry.getMetricsAsJSON()) {
    names.add(metric.name);
    if (String(metric.type) === 'histogram') for (const suffix of ['_bucket', '_sum', '_count']) names.add(metric.name + suffix);
  }
  return names;
}

function dashboardExpressions(): Array<{ panel: string; expr: string }> {
  return dashboard.panels.flatMap((p: any) => (p.targets ?? []).map((t: any) => ({ panel: p.title, expr: t.expr })));
}

test('the alert rules pass promtool check rules and their unit tests', () => {
  if (!toolAvailable('promtool', 'checking the alert rules')) return;
  const check = spawnSync('promtool', ['check', 'rules', alertsFile], { encoding: 'utf8' });
  assert.is(check.status, 0, check.stdout + check.stderr);
  assert.match(check.stdout, /SUCCESS: 8 rules found/);
  const unit = spawnSync('promtool', ['test', 'rules', 'alerts.test.yml'], { cwd: path.dirname(alertsFile), encoding: 'utf8' });
  assert.is(unit.status, 0, unit.stdout + unit.stderr);
});

test('every metric the alert rules query is exported by svc', async () => {
  const exported = await exportedNames();
  const exprs = [...readFileSync(alertsFile, 'utf8').matchAll(/expr: (\|\n((?: {10}.*\n)+)|.*)/g)].map((m) => m[2] ?? m[1]);
  assert.is(exprs.length, 8);
  for (const expr of exprs) for (const name of metricNames(expr)) assert.ok(exported.has(name), `${name} (in ${expr.trim()}) is not exported`);
});

test('the dashboard is a Grafana dashboard over exported metrics only, covering HTTP, jobs, engine and webhooks', async () => {
  assert.is(dashboard.uid, 'svc-overview');
  assert.ok(dashboard.templating.list.some((v: any) => v.type === 'datasource' && v.query === 'prometheus'));
  const exprs = dashboardExpressions();
  assert.ok(exprs.length >= 15);
  const exported = await exportedNames();
  const used = new Set<string>();
  for (const { panel, expr } of exprs) {
    for (const name of metricNames(expr)) {
      assert.ok(exported.has(name), `panel "${panel}": ${name} is not exported`);
      used.add(name.replace(/_(bucket|sum|count)$/, ''));
    }
  }
  for (const needed of [
    'svc_http_request_duration_seconds',
    'svc_jobs_total',
    'svc_job_queue_depth',
    'svc_job_queue_latency_seconds',
    'svc_engine_stage_duration_seconds',
    'svc_webhook_deliveries_total',
  ]) {
    assert.ok(used.has(needed), `no panel shows ${needed}`);
  }
  const ids = dashboard.panels.map((p: any) => p.id);
  assert.is(new Set(ids).size, ids.length, 'panel ids are unique');
});

test('a panel named after a status class plots only that class; the engine-stage panels say where CLI runs are', () => {
  for (const panel of dashboard.panels) {
    const named = /\b([45])xx\b/.exec(panel.title)?.[1];
    if (!named) continue;
    for (const target of panel.targets) assert.match(target.expr, `status=~"${named}.."`, `${panel.title}: ${target.expr}`);
  }
  assert.ok(dashboard.panels.some((p: any) => p.title.startsWith('5xx')) && dashboard.panels.some((p: any) => p.title.startsWith('4xx')));
  const stagePanels = dashboard.panels.filter((p: any) => p.title.startsWith('Engine stage duration'));
  assert.ok(stagePanels.length >= 1);
  for (const panel of stagePanels) assert.match(panel.description, 'svc engine run', panel.title);
});

test.run();
