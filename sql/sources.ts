/**
 * Per-source ingest statistics computed from stored issues: counts by engine status and severity,
 * narrative coverage, first and last seen (when svc received them) and daily volume.
 */
import type { Queryable } from '../lib/db.ts';
import type { ListSource } from './pagination.ts';

export interface SourceStats {
  source: string;
  issue_count: number;
  by_engine_status: { eligible: number; blocked_no_narrative: number; ineligible: number };
  by_severity: { critical: number; high: number; medium: number; low: number };
  narrative_coverage: number;
  first_seen_at: Date;
  last_seen_at: Date;
}

/** The aggregate query over issues, grouped by source (or over all of them). */
export function sourceStatsSql(groupBySource: boolean): string {
  return `select ${groupBySource ? 'source' : "'*'::text as source"},
       count(*)::int as issue_count,
       jsonb_build_object(
         'eligible', count(*) filter (where engine_status = 'eligible'),
         'blocked_no_narrative', count(*) filter (where engine_status = 'blocked_no_narrative'),
         'ineligible', count(*) filter (where engine_status = 'ineligible')) as by_engine_status,
       jsonb_build_object(
         'critical', count(*) filter (where severity = 'critical'),
         'high', count(*) filter (where severity = 'high'),
         'medium', count(*) filter (where severity = 'medium'),
         'low', count(*) filter (where severity = 'low')) as by_severity,
       round(count(*) filter (where narrative is not null)::numeric / greatest(count(*), 1), 4)::float8 as narrative_coverage,
       min(created_at) as first_seen_at,
       max(created_at) as last_seen_at
     from issues where workspace_id = $1 ${groupBySource ? 'group by source' : ''}`;
}

/**
 * Issues received per UTC day over the last `days` days up to `now`, zero-filled, for each of
 * `sources`, or for all sources together (key `*`) when `sources` is null.
 */
export async function dailyVolume(
  db: Queryable,
  workspaceId: string,
  sources: string[] | null,
  days: number,
  now: Date,
): Promise<Map<string, Array<{ date: string; count: number }>>> {
  const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  const dates = Array.from({ length: days }, (_, i) => new Date(today - (days - 1 - i) * 86_400_000).toISOString().slice(0, 10));
  const { rows } = await db.query<{ source: string; day: string; count: number }>(
    `select ${sources ? 'source' : "'*'::text"} as source, to_char(created_at at time zone 'utc', 'YYYY-MM-DD') as day, count(*)::int as count
       from issues
      where workspace_id = $1 and ($2::text[] is null or source = any($2::text[])) and created_at >= $3 and created_at < $4
      group by 1, 2`,
    [workspaceId, sources, new Date(today - (days - 1) * 86_400_000), new Date(today + 86_400_000)],
  );
  const counts = new Map(rows.map((r) => [`${r.source}\u0000${r.day}`, r.count]));
  return new Map((sources ?? ['*']).map((source) => [source, dates.map((date) => ({ date, count: counts.get(`${source}\u0000${date}`) ?? 0 }))]));
}

/** The statistics over every source of a workspace together, and how many distinct sources there are. */
export async function workspaceSourceTotals(db: Queryable, workspaceId: string): Promise<{ stats: SourceStats; sources: number }> {
  const { rows } = await db.query<SourceStats & { sources: number }>(
    `select t.*, (select count(distinct source)::int from issues where workspace_id = $1) as sources from (${sourceStatsSql(false)}) t`,
    [workspaceId],
  );
  const { sources, ...stats } = rows[0];
  return { stats: stats as SourceStats, sources };
}

/** GET /v1/sources: the statistics of each source. */
export function sourceList(workspaceId: string): ListSource {
  return {
    select: '*',
    from: `(${sourceStatsSql(true)}) s`,
    where: [],
    params: [workspaceId],
    sortColumns: { issue_count: { expr: 'issue_count', type: 'integer' }, source: { expr: 'source', type: 'text' } },
    idExpr: 'source',
    idType: 'text',
  };
}
