import { randomUUID } from 'node:crypto';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { demoToken, eventually, startTestApp, type TestApp } from '../../helpers/app.ts';
import { assertError, assertValidation, fresh } from '../../helpers/errors.ts';
import type { Client } from '../../helpers/http.ts';
import { serviceAccountToken } from '../../helpers/identities.ts';
import { ingestProcessTask } from '../../../jobs/tasks/ingest__process.ts';

let t: TestApp;
let api: Client;
test.before(async () => {
  t = await startTestApp({ worker: true });
  api = t.platform.as(await demoToken(t));
});
test.after(async () => t.close());

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const ext = () => `ext-${randomUUID()}`;
const ingestOne = (record: unknown, client = api) => client.post('/v1/ingest/events', record, fresh());
const ingestBatch = (records: unknown, client = api) => client.post('/v1/ingest/batch', { records }, fresh());
const issue = async (id: string) => {
  const res = await api.get(`/v1/issues/${id}`);
  assert.is(res.status, 200, res.text);
  return res.body;
};
const summary = (eligible: number, blocked_no_narrative: number, ineligible: number) => ({ eligible, blocked_no_narrative, ineligible });

test('single event: 202 acknowledgement and a stored issue', async () => {
  const external_id = ext();
  const res = await ingestOne({
    external_id,
    title: 'Datanode crashes when the disk fills',
    narrative: 'The datanode crashed after the volume ran out of space',
    source: 'jira',
    severity: 'high',
    occurred_at: '2026-01-05T10:00:00+02:00',
  });
  assert.is(res.status, 202, res.text);
  assert.equal(Object.keys(res.body).sort(), ['accepted', 'engine_status_summary', 'issue_id', 'job_id', 'rejected']);
  assert.is(res.body.accepted, 1);
  assert.equal(res.body.rejected, []);
  assert.match(res.body.issue_id, UUID);
  assert.type(res.body.job_id, 'string');
  assert.equal(res.body.engine_status_summary, summary(1, 0, 0));

  const stored = await issue(res.body.issue_id);
  assert.is(stored.external_id, external_id);
  assert.is(stored.source, 'jira');
  assert.is(stored.title, 'Datanode crashes when the disk fills');
  assert.is(stored.narrative, 'The datanode crashed after the volume ran out of space');
  assert.is(stored.severity, 'high');
  assert.is(stored.status, 'open');
  assert.is(stored.engine_status, 'eligible');
  assert.is(stored.ineligible_reason, null);
  assert.is(stored.occurred_at, '2026-01-05T08:00:00.000Z');
  assert.is(stored.source_created_at, '2026-01-05T08:00:00.000Z');
  assert.is(stored.pattern_id, null);
  assert.is(stored.version, 1);
});

test('external_id, title and source are required; each missing one is a validation error keyed by the field', async () => {
  const full = { external_id: ext(), title: 'A title', source: 'jira', narrative: 'Something broke' };
  for (const field of ['external_id', 'title', 'source'] as const) {
    const { [field]: _dropped, ...record } = full;
    assertValidation(await ingestOne(record), { [field]: 'is required' });
  }
  assertValidation(await ingestOne({ narrative: 'only a narrative' }), { external_id: 'is required', title: 'is required', source: 'is required' });
  assertValidation(await ingestOne({ ...full, title: '   ' }), { title: 'must not be empty' });
  assertValidation(await ingestOne({ ...full, external_id: 42 }), { external_id: 'is required' });
  const list = await api.get(`/v1/issues?q=${encodeURIComponent('"A title"')}`);
  assert.is(list.body.data.length, 0, 'nothing was stored');
});

test('occurred_at in year 0000 (ISO 8601, but no PostgreSQL timestamp) is a validation error, not a failed write', async () => {
  const record = { external_id: ext(), title: 'Year zero', source: 'jira', narrative: 'text', occurred_at: '0000-06-01T00:00:00Z' };
  assertValidation(await ingestOne(record), { occurred_at: 'must be in the years 0001 to 9999' });
  const batch = await ingestBatch([record, { ...record, external_id: ext(), occurred_at: '0001-01-01T00:00:00Z' }]);
  assert.is(batch.status, 202, batch.text);
  assert.equal(batch.body.rejected, [{ index: 0, errors: [{ field: 'occurred_at', message: 'must be in the years 0001 to 9999' }] }]);
  assert.is((await issue(batch.body.issue_ids[0])).occurred_at, '0001-01-01T00:00:00.000Z');
});

