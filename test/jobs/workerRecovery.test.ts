/**
 * The worker recovers from a database that fails while it starts: a runner whose first job fetch
 * failed with a connection error (graphile-worker then never fetches again) is replaced, and jobs
 * enqueued afterwards run.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { z } from 'zod';
import { defineTask, enqueueJob } from '../../jobs/runtime.ts';
import { startWorker } from '../../jobs/worker.ts';
import { createPool } from '../../lib/db.ts';
import { eventually, startTestApp } from '../helpers/app.ts';

const noop = defineTask({ name: 'test__noop', payload: z.object({}), run: async () => ({ ran: true }) });

test('a runner whose first fetch failed with a connection error is replaced; later jobs run', async () => {
  const t = await startTestApp({ http: false });
  const workerPool = createPool(t.db.url, { max: 4 });
  // While `failing`, graphile-worker's task lookup (the first query of every job fetch) fails as
  // if the server had closed the connection.
  let failing = true;
  const connect = workerPool.connect.bind(workerPool) as () => Promise<import('pg').PoolClient>;
  Object.assign(workerPool, {
    // pg's own pool.query() calls connect with a callback; graphile-worker awaits it.
    connect(callback?: (err: Error | undefined, client?: import('pg').PoolClient, release?: () => void) => void) {
      const connected = connect().then((client) => {
        const query = client.query.bind(client) as (...args: unknown[]) => Promise<unknown>;
        Object.assign(client, {
          query(config: unknown, ...rest: unknown[]) {
            const text = typeof config === 'string' ? config : (config as { text?: string } | undefined)?.text;
            if (failing && text?.includes('_private_tasks')) return Promise.reject(new Error('Connection terminated unexpectedly'));
            return query(config, ...rest);
          },
        });
        return client;
      });
      if (!callback) return connected;
      connected.then(
        (client) => callback(undefined, client, () => client.release()),
        (err: Error) => callback(err),
      );
    },
  });
  const worker = await startWorker(t.app, { tasks: [noop], concurrency: 2, pool: workerPool, pollInterval: 100 });
  try {
    await new Promise((resolve) => setTimeout(resolve, 500));
    failing = false;
    const { job } = await enqueueJob(t.app.pool, noop, {}, { workspaceId: t.demo.workspaceId });
    const done = await eventually(
      async () => {
        const { rows } = await t.app.pool.query<{ status: string; result: unknown }>('select status, result from job_runs where id = $1', [job.id]);
        return rows[0].status === 'succeeded' ? rows[0] : undefined;
      },
      30_000,
      'the job to run on a replacement runner',
    );
    assert.equal(done.result, { ran: true });
  } finally {
    await worker.stop();
    await workerPool.end();
    await t.close();
  }
});

test.run();
