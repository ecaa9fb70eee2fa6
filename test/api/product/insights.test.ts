/**
 * Tenant reads: the insight snapshot is always exactly one (dataset_version, model_version)
 * collection, also while another model trains and while checkpoints are switched under concurrent
 * reads; 404 without an active checkpoint; the member directory with role labels.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { findTenant } from '../../../sql/tenants.ts';
import { withTenant } from '../../../sql/tenant/schema.ts';
import { startTestApp, type TestApp } from '../../helpers/app.ts';
import { endingNow, ingestRecords, syntheticRecords, trainCheckpoint, trainedTenant, waitForTrainJob } from '../../helpers/onboarding.ts';
import { createTenantUser, liveTenant, staffLogin, tenantLogin, type ProductClient } from '../../helpers/product.ts';

let t: TestApp;
let admin: ProductClient;
test.before(async () => {
  t = await startTestApp({ worker: { concurrency: 2 } });
  admin = await staffLogin(t);
});
test.after(async () => t.close());

interface PatternView {
  id: string;
  size: number;
  risk_score: number;
  name: string;
}

/** The stored collection of each (dataset_version, model_version), as the snapshot must show it. */
async function storedCollections(schema: string): Promise<Map<string, PatternView[]>> {
  const rows = await withTenant(
    t.app.pool,
    schema,
    async (db) =>
      (
        await db.query<{ pair: string; id: string; size: number; risk_score: number; name: string }>(
          `select c.dataset_version || '/' || c.model_version as pair, p.pattern_id as id, p.size, p.risk_score, p.name
           from insight_collections c join insight_patterns p on p.collection_id = c.id order by p.risk_score desc, p.rank`,
        )
      ).rows,
  );
  const out = new Map<string, PatternView[]>();
  for (const { pair, ...p } of rows) out.set(pair, [...(out.get(pair) ?? []), p]);
  return out;
}

const viewOf = (snapshot: { patterns: PatternView[] }) => snapshot.patterns.map(({ id, size, risk_score, name }) => ({ id, size, risk_score, name }));

test('the snapshot is one (dataset_version, model_version) pair while a second model trains and checkpoints switch', async () => {
  const { tenant, user } = await liveTenant(t, admin);
  const schema = (await findTenant(t.app.pool, tenant.id))!.schema_name;
  const reader = await tenantLogin(t, tenant.slug, user.email, user.password);

  const first = await trainedTenant(t, admin, tenant.id, syntheticRecords(150, 21, 4));
  const initial = await reader.get('/insights/snapshot');
  assert.is(initial.status, 200, initial.text);
  assert.equal([initial.body.dataset_version, initial.body.model_version, initial.body.checkpoint_id], [1, first.model_version, first.id]);

  // A second dataset version and a model trained on it while the tenant keeps reading.
  await ingestRecords(admin, tenant.id, syntheticRecords(120, 22, 6, 'second-system'));
  const queued = await admin.post(`/admin/tenants/${tenant.id}/train`);
  assert.is(queued.status, 202);
  let readsDuringTraining = 0;
  for (;;) {
    const job = (await admin.get(`/admin/tenants/${tenant.id}/train/status`)).body;
    const snap = await reader.get('/insights/snapshot');
    assert.equal([snap.body.dataset_version, snap.body.model_version], [1, first.model_version], 'the active model answers until another is activated');
    assert.equal(viewOf(snap.body), viewOf(initial.body));
    readsDuringTraining++;
    if (job.status === 'succeeded') break;
    assert.is.not(job.status, 'failed', JSON.stringify(job));
  }
  assert.ok(readsDuringTraining >= 1);
  const second = (await admin.get(`/admin/tenants/${tenant.id}/checkpoints`)).body.find((c: { job_id: string }) => c.job_id === queued.body.job_id);
  assert.is(second.dataset_version, 2);

  const stored = await storedCollections(schema);
  assert.equal([...stored.keys()].sort(), [`1/${first.model_version}`, `2/${second.model_version}`]);
  assert.not.equal(stored.get(`1/${first.model_version}`), stored.get(`2/${second.model_version}`));

  // Switch the active checkpoint back and forth while reads run concurrently: every read is one
  // whole stored collection, the one of the pair it names.
  let switching = true;
  const switcher = (async () => {
    let n = 0;
    while (switching) {
      const target = n++ % 2 === 0 ? second : first;
      const res = await admin.post(`/admin/tenants/${tenant.id}/checkpoints/${target.id}/activate`);
      assert.is(res.status, 200, res.text);
    }
    return n;
  })();
  const seen = new Set<string>();
  const readers = Array.from({ length: 4 }, async () => {
    for (let i = 0; i < 25; i++) {
      const snap = await reader.get('/insights/snapshot');
      assert.is(snap.status, 200, snap.text);
      const pair = `${snap.body.dataset_version}/${snap.body.model_version}`;
      assert.ok(stored.has(pair), pair);
      assert.equal(viewOf(snap.body), stored.get(pair), `snapshot of ${pair} is that collection, whole`);
      assert.is(snap.body.checkpoint_id, pair === `1/${first.model_version}` ? first.id : second.id);
      seen.add(pair);
    }
  });
  await Promise.all(readers);
  switching = false;
  const switches = await switcher;
  assert.ok(switches >= 2, `switched ${switches} times`);
  assert.is(seen.size, 2, `reads saw both models: ${[...seen].join(', ')}`);
  const active = (await admin.get(`/admin/tenants/${tenant.id}/checkpoints`)).body.filter((c: { active: boolean }) => c.active);
  assert.is(active.length, 1);
});