test('narrative is optional: blocked_no_narrative and a missing_narrative review item', async () => {
  for (const narrative of [undefined, null, '', '   \n ']) {
    const res = await ingestOne({ external_id: ext(), title: 'No story told', source: 'pager', ...(narrative === undefined ? {} : { narrative }) });
    assert.is(res.status, 202, res.text);
    assert.equal(res.body.engine_status_summary, summary(0, 1, 0));
    const stored = await issue(res.body.issue_id);
    assert.is(stored.engine_status, 'blocked_no_narrative');
    assert.is(stored.narrative, null);
    const items = await api.get(`/v1/review-queue?issue_id=${res.body.issue_id}`);
    assert.is(items.status, 200, items.text);
    assert.is(items.body.data.length, 1);
    assert.is(items.body.data[0].kind, 'missing_narrative');
    assert.is(items.body.data[0].status, 'open');
    assert.is(items.body.data[0].issue_id, res.body.issue_id);
  }
});

test('body is an alias of narrative; narrative wins when both are sent', async () => {
  const alias = await ingestOne({ external_id: ext(), title: 'Alias', source: 'jira', body: 'Told through the old field name' });
  assert.is(alias.status, 202, alias.text);
  assert.is((await issue(alias.body.issue_id)).narrative, 'Told through the old field name');
  assert.equal(alias.body.engine_status_summary, summary(1, 0, 0));

  const both = await ingestOne({ external_id: ext(), title: 'Both', source: 'jira', body: 'the old field', narrative: 'the new field' });
  assert.is(both.status, 202, both.text);
  assert.is((await issue(both.body.issue_id)).narrative, 'the new field');
});

test('severity: aliases are stored normalised, default medium, unknown values rejected', async () => {
  const expected: Record<string, string> = {
    critical: 'critical',
    high: 'high',
    medium: 'medium',
    low: 'low',
    p1: 'critical',
    p2: 'high',
    p3: 'medium',
    p4: 'low',
    sev1: 'critical',
    sev2: 'high',
    sev3: 'medium',
    sev4: 'low',
    P1: 'critical',
    SEV2: 'high',
    High: 'high',
  };
  const records = Object.keys(expected).map((severity) => ({
    external_id: ext(),
    title: `sev ${severity}`,
    source: 'sev',
    narrative: 'A real narrative',
    severity,
  }));
  const res = await ingestBatch(records);
  assert.is(res.status, 202, res.text);
  assert.equal(res.body.rejected, []);
  for (const [i, input] of Object.keys(expected).entries()) assert.is((await issue(res.body.issue_ids[i])).severity, expected[input], input);

  const omitted = await ingestOne({ external_id: ext(), title: 'No severity', source: 'sev', narrative: 'text' });
  assert.is((await issue(omitted.body.issue_id)).severity, 'medium');
  const nulled = await ingestOne({ external_id: ext(), title: 'Null severity', source: 'sev', narrative: 'text', severity: null });
  assert.is((await issue(nulled.body.issue_id)).severity, 'medium');

  const message = 'must be one of critical, p1, sev1, high, p2, sev2, medium, p3, sev3, low, p4, sev4';
  for (const severity of ['urgent', 'p5', 'sev0', '']) {
    assertValidation(await ingestOne({ external_id: ext(), title: 't', source: 'sev', severity }), { severity: message });
  }
  const numeric = await ingestOne({ external_id: ext(), title: 't', source: 'sev', severity: 1 });
  assertError(numeric, 400, 'validation_error');
  assert.equal(Object.keys(numeric.body.error.details), ['severity']);
});

test('occurred_at must be an ISO 8601 timestamp', async () => {
  for (const occurred_at of ['2026-01-05', 'yesterday', '05/01/2026 10:00', '2026-13-01T00:00:00Z', 1767225600000]) {
    assertValidation(await ingestOne({ external_id: ext(), title: 't', source: 'time', occurred_at }), { occurred_at: 'must be an ISO 8601 timestamp' });
  }
  const ok = await ingestOne({ external_id: ext(), title: 't', source: 'time', narrative: 'fine', occurred_at: '2025-12-31T23:59:59.123Z' });
  assert.is(ok.status, 202, ok.text);
  assert.is((await issue(ok.body.issue_id)).occurred_at, '2025-12-31T23:59:59.123Z');
  const none = await ingestOne({ external_id: ext(), title: 't', source: 'time', narrative: 'fine' });
  const stored = await issue(none.body.issue_id);
  assert.is(stored.occurred_at, null);
  assert.is(stored.source_created_at, stored.created_at, 'without occurred_at the issue dates from its receipt');
});

