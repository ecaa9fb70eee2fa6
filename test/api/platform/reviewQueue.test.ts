import { randomUUID } from 'node:crypto';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { withEventBatch } from '../../../sql/events.ts';
import { openReviewItems, type NewReviewItem } from '../../../sql/reviewItems.ts';
import { defaultTaxonomy } from '../../../engine/config/taxonomy.ts';
import { demoToken, startTestApp, type TestApp } from '../../helpers/app.ts';
import { assertError, assertValidation, fresh } from '../../helpers/errors.ts';
import type { Client, HttpResponse } from '../../helpers/http.ts';
import { serviceAccountToken } from '../../helpers/identities.ts';

let t: TestApp;
let api: Client;
test.before(async () => {
  t = await startTestApp();
  api = t.platform.as(await demoToken(t));
});
test.after(async () => t.close());

interface Item {
  id: string;
  kind: string;
  status: string;
  issue_id: string | null;
  decision: Record<string, unknown> | null;
  decided_by: string | null;
  decided_at: string | null;
}

const newIssue = async (narrative?: string) => {
  const res = await api.post('/v1/issues', { title: `Issue ${randomUUID().slice(0, 8)}`, severity: 'high', ...(narrative ? { narrative } : {}) });
  assert.is(res.status, 201, res.text);
  return res.body as { id: string; engine_status: string };
};

/** Opens engine items (what the engine's abstentions will write) through sql/reviewItems.ts. */
async function openItems(items: NewReviewItem[]): Promise<Item[]> {
  const rows = await withEventBatch(t.app.pool, t.demo.workspaceId, (client, events) => openReviewItems(client, events, { type: 'engine', id: null }, items));
  return rows.map((r) => ({ ...r, decided_at: null }) as unknown as Item);
}
const openItem = async (kind: NewReviewItem['kind']) =>
  (
    await openItems([{ kind, issueId: (await newIssue('A narrative')).id, reason: `engine abstained on ${kind}`, candidates: [{ id: 'x', confidence: 0.2 }] }])
  )[0];

const get = async (id: string): Promise<Item> => {
  const res = await api.get(`/v1/review-queue/${id}`);
  assert.is(res.status, 200, res.text);
  return res.body;
};
const resolve = (id: string, body: unknown, client = api) => client.post(`/v1/review-queue/${id}/resolve`, body);
const dismiss = (id: string, body?: unknown) => api.post(`/v1/review-queue/${id}/dismiss`, body);

