/**
 * What partitioning the event log by workspace would buy, measured (issue 32): the same events, with
 * the columns and indexes of `events` (sql/migrations/000003), in three tables of one scratch database,
 * loaded identically: `plain` (today's table), `hash` (16 hash partitions on workspace_id) and `list`
 * (one list partition per workspace, what pg_partman-style management or an offboarding drop would
 * use). For each: load rate, bytes per event (heap + indexes), concurrent appends (4 clients, batches
 * of 500 events to one workspace each, the ingest path's shape: the next sequence of that workspace),
 * a feed page (`sequence > $n order by sequence limit 100`), a whole workspace's log read (what an
 * engine run's snapshot reads) and removing one workspace's history: `delete` on the plain and hash
 * tables against `drop` of its partition, with the time and the WAL each writes. Ratios are against
 * the plain table in the same run; docs/deployment.md reads the decision off them.
 *
 *   npm run bench:partitioning [-- --events 1000000 --workspaces 32 --seconds 15 --reads 1000]
 */
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { createEmptyDatabase } from '../fixtures/database.ts';
import { benchArgs } from './args.ts';
import { fmt, intFlag, median, percentile, table } from './measure.ts';

const { values: flags } = benchArgs(import.meta.url, {
  options: {
    events: { type: 'string', default: '1000000' },
    workspaces: { type: 'string', default: '32' },
    seconds: { type: 'string', default: '15' },
    reads: { type: 'string', default: '1000' },
  },
});
const EVENTS = intFlag('events', flags.events);
const WORKSPACES = intFlag('workspaces', flags.workspaces);
const APPEND_SECONDS = intFlag('seconds', flags.seconds);
const READS = intFlag('reads', flags.reads);
const LOAD_CHUNK = 50_000;
const APPEND_BATCH = 500;

type Layout = 'plain' | 'hash' | 'list';
const LAYOUTS: Layout[] = ['plain', 'hash', 'list'];
const log = (line = '') => process.stdout.write(`${line}\n`);
const now = () => performance.now();

const columns = `workspace_id uuid not null, sequence bigint not null, id uuid not null default gen_random_uuid(),
  aggregate_type text not null, aggregate_id uuid not null, event_type text not null, payload jsonb not null,
  actor_type text not null, actor_id text, occurred_at timestamptz not null default now(),
  recorded_at timestamptz not null default now()`;

// A partitioned table's unique constraints must include the partition key: `id` is unique per workspace
// there (it is a random UUID either way), on the plain table as today.
function ddl(layout: Layout, workspaceIds: string[]): string[] {
  const t = `events_${layout}`;
  if (layout === 'plain')
    return [
      `create table ${t} (${columns}, primary key (workspace_id, sequence), unique (id))`,
      `create index on ${t} (workspace_id, aggregate_type, aggregate_id, sequence)`,
    ];
  const parent = `create table ${t} (${columns}, primary key (workspace_id, sequence), unique (workspace_id, id)) partition by ${layout} (workspace_id)`;
  const parts =
    layout === 'hash'
      ? Array.from({ length: 16 }, (_, i) => `create table ${t}_${i} partition of ${t} for values with (modulus 16, remainder ${i})`)
      : workspaceIds.map((w, i) => `create table ${t}_${i} partition of ${t} for values in ('${w}')`);
  return [parent, ...parts, `create index on ${t} (workspace_id, aggregate_type, aggregate_id, sequence)`];
}

// An issue.created event of ~400 bytes of payload, as ingest writes them.
const insertEvents = (t: string) => `
  insert into ${t} (workspace_id, sequence, aggregate_type, aggregate_id, event_type, payload, actor_type, actor_id)
  select $1::uuid, s, 'issue', gen_random_uuid(), 'issue.created',
    jsonb_build_object('external_id', 'ext-' || s, 'title', 'Connection reset while reading block ' || s,
      'narrative', repeat('The datanode closed the stream before the client finished reading; ', 4),
      'severity', 'high', 'source', 'bench', 'occurred_at', now()),
    'principal', 'bench'
  from generate_series($2::bigint, $3::bigint) s`;