test('ineligible: placeholder narratives and occurrences more than 24 h ahead are never eligible', async () => {
  const hour = 3_600_000;
  const cases = [
    { narrative: 'n/a', reason: 'narrative is a placeholder' },
    { narrative: 'N/A', reason: 'narrative is a placeholder' },
    { narrative: '---', reason: 'narrative is a placeholder' },
    { narrative: ' TBD ', reason: 'narrative is a placeholder' },
    { narrative: '?!...', reason: 'narrative is a placeholder' },
    { narrative: 'A real description', occurred_at: new Date(Date.now() + 25 * hour).toISOString(), reason: 'occurred_at is more than 24 hours in the future' },
    {
      narrative: 'A real description',
      occurred_at: new Date(Date.now() + 400 * 86_400_000).toISOString(),
      reason: 'occurred_at is more than 24 hours in the future',
    },
  ];
  const res = await ingestBatch(cases.map(({ reason: _r, ...c }) => ({ external_id: ext(), title: 'ineligible?', source: 'rules', ...c })));
  assert.is(res.status, 202, res.text);
  assert.equal(res.body.engine_status_summary, summary(0, 0, cases.length));
  for (const [i, c] of cases.entries()) {
    const stored = await issue(res.body.issue_ids[i]);
    assert.is(stored.engine_status, 'ineligible', c.narrative);
    assert.is(stored.ineligible_reason, c.reason);
    const items = await api.get(`/v1/review-queue?issue_id=${stored.id}`);
    assert.is(items.body.data.length, 0, 'ineligible records are not queued for review');
  }

  // Within the 24-hour tolerance (clock skew) a record stays eligible.
  const near = await ingestOne({
    external_id: ext(),
    title: 'soon',
    source: 'rules',
    narrative: 'A real description',
    occurred_at: new Date(Date.now() + 2 * hour).toISOString(),
  });
  assert.equal(near.body.engine_status_summary, summary(1, 0, 0));

  // A real narrative later does not make a far-future occurrence eligible.
  const future = res.body.issue_ids[5];
  const patched = await api.patch(`/v1/issues/${future}`, { narrative: 'Another real description' });
  assert.is(patched.status, 200, patched.text);
  assert.is(patched.body.engine_status, 'ineligible');
  // Re-ingesting a placeholder with a real narrative makes it eligible.
  const placeholder = await issue(res.body.issue_ids[0]);
  const fixed = await ingestOne({ external_id: placeholder.external_id, title: 'ineligible?', source: 'rules', narrative: 'Now a real description' });
  assert.is(fixed.body.issue_id, placeholder.id);
  assert.equal(fixed.body.engine_status_summary, summary(1, 0, 0));
});

test('batch: good records are accepted, bad ones listed in rejected, issue_ids aligned with the accepted records', async () => {
  const ids = [ext(), ext(), ext(), ext()];
  const records = [
    { external_id: ids[0], title: 'good eligible', source: 'batch', narrative: 'A narrative' },
    { external_id: ext(), source: 'batch', narrative: 'no title' },
    { external_id: ids[1], title: 'good blocked', source: 'batch' },
    { external_id: ext(), title: 'bad severity', source: 'batch', severity: 'urgent', occurred_at: 'soon' },
    { external_id: ids[2], title: 'good ineligible', source: 'batch', narrative: 'n/a' },
    42,
    null,
    { external_id: ids[3], title: 'good alias', source: 'batch', body: 'A narrative in body', severity: 'p4' },
  ];
  const res = await ingestBatch(records);
  assert.is(res.status, 202, res.text);
  assert.equal(Object.keys(res.body).sort(), ['accepted', 'engine_status_summary', 'issue_ids', 'job_id', 'rejected']);
  assert.is(res.body.accepted, 4);
  assert.equal(res.body.engine_status_summary, summary(2, 1, 1));
  assert.equal(res.body.rejected, [
    { index: 1, errors: [{ field: 'title', message: 'is required' }] },
    {
      index: 3,
      errors: [
        { field: 'occurred_at', message: 'must be an ISO 8601 timestamp' },
        { field: 'severity', message: 'must be one of critical, p1, sev1, high, p2, sev2, medium, p3, sev3, low, p4, sev4' },
      ],
    },
    { index: 5, errors: [{ field: 'record', message: 'Invalid input: expected object, received number' }] },
    { index: 6, errors: [{ field: 'record', message: 'Invalid input: expected object, received null' }] },
  ]);
  assert.is(res.body.issue_ids.length, 4);
  for (const [i, id] of res.body.issue_ids.entries()) assert.is((await issue(id)).external_id, ids[i]);
  assert.is((await issue(res.body.issue_ids[3])).severity, 'low');
});

