/**
 * Model checkpoints of a tenant (inside its schema): one per successful training, with its metrics
 * and the insight collection it materialised. At most one is active.
 */
import type { Queryable } from '../../lib/db.ts';

export interface CheckpointMetrics {
  records: number;
  records_without_narrative: number;
  records_outside_retention: number;
  k: number;
  silhouette: number | null;
  patterns: number;
  unclustered: number;
  stability: Record<string, number>;
}

export interface CheckpointRow {
  id: string;
  model_version: number;
  dataset_id: string;
  dataset_version: number;
  config_hash: string;
  config: Record<string, unknown>;
  engine_version: string;
  metrics: CheckpointMetrics;
  job_run_id: string | null;
  active: boolean;
  created_at: Date;
  activated_at: Date | null;
}

const columns = 'id, model_version, dataset_id, dataset_version, config_hash, config, engine_version, metrics, job_run_id, active, created_at, activated_at';

export async function insertCheckpoint(
  db: Queryable,
  c: { datasetId: string; datasetVersion: number; configHash: string; config: unknown; engineVersion: string; metrics: CheckpointMetrics; jobRunId: string },
): Promise<CheckpointRow> {
  const { rows } = await db.query<CheckpointRow>(
    `insert into checkpoints (dataset_id, dataset_version, config_hash, config, engine_version, metrics, job_run_id)
     values ($1, $2, $3, $4, $5, $6, $7) returning ${columns}`,
    [c.datasetId, c.datasetVersion, c.configHash, c.config, c.engineVersion, c.metrics, c.jobRunId],
  );
  return rows[0];
}

export async function listCheckpoints(db: Queryable): Promise<CheckpointRow[]> {
  const { rows } = await db.query<CheckpointRow>(`select ${columns} from checkpoints order by model_version`);
  return rows;
}

export async function checkpointOfJobRun(db: Queryable, jobRunId: string): Promise<CheckpointRow | null> {
  const { rows } = await db.query<CheckpointRow>(`select ${columns} from checkpoints where job_run_id = $1`, [jobRunId]);
  return rows[0] ?? null;
}

export async function latestCheckpoint(db: Queryable): Promise<CheckpointRow | null> {
  const { rows } = await db.query<CheckpointRow>(`select ${columns} from checkpoints order by model_version desc limit 1`);
  return rows[0] ?? null;
}

/**
 * Makes `id` the one active checkpoint; null when it does not exist. Activations are serialised by
 * a table lock that readers do not wait for, so two of them never both keep a checkpoint active.
 */
export async function activateCheckpoint(db: Queryable, id: string): Promise<CheckpointRow | null> {
  await db.query('lock table checkpoints in share row exclusive mode');
  const { rows: target } = await db.query<{ id: string; active: boolean }>('select id, active from checkpoints where id::text = $1', [id]);
  if (!target[0]) return null;
  if (!target[0].active) {
    await db.query('update checkpoints set active = false where active');
    await db.query('update checkpoints set active = true, activated_at = now() where id = $1', [target[0].id]);
  }
  const { rows } = await db.query<CheckpointRow>(`select ${columns} from checkpoints where id = $1`, [target[0].id]);
  return rows[0];
}

export async function hasActiveCheckpoint(db: Queryable): Promise<boolean> {
  const { rows } = await db.query('select 1 from checkpoints where active');
  return rows.length > 0;
}
