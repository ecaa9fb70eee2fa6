/**
 * A list's total (sql/pagination.ts filteredTotal): exact up to 10,000 rows of the filtered set, the
 * planner's estimate beyond (never below 10,001, so a client can tell the two apart).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createPool } from '../../lib/db.ts';
import { EXACT_TOTAL_LIMIT, filteredTotal } from '../../sql/pagination.ts';
import { createTestDatabase } from '../../fixtures/database.ts';

test('the total is exact up to 10,000 rows and the planner estimate beyond', async () => {
  const db = await createTestDatabase();
  const pool = createPool(db.url, { max: 2 });
  try {
    await pool.query('create table listed (id int primary key, grp int not null)');
    await pool.query('insert into listed select g, case when g <= 12000 then 1 else 2 end from generate_series(1, 12500) g');
    await pool.query('analyze listed');
    const grp = (n: number) => filteredTotal(pool, 'listed', ['grp = $1'], [n]);

    assert.is(await grp(2), 500, 'exact below the limit');
    assert.is(await grp(3), 0);
    const estimated = await grp(1);
    assert.ok(estimated > EXACT_TOTAL_LIMIT, `an estimate above the limit: ${estimated}`);
    assert.ok(Math.abs(estimated - 12000) < 1200, `close to the 12,000 rows: ${estimated}`);
    assert.is(await filteredTotal(pool, 'listed', ['grp = $1', 'id <= $2'], [1, EXACT_TOTAL_LIMIT]), EXACT_TOTAL_LIMIT, 'exactly the limit is exact');

    // The estimate follows the statistics, not the rows: a set that shrank below the limit is exact at once.
    await pool.query('delete from listed where grp = 1 and id > 9000');
    assert.is(await grp(1), 9000);
  } finally {
    await pool.end();
    await db.drop();
  }
});

test.run();
