/** Starts an engine run over /v1 and polls it to its end; fails the test unless it succeeded. */
import * as assert from 'uvu/assert';
import { fresh } from './errors.ts';
import type { Client } from './http.ts';

export async function runEngineToEnd(api: Client, timeoutMs: number): Promise<any> {
  const started = await api.post('/v1/engine/runs', {}, fresh());
  assert.is(started.status, 202, started.text);
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const res = await api.get(`/v1/engine/runs/${started.body.run_id}`);
    if (['succeeded', 'failed', 'cancelled'].includes(res.body.status)) {
      assert.is(res.body.status, 'succeeded', JSON.stringify(res.body));
      return res.body;
    }
    if (Date.now() > deadline) throw new Error('run still going');
    await new Promise((r) => setTimeout(r, 200));
  }
}