test('batch: a batch of only bad records is still acknowledged, with nothing accepted', async () => {
  const res = await ingestBatch([
    { title: 'no id', source: 'x' },
    { external_id: ext(), title: 'no source' },
  ]);
  assert.is(res.status, 202, res.text);
  assert.is(res.body.accepted, 0);
  assert.equal(res.body.issue_ids, []);
  assert.equal(res.body.engine_status_summary, summary(0, 0, 0));
  assert.equal(res.body.rejected, [
    { index: 0, errors: [{ field: 'external_id', message: 'is required' }] },
    { index: 1, errors: [{ field: 'source', message: 'is required' }] },
  ]);
});

test('batch: the same key twice in one batch is one issue, the last record wins', async () => {
  const key = ext();
  const res = await ingestBatch([
    { external_id: key, title: 'first', source: 'dup', narrative: 'first text' },
    { external_id: ext(), title: 'other', source: 'dup', narrative: 'other text' },
    { external_id: key, title: 'second', source: 'dup', narrative: 'second text' },
  ]);
  assert.is(res.status, 202, res.text);
  assert.is(res.body.accepted, 3);
  assert.is(res.body.issue_ids[0], res.body.issue_ids[2]);
  assert.is.not(res.body.issue_ids[0], res.body.issue_ids[1]);
  const stored = await issue(res.body.issue_ids[0]);
  assert.is(stored.title, 'second');
  assert.is(stored.narrative, 'second text');
});

test('batch size: 500 records accepted, 501 is too_many_records', async () => {
  const records = (n: number) =>
    Array.from({ length: n }, (_, i) => ({ external_id: `bulk-${i}`, title: `Bulk ${i}`, source: 'bulk', narrative: `Bulk record number ${i}` }));
  assertError(await ingestBatch(records(501)), 400, 'too_many_records', { limit: 500, received: 501 });
  const ok = await ingestBatch(records(500));
  assert.is(ok.status, 202, ok.text);
  assert.is(ok.body.accepted, 500);
  assert.equal(ok.body.rejected, []);
  assert.is(new Set(ok.body.issue_ids).size, 500);
  assert.equal(ok.body.engine_status_summary, summary(500, 0, 0));
  const { rows } = await t.app.pool.query(`select count(*)::int as n from issues where source = 'bulk'`);
  assert.is(rows[0].n, 500);
});

test('batch body: empty, not an array, or missing records is a validation error', async () => {
  assertValidation(await ingestBatch([]), { records: 'must contain at least one record' });
  assertValidation(await ingestBatch({ external_id: 'x', title: 't', source: 's' }), { records: 'must be an array of records' });
  assertValidation(await ingestBatch('records'), { records: 'must be an array of records' });
  assertValidation(await api.post('/v1/ingest/batch', {}, fresh()), { records: 'must be an array of records' });
  assertValidation(await api.post('/v1/ingest/batch', [{ external_id: 'x', title: 't', source: 's' }], fresh()), {
    body: 'Invalid input: expected object, received array',
  });
});

