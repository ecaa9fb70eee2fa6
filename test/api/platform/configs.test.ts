import { createHash } from 'node:crypto';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { configDefinitions, configKinds, type ConfigKind } from '../../../engine/config/index.ts';
import { demoToken, startTestApp, type TestApp } from '../../helpers/app.ts';
import { assertError, fresh } from '../../helpers/errors.ts';
import type { Client } from '../../helpers/http.ts';
import { serviceAccountToken } from '../../helpers/identities.ts';

let t: TestApp;
let api: Client;
test.before(async () => {
  t = await startTestApp();
  api = t.platform.as(await demoToken(t));
});
test.after(async () => t.close());

type Doc = Record<string, any>;

/** Canonical JSON as documented: object keys sorted recursively, arrays in order, then JSON.stringify. */
function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (value && typeof value === 'object')
    return Object.fromEntries(
      Object.keys(value)
        .sort()
        .map((k) => [k, canonical((value as Doc)[k])]),
    );
  return value;
}
const versionId = (doc: unknown) =>
  createHash('sha256')
    .update(JSON.stringify(canonical(doc)))
    .digest('hex');

/** The same document with every object's keys in reverse order. */
function reversedKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(reversedKeys);
  if (value && typeof value === 'object')
    return Object.fromEntries(
      Object.keys(value)
        .reverse()
        .map((k) => [k, reversedKeys((value as Doc)[k])]),
    );
  return value;
}

const defaults = (kind: ConfigKind): Doc => structuredClone(configDefinitions[kind].defaults) as Doc;

/** A valid variant of each kind's default: one small change. */
const variants: Record<ConfigKind, (d: Doc) => void> = {
  rubric: (d) => (d.abstain_below = 0.45),
  cluster: (d) => (d.k_max = 40),
  hazard: (d) => (d.forecast_horizons_days = [7, 30, 90, 180]),
  'rate-card': (d) => (d.currency = 'EUR'),
  taxonomy: (d) => d.domains.push({ id: 'observability', name: 'Logs and metrics', keywords: ['log', 'metric'] }),
};
const variant = (kind: ConfigKind, tweak = variants[kind]) => {
  const d = defaults(kind);
  tweak(d);
  return d;
};

const postVersion = (kind: string, doc: unknown, client = api) => client.post(`/v1/configs/${kind}/versions`, doc, fresh());
const getKind = async (kind: string) => {
  const res = await api.get(`/v1/configs/${kind}`);
  assert.is(res.status, 200, res.text);
  return res.body;
};
const assertInvalid = (res: Awaited<ReturnType<typeof postVersion>>, details: Record<string, string>) => assertError(res, 422, 'config_invalid', details);

test('every kind starts on its shipped default, with no history', async () => {
  for (const kind of configKinds) {
    const body = await getKind(kind);
    assert.equal(body, { kind, active: { id: versionId(defaults(kind)), source: 'default', document: defaults(kind), created_at: null }, versions: [] }, kind);
  }
  const all = await api.get('/v1/configs');
  assert.is(all.status, 200, all.text);
  assert.equal(
    all.body.data.map((k: { kind: string; active: { source: string } }) => [k.kind, k.active.source]),
    configKinds.map((k) => [k, 'default']),
  );
});

test('posting a valid document creates a content-addressed version that becomes active', async () => {
  for (const kind of configKinds) {
    const doc = variant(kind);
    const res = await postVersion(kind, doc);
    assert.is(res.status, 201, `${kind}: ${res.text}`);
    assert.equal(Object.keys(res.body).sort(), ['created', 'created_at', 'created_by', 'document', 'id', 'kind']);
    assert.is(res.body.id, versionId(doc));
    assert.is(res.body.kind, kind);
    assert.is(res.body.created, true);
    assert.is(res.body.created_by, t.demo.userId);
    assert.equal(res.body.document, doc);

    const body = await getKind(kind);
    assert.equal(body.active, { id: versionId(doc), source: 'newest', document: doc, created_at: res.body.created_at });
    assert.equal(body.versions, [{ id: versionId(doc), kind, created_by: t.demo.userId, created_at: res.body.created_at }]);

    // The identical document, keys in another order: the existing version, not a new one.
    const again = await postVersion(kind, reversedKeys(doc));
    assert.is(again.status, 200, again.text);
    assert.equal(again.body, { ...res.body, created: false });
    assert.is((await getKind(kind)).versions.length, 1);

    const version = await api.get(`/v1/configs/${kind}/versions/${res.body.id}`);
    assert.is(version.status, 200, version.text);
    assert.equal(version.body, { id: res.body.id, kind, document: doc, created_by: t.demo.userId, created_at: res.body.created_at });
  }
  // The default document itself can be posted as a version; its id is the default's id.
  const posted = await postVersion('cluster', defaults('cluster'));
  assert.is(posted.status, 201);
  assert.is(posted.body.id, (await api.get('/v1/configs')).body.data.find((k: { kind: string }) => k.kind === 'cluster').active.id);
});

