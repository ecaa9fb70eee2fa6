/**
 * Issue 17 end to end: templated alerts become one readable pattern; the engine's abstentions about it
 * are one review item per question (not per issue), which a single decision settles for every member
 * at once and for the next runs; the pattern's lifecycle follows its issues.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { demoToken, startTestApp, type TestApp } from '../../helpers/app.ts';
import { fresh } from '../../helpers/errors.ts';
import { runEngineToEnd } from '../../helpers/engineRuns.ts';
import type { Client } from '../../helpers/http.ts';
import { listAll } from '../../helpers/isolation.ts';

let t: TestApp;
let api: Client;
test.before(async () => {
  t = await startTestApp({ worker: true });
  api = t.platform.as(await demoToken(t));
});
test.after(async () => t.close());

const users = ['alice', 'bob', 'carol', 'dave', 'erin', 'frank', 'grace'];
// No keyword of the shipped taxonomy: the engine can name neither a domain nor a root cause.
const alert = (n: number) => ({
  external_id: `alert-${n}`,
  source: 'monitor',
  severity: 'medium',
  title: `Ledger mismatch for account ${users[n % users.length]}`,
  narrative: `Ledger mismatch for account ${users[n % users.length]} on day ${n + 1}`,
  occurred_at: new Date(Date.UTC(2026, 0, 1 + n)).toISOString(),
});

const run = () => runEngineToEnd(api, 120_000);

let patternId = '';
let memberIds: string[] = [];

test('templated alerts: one pattern named by its template, with examples; one review item per question, not per issue', async () => {
  const ingested = await api.post('/v1/ingest/batch', { records: Array.from({ length: 12 }, (_, n) => alert(n)) }, fresh());
  assert.is(ingested.status, 202, ingested.text);
  memberIds = ingested.body.issue_ids;
  const first = await run();
  assert.is(first.summary.abstentions, 24, '12 issues × (domain, root cause)');

  const patterns = await listAll(api, '/v1/patterns');
  assert.is(patterns.length, 1);
  const p = patterns[0] as any;
  patternId = p.id;
  assert.equal(
    [p.path, p.template, p.name, p.status, p.issue_count],
    ['templated', 'Ledger mismatch for account <*> on day <*>', 'Ledger mismatch for account … on day …', 'active', 12],
  );
  assert.is(p.examples.length, 3);
  for (const e of p.examples) assert.ok(memberIds.includes(e.issue_id));
  assert.equal(p.fingerprint, { domain: null, root_cause: null });
  assert.equal(Object.keys(p.provenance).sort(), ['config_versions', 'issue_count', 'issue_digest', 'issues_url', 'run_id', 'stage']);

  const items = await listAll(api, '/v1/review-queue?status=open');
  assert.equal(items.map((i: any) => i.question_key).sort(), [`pattern:${p.id}:extraction`, `pattern:${p.id}:root_cause`]);
  for (const i of items as any[]) {
    assert.equal([i.issue_id, i.pattern_id, i.issue_count, i.issues_url], [null, p.id, 12, `/v1/issues?pattern_id=${p.id}`]);
    assert.is(i.risk_blocked, Math.round((p.risk_score / 100) * 12 * 1e4) / 1e4);
    assert.equal(i.provenance.issues_url, `/v1/issues?pattern_id=${p.id}`);
  }
  assert.is(first.summary.applied.review_items_opened, 2);
  // A member's root cause points at its pattern's question.
  const rc = await api.get(`/v1/issues/${memberIds[0]}/root-cause`);
  assert.is(rc.body.status, 'abstained');
  assert.is(rc.body.review_item_id, items.find((i: any) => i.kind === 'root_cause')!.id);
  assert.equal((await listAll(api, `/v1/review-queue?pattern_id=${p.id}`)).length, 2);
});

test('one decision settles every member at once and the next runs; the question is not asked again', async () => {
  const item = (await listAll(api, '/v1/review-queue?kind=root_cause&status=open'))[0] as any;
  const resolved = await api.post(`/v1/review-queue/${item.id}/resolve`, { decision: { root_cause: 'configuration_error' } });
  assert.is(resolved.status, 200, resolved.text);
  // At once, before any run: every member is decided by the reviewer.
  for (const id of memberIds) {
    const rc = await api.get(`/v1/issues/${id}/root-cause`);
    assert.equal([rc.body.status, rc.body.root_cause?.id, rc.body.source, rc.body.confidence], ['decided', 'configuration_error', 'human', 1], id);
  }
  const next = await run();
  assert.is(next.summary.applied.review_items_opened, 0);
  const open = await listAll(api, '/v1/review-queue?status=open');
  assert.equal(
    open.map((i: any) => i.question_key),
    [`pattern:${patternId}:extraction`],
  );
  assert.is((await api.get(`/v1/review-queue/${item.id}`)).body.status, 'resolved');
  const p = (await api.get(`/v1/patterns/${patternId}`)).body;
  assert.equal(p.fingerprint, { domain: null, root_cause: 'configuration_error' });
  const rc = await api.get(`/v1/issues/${memberIds[5]}/root-cause`);
  assert.equal([rc.body.root_cause?.id, rc.body.source, rc.body.provenance.run_id], ['configuration_error', 'human', next.id]);
});

test('lifecycle: all members closed -> watching; a new open member -> active again', async () => {
  for (const id of memberIds) {
    const res = await api.patch(`/v1/issues/${id}`, { status: 'closed' });
    assert.is(res.status, 200, res.text);
  }
  await run();
  assert.is((await api.get(`/v1/patterns/${patternId}`)).body.status, 'watching');
  const more = await api.post('/v1/ingest/batch', { records: [alert(12)] }, fresh());
  assert.is(more.status, 202, more.text);
  await run();
  const p = (await api.get(`/v1/patterns/${patternId}`)).body;
  assert.equal([p.status, p.issue_count], ['active', 13]);
  const changes = (
    await t.app.pool.query(`select payload from events where aggregate_id = $1 and event_type = 'pattern.status_changed' order by sequence`, [patternId])
  ).rows;
  assert.equal(
    changes.map((r) => [r.payload.from, r.payload.to]),
    [
      ['active', 'watching'],
      ['watching', 'active'],
    ],
  );
});

test.run();