async function walBytes(db: pg.Client, work: () => Promise<unknown>): Promise<{ ms: number; wal: number }> {
  const before = (await db.query('select pg_current_wal_insert_lsn() as l')).rows[0].l;
  const t0 = now();
  await work();
  const ms = now() - t0;
  const after = (await db.query(`select pg_wal_lsn_diff(pg_current_wal_insert_lsn(), $1) as d`, [before])).rows[0].d;
  return { ms, wal: Number(after) };
}

async function main() {
  const os = await import('node:os');
  log(
    `# Partitioning the event log: ${EVENTS.toLocaleString('en-US')} events over ${WORKSPACES} workspaces; load average ${os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
  );
  const database = await createEmptyDatabase();
  const db = new pg.Client({ connectionString: database.url });
  await db.connect();
  const workspaceIds = Array.from({ length: WORKSPACES }, () => randomUUID()).sort();
  const perWorkspace = Math.floor(EVENTS / WORKSPACES);
  const result: Record<Layout, Record<string, number>> = { plain: {}, hash: {}, list: {} };
  try {
    for (const layout of LAYOUTS) for (const statement of ddl(layout, workspaceIds)) await db.query(statement);

    // Load: the same chunks, layouts interleaved so drift on a shared machine hits all three.
    const loadMs: Record<Layout, number> = { plain: 0, hash: 0, list: 0 };
    for (const w of workspaceIds)
      for (let from = 1; from <= perWorkspace; from += LOAD_CHUNK) {
        const to = Math.min(perWorkspace, from + LOAD_CHUNK - 1);
        for (const layout of LAYOUTS) {
          const t0 = now();
          await db.query(insertEvents(`events_${layout}`), [w, from, to]);
          loadMs[layout] += now() - t0;
        }
      }
    for (const layout of LAYOUTS) {
      await db.query(`vacuum analyze events_${layout}`);
      const size = (
        await db.query(
          `select sum(pg_table_size(c.oid))::bigint as heap, sum(pg_indexes_size(c.oid))::bigint as idx
             from pg_class c where c.relname = $1 or c.oid in (select inhrelid from pg_inherits where inhparent = $1::regclass)`,
          [`events_${layout}`],
        )
      ).rows[0];
      result[layout].load = (perWorkspace * WORKSPACES) / (loadMs[layout] / 1000);
      result[layout].heapPerEvent = Number(size.heap) / (perWorkspace * WORKSPACES);
      result[layout].indexPerEvent = Number(size.idx) / (perWorkspace * WORKSPACES);
    }

    // Concurrent appends: 4 clients, each a transaction of 500 events to a workspace of its own turn.
    const next = new Map(workspaceIds.map((w) => [w, perWorkspace + 1]));
    for (const layout of LAYOUTS) {
      const clients = await Promise.all(
        Array.from({ length: 4 }, async () => {
          const c = new pg.Client({ connectionString: database.url });
          await c.connect();
          return c;
        }),
      );
      let appended = 0;
      let turn = 0;
      const until = now() + APPEND_SECONDS * 1000;
      await Promise.all(
        clients.map(async (c, i) => {
          while (now() < until) {
            const w = workspaceIds[(turn++ * 4 + i) % WORKSPACES];
            const from = next.get(w)!;
            next.set(w, from + APPEND_BATCH);
            await c.query(insertEvents(`events_${layout}`), [w, from, from + APPEND_BATCH - 1]);
            appended += APPEND_BATCH;
          }
        }),
      );
      result[layout].append = appended / APPEND_SECONDS;
      await Promise.all(clients.map((c) => c.end()));
    }

    // Reads, layouts interleaved: a feed page at a point of a workspace, prepared like the API's; then whole logs.
    const feed: Record<Layout, number[]> = { plain: [], hash: [], list: [] };
    const whole: Record<Layout, number[]> = { plain: [], hash: [], list: [] };
    for (let i = 0; i < READS; i++) {
      const w = workspaceIds[i % WORKSPACES];
      const after = (i * 7919) % perWorkspace;
      for (const layout of i % 2 ? [...LAYOUTS].reverse() : LAYOUTS) {
        const t0 = now();
        await db.query({
          name: `feed_${layout}`,
          text: `select sequence, aggregate_id, event_type, payload, recorded_at from events_${layout} where workspace_id = $1 and sequence > $2 order by sequence limit 100`,
          values: [w, after],
        });
        feed[layout].push(now() - t0);
      }
    }
    for (const w of workspaceIds.slice(0, 5))
      for (const layout of LAYOUTS) {
        const t0 = now();
        await db.query(`select sequence, event_type, payload from events_${layout} where workspace_id = $1 order by sequence`, [w]);
        whole[layout].push(now() - t0);
      }
    for (const layout of LAYOUTS) {
      const sorted = feed[layout].sort((a, b) => a - b);
      result[layout].feedP50 = percentile(sorted, 0.5);
      result[layout].feedP99 = percentile(sorted, 0.99);
      result[layout].wholeLog = median(whole[layout]);
    }

    // Removing one workspace's history (the last workspace; the same rows in every layout).
    const victim = workspaceIds[WORKSPACES - 1];
    const removed = next.get(victim)! - 1;
    for (const layout of ['plain', 'hash'] as const) {
      const r = await walBytes(db, async () => {
        await db.query(`delete from events_${layout} where workspace_id = $1`, [victim]);
        await db.query(`vacuum events_${layout}`);
      });
      result[layout].removeMs = r.ms;
      result[layout].removeWal = r.wal;
    }
    const dropped = await walBytes(db, async () => {
      await db.query(`alter table events_list detach partition events_list_${WORKSPACES - 1}`);
      await db.query(`drop table events_list_${WORKSPACES - 1}`);
    });
    result.list.removeMs = dropped.ms;
    result.list.removeWal = dropped.wal;

    const ratio = (layout: Layout, key: string, higherIsBetter: boolean) =>
      layout === 'plain' ? '1.00x' : `${fmt(higherIsBetter ? result[layout][key] / result.plain[key] : result.plain[key] / result[layout][key])}x`;
    const row = (label: string, key: string, unit: (n: number) => string, higherIsBetter: boolean) => [
      label,
      ...LAYOUTS.map((l) => `${unit(result[l][key])} (${ratio(l, key, higherIsBetter)})`),
    ];
    log();
    log(
      `Each cell: the figure (how it compares with the plain table; above 1x is better). Removal: ${removed.toLocaleString('en-US')} events of one workspace.`,
    );
    log(
      table(
        ['measure', 'plain', 'hash (16)', `list (${WORKSPACES})`],
        [
          row('bulk load, events/s', 'load', (n) => fmt(n, 0), true),
          row('heap bytes per event', 'heapPerEvent', (n) => fmt(n, 0), false),
          row('index bytes per event', 'indexPerEvent', (n) => fmt(n, 0), false),
          row('concurrent appends (4 × 500), events/s', 'append', (n) => fmt(n, 0), true),
          row('feed page p50, ms', 'feedP50', (n) => fmt(n, 3), false),
          row('feed page p99, ms', 'feedP99', (n) => fmt(n, 3), false),
          row("a workspace's whole log, ms", 'wholeLog', (n) => fmt(n, 1), false),
          row("remove a workspace's history, ms", 'removeMs', (n) => fmt(n, 1), false),
          row("remove a workspace's history, WAL MB", 'removeWal', (n) => fmt(n / 1e6, 2), false),
        ],
      ),
    );
  } finally {
    await db.end();
    await database.drop();
  }
}

await main();
