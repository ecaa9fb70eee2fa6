/**
 * The ingest record (CONTRACT): `external_id`, `title` and `source` required; `narrative` (or its
 * deprecated alias `body`), `occurred_at` and `severity` optional. Severity defaults to medium.
 */
import { z } from 'zod';
import type { IssueInput } from '../../../sql/issues.ts';
import { DEFAULT_SEVERITY, narrativeInput, severityInput, timestampInput } from '../issues/schemas.ts';

/** Records in one batch (POST /v1/ingest/batch, and the batches of `svc ingest`). */
export const MAX_BATCH = 500;

export const ingestRecordSchema = z.object({
  external_id: z.string({ error: 'is required' }).trim().min(1, 'must not be empty').max(256, 'must be at most 256 characters'),
  title: z.string({ error: 'is required' }).trim().min(1, 'must not be empty').max(1000, 'must be at most 1000 characters'),
  source: z.string({ error: 'is required' }).trim().min(1, 'must not be empty').max(100, 'must be at most 100 characters'),
  narrative: narrativeInput.nullish(),
  body: narrativeInput.nullish().describe('Deprecated alias of narrative'),
  occurred_at: timestampInput.nullish(),
  severity: severityInput.nullish(),
});
export type IngestRecord = z.output<typeof ingestRecordSchema>;

export function toIssueInput(record: IngestRecord): IssueInput {
  const narrative = record.narrative ?? record.body ?? null;
  return {
    source: record.source,
    external_id: record.external_id,
    title: record.title,
    narrative: narrative && narrative.trim() ? narrative : null,
    severity: record.severity ?? DEFAULT_SEVERITY,
    occurred_at: record.occurred_at ?? null,
  };
}

export interface RecordError {
  field: string;
  message: string;
}

/** One record judged as the batch endpoint judges it: the issue input, or its errors by field. */
export function validateIngestRecord(value: unknown): { ok: true; input: IssueInput } | { ok: false; errors: RecordError[] } {
  const parsed = ingestRecordSchema.safeParse(value);
  if (parsed.success) return { ok: true, input: toIssueInput(parsed.data) };
  return { ok: false, errors: parsed.error.issues.map((i) => ({ field: i.path.map(String).join('.') || 'record', message: i.message })) };
}
