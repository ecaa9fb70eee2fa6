/**
 * Receiving an uploaded record file: read the one `file` part and parse it into what the tenant's
 * `uploads` row stores: `uploaded` with its records or, when the file cannot be used, `failed` with
 * the reason. The upload resource as both surfaces' routes answer it.
 */
import { z } from 'zod';
import type { Request } from 'express';
import { sha256Hex } from '../../../lib/crypto.ts';
import type { NewUpload, UploadRow } from '../../../sql/tenant/uploads.ts';
import { iso } from '../../../lib/isoTimestamp.ts';
import { readSingleFile } from './multipart.ts';
import { parseRecordFile } from './recordFile.ts';

export const uploadSchema = z
  .object({
    id: z.uuid(),
    status: z.enum(['uploaded', 'failed', 'committed']).describe('`uploaded`: valid and waiting for commit; `failed`: see error_detail'),
    filename: z.string(),
    format: z.enum(['csv', 'xlsx']).nullable(),
    byte_size: z.number().int(),
    sha256: z.string(),
    row_count: z.number().int().describe('Data rows below the header'),
    duplicate_rows: z.number().int().describe('Rows repeating an earlier (source, external_id) of the file; the later row wins'),
    ignored_columns: z.array(z.string()).describe('Header columns that are not record fields'),
    error_detail: z.string().nullable().describe('Why the file cannot be used (line or row, and column)'),
    source_id: z.uuid().nullable(),
    dataset_id: z.uuid().nullable().describe('The dataset version created by committing it'),
    created_at: z.iso.datetime(),
    committed_at: z.iso.datetime().nullable(),
  })
  .meta({ title: 'Upload' });

export const uploadBody = (u: UploadRow): z.output<typeof uploadSchema> => ({
  id: u.id,
  status: u.status,
  filename: u.filename,
  format: u.format,
  byte_size: u.byte_size,
  sha256: u.sha256,
  row_count: u.row_count,
  duplicate_rows: u.duplicate_rows,
  ignored_columns: u.ignored_columns,
  error_detail: u.error_detail,
  source_id: u.source_id,
  dataset_id: u.dataset_id,
  created_at: iso(u.created_at)!,
  committed_at: iso(u.committed_at),
});

/** Reads and parses the request's file: what `insertUpload` stores, besides who sent it and where. */
export async function receiveUpload(req: Request): Promise<Omit<NewUpload, 'uploadedBy' | 'sourceId'>> {
  const file = await readSingleFile(req);
  const parsed = await parseRecordFile(file.filename, file.data);
  return {
    filename: file.filename.slice(0, 255),
    format: parsed.format,
    byteSize: file.data.length,
    sha256: sha256Hex(file.data),
    outcome: parsed.ok
      ? { ok: true, records: parsed.records, rows: parsed.rows, duplicates: parsed.duplicates, ignoredColumns: parsed.ignored_columns }
      : { ok: false, reason: parsed.reason },
  };
}
