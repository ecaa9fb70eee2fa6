/**
 * Installation-wide generated secrets (sql/appSettings.ts): two processes starting together on one
 * database agree on one value, including when the other's insert commits while this one waits on it.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createPool } from '../../lib/db.ts';
import { ensureGeneratedSecret } from '../../sql/appSettings.ts';
import { createTestDatabase } from '../../fixtures/database.ts';

test('a secret inserted by another process while this one waits on it is read, not lost', async () => {
  const db = await createTestDatabase();
  const pool = createPool(db.url, { max: 3 });
  const other = await pool.connect();
  try {
    // The other process has inserted the key and not yet committed: this one's insert waits on it.
    await other.query('begin');
    await other.query(`insert into app_settings (key, value) values ('race_key', 'theirs')`);
    const mine = ensureGeneratedSecret(pool, 'race_key');
    await waitUntilBlocked(pool);
    await other.query('commit');
    assert.is(await mine, 'theirs', 'the committed value, not undefined and not a second value');
    assert.is(await ensureGeneratedSecret(pool, 'race_key'), 'theirs', 'and it stays');
  } finally {
    other.release();
    await pool.end();
    await db.drop();
  }
});

test('the first caller generates and keeps the value; concurrent callers agree', async () => {
  const db = await createTestDatabase();
  const pool = createPool(db.url, { max: 8 });
  try {
    const values = await Promise.all(Array.from({ length: 8 }, () => ensureGeneratedSecret(pool, 'shared_key')));
    assert.is(new Set(values).size, 1, 'one value');
    assert.ok(values[0].length >= 32, 'a generated token');
  } finally {
    await pool.end();
    await db.drop();
  }
});

/** Until some backend of this database waits on a lock (the insert behind the uncommitted one). */
async function waitUntilBlocked(pool: ReturnType<typeof createPool>): Promise<void> {
  for (let i = 0; i < 500; i++) {
    const { rows } = await pool.query<{ n: number }>(
      `select count(*)::int as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'`,
    );
    if (rows[0].n > 0) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error('the insert never waited on the uncommitted row');
}

test.run();