async function listAll(query: string): Promise<Item[]> {
  const out: Item[] = [];
  let cursor: string | null = null;
  do {
    const res: HttpResponse = await api.get(`/v1/review-queue?${query}&limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
    assert.is(res.status, 200, res.text);
    out.push(...res.body.data);
    cursor = res.body.page.next_cursor;
  } while (cursor);
  return out;
}

test('list filters by kind, status and issue; get one item', async () => {
  const blocked = await newIssue();
  const [rootCause, extraction, criticality] = await openItems([
    { kind: 'root_cause', issueId: blocked.id, reason: 'no root cause above threshold' },
    { kind: 'extraction', issueId: blocked.id, reason: 'no domain above threshold' },
    { kind: 'criticality', issueId: (await newIssue('text')).id, reason: 'low confidence' },
  ]);
  const all = await listAll('');
  assert.is(all.length, 4);
  const missing = all.find((i) => i.kind === 'missing_narrative')!;
  assert.is(missing.issue_id, blocked.id);

  assert.equal(
    (await listAll('kind=missing_narrative')).map((i) => i.id),
    [missing.id],
  );
  assert.equal(
    (await listAll('kind=root_cause')).map((i) => i.id),
    [rootCause.id],
  );
  assert.equal(
    (await listAll('kind=extraction')).map((i) => i.id),
    [extraction.id],
  );
  assert.equal(
    (await listAll('kind=criticality')).map((i) => i.id),
    [criticality.id],
  );
  assert.equal((await listAll(`issue_id=${blocked.id}`)).map((i) => i.id).sort(), [missing.id, rootCause.id, extraction.id].sort());
  assert.equal(
    (await listAll(`issue_id=${blocked.id}&kind=extraction`)).map((i) => i.id),
    [extraction.id],
  );
  assert.is((await listAll('status=open')).length, 4);
  assert.equal(await listAll('status=resolved'), []);
  assert.equal(await listAll(`issue_id=${randomUUID()}`), []);
  // Riskiest first by default (issue 17; all four block no risk here: then by id), newest first on request.
  const { rows } = await t.app.pool.query<{ id: string }>('select id from review_items where workspace_id = $1 order by risk_blocked desc, id desc', [
    t.demo.workspaceId,
  ]);
  assert.equal(
    all.map((i) => i.id),
    rows.map((r) => r.id),
    'riskiest first',
  );
  const newest = await t.app.pool.query<{ id: string }>('select id from review_items where workspace_id = $1 order by created_at desc, id desc', [
    t.demo.workspaceId,
  ]);
  assert.equal(
    (await listAll('sort=-created_at')).map((i) => i.id),
    newest.rows.map((r) => r.id),
    'newest first',
  );

  const item = await api.get(`/v1/review-queue/${rootCause.id}`);
  assert.is(item.status, 200, item.text);
  assert.equal(Object.keys(item.body).sort(), [
    'candidates',
    'created_at',
    'decided_at',
    'decided_by',
    'decision',
    'id',
    'issue_count',
    'issue_id',
    'issues_url',
    'kind',
    'pattern_id',
    'provenance',
    'question_key',
    'reason',
    'risk_blocked',
    'status',
    'updated_at',
  ]);
  assert.is(item.body.kind, 'root_cause');
  assert.is(item.body.status, 'open');
  assert.is(item.body.reason, 'no root cause above threshold');
  assert.is(item.body.decision, null);
  assertError(await api.get(`/v1/review-queue/${randomUUID()}`), 404, 'not_found');
  assertError(await api.get('/v1/review-queue/nope'), 404, 'not_found');
  assertError(await api.get(`/v1/review-queue/${'-'.repeat(36)}`), 404, 'not_found');
  assertError(await api.get(`/v1/review-queue/${'a'.repeat(36)}`), 404, 'not_found');

  assertValidation(await api.get('/v1/review-queue?kind=duplicate'), { kind: 'must be one of missing_narrative, extraction, root_cause, criticality' });
  assertValidation(await api.get('/v1/review-queue?status=closed'), { status: 'must be one of open, resolved, dismissed' });
  assertValidation(await api.get('/v1/review-queue?issue_id=42'), { issue_id: 'must be an issue id' });
});

test('resolving missing_narrative supplies the narrative and makes the issue eligible', async () => {
  const issue = await newIssue();
  assert.is(issue.engine_status, 'blocked_no_narrative');
  const [item] = await listAll(`issue_id=${issue.id}&kind=missing_narrative`);

  assertValidation(await resolve(item.id, { decision: {} }), { 'decision.narrative': 'is required' });
  assertValidation(await resolve(item.id, { decision: { narrative: '   ' } }), { 'decision.narrative': 'must not be empty' });
  assertValidation(await resolve(item.id, {}), { decision: 'is required' });
  assert.is((await get(item.id)).status, 'open', 'invalid decisions change nothing');

  const res = await resolve(item.id, { decision: { narrative: 'The balancer moved blocks onto a full volume' }, note: 'from the on-call notes' });
  assert.is(res.status, 200, res.text);
  assert.is(res.body.status, 'resolved');
  assert.is(res.body.decided_by, t.demo.userId);
  assert.ok(res.body.decided_at);
  const after = (await api.get(`/v1/issues/${issue.id}`)).body;
  assert.is(after.narrative, 'The balancer moved blocks onto a full volume');
  assert.is(after.engine_status, 'eligible');
  assert.equal(await get(item.id), res.body);
  const types = (await api.get(`/v1/issues/${issue.id}/events`)).body.data.map((e: { type: string }) => e.type);
  assert.equal(types, ['issue.created', 'issue.updated']);
});

const domainIds = defaultTaxonomy.domains.map((d) => d.id).join(', ');
const rootCauseIds = (taxonomy = defaultTaxonomy) => taxonomy.root_causes.map((r) => r.id).join(', ');

test('root_cause, extraction and criticality decisions are checked against the active taxonomy and rubric', async () => {
  const rootCause = await openItem('root_cause');
  assertValidation(await resolve(rootCause.id, { decision: { root_cause: 'cosmic_rays' } }), {
    'decision.root_cause': `is not a root cause of the active taxonomy; one of ${rootCauseIds()}`,
  });
  assertValidation(await resolve(rootCause.id, { decision: { cause: 'timeout' } }), { 'decision.root_cause': 'is required' });
  const ok = await resolve(rootCause.id, { decision: { root_cause: 'timeout' }, note: 'seen it before' });
  assert.is(ok.status, 200, ok.text);
  assert.is(ok.body.status, 'resolved');
  assert.equal(ok.body.decision, { root_cause: 'timeout', note: 'seen it before' });

  const extraction = await openItem('extraction');
  assertValidation(await resolve(extraction.id, { decision: { domain: 'plumbing', root_cause: null } }), {
    'decision.domain': `is not a domain of the active taxonomy; one of ${domainIds}`,
  });
  assertValidation(await resolve(extraction.id, { decision: { domain: 'storage', root_cause: 'gremlins' } }), {
    'decision.root_cause': `is not a root cause of the active taxonomy; one of ${rootCauseIds()}`,
  });
  assertValidation(await resolve(extraction.id, { decision: { root_cause: 'timeout' } }), {
    'decision.domain': 'is required: a domain id of the active taxonomy, or null',
  });
  // An extraction item offers domains: the domain alone decides it (issue 28).
  const extracted = await resolve(extraction.id, { decision: { domain: 'storage' } });
  assert.is(extracted.status, 200, extracted.text);
  assert.equal(extracted.body.decision, { domain: 'storage', note: null });

  const criticality = await openItem('criticality');
  const levels = (await api.get('/v1/configs/rubric')).body.active.document.levels.map((l: { name: string }) => l.name).join(', ');
  assertValidation(await resolve(criticality.id, { decision: { criticality: 'severe' } }), {
    'decision.criticality': `is not a level of the active rubric; one of ${levels}`,
  });
  const rated = await resolve(criticality.id, { decision: { criticality: 'moderate' } });
  assert.is(rated.status, 200, rated.text);
  assert.equal(rated.body.decision, { criticality: 'moderate', note: null });

  // A new taxonomy version adds a root cause: it becomes a valid decision, and a removed one does not.
  const taxonomy = structuredClone(defaultTaxonomy);
  taxonomy.root_causes = taxonomy.root_causes.filter((r) => r.id !== 'timeout');
  taxonomy.root_causes.push({
    id: 'cosmic_rays',
    name: 'Cosmic rays',
    keywords: ['bit flip'],
    playbook: { title: 'Use ECC memory', steps: ['Buy ECC memory'], effort_hours: 4, expected_reduction: 0.9 },
  });
  const posted = await api.post('/v1/configs/taxonomy/versions', taxonomy, fresh());
  assert.is(posted.status, 201, posted.text);
  const next = await openItem('root_cause');
  assertValidation(await resolve(next.id, { decision: { root_cause: 'timeout' } }), {
    'decision.root_cause': `is not a root cause of the active taxonomy; one of ${rootCauseIds(taxonomy)}`,
  });
  assert.is((await resolve(next.id, { decision: { root_cause: 'cosmic_rays' } })).status, 200);
});

test('dismiss, and a second decision is 409 conflict', async () => {
  const issue = await newIssue();
  const [missing] = await listAll(`issue_id=${issue.id}`);
  const dismissed = await dismiss(missing.id, { note: 'duplicate of another ticket' });
  assert.is(dismissed.status, 200, dismissed.text);
  assert.is(dismissed.body.status, 'dismissed');
  assert.equal(dismissed.body.decision, { note: 'duplicate of another ticket' });
  assert.is((await api.get(`/v1/issues/${issue.id}`)).body.engine_status, 'blocked_no_narrative', 'dismissing supplies nothing');

  assertError(await dismiss(missing.id), 409, 'conflict');
  assertError(await resolve(missing.id, { decision: { narrative: 'too late' } }), 409, 'conflict');
  assert.is((await api.get(`/v1/issues/${issue.id}`)).body.narrative, null);

  const item = await openItem('criticality');
  const noBody = await dismiss(item.id);
  assert.is(noBody.status, 200, noBody.text);
  assert.equal(noBody.body.decision, { note: null });

  const resolved = await openItem('root_cause');
  assert.is((await resolve(resolved.id, { decision: { root_cause: 'race_condition' } })).status, 200);
  assertError(await resolve(resolved.id, { decision: { root_cause: 'timeout' } }), 409, 'conflict');
  assertError(await dismiss(resolved.id), 409, 'conflict');
  assert.equal((await get(resolved.id)).decision, { root_cause: 'race_condition', note: null });

  assertError(await dismiss(randomUUID()), 404, 'not_found');
  assertError(await resolve('garbage', { decision: {} }), 404, 'not_found');
  assertError(await dismiss('-'.repeat(36)), 404, 'not_found');
});

test('decisions are review_item.* events in the workspace feed', async () => {
  const item = await openItem('root_cause');
  await resolve(item.id, { decision: { root_cause: 'null_handling' }, note: 'npe' });
  const other = await openItem('extraction');
  await dismiss(other.id, { note: 'noise' });

  const feed = await api.get('/v1/workspaces/current/events?aggregate_type=review_item&limit=100');
  assert.is(feed.status, 200, feed.text);
  const of = (id: string) => feed.body.data.filter((e: { aggregate_id: string }) => e.aggregate_id === id);
  const [opened, resolved] = of(item.id);
  assert.is(opened.type, 'review_item.opened');
  assert.equal(opened.actor, { type: 'engine', id: null });
  assert.is(resolved.type, 'review_item.resolved');
  assert.equal(resolved.actor, { type: 'user', id: t.demo.userId });
  assert.equal(resolved.payload, {
    kind: 'root_cause',
    issue_id: item.issue_id,
    pattern_id: null,
    question_key: null,
    issue_count: 1,
    decision: { root_cause: 'null_handling', note: 'npe' },
  });
  const dismissedEvents = of(other.id);
  assert.equal(
    dismissedEvents.map((e: { type: string }) => e.type),
    ['review_item.opened', 'review_item.dismissed'],
  );
  assert.equal(dismissedEvents[1].payload.decision, { note: 'noise' });

  const types = new Set(feed.body.data.map((e: { type: string }) => e.type));
  assert.equal([...types].sort(), ['review_item.dismissed', 'review_item.opened', 'review_item.resolved']);
});

test('review:read and review:write scopes', async () => {
  const item = await openItem('criticality');
  const reader = t.platform.as(await serviceAccountToken(api, ['review:read']));
  assert.is((await reader.get(`/v1/review-queue/${item.id}`)).status, 200);
  assertError(await resolve(item.id, { decision: { criticality: 'high' } }, reader), 403, 'forbidden', { required_scope: 'review:write' });
  assertError(await reader.post(`/v1/review-queue/${item.id}/dismiss`), 403, 'forbidden', { required_scope: 'review:write' });
  const none = t.platform.as(await serviceAccountToken(api, ['issues:read']));
  assertError(await none.get('/v1/review-queue'), 403, 'forbidden', { required_scope: 'review:read' });
  assert.is((await get(item.id)).status, 'open');
});

test.run();
