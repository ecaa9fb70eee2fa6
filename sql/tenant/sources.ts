/**
 * A tenant's sources (inside its schema: every function takes a client scoped to the tenant).
 * Names are unique per tenant; `file_upload` sources take file uploads.
 */
import type { Queryable } from '../../lib/db.ts';
import { AppError } from '../../lib/errors.ts';
import { recordTenantAudit, type TenantActor } from './audit.ts';

export const sourceKinds = ['file_upload', 'api', 'webhook', 'email'] as const;
export type SourceKind = (typeof sourceKinds)[number];

export interface SourceRow {
  id: string;
  name: string;
  kind: SourceKind;
  config: Record<string, unknown>;
  created_at: Date;
  upload_count: number;
  last_upload_at: Date | null;
}

export interface NewSource {
  name: string;
  kind: SourceKind;
  config?: Record<string, unknown>;
  createdBy: TenantActor;
}

const select = `select s.id, s.name, s.kind, s.config, s.created_at,
       (select count(*)::int from uploads u where u.source_id = s.id) as upload_count,
       (select max(u.created_at) from uploads u where u.source_id = s.id) as last_upload_at
  from sources s`;

export async function listSources(db: Queryable): Promise<SourceRow[]> {
  const { rows } = await db.query<SourceRow>(`${select} order by s.created_at, s.id`);
  return rows;
}

export async function findSource(db: Queryable, id: string): Promise<SourceRow | null> {
  const { rows } = await db.query<SourceRow>(`${select} where s.id::text = $1`, [id]);
  return rows[0] ?? null;
}

/** 409 when the tenant already has a source of that name. */
export async function insertSource(db: Queryable, source: NewSource): Promise<SourceRow> {
  const { rows } = await db.query<{ id: string }>(
    `insert into sources (name, kind, config, created_by_type, created_by) values ($1, $2, $3, $4, $5)
     on conflict (name) do nothing returning id`,
    [source.name, source.kind, source.config ?? {}, source.createdBy.type, source.createdBy.id],
  );
  if (!rows[0]) throw new AppError('conflict', `A source named '${source.name}' already exists.`);
  await auditSourceCreated(db, rows[0].id, source);
  return (await findSource(db, rows[0].id))!;
}

/** Adds the sources whose names are not taken yet; returns every source of the tenant. */
/** The source every tenant gets by default, and under which staff's onboarding uploads are counted. */
export const HISTORICAL_IMPORT = { name: 'Historical import', kind: 'file_upload' as const };

/** The default source, created (as `seedSources` would) when the tenant does not have it. */
export async function historicalImportSource(db: Queryable, createdBy: NewSource['createdBy']): Promise<SourceRow> {
  const sources = await seedSources(db, [{ ...HISTORICAL_IMPORT, createdBy }]);
  return sources.find((s) => s.name === HISTORICAL_IMPORT.name)!;
}

export async function seedSources(db: Queryable, sources: NewSource[]): Promise<SourceRow[]> {
  for (const s of sources) {
    const { rows } = await db.query<{ id: string }>(
      `insert into sources (name, kind, config, created_by_type, created_by) values ($1, $2, $3, $4, $5) on conflict (name) do nothing returning id`,
      [s.name, s.kind, s.config ?? {}, s.createdBy.type, s.createdBy.id],
    );
    if (rows[0]) await auditSourceCreated(db, rows[0].id, s);
  }
  return listSources(db);
}

function auditSourceCreated(db: Queryable, id: string, source: NewSource): Promise<void> {
  return recordTenantAudit(db, {
    action: 'source_created',
    actorType: source.createdBy.type,
    actorId: source.createdBy.id,
    resourceType: 'source',
    resourceId: id,
    metadata: { name: source.name, kind: source.kind },
  });
}
