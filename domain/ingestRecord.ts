/**
 * The ingest record (CONTRACT): `external_id`, `title` and `source` required; `narrative` (or its
 * deprecated alias `body`), `occurred_at` and `severity` optional. Severity defaults to medium.
 * The one judge of a record for every way in: POST /v1/ingest/*, inbound webhooks, `http_pull`
 * connectors, tenant uploads and `svc ingest` (`validateIngestRecord`). Pure.
 */
import { z } from 'zod';
import { DEFAULT_SEVERITY, normalizeSeverity, severityInputs, type Severity } from './severity.ts';

/** An issue as ingest and POST /v1/issues write it. */
export interface IssueInput {
  source: string;
  external_id: string | null;
  title: string;
  narrative: string | null;
  severity: Severity;
  occurred_at: Date | null;
}

/** Severity on input: critical/high/medium/low or the aliases p1..p4 and sev1..sev4 (stored normalised). */
export const severityInput = z.string().transform((v, ctx) => {
  const normalized = normalizeSeverity(v);
  if (!normalized) {
    ctx.addIssue({ code: 'custom', message: `must be one of ${severityInputs.join(', ')}` });
    return z.NEVER;
  }
  return normalized;
});

// Year 0000 is ISO 8601 but has no PostgreSQL timestamp (which goes from 1 BC to 1 AD): refused here
// rather than failing the whole write.
export const timestampInput = z.iso
  .datetime({ offset: true, error: 'must be an ISO 8601 timestamp' })
  .transform((v) => new Date(v))
  .refine((d) => d.getUTCFullYear() >= 1, 'must be in the years 0001 to 9999');

export const narrativeInput = z.string().max(100_000, 'must be at most 100000 characters');

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

/**
 * One record judged as the batch endpoint judges it: the issue input, or its errors by field (`record`
 * for the record as a whole). `defaultSource` fills a missing `source` (a connector's name).
 */
export function validateIngestRecord(value: unknown, defaultSource?: string): { ok: true; input: IssueInput } | { ok: false; errors: RecordError[] } {
  const record = defaultSource !== undefined && value && typeof value === 'object' && !Array.isArray(value) ? { source: defaultSource, ...value } : value;
  const parsed = ingestRecordSchema.safeParse(record);
  if (parsed.success) return { ok: true, input: toIssueInput(parsed.data) };
  return { ok: false, errors: parsed.error.issues.map((i) => ({ field: i.path.map(String).join('.') || 'record', message: i.message })) };
}