test('schema failures are 422 config_invalid with dot-path details', async () => {
  assertInvalid(
    await postVersion(
      'taxonomy',
      variant('taxonomy', (d) => (d.root_causes[2].playbook.effort_hours = 'ten')),
    ),
    {
      'root_causes.2.playbook.effort_hours': 'Invalid input: expected number, received string',
    },
  );
  assertInvalid(
    await postVersion(
      'taxonomy',
      variant('taxonomy', (d) => (d.domains[1].id = 'Not An Id')),
    ),
    {
      'domains.1.id': 'must be a lowercase identifier (a-z, 0-9, _)',
    },
  );
  assertInvalid(
    await postVersion(
      'cluster',
      variant('cluster', (d) => (d.colour = 'blue')),
    ),
    { colour: 'is not a known field' },
  );
  assertInvalid(
    await postVersion(
      'taxonomy',
      variant('taxonomy', (d) => (d.root_causes[0].playbook.owner = 'sre')),
    ),
    {
      'root_causes.0.playbook.owner': 'is not a known field',
    },
  );
  assertInvalid(
    await postVersion(
      'hazard',
      variant('hazard', (d) => Object.assign(d, { colour: 'blue', shape: 'round' })),
    ),
    { colour: 'is not a known field', shape: 'is not a known field' },
  );
  assertInvalid(
    await postVersion(
      'cluster',
      variant('cluster', (d) => delete d.seed),
    ),
    { seed: 'is required' },
  );
  assertInvalid(
    await postVersion(
      'hazard',
      variant('hazard', (d) => (d.alert_threshold = 1)),
    ),
    { alert_threshold: 'Too big: expected number to be <1' },
  );
  assertInvalid(
    await postVersion(
      'rate-card',
      variant('rate-card', (d) => (d.currency = 'usd')),
    ),
    { currency: 'must be an ISO 4217 code such as USD' },
  );
  const empty = await postVersion('rubric', {});
  assertError(empty, 422, 'config_invalid');
  assert.equal(Object.keys(empty.body.error.details).sort(), ['abstain_below', 'levels', 'severity_weights', 'signals']);
  // CONTRACT: a body that is not a JSON object is 422 config_invalid, like any other schema failure.
  for (const notAnObject of [[1, 2], 'rubric', 7, null]) {
    assertError(await postVersion('rubric', notAnObject), 422, 'config_invalid', { body: 'must be a JSON object (the config document)' });
  }
});

test('semantic failures are 422 config_invalid with dot-path details', async () => {
  assertInvalid(
    await postVersion(
      'cluster',
      variant('cluster', (d) => Object.assign(d, { k_min: 10, k_max: 5 })),
    ),
    { k_max: 'must be at least k_min' },
  );
  assertInvalid(
    await postVersion(
      'rubric',
      variant(
        'rubric',
        (d) =>
          (d.levels = [
            { name: 'low', min_score: 0 },
            { name: 'high', min_score: 0.6 },
            { name: 'critical', min_score: 0.6 },
          ]),
      ),
    ),
    { 'levels.2.min_score': 'must be greater than the previous level' },
  );
  assertInvalid(
    await postVersion(
      'rubric',
      variant('rubric', (d) => (d.levels[1].min_score = 0.9)),
    ),
    { 'levels.2.min_score': 'must be greater than the previous level' },
  );
  assertInvalid(
    await postVersion(
      'rate-card',
      variant('rate-card', (d) => (d.currency = 'XYZ')),
    ),
    { currency: "'XYZ' is not an ISO 4217 currency code" },
  );
  assertInvalid(
    await postVersion(
      'taxonomy',
      variant('taxonomy', (d) => (d.domains[3].id = 'storage')),
    ),
    { 'domains.3.id': "duplicate id 'storage'" },
  );
  assertInvalid(
    await postVersion(
      'taxonomy',
      variant('taxonomy', (d) => (d.root_causes[5].id = 'timeout')),
    ),
    { 'root_causes.5.id': "duplicate id 'timeout'" },
  );
  assertInvalid(
    await postVersion(
      'hazard',
      variant('hazard', (d) => (d.forecast_horizons_days = [30, 7, 90])),
    ),
    { forecast_horizons_days: 'must be strictly increasing' },
  );
  assertInvalid(
    await postVersion(
      'hazard',
      variant('hazard', (d) => (d.forecast_horizons_days = [7, 7, 30])),
    ),
    { forecast_horizons_days: 'must be strictly increasing' },
  );
  const { rows } = await t.app.pool.query(`select count(*)::int as n from config_versions`);
  assert.is(rows[0].n, configKinds.length + 1);
});

test('unknown kind is 404', async () => {
  assertError(await api.get('/v1/configs/thresholds'), 404, 'not_found');
  assertError(await postVersion('thresholds', { a: 1 }), 404, 'not_found');
  assertError(await api.get(`/v1/configs/thresholds/versions/${versionId({})}`), 404, 'not_found');
  assertError(await api.post(`/v1/configs/thresholds/versions/${versionId({})}/activate`, undefined, fresh()), 404, 'not_found');
});

