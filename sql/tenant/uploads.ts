/**
 * Uploaded record files of a tenant (inside its schema). An upload is parsed when it arrives and
 * keeps its records until a commit turns them into a dataset version.
 */
import type { Queryable } from '../../lib/db.ts';
import { recordTenantAudit } from './audit.ts';

export type UploadStatus = 'uploaded' | 'failed' | 'committed';

export interface UploadRow {
  id: string;
  source_id: string | null;
  filename: string;
  format: 'csv' | 'xlsx' | null;
  byte_size: number;
  sha256: string;
  status: UploadStatus;
  row_count: number;
  duplicate_rows: number;
  ignored_columns: string[];
  error_detail: string | null;
  created_at: Date;
  committed_at: Date | null;
  dataset_id: string | null;
}

export interface NewUpload {
  sourceId?: string | null;
  filename: string;
  format: 'csv' | 'xlsx' | null;
  byteSize: number;
  sha256: string;
  uploadedBy: { type: 'employee' | 'user'; id: string };
  /** A parsed file, or the reason it could not be read. */
  outcome: { ok: true; records: unknown[]; rows: number; duplicates: number; ignoredColumns: string[] } | { ok: false; reason: string };
}

const columns = `u.id, u.source_id, u.filename, u.format, u.byte_size, u.sha256, u.status, u.row_count, u.duplicate_rows,
  u.ignored_columns, u.error_detail, u.created_at, u.committed_at, (select d.id from datasets d where d.upload_id = u.id) as dataset_id`;

export async function insertUpload(db: Queryable, upload: NewUpload): Promise<UploadRow> {
  const o = upload.outcome;
  const { rows } = await db.query<{ id: string }>(
    `insert into uploads (source_id, filename, format, byte_size, sha256, status, row_count, duplicate_rows, ignored_columns,
                          error_detail, records, uploaded_by_type, uploaded_by)
     values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13) returning id`,
    [
      upload.sourceId ?? null,
      upload.filename,
      upload.format,
      upload.byteSize,
      upload.sha256,
      o.ok ? 'uploaded' : 'failed',
      o.ok ? o.rows : 0,
      o.ok ? o.duplicates : 0,
      o.ok ? o.ignoredColumns : [],
      o.ok ? null : o.reason,
      o.ok ? JSON.stringify(o.records) : null,
      upload.uploadedBy.type,
      upload.uploadedBy.id,
    ],
  );
  await recordTenantAudit(db, {
    action: o.ok ? 'upload_received' : 'upload_failed',
    actorType: upload.uploadedBy.type,
    actorId: upload.uploadedBy.id,
    resourceType: 'upload',
    resourceId: rows[0].id,
    metadata: { filename: upload.filename, source_id: upload.sourceId ?? null, rows: o.ok ? o.rows : 0 },
  });
  return (await findUpload(db, rows[0].id))!;
}

export async function findUpload(db: Queryable, id: string): Promise<UploadRow | null> {
  const { rows } = await db.query<UploadRow>(`select ${columns} from uploads u where u.id::text = $1`, [id]);
  return rows[0] ?? null;
}

/** The upload, locked until the end of the transaction (two commits of one upload run one by one). */
export async function lockUpload(db: Queryable, id: string): Promise<UploadRow | null> {
  const { rows } = await db.query<UploadRow>(`select ${columns} from uploads u where u.id::text = $1 for update of u`, [id]);
  return rows[0] ?? null;
}
