/**
 * The read-your-writes pin of lib/readReplica.ts against a real primary, without a standby: a stand-in
 * "standby" reports as replayed exactly what the primary has *written* to its WAL so far
 * (`pg_current_wal_lsn()`), the most a streaming standby can have. Under `synchronous_commit = off` a
 * commit returns before its WAL record is written, so such a standby may not have a write its caller
 * has already seen succeed. The pin must not lift before the replayed position is past that commit's
 * record. (Sampling the primary's write position instead of its insert position lifted it: the replica
 * test failed once in CI that way.)
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createTestDatabase, type TestDatabase } from '../../fixtures/database.ts';
import { createPool, type Pool } from '../../lib/db.ts';
import { createLogger } from '../../lib/logger.ts';
import { lsnValue, ReadReplica } from '../../lib/readReplica.ts';
import { eventually } from '../helpers/app.ts';

let db: TestDatabase;
let pool: Pool;

test.before(async () => {
  db = await createTestDatabase();
  pool = createPool(db.url, { max: 4 });
  await pool.query('create table pin_probe (id serial primary key, note text)');
});

test.after(async () => {
  await pool.end();
  await db.drop();
});

test('an asynchronous commit keeps its workspace pinned until the replayed position is past its record', async () => {
  // The stand-in standby: replayed = what the primary has written to WAL at the moment it is asked.
  let replayed = 0n;
  const standby = {
    async query() {
      const { rows } = await pool.query<{ lsn: string }>('select pg_current_wal_lsn()::text as lsn');
      replayed = lsnValue(rows[0].lsn);
      return { rows: [{ lsn: rows[0].lsn, standby: true }] };
    },
    async end() {},
  } as unknown as Pool;
  let clock = 0;
  const replica = new ReadReplica(standby, pool, createLogger('silent'), () => ++clock);
  await replica.poll();

  const writer = await pool.connect();
  try {
    let lifted = 0;
    for (let i = 0; i < 30; i++) {
      await writer.query('begin');
      await writer.query('set local synchronous_commit = off');
      await writer.query('insert into pin_probe (note) values ($1)', [`write ${i}`]);
      await writer.query('commit');
      // At or past the end of the commit's record: what the standby needs before it has the write.
      const { rows } = await writer.query<{ lsn: string }>('select pg_current_wal_insert_lsn()::text as lsn');
      const committed = lsnValue(rows[0].lsn);
      replica.noteWrite('w');
      await replica.poll();
      if (replica.poolFor('w')) {
        lifted++;
        assert.ok(replayed >= committed, `write ${i}: the pin lifted with the standby at ${replayed}, before the commit's record (${committed})`);
      }
    }
    // And it does lift once the WAL is written: a synchronous commit writes and flushes everything before it.
    await writer.query('begin');
    await writer.query('set local synchronous_commit = on');
    await writer.query("insert into pin_probe (note) values ('flush')");
    await writer.query('commit');
    // (Other sessions of the shared cluster may have WAL in flight: the WAL writer writes it within its delay.)
    await eventually(
      async () => {
        await replica.poll();
        return replica.poolFor('w') ? true : undefined;
      },
      10_000,
      `the pin to lift once the standby has the writes (it lifted ${lifted} times in the loop, each checked)`,
    );
  } finally {
    writer.release();
  }
});

test.run();
