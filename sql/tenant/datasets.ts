/**
 * Versioned datasets of a tenant (inside its schema). Committing an upload creates version n + 1:
 * version n's records with the upload's merged in, the same (source, external_id) replacing the
 * earlier record. The data policy's PII redaction is applied to the upload's records on the way in.
 */
import type { Queryable } from '../../lib/db.ts';
import { recordTenantAudit, type TenantActor } from './audit.ts';
import type { UploadRow } from './uploads.ts';

export interface DatasetRow {
  id: string;
  version: number;
  upload_id: string;
  record_count: number;
  records_added: number;
  records_updated: number;
  created_at: Date;
}

const columns = 'id, version, upload_id, record_count, records_added, records_updated, created_at';

// Masked when the data policy says redact_pii: e-mail addresses, then phone-like digit runs.
const EMAIL_PATTERN = '[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\\.[A-Za-z]{2,}';
const PHONE_PATTERN = '\\+?[0-9][0-9 ().-]{6,}[0-9]';

export async function latestDataset(db: Queryable): Promise<DatasetRow | null> {
  const { rows } = await db.query<DatasetRow>(`select ${columns} from datasets order by version desc limit 1`);
  return rows[0] ?? null;
}

export async function findDataset(db: Queryable, id: string): Promise<DatasetRow | null> {
  const { rows } = await db.query<DatasetRow>(`select ${columns} from datasets where id = $1`, [id]);
  return rows[0] ?? null;
}

export async function datasetOfUpload(db: Queryable, uploadId: string): Promise<DatasetRow | null> {
  const { rows } = await db.query<DatasetRow>(`select ${columns} from datasets where upload_id = $1`, [uploadId]);
  return rows[0] ?? null;
}

/**
 * Turns an `uploaded` upload (locked by the caller) into the next dataset version and marks it
 * committed. Commits of one tenant are serialised by a lock on `datasets` (reads go on).
 */
export async function commitUpload(db: Queryable, upload: UploadRow, redactPii: boolean, actor: TenantActor): Promise<DatasetRow> {
  await db.query('lock table datasets in share row exclusive mode');
  const previous = await latestDataset(db);
  const { rows } = await db.query<{ id: string }>(
    `insert into datasets (version, upload_id, record_count, records_added, records_updated) values ($1, $2, 0, 0, 0) returning id`,
    [(previous?.version ?? 0) + 1, upload.id],
  );
  const datasetId = rows[0].id;
  const redact = (column: string) => `case when $3 then regexp_replace(regexp_replace(${column}, $4, '[email]', 'g'), $5, '[phone]', 'g') else ${column} end`;
  const { rows: counted } = await db.query<{ record_count: number; incoming: number; updated: number }>(
    `with incoming as (
       select r.source, r.external_id, ${redact('r.title')} as title, ${redact('r.narrative')} as narrative, r.severity, r.occurred_at
         from uploads u, jsonb_to_recordset(u.records) as r(source text, external_id text, title text, narrative text, severity text, occurred_at timestamptz)
        where u.id = $2),
     inserted as (
       insert into dataset_records (dataset_id, record_id, source, external_id, title, narrative, severity, occurred_at)
       select $1::uuid, coalesce(p.record_id, gen_random_uuid()), i.source, i.external_id, i.title, i.narrative, i.severity, i.occurred_at
         from incoming i left join dataset_records p on p.dataset_id = $6::uuid and p.source = i.source and p.external_id = i.external_id
       union all
       select $1::uuid, p.record_id, p.source, p.external_id, p.title, p.narrative, p.severity, p.occurred_at
         from dataset_records p
        where p.dataset_id = $6 and not exists (select 1 from incoming i where i.source = p.source and i.external_id = p.external_id)
       returning 1)
     select (select count(*) from inserted)::int as record_count,
            (select count(*) from incoming)::int as incoming,
            (select count(*) from incoming i join dataset_records p on p.dataset_id = $6 and p.source = i.source and p.external_id = i.external_id)::int as updated`,
    [datasetId, upload.id, redactPii, EMAIL_PATTERN, PHONE_PATTERN, previous?.id ?? null],
  );
  const c = counted[0];
  const { rows: done } = await db.query<DatasetRow>(
    `update datasets set record_count = $2, records_added = $3, records_updated = $4 where id = $1 returning ${columns}`,
    [datasetId, c.record_count, c.incoming - c.updated, c.updated],
  );
  await db.query(`update uploads set status = 'committed', committed_at = now(), records = null where id = $1`, [upload.id]);
  await recordTenantAudit(db, {
    action: 'upload_committed',
    actorType: actor.type,
    actorId: actor.id,
    resourceType: 'upload',
    resourceId: upload.id,
    metadata: { dataset_id: datasetId, dataset_version: done[0].version, record_count: done[0].record_count },
  });
  return done[0];
}

export interface TrainingRecord {
  record_id: string;
  title: string;
  narrative: string;
  severity: 'critical' | 'high' | 'medium' | 'low';
  source: string;
  occurred_at: Date | null;
}

/**
 * The records of a dataset version that training may use: those with a narrative, and when the data
 * policy sets a retention, those that occurred on or after `notBefore` (undated records are kept).
 * The others are only counted.
 */
export async function trainingRecords(
  db: Queryable,
  datasetId: string,
  notBefore: Date | null,
): Promise<{ records: TrainingRecord[]; withoutNarrative: number; outsideRetention: number }> {
  const { rows } = await db.query<TrainingRecord & { usable: boolean; dated_out: boolean }>(
    `select record_id, title, narrative, severity, source, occurred_at,
            coalesce(btrim(narrative), '') <> '' as usable,
            coalesce(occurred_at < $2::timestamptz, false) as dated_out
       from dataset_records where dataset_id = $1 order by record_id`,
    [datasetId, notBefore],
  );
  const records: TrainingRecord[] = [];
  let withoutNarrative = 0;
  let outsideRetention = 0;
  for (const { usable, dated_out, ...record } of rows) {
    if (dated_out) outsideRetention++;
    else if (!usable) withoutNarrative++;
    else records.push(record);
  }
  return { records, withoutNarrative, outsideRetention };
}

/**
 * What a retention period would leave of a dataset version: its records, those it keeps (occurred on or
 * after `notBefore`, or undated), and when the newest dated record occurred.
 */
export async function retentionReach(db: Queryable, datasetId: string, notBefore: Date): Promise<{ total: number; kept: number; newest: Date | null }> {
  const { rows } = await db.query<{ total: number; kept: number; newest: Date | null }>(
    `select count(*)::int as total, count(*) filter (where not coalesce(occurred_at < $2::timestamptz, false))::int as kept,
            max(occurred_at) as newest
       from dataset_records where dataset_id = $1`,
    [datasetId, notBefore],
  );
  return rows[0];
}
