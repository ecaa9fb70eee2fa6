/** The in-memory rate-limit store stays bounded under rotating client addresses (issue 18). */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { MemoryRateLimitStore } from '../../../api/http/rateLimit.ts';

test('a flood of distinct clients within one window never grows the store beyond its bound', async () => {
  const store = new MemoryRateLimitStore(1_000);
  const now = 1_700_000_000_000;
  for (let i = 0; i < 20_000; i++) await store.take(`ip:10.0.${i >> 8}.${i & 255}`, 600, 60_000, now + i);
  assert.is(store.size, 1_000);
});

test('a client seen recently keeps its count while the flood evicts the quietest', async () => {
  const store = new MemoryRateLimitStore(100);
  const now = 1_700_000_000_000;
  for (let i = 0; i < 3; i++) await store.take('ip:busy', 3, 60_000, now);
  for (let i = 0; i < 500; i++) {
    await store.take(`ip:rotating-${i}`, 3, 60_000, now + 1);
    if (i % 50 === 0) assert.is((await store.take('ip:busy', 3, 60_000, now + 1)).allowed, false, 'the busy client stays limited');
  }
  assert.is(store.size, 100);
});

test.run();