test('re-ingesting the same (source, external_id) updates the issue and records issue.reingested', async () => {
  const external_id = ext();
  const first = await ingestOne({ external_id, title: 'Old title', source: 'jira', narrative: 'first narrative', severity: 'low' });
  const second = await ingestOne({ external_id, title: 'New title', source: 'jira', narrative: 'second narrative', severity: 'p1' });
  assert.is(second.status, 202, second.text);
  assert.is(second.body.issue_id, first.body.issue_id);
  const stored = await issue(first.body.issue_id);
  assert.is(stored.title, 'New title');
  assert.is(stored.narrative, 'second narrative');
  assert.is(stored.severity, 'critical');
  assert.is(stored.version, 2);
  assert.is(stored.source_created_at, stored.created_at, 'without occurred_at the issue still dates from its first receipt');

  const same = await api.get(`/v1/issues?q=${encodeURIComponent('"New title"')}`);
  assert.equal(
    same.body.data.map((i: { id: string }) => i.id),
    [first.body.issue_id],
  );
  const { rows } = await t.app.pool.query('select count(*)::int as n from issues where external_id = $1', [external_id]);
  assert.is(rows[0].n, 1);

  const events = await api.get(`/v1/issues/${first.body.issue_id}/events`);
  assert.equal(
    events.body.data.map((e: { type: string }) => e.type),
    ['issue.created', 'issue.reingested'],
  );
  assert.is(events.body.data[1].payload.title, 'New title');

  // The same external_id under another source is another issue.
  const other = await ingestOne({ external_id, title: 'Same id, other source', source: 'github', narrative: 'elsewhere' });
  assert.is(other.status, 202, other.text);
  assert.is.not(other.body.issue_id, first.body.issue_id);
  assert.is((await issue(other.body.issue_id)).source, 'github');
  assert.is((await issue(first.body.issue_id)).title, 'New title');
});

test('a blocked issue re-ingested with a narrative becomes eligible and its review item resolves', async () => {
  const external_id = ext();
  const blocked = await ingestOne({ external_id, title: 'Blocked at first', source: 'jira' });
  assert.equal(blocked.body.engine_status_summary, summary(0, 1, 0));
  const [item] = (await api.get(`/v1/review-queue?issue_id=${blocked.body.issue_id}`)).body.data;
  assert.is(item.status, 'open');

  const again = await ingestOne({ external_id, title: 'Blocked at first', source: 'jira', narrative: 'Here is what happened' });
  assert.is(again.body.issue_id, blocked.body.issue_id);
  assert.equal(again.body.engine_status_summary, summary(1, 0, 0));
  assert.is((await issue(blocked.body.issue_id)).engine_status, 'eligible');
  const resolved = await api.get(`/v1/review-queue/${item.id}`);
  assert.is(resolved.body.status, 'resolved');
  assert.equal(resolved.body.decision, { resolution: 'narrative_supplied' });
  assert.ok(resolved.body.decided_at);

  // Re-ingesting without a narrative blocks it again and opens a new item.
  const third = await ingestOne({ external_id, title: 'Blocked at first', source: 'jira' });
  assert.equal(third.body.engine_status_summary, summary(0, 1, 0));
  const items = (await api.get(`/v1/review-queue?issue_id=${blocked.body.issue_id}&sort=created_at`)).body.data;
  assert.equal(
    items.map((i: { status: string }) => i.status),
    ['resolved', 'open'],
  );
});

test('the job_id is a pollable job that records the outbound issue.ingested / issue.batch_ingested event', async () => {
  const single = await ingestOne({ external_id: ext(), title: 'job single', source: 'jobs', narrative: 'text' });
  const batch = await ingestBatch([
    { external_id: ext(), title: 'job batch 1', source: 'jobs', narrative: 'text' },
    { title: 'rejected' },
    { external_id: ext(), title: 'job batch 2', source: 'jobs' },
  ]);
  assert.is(batch.status, 202, batch.text);
  for (const ack of [single.body, batch.body]) {
    const job = await eventually(
      async () => {
        const res = await api.get(`/v1/jobs/${ack.job_id}`);
        assert.is(res.status, 200, res.text);
        return ['succeeded', 'failed'].includes(res.body.status) ? res.body : undefined;
      },
      20_000,
      'the ingest job',
    );
    assert.is(job.status, 'succeeded', JSON.stringify(job));
    assert.is(job.kind, 'ingest__process');
    assert.is(job.progress, 100);
  }
  assertError(await api.get(`/v1/jobs/${randomUUID()}`), 404, 'not_found');
  assertError(await api.get(`/v1/jobs/${'-'.repeat(36)}`), 404, 'not_found');
  const { rows } = await t.app.pool.query<{ event_type: string; payload: Record<string, unknown>; workspace_id: string }>(
    'select event_type, payload, workspace_id from outbound_events order by created_at',
  );
  const single_ = rows.find((r) => r.event_type === 'issue.ingested' && r.payload.issue_id === single.body.issue_id);
  assert.ok(single_, 'issue.ingested recorded');
  assert.equal(single_!.payload, { issue_id: single.body.issue_id, created: true });
  assert.is(single_!.workspace_id, t.demo.workspaceId);
  const batch_ = rows.find((r) => r.event_type === 'issue.batch_ingested' && JSON.stringify(r.payload.issue_ids) === JSON.stringify(batch.body.issue_ids));
  assert.ok(batch_, 'issue.batch_ingested recorded');
  assert.equal(batch_!.payload, { issue_ids: batch.body.issue_ids, accepted: 2, created: 2, updated: 0, rejected: 1 });
});