test('explicit activation pins an older version even after a newer one is posted', async () => {
  const v1 = await postVersion(
    'hazard',
    variant('hazard', (d) => (d.min_gaps = 4)),
  );
  const v2 = await postVersion(
    'hazard',
    variant('hazard', (d) => (d.min_gaps = 5)),
  );
  assert.is((await getKind('hazard')).active.id, v2.body.id);

  const activated = await api.post(`/v1/configs/hazard/versions/${v1.body.id}/activate`, undefined, fresh());
  assert.is(activated.status, 200, activated.text);
  assert.is(activated.body.active.id, v1.body.id);
  assert.is(activated.body.active.source, 'explicit');
  assert.equal(activated.body.active.document.min_gaps, 4);

  const v3 = await postVersion(
    'hazard',
    variant('hazard', (d) => (d.min_gaps = 6)),
  );
  assert.is(v3.status, 201);
  const body = await getKind('hazard');
  assert.equal(body.active, { id: v1.body.id, source: 'explicit', document: v1.body.document, created_at: v1.body.created_at });
  assert.equal(
    body.versions.slice(0, 3).map((v: { id: string }) => v.id),
    [v3.body.id, v2.body.id, v1.body.id],
    'history newest first',
  );

  // Activating another version moves the pin.
  const moved = await api.post(`/v1/configs/hazard/versions/${v3.body.id}/activate`, undefined, fresh());
  assert.is(moved.body.active.id, v3.body.id);
  assert.is(moved.body.active.source, 'explicit');

  assertError(await api.post(`/v1/configs/hazard/versions/${versionId({ nope: true })}/activate`, undefined, fresh()), 404, 'not_found');
  assertError(await api.post(`/v1/configs/rubric/versions/${v1.body.id}/activate`, undefined, fresh()), 404, 'not_found');
  assertError(await api.post(`/v1/configs/hazard/versions/${v1.body.id}/activate`), 400, 'idempotency_key_required');

  const feed = await api.get('/v1/workspaces/current/events?aggregate_type=config&limit=100');
  const hazardEvents = feed.body.data
    .filter((e: { payload: { kind: string } }) => e.payload.kind === 'hazard')
    .map((e: { type: string; payload: { version_id: string } }) => [e.type, e.payload.version_id]);
  assert.equal(hazardEvents.slice(-5), [
    ['config.version_created', v1.body.id],
    ['config.version_created', v2.body.id],
    ['config.activated', v1.body.id],
    ['config.version_created', v3.body.id],
    ['config.activated', v3.body.id],
  ]);
});

test('GET a version by id; 404 for an unknown id or another kind', async () => {
  const doc = variant('rubric', (d) => (d.abstain_below = 0.4));
  const posted = await postVersion('rubric', doc);
  const res = await api.get(`/v1/configs/rubric/versions/${posted.body.id}`);
  assert.is(res.status, 200, res.text);
  assert.equal(res.body.document, doc);
  assertError(await api.get(`/v1/configs/rubric/versions/${versionId({ other: 1 })}`), 404, 'not_found');
  assertError(await api.get('/v1/configs/rubric/versions/not-a-hash'), 404, 'not_found');
  assertError(await api.get(`/v1/configs/cluster/versions/${posted.body.id}`), 404, 'not_found');
});

test('configs:write is required to post or activate; Idempotency-Key is mandatory', async () => {
  const reader = t.platform.as(await serviceAccountToken(api, ['configs:read']));
  assert.is((await reader.get('/v1/configs/cluster')).status, 200);
  const doc = variant('cluster', (d) => (d.k_max = 33));
  assertError(await postVersion('cluster', doc, reader), 403, 'forbidden', { required_scope: 'configs:write' });
  const existing = (await getKind('cluster')).versions[0].id;
  assertError(await reader.post(`/v1/configs/cluster/versions/${existing}/activate`, undefined, fresh()), 403, 'forbidden', {
    required_scope: 'configs:write',
  });
  assertError(await api.post('/v1/configs/cluster/versions', doc), 400, 'idempotency_key_required');
  const none = t.platform.as(await serviceAccountToken(api, ['issues:read']));
  assertError(await none.get('/v1/configs/cluster'), 403, 'forbidden', { required_scope: 'configs:read' });
  assert.is((await t.app.pool.query('select 1 from config_versions where id = $1', [versionId(doc)])).rowCount, 0);
});

test('versions are immutable in the database', async () => {
  const { rows } = await t.app.pool.query<{ id: string }>('select id from config_versions limit 1');
  const attempt = async (sql: string) => {
    try {
      await t.app.pool.query(sql, [rows[0].id]);
    } catch (err) {
      return err as { code: string; message: string };
    }
    assert.unreachable(`${sql} succeeded`);
  };
  const err = (await attempt(`update config_versions set document = '{}' where id = $1`))!;
  assert.is(err.code, '23001');
  assert.is(err.message, 'config_versions is append-only: UPDATE is not allowed');
  const renamed = (await attempt(`update config_versions set created_by = 'someone else' where id = $1`))!;
  assert.is(renamed.code, '23001');
  const stored = await t.app.pool.query('select document from config_versions where id = $1', [rows[0].id]);
  assert.not.equal(stored.rows[0].document, {});
});

test.run();
