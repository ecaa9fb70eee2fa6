/**
 * Scale-out on one database (issue 11): two `svc api` processes and two `svc worker` processes, as
 * docs/deployment.md describes them. Rate limits are shared through RATE_LIMIT_STORE=postgres (a
 * budget spent on one API is spent on the other), each job is executed once whichever API enqueued
 * it and whichever worker ran it, and the engine runs of one workspace run one at a time.
 *
 * "Executed once" is observed, not inferred from the outcome: a trigger in the test's database
 * records every insert the ingest task attempts into outbound_events (a BEFORE trigger fires even
 * when the unique index then skips the row), with the attempt and the worker that held the job.
 */
import { randomUUID } from 'node:crypto';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { slidingWindowTake, type WindowState } from '../../api/http/rateLimit.ts';
import { RATE_LIMIT } from '../../api/platform/app.ts';
import { generateIssues } from '../../fixtures/synthetic.ts';
import { eventually, startTestApp, type TestApp } from '../helpers/app.ts';
import { startSvc, type SvcChild } from '../helpers/faults.ts';
import { client, type Client } from '../helpers/http.ts';

const SHARED = { RATE_LIMIT_STORE: 'postgres', TRUST_PROXY: '1' };
// Nothing is killed here: heartbeats slow enough that a busy machine never makes a live worker look dead.
const STEADY = { WORKER_HEARTBEAT_INTERVAL_MS: '2000', WORKER_DEAD_AFTER_MS: '30000' };

let t: TestApp;
const apis: SvcChild[] = [];
const workers: SvcChild[] = [];
let api1: Client;
let api2: Client;

test.before(async () => {
  t = await startTestApp({ http: false });
  // Instrumentation of this database only: who attempted which effect, and every engine run transition.
  await t.app.pool.query(`
    create table test_effect_attempts (job_run_id uuid, attempt integer, locked_by text, at timestamptz not null default clock_timestamp());
    create function test_record_effect_attempt() returns trigger language plpgsql as $$
    begin
      insert into test_effect_attempts (job_run_id, attempt, locked_by)
      select new.job_run_id, j.attempts, j.locked_by
        from (select new.job_run_id as id) e
        left join job_runs r on r.id = e.id
        left join graphile_worker._private_jobs j on j.id = r.worker_job_id;
      return new;
    end $$;
    create trigger test_record_effect_attempt before insert on outbound_events for each row execute function test_record_effect_attempt();
    create table test_engine_transitions (job_run_id uuid, status text, progress integer, at timestamptz not null default clock_timestamp());
    create function test_record_engine_transition() returns trigger language plpgsql as $$
    begin
      if new.kind = 'engine__run' then
        insert into test_engine_transitions (job_run_id, status, progress) values (new.id, new.status, new.progress);
      end if;
      return new;
    end $$;
    create trigger test_record_engine_transition after update on job_runs for each row execute function test_record_engine_transition();`);
  // One at a time: on a loaded machine four processes compiling at once can each miss startSvc's minute.
  for (const role of ['api', 'api', 'worker', 'worker'] as const) {
    const started = await startSvc(role, t.db.url, role === 'api' ? SHARED : STEADY);
    (role === 'api' ? apis : workers).push(started);
  }
  const [first, second] = apis.map((a) => client(a.listening!.platform as string));
  const exchange = await first.post('/v1/auth/exchange', { subject_token: 'scale-out' });
  assert.is(exchange.status, 200, exchange.text);
  // A token issued by one API is accepted by the other: the signing key lives in the database.
  api1 = first.as(exchange.body.access_token);
  api2 = second.as(exchange.body.access_token);
});

test.after(async () => {
  for (const p of [...apis, ...workers]) await p.kill('SIGTERM');
  await t.close();
});

test('rate limits are shared: the budget spent on API 1 is spent on API 2, and the 429 arrives on API 2', async () => {
  const { limit } = RATE_LIMIT;
  const probe = (api: Client, ip: string) => api.get('/v1/jobs', { token: '', headers: { 'x-forwarded-for': ip } });
  // The counters are windows of wall-clock minutes: a run that crosses a minute boundary tries again with a fresh client.
  for (let round = 0; ; round++) {
    const ip = `203.0.113.${10 + round}`;
    const window = Math.floor(Date.now() / 60_000);
    const a = await probe(api1, ip);
    const b = await probe(api2, ip);
    assert.is(a.headers.get('x-ratelimit-remaining'), String(limit - 1));
    assert.is(b.headers.get('x-ratelimit-remaining'), String(limit - 2), 'API 2 counts the request API 1 took');
    // The rest of the budget on API 1 only.
    let spent = 2;
    while (spent < limit) {
      const n = Math.min(50, limit - spent);
      const answers = await Promise.all(Array.from({ length: n }, () => probe(api1, ip)));
      assert.ok(
        answers.every((r) => r.status === 401),
        'API 1 allows its whole budget',
      );
      spent += n;
    }
    const onApi2 = await probe(api2, ip);
    const onApi1 = await probe(api1, ip);
    const other = await probe(api2, `198.51.100.${10 + round}`);
    if (Math.floor(Date.now() / 60_000) !== window) {
      assert.ok(round < 2, 'two attempts crossed a minute boundary');
      continue;
    }
    assert.is(onApi2.status, 429, onApi2.text);
    assert.is(onApi2.body.error.code, 'rate_limited');
    assert.ok(Number(onApi2.headers.get('retry-after')) >= 1);
    assert.is(onApi1.status, 429);
    assert.is(other.status, 401, 'another client keeps its own budget');
    break;
  }
});

