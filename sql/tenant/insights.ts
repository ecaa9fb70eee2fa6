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
}

export async function insertInsightCollection(
  db: Queryable,
  checkpoint: CheckpointRow,
  collection: { recordCount: number; clusteredCount: number; patterns: InsightPattern[] },
): Promise<void> {
  const { rows } = await db.query<{ id: string }>(
    `insert into insight_collections (checkpoint_id, dataset_version, model_version, record_count, clustered_count)
     values ($1, $2, $3, $4, $5) returning id`,
    [checkpoint.id, checkpoint.dataset_version, checkpoint.model_version, collection.recordCount, collection.clusteredCount],
  );
  if (!collection.patterns.length) return;
  await db.query(
    `insert into insight_patterns (collection_id, pattern_id, rank, name, size, risk_score, risk_components, top_terms, terms,
                                   severity_counts, stability, first_seen_at, last_seen_at, member_ids)
     select $1, p.pattern_id, p.rank, p.name, p.size, p.risk_score, p.risk_components, p.top_terms, p.terms,
            p.severity_counts, p.stability, p.first_seen_at, p.last_seen_at, p.member_ids
       from jsonb_to_recordset($2::jsonb) as p (pattern_id uuid, rank int, name text, size int, risk_score int, risk_components jsonb,
            top_terms text[], terms jsonb, severity_counts jsonb, stability jsonb, first_seen_at timestamptz, last_seen_at timestamptz, member_ids uuid[])`,
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
  patterns: Array<Omit<InsightPattern, 'terms' | 'member_ids'> & { rank: number }>;
}

/** The active checkpoint's collection with its patterns (highest risk first), in one statement. */
export async function activeInsightSnapshot(db: Queryable): Promise<InsightSnapshot | null> {
  const { rows } = await db.query<InsightSnapshot>(
    `select k.id as checkpoint_id, c.dataset_version, c.model_version, k.created_at as trained_at, k.activated_at,
            c.record_count, c.clustered_count,
            coalesce((select jsonb_agg(jsonb_build_object(
                        'pattern_id', p.pattern_id, 'rank', p.rank, 'name', p.name, 'size', p.size, 'risk_score', p.risk_score,
                        'risk_components', p.risk_components, 'top_terms', p.top_terms, 'severity_counts', p.severity_counts,
                        'stability', p.stability, 'first_seen_at', p.first_seen_at, 'last_seen_at', p.last_seen_at)
                        order by p.risk_score desc, p.rank)
                        from insight_patterns p where p.collection_id = c.id), '[]'::jsonb) as patterns
       from checkpoints k join insight_collections c on c.checkpoint_id = k.id
      where k.active`,
  );
  return rows[0] ?? null;
}