test('snapshot: "no active model" answer until a checkpoint is active; permissions come from the role profile', async () => {
  const { tenant, user } = await liveTenant(t, admin, { roleProfile: 'viewer' });
  const viewer = await tenantLogin(t, tenant.slug, user.email, user.password);
  const none = await viewer.get('/insights/snapshot');
  assert.is(none.status, 200, none.text);
  assert.equal(none.body, {
    status: 'no_active_model',
    detail: 'No model is active for this workspace yet, so there are no insights to show.',
    patterns: [],
  });

  const records = syntheticRecords(60, 23, 3);
  await ingestRecords(admin, tenant.id, records);
  const checkpoint = await trainCheckpoint(t, admin, tenant.id);
  await waitForTrainJob(t, tenant.id);
  assert.is((await viewer.get('/insights/snapshot')).body.status, 'no_active_model', 'trained but not activated');
  await admin.post(`/admin/tenants/${tenant.id}/checkpoints/${checkpoint.id}/activate`);
  const snap = await viewer.get('/insights/snapshot');
  assert.is(snap.status, 200);
  assert.is(snap.body.status, 'active');
  assert.equal(Object.keys(snap.body.patterns[0]).sort(), [
    'first_seen_at',
    'forecast',
    'id',
    'last_seen_at',
    'name',
    'rank',
    'records',
    'risk_components',
    'risk_score',
    'severity_counts',
    'size',
    'stability',
    'top_terms',
  ]);
  const counts = snap.body.patterns[0].severity_counts;
  assert.is(counts.critical + counts.high + counts.medium + counts.low, snap.body.patterns[0].size);

  assert.is((await t.product.get('/insights/snapshot')).status, 401);
  // A staff session is nothing to a tenant route.
  assert.equal((await admin.get('/insights/snapshot')).body, { detail: 'No tenant session.' });
});

interface SnapshotRecord {
  id: string;
  source: string;
  external_id: string;
  title: string;
  severity: string;
  occurred_at: string | null;
}

test('snapshot: each pattern carries its most recent records and its recurrence forecast, so the page needs no call per pattern', async () => {
  const { tenant, user } = await liveTenant(t, admin);
  const reader = await tenantLogin(t, tenant.slug, user.email, user.password);
  const records = endingNow(syntheticRecords(150, 31, 4));
  await trainedTenant(t, admin, tenant.id, records);
  const snap = (await reader.get('/insights/snapshot')).body;
  assert.is(snap.status, 'active');
  assert.equal(snap.forecasts.interval_level, 0.9);
  assert.is(snap.forecasts.recurrence_horizon_days, 30);
  assert.ok(Date.parse(snap.forecasts.as_of) > 0);

  const byExternal = new Map(records.map((r) => [r.external_id, r]));
  const schema = (await findTenant(t.app.pool, tenant.id))!.schema_name;
  const members = await withTenant(t.app.pool, schema, async (db) => {
    const { rows } = await db.query<{ pattern_id: string; member_ids: string[] }>(
      `select p.pattern_id, p.member_ids from insight_patterns p join insight_collections c on c.id = p.collection_id
         join checkpoints k on k.id = c.checkpoint_id where k.active`,
    );
    return new Map(rows.map((r) => [r.pattern_id, new Set(r.member_ids)]));
  });
  let fitted = 0;
  for (const p of snap.patterns) {
    // The records are the pattern's own, its 10 most recent (or all of them when fewer), newest first.
    assert.is(p.records.length, Math.min(10, p.size), p.name);
    const times = p.records.map((r: SnapshotRecord) => Date.parse(r.occurred_at!));
    assert.equal(
      times,
      [...times].sort((a: number, b: number) => b - a),
    );
    for (const r of p.records as SnapshotRecord[]) {
      assert.ok(members.get(p.id)!.has(r.id), `${r.id} is a member of ${p.id}`);
      const source = byExternal.get(r.external_id)!;
      assert.equal([r.title, r.severity, r.source, r.occurred_at], [source.title, source.severity, source.source, new Date(source.occurred_at!).toISOString()]);
    }
    assert.is(p.records[0].occurred_at, p.last_seen_at, 'the newest record is the last seen one');

    const f = p.forecast;
    if (f.status === 'not_fitted') {
      assert.ok(['no_timestamps', 'insufficient_events', 'dormant'].includes(f.reason));
      continue;
    }
    fitted++;
    assert.ok(['weibull', 'exponential'].includes(f.model));
    assert.is(f.occurrences, p.size);
    const curve = f.hazard_curve;
    assert.is(curve.times_days.length, 60);
    curve.hazard.forEach((h: number, i: number) => assert.ok(curve.lower[i] <= h && h <= curve.upper[i], `hazard interval at ${i}`));
    const e = f.expected_next_days;
    assert.ok(e.lower <= e.estimate && e.estimate <= e.upper && e.estimate > 0);
    const next = Date.parse(f.expected_next_at.estimate) - Date.parse(snap.forecasts.as_of);
    assert.ok(Math.abs(next / 86_400_000 - e.estimate) <= e.estimate * 1e-3, 'expected_next_at is as_of + expected_next_days (4 significant digits)');
    const pr = f.recurrence_probability;
    assert.ok(pr.lower <= pr.estimate && pr.estimate <= pr.upper && pr.upper <= 1 && pr.lower >= 0);
  }
  assert.ok(fitted >= 1, 'the synthetic themes recur often enough to fit');

  // ?view=summary: the same snapshot, each pattern without its records and forecast (the list's view).
  const summary = (await reader.get('/insights/snapshot?view=summary')).body;
  const { patterns: fullPatterns, ...fullRest } = snap;
  const { patterns: summaryPatterns, ...summaryRest } = summary;
  assert.equal(summaryRest, fullRest);
  assert.equal(
    summaryPatterns,
    fullPatterns.map(({ records: _records, forecast: _forecast, ...p }: Record<string, unknown>) => p),
  );
  assert.equal((await reader.get('/insights/snapshot?view=full')).body, snap);
  assert.is((await reader.get('/insights/snapshot?view=everything')).status, 422);
  // ?pattern_id=: one pattern, whole, in the same snapshot; none for an id the snapshot lacks.
  const one = (await reader.get(`/insights/snapshot?pattern_id=${fullPatterns[1].id}`)).body;
  assert.equal(one, { ...fullRest, patterns: [fullPatterns[1]] });
  const summaryOne = (await reader.get(`/insights/snapshot?view=summary&pattern_id=${fullPatterns[1].id}`)).body;
  assert.equal(summaryOne.patterns, [summaryPatterns[1]]);
  assert.equal((await reader.get('/insights/snapshot?pattern_id=00000000-0000-4000-8000-000000000000')).body, { ...fullRest, patterns: [] });
  assert.is((await reader.get('/insights/snapshot?pattern_id=nope')).status, 422);
});

