/**
 * A PostgreSQL outage under load: `svc serve` (its HTTP process and its worker process) on a server
 * of the test's own, ingesting continuously while the server is stopped and started again.
 * /health/ready answers 503 within 5 s and 200 after recovery, no process exits, the worker
 * resumes, and every acknowledged (202) ingest is in the database.
 */
import { randomUUID } from 'node:crypto';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import pg from 'pg';
import { generateIssues } from '../../fixtures/synthetic.ts';
import { eventually } from '../helpers/app.ts';
import { ownPostgres, startSvc } from '../helpers/faults.ts';
import { request } from '../helpers/http.ts';
import { logLines } from '../../fixtures/svcProcess.ts';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

test('stop and start PostgreSQL under ingest load: 503 then 200, nothing exits, nothing acknowledged is lost, jobs resume', async () => {
  const server = await ownPostgres();
  const serve = await startSvc('serve', server.url, { RATE_LIMIT_STORE: 'memory', DATABASE_CONNECT_TIMEOUT_MS: '2000' });
  try {
    const platform = serve.listening!.platform as string;
    const product = serve.listening!.product as string;
    const exchange = await request(platform, 'POST', '/v1/auth/exchange', { body: { subject_token: 'faults' } });
    assert.is(exchange.status, 200, exchange.text);
    const token = exchange.body.access_token as string;

    // Continuous ingest: batches of 10 new records; every 202 is counted with its external ids.
    const acknowledged = new Set<string>();
    let batches = 0;
    let failures = 0;
    let lastFailure = '';
    let running = true;
    const pool = generateIssues(20_000, 3, 4);
    let next = 0;
    const client = async () => {
      while (running) {
        const records = pool.slice(next, (next += 10)).map((g, i) => ({
          external_id: `${g.external_id}-${next + i}`,
          title: g.title,
          narrative: g.narrative,
          source: 'faults',
          severity: g.severity,
          occurred_at: g.occurred_at,
        }));
        try {
          const res = await request(platform, 'POST', '/v1/ingest/batch', { token, body: { records }, headers: { 'idempotency-key': randomUUID() } });
          if (res.status === 202) {
            batches++;
            for (const r of records) acknowledged.add(r.external_id);
          } else {
            failures++;
            lastFailure = `${res.status} ${res.text}`;
          }
        } catch (err) {
          failures++;
          lastFailure = String(err);
        }
        await sleep(300); // two clients stay inside the per-IP limit of 600 requests a minute
      }
    };
    const clients = [client(), client()];
    await eventually(async () => (acknowledged.size >= 100 ? true : undefined), 30_000, 'ingest to run').catch((err) => {
      throw new Error(`${err.message}: ${failures} failures, the last ${lastFailure}`);
    });

    await server.stop();
    const stoppedAt = Date.now();
    const notReady = await eventually(
      async () => {
        const res = await request(product, 'GET', '/health/ready').catch(() => null);
        return res?.status === 503 ? res : undefined;
      },
      10_000,
      '/health/ready to answer 503',
    );
    const toNotReady = Date.now() - stoppedAt;
    assert.ok(toNotReady <= 5_000, `503 after ${toNotReady} ms`);
    assert.equal(notReady.body.detail.checks.database, 'unreachable');
    await sleep(4_000); // the load keeps coming while the database is down
    const failuresDuringOutage = failures;
    assert.ok(failuresDuringOutage > 0, 'requests failed while the database was down');

    await server.start();
    await eventually(
      async () => ((await request(product, 'GET', '/health/ready').catch(() => null))?.status === 200 ? true : undefined),
      30_000,
      '/health/ready to answer 200 again',
    );
    const acknowledgedBefore = acknowledged.size;
    await eventually(async () => (acknowledged.size >= acknowledgedBefore + 100 ? true : undefined), 30_000, 'ingest to resume');
    running = false;
    await Promise.all(clients);

    assert.is(serve.child.exitCode, null, 'svc serve is still running');
    const lines = logLines(serve.stdout());
    const died = lines.find((l) => l.msg === 'worker process died; restarting it');
    assert.not.ok(died, `the worker process exited: ${JSON.stringify(died)}\n${serve.stderr().slice(-4000)}`);

    const db = new pg.Client({ connectionString: server.url });
    await db.connect();
    try {
      const stored = await db.query<{ n: number }>(`select count(*)::int as n from issues where external_id = any($1)`, [[...acknowledged]]);
      assert.is(stored.rows[0].n, acknowledged.size, `${acknowledged.size} acknowledged, ${stored.rows[0].n} stored`);
      // The worker resumed: every acknowledged batch's post-ingest job ran.
      let counts: Array<{ status: string; n: number }> = [];
      await eventually(
        async () => {
          counts = (
            await db.query<{ status: string; n: number }>(`select status, count(*)::int as n from job_runs where kind = 'ingest__process' group by status`)
          ).rows;
          const succeeded = counts.find((r) => r.status === 'succeeded')?.n ?? 0;
          return succeeded >= batches ? true : undefined;
        },
        60_000,
        'every ingest job to succeed',
      ).catch((err) => {
        const warnings = logLines(serve.stdout())
          .filter((l) => l.role === 'worker')
          .slice(-12)
          .map((l) => ({ msg: l.msg, err: (l.err as { message?: string } | undefined)?.message, t: l.time }));
        throw new Error(`${err.message}: ${batches} batches, job_runs ${JSON.stringify(counts)}; last warnings ${JSON.stringify(warnings)}`);
      });
    } finally {
      await db.end();
    }
  } finally {
    await serve.kill('SIGTERM');
    await server.remove();
  }
});

test.run();