test('two processes reaching the shared counter out of clock order at a window boundary: the late request does not rewind it', async () => {
  // Each process passes its own clock; a request that read 59.999 s can reach the row after one that
  // read 60.001 s. It used to find neither window, count from zero and move the row back, dropping
  // the counts of both windows (a whole fresh budget for a client flooding across the boundary).
  const windowMs = 60_000;
  const boundary = 1_750_000_000_000 - (1_750_000_000_000 % windowMs) + windowMs;
  const key = `test:boundary:${randomUUID()}`;
  let state: WindowState | undefined;
  const take = async (now: number) => {
    const { rows } = await t.app.pool.query('select * from rate_limit_take($1, 5, $2, $3)', [key, windowMs, now]);
    const twin = slidingWindowTake(state, 5, windowMs, now);
    state = twin.state;
    assert.is(rows[0].allowed, twin.result.allowed, `the memory store's algorithm agrees at ${now}`);
    return rows[0].allowed as boolean;
  };
  for (let i = 0; i < 5; i++) assert.ok(await take(boundary - 10 + i), 'the budget of 5 is spent just before the boundary');
  assert.not.ok(await take(boundary + 1), 'process B, just past the boundary: the previous window still weighs in full');
  assert.not.ok(await take(boundary - 1), 'process A, whose clock read earlier, arrives late: still over budget');
  assert.not.ok(await take(boundary + 2), 'and the counts survived it');
  const { rows } = await t.app.pool.query('select window_start_ms, current_hits, previous_hits from rate_limit_counters where key = $1', [key]);
  assert.equal(rows[0], { window_start_ms: boundary, current_hits: 0, previous_hits: 5 });
});

test('each job is executed once: ingest through both APIs, run by both workers', async () => {
  const issues = generateIssues(300, 21, 4);
  const batches = Array.from({ length: 60 }, (_, i) =>
    issues.slice(i * 5, i * 5 + 5).map((g) => ({
      external_id: g.external_id,
      title: g.title,
      narrative: g.narrative,
      source: 'scale-out',
      severity: g.severity,
      occurred_at: g.occurred_at,
    })),
  );
  const jobIds: string[] = [];
  for (let i = 0; i < batches.length; i += 8) {
    const answers = await Promise.all(
      batches
        .slice(i, i + 8)
        .map((records, j) => ((i + j) % 2 ? api2 : api1).post('/v1/ingest/batch', { records }, { headers: { 'idempotency-key': randomUUID() } })),
    );
    for (const r of answers) {
      assert.is(r.status, 202, r.text);
      jobIds.push(r.body.job_id);
    }
  }
  for (let i = 0; i < 20; i++) {
    const r = await (i % 2 ? api2 : api1).post(
      '/v1/ingest/events',
      { external_id: `single-${i}`, title: `Single signal ${i}`, source: 'scale-out' },
      { headers: { 'idempotency-key': randomUUID() } },
    );
    assert.is(r.status, 202, r.text);
    jobIds.push(r.body.job_id);
  }
  // A client retrying on the other replica with the same Idempotency-Key gets the first answer, not a second job.
  const key = randomUUID();
  const once = { external_id: 'retried-elsewhere', title: 'Retried on another replica', source: 'scale-out' };
  const first = await api1.post('/v1/ingest/events', once, { headers: { 'idempotency-key': key } });
  const again = await api2.post('/v1/ingest/events', once, { headers: { 'idempotency-key': key } });
  assert.is(first.status, 202, first.text);
  assert.is(again.status, 202, again.text);
  assert.is(again.headers.get('idempotency-replayed'), 'true');
  assert.is(again.body.job_id, first.body.job_id);
  jobIds.push(first.body.job_id);

  const runs = await eventually(
    async () => {
      const { rows } = await t.app.pool.query<{ id: string; status: string; attempts: number; interruptions: unknown[] }>(
        `select id, status, attempts, interruptions from job_runs where kind = 'ingest__process'`,
      );
      return rows.length === jobIds.length && rows.every((r) => r.status === 'succeeded') ? rows : undefined;
    },
    60_000,
    'every ingest job to succeed',
  );
  assert.equal(runs.map((r) => r.id).sort(), [...jobIds].sort(), 'one job per acknowledged request');
  for (const run of runs) {
    assert.is(run.attempts, 1, `job ${run.id} ran ${run.attempts} attempts`);
    assert.equal(run.interruptions, []);
  }
  const events = await t.app.pool.query<{ job_run_id: string; n: number }>(
    'select job_run_id, count(*)::int as n from outbound_events where job_run_id = any($1) group by 1',
    [jobIds],
  );
  assert.is(events.rowCount, jobIds.length, 'an outbound event for every job');
  assert.ok(
    events.rows.every((e) => e.n === 1),
    'and only one',
  );
  const attempts = await t.app.pool.query<{ job_run_id: string; attempt: number; locked_by: string }>(
    'select job_run_id, attempt, locked_by from test_effect_attempts where job_run_id = any($1)',
    [jobIds],
  );
  assert.is(attempts.rowCount, jobIds.length, 'the task body reached its effect once per job, never twice');
  assert.is(new Set(attempts.rows.map((a) => a.job_run_id)).size, jobIds.length);
  assert.ok(attempts.rows.every((a) => a.attempt === 1));
  const pools = workers.map((w) => w.poolId);
  const byWorker = pools.map((id) => attempts.rows.filter((a) => a.locked_by === id).length);
  assert.is(byWorker[0] + byWorker[1], jobIds.length, `every job held by one of the two workers: ${byWorker}`);
  assert.ok(
    byWorker.every((n) => n > 0),
    `both workers ran jobs: ${byWorker}`,
  );
  const stored = await t.app.pool.query<{ n: number }>(`select count(*)::int as n from issues where source = 'scale-out'`);
  assert.is(stored.rows[0].n, 300 + 20 + 1);
});