test('a batch enqueues one job; it records the event and enqueues the routing of its notifications once, even when retried', async () => {
  const known = ext();
  const first = await ingestOne({ external_id: known, title: 'known before the batch', source: 'notify', narrative: 'text', severity: 'medium' });
  assert.is(first.status, 202, first.text);
  const [b, c] = [ext(), ext()];
  const batch = await ingestBatch([
    { external_id: known, title: 'known, now critical', source: 'notify', narrative: 'text', severity: 'critical' },
    { external_id: b, title: 'b, first version', source: 'notify', narrative: 'text' },
    { external_id: c, title: 'c', source: 'notify', narrative: 'text' },
    { external_id: b, title: 'b, last version wins', source: 'notify', narrative: 'text' },
  ]);
  assert.is(batch.status, 202, batch.text);
  const [a, newB, newC] = [batch.body.issue_ids[0], batch.body.issue_ids[1], batch.body.issue_ids[2]];
  assert.is(a, first.body.issue_id);
  // The request's transaction (its issues carry its clock, to the millisecond) enqueued the ingest job
  // and nothing else: every job of that transaction has the ingest job's created_at to the microsecond
  // (a worker's job of another transaction may fall in the same millisecond).
  const { rows: enqueued } = await t.app.pool.query<{ kind: string; payload: { notify: unknown } }>(
    `select kind, payload from job_runs where created_at in (
       select created_at from job_runs where kind = 'ingest__process' and date_trunc('milliseconds', created_at) = (select created_at from issues where id = $1))`,
    [newB],
  );
  assert.equal(
    enqueued.map((r) => r.kind),
    ['ingest__process'],
  );
  assert.equal(enqueued[0].payload.notify, { reingested: [a], escalated: [a] });
  const routingJobs = async () =>
    (
      await t.app.pool.query<{ id: string; payload: Record<string, unknown> }>(
        `select id, payload from job_runs where kind = 'notification__route' and payload->'created' ? $1`,
        [newB],
      )
    ).rows;
  const routed = await eventually(
    async () => {
      const jobs = await routingJobs();
      return jobs.length ? jobs : undefined;
    },
    20_000,
    'the routing job',
  );
  assert.is(routed.length, 1);
  assert.equal(routed[0].payload, { source: 'issues', workspace_id: t.demo.workspaceId, created: [newB, newC], escalated: [a] });
  // A retry of the same run (its worker died after the commit) finds the event and enqueues nothing.
  const { rows: runs } = await t.app.pool.query<{ payload: unknown }>('select payload from job_runs where id = $1', [batch.body.job_id]);
  const retried = (await ingestProcessTask.run(ingestProcessTask.payload.parse(runs[0].payload), {
    app: t.app,
    runId: batch.body.job_id,
    attempt: 2,
    maxAttempts: 5,
    workspaceId: t.demo.workspaceId,
    tenantId: null,
    progress: async () => {},
    signal: new AbortController().signal,
  })) as { event_type: string };
  assert.is(retried.event_type, 'issue.batch_ingested');
  assert.is((await routingJobs()).length, 1);
  assert.is((await t.app.pool.query(`select 1 from outbound_events where job_run_id = $1`, [batch.body.job_id])).rowCount, 1);
});