test('snapshot: a model trained before forecasts existed answers forecasts null, not an error', async () => {
  const { tenant, user } = await liveTenant(t, admin);
  const reader = await tenantLogin(t, tenant.slug, user.email, user.password);
  await trainedTenant(t, admin, tenant.id, syntheticRecords(80, 41, 3));
  const schema = (await findTenant(t.app.pool, tenant.id))!.schema_name;
  await withTenant(t.app.pool, schema, async (db) => {
    await db.query('update insight_collections set forecasts = null');
    await db.query('update insight_patterns set forecast = null');
  });
  const snap = (await reader.get('/insights/snapshot')).body;
  assert.is(snap.forecasts, null);
  assert.ok(snap.patterns.length > 0);
  assert.ok(snap.patterns.every((p: { forecast: unknown }) => p.forecast === null));
});

test('GET /members: active users by name with their role labels', async () => {
  const { tenant, user } = await liveTenant(t, admin, { roleProfile: 'viewer' });
  await createTenantUser(t, tenant.id, { email: 'zed@client.test', fullName: 'Zed Analyst', roleProfile: 'analyst' });
  const both = await createTenantUser(t, tenant.id, { email: 'amy@client.test', fullName: 'Amy Admin', roleProfile: 'admin' });
  await createTenantUser(t, tenant.id, { email: 'amy@client.test', fullName: 'Amy Admin', roleProfile: 'viewer' });
  const gone = await createTenantUser(t, tenant.id, { email: 'old@client.test', fullName: 'Old Timer' });
  const schema = (await findTenant(t.app.pool, tenant.id))!.schema_name;
  await withTenant(t.app.pool, schema, (db) => db.query('update users set active = false where id = $1', [gone.id]));

  const viewer = await tenantLogin(t, tenant.slug, user.email, user.password);
  const res = await viewer.get('/members');
  assert.is(res.status, 200, res.text);
  const names = res.body.map((m: { full_name: string }) => m.full_name);
  assert.equal(
    names,
    [...names].sort((a: string, b: string) => a.toLowerCase().localeCompare(b.toLowerCase())),
  );
  assert.not.ok(
    res.body.some((m: { email: string }) => m.email === 'old@client.test'),
    'inactive users are not listed',
  );
  const amy = res.body.find((m: { user_id: string }) => m.user_id === both.id);
  assert.equal(amy.roles, [
    { profile: 'admin', label: 'Admin' },
    { profile: 'viewer', label: 'Viewer' },
  ]);
  const zed = res.body.find((m: { email: string }) => m.email === 'zed@client.test');
  assert.equal(zed.roles, [{ profile: 'analyst', label: 'Analyst' }]);
  assert.is(res.body.length, 3);
});

test.run();
