/**
 * A tenant's training configuration (the engine's cluster settings) and data policy, one row each
 * inside its schema. Without a row the defaults apply: the engine's shipped cluster config, and a
 * policy that keeps every record unredacted.
 */
import type { Queryable } from '../../lib/db.ts';
import { configDefinitions } from '../../engine/config/index.ts';
import type { ClusterConfig } from '../../engine/config/cluster.ts';
import { configVersionId } from '../configs.ts';

export interface TrainingConfig {
  document: ClusterConfig;
  /** SHA-256 of the canonical document: the `config_hash` of train job keys and checkpoints. */
  config_hash: string;
  updated_at: Date | null;
}

export interface DataPolicy {
  retention_days: number | null;
  redact_pii: boolean;
  updated_at: Date | null;
}

function defaultTrainingConfig(): TrainingConfig {
  const document = configDefinitions.cluster.defaults;
  return { document, config_hash: configVersionId(document), updated_at: null };
}

export async function trainingConfig(db: Queryable): Promise<TrainingConfig> {
  const { rows } = await db.query<TrainingConfig>('select document, config_hash, updated_at from training_config');
  return rows[0] ?? defaultTrainingConfig();
}

export async function saveTrainingConfig(db: Queryable, document: ClusterConfig, updatedBy: string): Promise<TrainingConfig> {
  const { rows } = await db.query<TrainingConfig>(
    `insert into training_config (document, config_hash, updated_by) values ($1, $2, $3)
     on conflict (singleton) do update set document = excluded.document, config_hash = excluded.config_hash,
       updated_by = excluded.updated_by, updated_at = now()
     returning document, config_hash, updated_at`,
    [document, configVersionId(document), updatedBy],
  );
  return rows[0];
}

export async function dataPolicy(db: Queryable): Promise<DataPolicy> {
  const { rows } = await db.query<DataPolicy>('select retention_days, redact_pii, updated_at from data_policy');
  return rows[0] ?? { retention_days: null, redact_pii: false, updated_at: null };
}

export async function saveDataPolicy(db: Queryable, policy: { retention_days: number | null; redact_pii: boolean }, updatedBy: string): Promise<DataPolicy> {
  const { rows } = await db.query<DataPolicy>(
    `insert into data_policy (retention_days, redact_pii, updated_by) values ($1, $2, $3)
     on conflict (singleton) do update set retention_days = excluded.retention_days, redact_pii = excluded.redact_pii,
       updated_by = excluded.updated_by, updated_at = now()
     returning retention_days, redact_pii, updated_at`,
    [policy.retention_days, policy.redact_pii, updatedBy],
  );
  return rows[0];
}
