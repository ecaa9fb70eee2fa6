/**
 * Materialised insight collections of a tenant (inside its schema): the patterns one checkpoint
 * found in one dataset version, written together with the checkpoint and never changed afterwards.
 * The snapshot is read in one statement, so it is always one (dataset_version, model_version) pair.
 */
import type { Queryable } from '../../lib/db.ts';
import type { CheckpointRow } from './checkpoints.ts';

export interface InsightPattern {
  pattern_id: string;
  name: string;
  size: number;
  risk_score: number;
  risk_components: { severity: number; recency: number; volume: number };
  top_terms: string[];
  /** Top centroid terms with their weights (what the next model matches its patterns against). */
  terms: Array<[string, number]>;
  severity_counts: Record<'critical' | 'high' | 'medium' | 'low', number>;
  stability: { jaccard: number | null; status: string };
  first_seen_at: string | null;
  last_seen_at: string | null;
  member_ids: string[];
  /** Null when the model produced no forecasts (trained before they existed). */
  forecast: PatternForecast | null;
}

/** A point estimate with its interval (at the collection's `interval_level`). */
export interface IntervalValue {
  estimate: number;
  lower: number;
  upper: number;
}

/** What the insights page shows of a pattern's recurrence model (engine stage 8). */
export type PatternForecast =
  | {
      status: 'fitted';
      model: 'weibull' | 'exponential';
      occurrences: number;
      last_occurrence_at: string;
      /** Days from the last occurrence to the model's as-of time. */
      since_last_days: number;
      /** Expected days from as-of to the next occurrence (mean residual life) and the interval of that mean. */
      expected_next_days: IntervalValue;
      /** as_of + expected_next_days (and its interval), ISO. */
      expected_next_at: { estimate: string; lower: string; upper: string };
      /** P(a recurrence within the collection's `recurrence_horizon_days`), 0-1. */
      recurrence_probability: IntervalValue;
      /** h(t) per day, t days after an occurrence, with pointwise intervals. */
      hazard_curve: { times_days: number[]; hazard: number[]; lower: number[]; upper: number[] };
    }
  | { status: 'not_fitted'; reason: 'no_timestamps' | 'insufficient_events' | 'dormant'; detail: string; occurrences: number };

/** Collection-wide forecast settings; null when the model produced no forecasts. */
export interface CollectionForecasts {
  as_of: string;
  interval_level: number;
  recurrence_horizon_days: number;
}

/** A record behind a pattern, as the insights page lists it. */
export interface InsightRecord {
  id: string;
  source: string;
  external_id: string;
  title: string;
  severity: string;
  occurred_at: string | null;
}

/** How many of a pattern's records the snapshot carries (most recent first); `size` counts them all. */
export const SNAPSHOT_RECORDS_PER_PATTERN = 10;

export async function insertInsightCollection(
  db: Queryable,
  checkpoint: CheckpointRow,
  collection: { recordCount: number; clusteredCount: number; forecasts: CollectionForecasts | null; patterns: InsightPattern[] },
): Promise<void> {
  const { rows } = await db.query<{ id: string }>(
    `insert into insight_collections (checkpoint_id, dataset_version, model_version, record_count, clustered_count, forecasts)
     values ($1, $2, $3, $4, $5, $6) returning id`,
    [checkpoint.id, checkpoint.dataset_version, checkpoint.model_version, collection.recordCount, collection.clusteredCount, collection.forecasts],
  );
  if (!collection.patterns.length) return;
  await db.query(
    `insert into insight_patterns (collection_id, pattern_id, rank, name, size, risk_score, risk_components, top_terms, terms,
                                   severity_counts, stability, first_seen_at, last_seen_at, member_ids, forecast)
     select $1, p.pattern_id, p.rank, p.name, p.size, p.risk_score, p.risk_components, p.top_terms, p.terms,
            p.severity_counts, p.stability, p.first_seen_at, p.last_seen_at, p.member_ids, p.forecast
       from jsonb_to_recordset($2::jsonb) as p (pattern_id uuid, rank int, name text, size int, risk_score int, risk_components jsonb,
            top_terms text[], terms jsonb, severity_counts jsonb, stability jsonb, first_seen_at timestamptz, last_seen_at timestamptz, member_ids uuid[],
            forecast jsonb)`,
    [rows[0].id, JSON.stringify(collection.patterns.map((p, rank) => ({ ...p, rank: rank + 1 })))],
  );
}

