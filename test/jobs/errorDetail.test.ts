/**
 * A job's error_detail is curated (issue 18): an internal failure (SQL, schema names, system errors)
 * shows a message naming the trace id, through the HTTP surface too, and the log keeps the detail
 * under that trace id; messages written for callers are kept as written.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { z } from 'zod';
import { defineTask, enqueueJob, PermanentJobError } from '../../jobs/runtime.ts';
import { findJobRun } from '../../sql/jobRuns.ts';
import { demoToken, eventually, startTestApp, type TestApp } from '../helpers/app.ts';

const sqlFailure = defineTask({
  name: 'test__sql_failure',
  payload: z.object({}),
  maxAttempts: 1,
  run: async (_payload, job) => job.app.pool.query('select * from tenant_0123456789abcdef.secret_table'),
});
const wrappedFailure = defineTask({
  name: 'test__wrapped_failure',
  payload: z.object({}),
  maxAttempts: 1,
  run: async (_payload, job) => {
    try {
      await job.app.pool.query('insert into nowhere_at_all values (1)');
    } catch (err) {
      throw new Error(`migration 0001_access.sql failed in tenant_abc: ${(err as Error).message}`, { cause: err });
    }
  },
});
const spokenFailure = defineTask({
  name: 'test__spoken_failure',
  payload: z.object({}),
  run: async () => {
    throw new PermanentJobError('Dataset 42 no longer exists.');
  },
});

let t: TestApp;
test.before(async () => {
  t = await startTestApp({ worker: { extraTasks: [sqlFailure, wrappedFailure, spokenFailure] } });
});
test.after(async () => t.close());

const failed = (id: string) =>
  eventually(
    async () => {
      const run = await findJobRun(t.app.pool, id, { workspaceId: t.demo.workspaceId });
      return run?.status === 'failed' ? run : undefined;
    },
    20_000,
    'the job to fail',
  );

test('a database failure, raw or wrapped, is curated and names the trace id; GET /v1/jobs/{id} shows the same', async () => {
  for (const task of [sqlFailure, wrappedFailure]) {
    const { job } = await enqueueJob(t.app.pool, task, {}, { workspaceId: t.demo.workspaceId });
    const run = await failed(job.id);
    assert.is(run.error_detail, `Internal error; the server log holds the details under trace id job:${job.id}.`);
    const api = await t.platform.get(`/v1/jobs/${job.id}`, { token: await demoToken(t) });
    assert.is(api.status, 200, api.text);
    assert.is(api.body.error_detail, run.error_detail);
    assert.not.match(api.text, /tenant_|secret_table|nowhere_at_all|relation/);
  }
});

test('a message written for callers is kept', async () => {
  const { job } = await enqueueJob(t.app.pool, spokenFailure, {}, { workspaceId: t.demo.workspaceId });
  assert.is((await failed(job.id)).error_detail, 'Dataset 42 no longer exists.');
});

test.run();
