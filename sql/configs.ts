/**
 * The config registry: immutable, content-addressed versions per workspace and kind (id = SHA-256 of
 * the canonical JSON). The active version is the explicitly activated one, else the newest, else the
 * shipped default (engine/config). Creating and activating versions are events (aggregate `config`),
 * added to the transaction's event batch.
 */
import { canonicalJson, sha256Hex } from '../lib/crypto.ts';
import type { Queryable } from '../lib/db.ts';
import { configDefinitions, configKinds, type ConfigDocuments, type ConfigKind } from '../engine/config/index.ts';
import type { Actor, EventBatch } from './events.ts';

export interface ConfigVersionRow {
  workspace_id: string;
  kind: ConfigKind;
  id: string;
  document: unknown;
  created_by: string | null;
  created_at: Date;
}

export interface ActiveConfig<K extends ConfigKind = ConfigKind> {
  kind: K;
  id: string;
  document: ConfigDocuments[K];
  /** `explicit` activation, the `newest` version, or the shipped `default`. */
  source: 'explicit' | 'newest' | 'default';
  created_at: Date | null;
}

export const configVersionId = (document: unknown) => sha256Hex(canonicalJson(document));

/** The event-log aggregate of a kind: a stable UUID derived from the kind's name. */
export function configAggregateId(kind: ConfigKind): string {
  const h = sha256Hex(`config:${kind}`);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-5${h.slice(13, 16)}-8${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

// Any positive int4, constant across processes: the class of the per-kind config locks.
const CONFIG_LOCK_CLASS = 7_305_118;

/**
 * Serialises the writers of one kind's versions and activation until commit. Taken first, like the row
 * locks of other writers (the event counter comes last), so that the `created_at` order, which decides
 * the newest version, is also the order of the config.* events.
 */
async function lockConfigKind(db: Queryable, workspaceId: string, kind: ConfigKind): Promise<void> {
  await db.query('select pg_advisory_xact_lock($1, hashtext($2))', [CONFIG_LOCK_CLASS, `${workspaceId}:${kind}`]);
}

export async function createConfigVersion(
  db: Queryable,
  events: EventBatch,
  kind: ConfigKind,
  document: unknown,
  actor: Actor,
): Promise<{ version: ConfigVersionRow; created: boolean }> {
  const workspaceId = events.workspaceId;
  await lockConfigKind(db, workspaceId, kind);
  const id = configVersionId(document);
  const inserted = await db.query<ConfigVersionRow>(
    `insert into config_versions (workspace_id, kind, id, document, created_by) values ($1, $2, $3, $4, $5)
     on conflict (workspace_id, kind, id) do nothing returning *`,
    [workspaceId, kind, id, JSON.stringify(document), actor.id],
  );
  if (!inserted.rows[0]) return { version: (await findConfigVersion(db, workspaceId, kind, id))!, created: false };
  events.add(actor, [
    { aggregateType: 'config', aggregateId: configAggregateId(kind), eventType: 'config.version_created', payload: { kind, version_id: id } },
  ]);
  return { version: inserted.rows[0], created: true };
}

export async function findConfigVersion(db: Queryable, workspaceId: string, kind: ConfigKind, id: string): Promise<ConfigVersionRow | null> {
  const { rows } = await db.query<ConfigVersionRow>('select * from config_versions where workspace_id = $1 and kind = $2 and id = $3', [workspaceId, kind, id]);
  return rows[0] ?? null;
}

export async function configHistory(db: Queryable, workspaceId: string, kind: ConfigKind): Promise<ConfigVersionRow[]> {
  const { rows } = await db.query<ConfigVersionRow>('select * from config_versions where workspace_id = $1 and kind = $2 order by created_at desc, id', [
    workspaceId,
    kind,
  ]);
  return rows;
}

export async function activateConfigVersion(db: Queryable, events: EventBatch, kind: ConfigKind, id: string, actor: Actor): Promise<void> {
  const workspaceId = events.workspaceId;
  await lockConfigKind(db, workspaceId, kind);
  await db.query(
    `insert into config_activations (workspace_id, kind, version_id, activated_by) values ($1, $2, $3, $4)
     on conflict (workspace_id, kind) do update set version_id = excluded.version_id, activated_by = excluded.activated_by, activated_at = now()`,
    [workspaceId, kind, id, actor.id],
  );
  events.add(actor, [{ aggregateType: 'config', aggregateId: configAggregateId(kind), eventType: 'config.activated', payload: { kind, version_id: id } }]);
}

export function defaultConfig<K extends ConfigKind>(kind: K): ActiveConfig<K> {
  const document = configDefinitions[kind].defaults as ConfigDocuments[K];
  return { kind, id: configVersionId(document), document, source: 'default', created_at: null };
}

export async function activeConfig<K extends ConfigKind>(db: Queryable, workspaceId: string, kind: K): Promise<ActiveConfig<K>> {
  const { rows } = await db.query<ConfigVersionRow & { explicit: boolean }>(
    `select * from (
       select v.*, true as explicit from config_activations a
         join config_versions v on v.workspace_id = a.workspace_id and v.kind = a.kind and v.id = a.version_id
        where a.workspace_id = $1 and a.kind = $2
       union all
       (select v.*, false from config_versions v where v.workspace_id = $1 and v.kind = $2 order by v.created_at desc, v.id limit 1)
     ) candidates order by explicit desc limit 1`,
    [workspaceId, kind],
  );
  const row = rows[0];
  if (!row) return defaultConfig(kind);
  return { kind, id: row.id, document: row.document as ConfigDocuments[K], source: row.explicit ? 'explicit' : 'newest', created_at: row.created_at };
}

/** The active version of every kind (what an engine run freezes). */
export async function activeConfigs(db: Queryable, workspaceId: string): Promise<{ [K in ConfigKind]: ActiveConfig<K> }> {
  // Sequential: `db` may be a client inside a transaction, which runs one query at a time.
  const entries: Array<[ConfigKind, ActiveConfig]> = [];
  for (const kind of configKinds) entries.push([kind, await activeConfig(db, workspaceId, kind)]);
  return Object.fromEntries(entries) as { [K in ConfigKind]: ActiveConfig<K> };
}