/** Patterns of the latest checkpoint's collection, for matching the next model's patterns to them. */
export async function previousModelPatterns(
  db: Queryable,
  checkpointId: string,
): Promise<Array<{ id: string; member_ids: string[]; terms: Array<[string, number]> }>> {
  const { rows } = await db.query<{ id: string; member_ids: string[]; terms: Array<[string, number]> }>(
    `select p.pattern_id as id, p.member_ids, p.terms from insight_patterns p
       join insight_collections c on c.id = p.collection_id where c.checkpoint_id = $1 order by p.rank`,
    [checkpointId],
  );
  return rows;
}

export interface InsightSnapshot {
  checkpoint_id: string;
  dataset_version: number;
  model_version: number;
  trained_at: Date;
  activated_at: Date | null;
  record_count: number;
  clustered_count: number;
  forecasts: CollectionForecasts | null;
  /** `records` and `forecast` are absent when read with `details: false`. */
  patterns: Array<
    Omit<InsightPattern, 'terms' | 'member_ids' | 'forecast'> & { rank: number; forecast?: InsightPattern['forecast']; records?: InsightRecord[] }
  >;
}

/**
 * The active checkpoint's collection with its patterns (highest risk first), each with its
 * SNAPSHOT_RECORDS_PER_PATTERN most recent records and its forecast, in one statement. With
 * `details: false` (the list view) the patterns come without records and forecast: no member join,
 * and about a tenth of the bytes. With `patternId`, only that pattern (none when it is not in it).
 */
export async function activeInsightSnapshot(db: Queryable, options: { details?: boolean; patternId?: string } = {}): Promise<InsightSnapshot | null> {
  const { rows } = await db.query<InsightSnapshot>(
    `select k.id as checkpoint_id, c.dataset_version, c.model_version, k.created_at as trained_at, k.activated_at,
            c.record_count, c.clustered_count, c.forecasts,
            coalesce((select jsonb_agg(jsonb_build_object(
                        'pattern_id', p.pattern_id, 'rank', p.rank, 'name', p.name, 'size', p.size, 'risk_score', p.risk_score,
                        'risk_components', p.risk_components, 'top_terms', p.top_terms, 'severity_counts', p.severity_counts,
                        'stability', p.stability, 'first_seen_at', p.first_seen_at, 'last_seen_at', p.last_seen_at)
                      || case when $2 then jsonb_build_object(
                        'forecast', p.forecast,
                        'records', coalesce((
                          select jsonb_agg(jsonb_build_object('id', r.record_id, 'source', r.source, 'external_id', r.external_id,
                                   'title', r.title, 'severity', r.severity, 'occurred_at', r.occurred_at)
                                   order by r.occurred_at desc nulls last, r.external_id)
                            from (select d.* from unnest(p.member_ids) as m (record_id)
                                   join dataset_records d on d.dataset_id = k.dataset_id and d.record_id = m.record_id
                                   order by d.occurred_at desc nulls last, d.external_id limit $1) r), '[]'::jsonb))
                        else '{}'::jsonb end
                        order by p.risk_score desc, p.rank)
                        from insight_patterns p where p.collection_id = c.id and ($3::uuid is null or p.pattern_id = $3::uuid)), '[]'::jsonb) as patterns
       from checkpoints k join insight_collections c on c.checkpoint_id = k.id
      where k.active`,
    [SNAPSHOT_RECORDS_PER_PATTERN, options.details ?? true, options.patternId ?? null],
  );
  return rows[0] ?? null;
}