test('Idempotency-Key is mandatory and a retry replays the first acknowledgement', async () => {
  const record = { external_id: ext(), title: 'keyed', source: 'idem', narrative: 'text' };
  assertError(await api.post('/v1/ingest/events', record), 400, 'idempotency_key_required');
  assertError(await api.post('/v1/ingest/batch', { records: [record] }), 400, 'idempotency_key_required');
  assertError(await t.platform.post('/v1/ingest/events', record), 400, 'idempotency_key_required');
  assert.is((await t.app.pool.query('select 1 from issues where external_id = $1', [record.external_id])).rowCount, 0);

  const options = fresh();
  const first = await api.post('/v1/ingest/events', record, options);
  const retry = await api.post('/v1/ingest/events', record, options);
  assert.is(retry.status, 202);
  assert.is(retry.headers.get('idempotency-replayed'), 'true');
  assert.equal(retry.body, first.body);
  const events = await api.get(`/v1/issues/${first.body.issue_id}/events`);
  assert.is(events.body.data.length, 1, 'the replay ran nothing');
});

test('ingest requires the ingest:write scope', async () => {
  const record = () => ({ external_id: ext(), title: 'scoped', source: 'scope', narrative: 'text' });
  const reader = t.platform.as(await serviceAccountToken(api, ['issues:read']));
  assertError(await ingestOne(record(), reader), 403, 'forbidden', { required_scope: 'ingest:write' });
  assertError(await ingestBatch([record()], reader), 403, 'forbidden', { required_scope: 'ingest:write' });
  assertError(await t.platform.post('/v1/ingest/events', record(), fresh()), 401, 'unauthorized');

  const writer = t.platform.as(await serviceAccountToken(api, ['ingest:write']));
  const ok = await ingestOne(record(), writer);
  assert.is(ok.status, 202, ok.text);
  const [created] = (await api.get(`/v1/issues/${ok.body.issue_id}/events`)).body.data;
  assert.is(created.actor.type, 'service_account');
});

test('issue.created and issue.reingested payloads are exactly the records as received, built from the stored rows', async () => {
  const keyed = ext();
  const batch = await ingestBatch([
    {
      external_id: keyed,
      title: 'Quoted "title" \\ and ünïcode',
      source: 'jira',
      narrative: 'a\nb',
      severity: 'high',
      occurred_at: '0999-03-04T05:06:07.089+02:00',
    },
    { external_id: ext(), title: 'No narrative', source: 'gh' },
  ]);
  assert.is(batch.status, 202, batch.text);
  assert.is(batch.body.accepted, 2, batch.text);
  const [a, b] = batch.body.issue_ids;
  const payloads = async (id: string) =>
    (await api.get(`/v1/issues/${id}/events`)).body.data.map((e: { type: string; payload: unknown }) => [e.type, e.payload]);
  const received = (await issue(b)).created_at;
  assert.equal(await payloads(a), [
    [
      'issue.created',
      {
        source: 'jira',
        external_id: keyed,
        title: 'Quoted "title" \\ and ünïcode',
        narrative: 'a\nb',
        severity: 'high',
        occurred_at: '0999-03-04T03:06:07.089Z',
        source_created_at: '0999-03-04T03:06:07.089Z',
        engine_status: (await issue(a)).engine_status,
        ineligible_reason: (await issue(a)).ineligible_reason,
        via: 'ingest',
      },
    ],
  ]);
  assert.equal(await payloads(b), [
    [
      'issue.created',
      {
        source: 'gh',
        external_id: (await issue(b)).external_id,
        title: 'No narrative',
        narrative: null,
        severity: 'medium',
        occurred_at: null,
        source_created_at: received,
        engine_status: 'blocked_no_narrative',
        ineligible_reason: (await issue(b)).ineligible_reason,
        via: 'ingest',
      },
    ],
  ]);
  const again = await ingestOne({ external_id: keyed, title: 'Second', source: 'jira', narrative: 'the narrative now', severity: 'low' });
  assert.is(again.status, 202, again.text);
  const after = await issue(a);
  assert.equal((await payloads(a))[1], [
    'issue.reingested',
    {
      title: 'Second',
      narrative: 'the narrative now',
      severity: 'low',
      occurred_at: null,
      source_created_at: after.created_at,
      engine_status: after.engine_status,
      ineligible_reason: after.ineligible_reason,
    },
  ]);
});

test.run();
