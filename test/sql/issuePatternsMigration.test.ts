/**
 * Migration 000191 on a database that has issues: the patterns move to `issue_patterns`, the view
 * `issues` shows the same rows, and the stored version and updated_at become what the fold now gives (an
 * assignment is not a change of the issue), so that a rebuild reproduces the migrated rows.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { runMigrations as runWorkerMigrations } from 'graphile-worker';
import { createPool } from '../../lib/db.ts';
import { createLogger } from '../../lib/logger.ts';
import { migrate, migrationFiles } from '../../sql/migrate.ts';
import { foldIssues } from '../../sql/projections.ts';
import type { StoredEvent } from '../../sql/events.ts';
import { createEmptyDatabase } from '../../fixtures/database.ts';

const MIGRATION = 191;

test('000191 moves the patterns out of the issue rows and brings version and updated_at in line with the fold', async () => {
  const db = await createEmptyDatabase();
  const pool = createPool(db.url, { max: 3 });
  try {
    // The schema as it was before the migration.
    await runWorkerMigrations({ pgPool: pool });
    await pool.query('create table schema_migrations (id integer primary key, name text not null, applied_at timestamptz not null default now())');
    for (const file of migrationFiles().filter((f) => f.id < MIGRATION)) {
      await pool.query(file.sql);
      await pool.query('insert into schema_migrations (id, name) values ($1, $2)', [file.id, file.name]);
    }
    const ws = (
      await pool.query<{ id: string }>(
        `with o as (insert into organizations (slug, name) values ('m', 'M') returning id)
         insert into workspaces (organization_id, name) select id, 'W' from o returning id`,
      )
    ).rows[0].id;
    const pattern = '11111111-1111-4111-8111-111111111111';
    const [assigned, plain] = ['aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa', 'bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb'];
    // Two issues as the old fold stored them: `assigned` was created (t1), assigned a pattern (t2, which
    // moved its version to 2 and updated_at to t2); `plain` was only created.
    const t1 = '2026-01-01T00:00:00.000Z';
    const t2 = '2026-01-02T00:00:00.000Z';
    const created = (id: string, seq: number) => [
      ws,
      seq,
      id,
      'issue.created',
      JSON.stringify({
        source: 'jira',
        external_id: id,
        title: `Issue ${id}`,
        narrative: 'disk full on node',
        severity: 'high',
        occurred_at: null,
        source_created_at: t1,
        engine_status: 'eligible',
        ineligible_reason: null,
        via: 'ingest',
      }),
      t1,
    ];
    const insertEvent = `insert into events (workspace_id, sequence, aggregate_type, aggregate_id, event_type, payload, actor_type, actor_id, occurred_at, recorded_at)
                         values ($1, $2, 'issue', $3, $4, $5, 'system', null, $6, $6)`;
    await pool.query(insertEvent, created(assigned, 1));
    await pool.query(insertEvent, created(plain, 2));
    await pool.query(insertEvent, [ws, 3, assigned, 'issue.pattern_assigned', JSON.stringify({ pattern_id: pattern, run_id: null }), t2]);
    await pool.query(`insert into workspace_event_counters (workspace_id, last_sequence) values ($1, 3)`, [ws]);
    for (const [id, patternId, version, updatedAt] of [
      [assigned, pattern, 2, t2],
      [plain, null, 1, t1],
    ] as const) {
      await pool.query(
        `insert into issues (id, workspace_id, source, external_id, title, narrative, severity, status, engine_status, source_created_at, pattern_id, created_at, updated_at, version)
         values ($1::uuid, $2, 'jira', $1::text, 'Issue ' || $1::text, 'disk full on node', 'high', 'open', 'eligible', $3, $4, $3, $5, $6)`,
        [id, ws, t1, patternId, updatedAt, version],
      );
    }

    const { applied } = await migrate(pool, createLogger('silent'));
    assert.equal(
      applied,
      migrationFiles()
        .filter((f) => f.id >= MIGRATION)
        .map((f) => f.name),
    );

    assert.equal((await pool.query('select issue_id, pattern_id from issue_patterns')).rows, [{ issue_id: assigned, pattern_id: pattern }]);
    const { rows } = await pool.query<{ id: string; pattern_id: string | null; version: number; updated_at: Date }>(
      'select id, pattern_id, version, updated_at from issues order by id',
    );
    assert.equal(
      rows.map((r) => ({ ...r, updated_at: r.updated_at.toISOString() })),
      [
        { id: assigned, pattern_id: pattern, version: 1, updated_at: t1 },
        { id: plain, pattern_id: null, version: 1, updated_at: t1 },
      ],
    );
    // What the fold gives from the log is what is stored.
    const events = (await pool.query<StoredEvent>('select * from events where workspace_id = $1 order by sequence', [ws])).rows;
    const folded = await foldIssues(events);
    for (const r of rows) {
      const f = folded.get(r.id)!;
      assert.equal([f.pattern_id, f.version, f.updated_at.toISOString()], [r.pattern_id, r.version, r.updated_at.toISOString()], r.id);
    }
  } finally {
    await pool.end();
    await db.drop();
  }
});

test.run();
