/**
 * The engine pipeline in a worker thread (lib/engineThread.ts): the snapshot's input may follow the
 * thread's start (a promise: the caller reads it while the thread loads its modules) with the same
 * stage digests as when it is given at once; a failed read ends the run with its error; the snapshot
 * comes back with its issues' ids only.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { runPipelineInThread } from '../../lib/engineThread.ts';
import { syntheticInput, testContext } from '../helpers/engineInput.ts';

const input = () => syntheticInput(120, 5, 3).input;
const ctx = testContext({ seed: 7 });

test('the snapshot input as a promise gives the same stage digests as the input given at once', async () => {
  const direct = await runPipelineInThread({ ctx, snapshotInput: input(), to: 'patterns', keep: ['snapshot'] });
  const later = await runPipelineInThread({
    ctx,
    snapshotInput: new Promise((resolve) => setTimeout(() => resolve(input()), 50)),
    to: 'patterns',
    keep: ['snapshot'],
  });
  assert.ok(direct.records.length === 7);
  assert.equal(
    later.records.map((r) => [r.stage, r.digest]),
    direct.records.map((r) => [r.stage, r.digest]),
  );
  assert.equal(later.outputs.snapshot?.input_digest, direct.outputs.snapshot?.input_digest);
});

test('the snapshot comes back with its issues by id only, in the snapshot order', async () => {
  const { outputs } = await runPipelineInThread({ ctx, snapshotInput: input(), to: 'snapshot', keep: ['snapshot'] });
  const issues = outputs.snapshot!.issues;
  assert.is(issues.length, 120);
  assert.ok(issues.every((i) => Object.keys(i).join() === 'id'));
  assert.equal(new Set(issues.map((i) => i.id)), new Set(input().issues.map((i) => i.id)));
});

test('a failed read of the snapshot input is the run error', async () => {
  try {
    await runPipelineInThread({ ctx, snapshotInput: Promise.reject(new Error('the events could not be read')), to: 'snapshot' });
    assert.unreachable('the run should have failed');
  } catch (err) {
    assert.is((err as Error).message, 'the events could not be read');
  }
});

test.run();