test('engine runs of one workspace run one at a time: two requests through the two APIs queue, never two running', async () => {
  const [a, b] = await Promise.all([
    api1.post('/v1/engine/runs', {}, { headers: { 'idempotency-key': randomUUID() } }),
    api2.post('/v1/engine/runs', {}, { headers: { 'idempotency-key': randomUUID() } }),
  ]);
  // The second request is accepted like the first (202 queued) and waits on the workspace's engine queue.
  assert.is(a.status, 202, a.text);
  assert.is(b.status, 202, b.text);
  assert.is(a.body.status, 'queued');
  assert.is(b.body.status, 'queued');
  assert.is.not(a.body.run_id, b.body.run_id);
  const jobIds = [a.body.job_id, b.body.job_id];

  // Sampled while they run: never two running job_runs, never two engine jobs locked by workers.
  let maxRunning = 0;
  let maxLocked = 0;
  let samples = 0;
  const finished = await eventually(
    async () => {
      const { rows } = await t.app.pool.query<{ running: number; locked: number; done: number }>(
        `select (select count(*)::int from job_runs where id = any($1) and status = 'running') as running,
                (select count(*)::int from graphile_worker.jobs where task_identifier = 'engine__run' and locked_by is not null) as locked,
                (select count(*)::int from job_runs where id = any($1) and status in ('succeeded', 'failed', 'cancelled')) as done`,
        [jobIds],
      );
      samples++;
      maxRunning = Math.max(maxRunning, rows[0].running);
      maxLocked = Math.max(maxLocked, rows[0].locked);
      return rows[0].done === 2 ? true : undefined;
    },
    80_000,
    'both engine runs to finish',
  );
  assert.ok(finished);
  assert.is(maxRunning, 1, `at most one running (${samples} samples)`);
  assert.is(maxLocked, 1, `at most one engine job held by a worker (${samples} samples)`);

  const { rows: runs } = await t.app.pool.query<{ id: string; status: string; attempts: number; started_at: Date; finished_at: Date }>(
    'select id, status, attempts, started_at, finished_at from job_runs where id = any($1) order by started_at',
    [jobIds],
  );
  for (const run of runs) {
    assert.is(run.status, 'succeeded');
    assert.is(run.attempts, 1);
  }
  const [earlier, later] = runs;
  assert.ok(
    earlier.finished_at <= later.started_at,
    `the later run started ${later.started_at.toISOString()}, the earlier ended ${earlier.finished_at.toISOString()}`,
  );
  // Every transition the database saw (claim, each stage, completion) of one run comes before any of the other's.
  const { rows: spans } = await t.app.pool.query<{ job_run_id: string; first: Date; last: Date; n: number }>(
    'select job_run_id, min(at) as first, max(at) as last, count(*)::int as n from test_engine_transitions where job_run_id = any($1) group by 1 order by 2',
    [jobIds],
  );
  assert.is(spans.length, 2);
  assert.ok(
    spans.every((s) => s.n >= 10),
    'each run recorded its stages',
  );
  assert.ok(spans[0].last < spans[1].first, 'the two runs never overlapped');
  for (const run of [a, b]) {
    const got = await api1.get(`/v1/engine/runs/${run.body.run_id}`);
    assert.is(got.body.status, 'succeeded');
  }
});

test.run();
