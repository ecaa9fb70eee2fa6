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
const isoTimestamp = z.iso.datetime({ offset: true, error: 'must be an ISO 8601 timestamp' });
export const timestampInput = isoTimestamp.transform((v) => new Date(v)).refine((d) => d.getUTCFullYear() >= 1, 'must be in the years 0001 to 9999');

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
  const accepted = acceptedRecord(record);
  if (accepted) return { ok: true, input: accepted };
  const parsed = ingestRecordSchema.safeParse(record);
  if (parsed.success) return { ok: true, input: toIssueInput(parsed.data) };
  return { ok: false, errors: parsed.error.issues.map((i) => ({ field: i.path.map(String).join('.') || 'record', message: i.message })) };
}

// The pattern zod checks `occurred_at` against (the schema's own, so the two cannot drift apart).
const isoTimestampPattern: RegExp = isoTimestamp._zod.def.pattern!;

// The lengths are read from the schema too: it stays the one statement of the rules.
const { external_id: externalIdRule, title: titleRule, source: sourceRule } = ingestRecordSchema.shape;
const requiredText = (v: unknown, rule: z.ZodString): string | undefined => {
  if (typeof v !== 'string') return undefined;
  const trimmed = v.trim();
  return trimmed.length >= (rule.minLength ?? 0) && trimmed.length <= (rule.maxLength ?? Number.POSITIVE_INFINITY) ? trimmed : undefined;
};
const narrativeMax = narrativeInput.maxLength ?? Number.POSITIVE_INFINITY;
const optionalNarrative = (v: unknown): boolean => v === undefined || v === null || (typeof v === 'string' && v.length <= narrativeMax);

/**
 * The issue input of a record that `ingestRecordSchema` accepts, decided without zod, or undefined
 * for anything else (zod then judges it and words the errors). The batch endpoint judges every one of
 * up to 500 records; zod's parse was the largest part of that (issue 32, session 13). Accepting exactly
 * what the schema accepts, with the same output, is checked against it in test/domain/ingestRecord.test.ts.
 */
function acceptedRecord(value: unknown): IssueInput | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const r = value as Record<string, unknown>;
  const externalId = requiredText(r.external_id, externalIdRule);
  const title = requiredText(r.title, titleRule);
  const source = requiredText(r.source, sourceRule);
  if (externalId === undefined || title === undefined || source === undefined) return undefined;
  const { narrative, body, occurred_at: occurredAt, severity } = r;
  if (!optionalNarrative(narrative) || !optionalNarrative(body)) return undefined;
  let occurred: Date | null = null;
  if (occurredAt !== undefined && occurredAt !== null) {
    if (typeof occurredAt !== 'string') return undefined;
    isoTimestampPattern.lastIndex = 0;
    if (!isoTimestampPattern.test(occurredAt)) return undefined;
    occurred = new Date(occurredAt);
    if (!(occurred.getUTCFullYear() >= 1)) return undefined;
  }
  let normalized: Severity | null = null;
  if (severity !== undefined && severity !== null) {
    if (typeof severity !== 'string') return undefined;
    normalized = normalizeSeverity(severity);
    if (!normalized) return undefined;
  }
  return toIssueInput({
    external_id: externalId,
    title,
    source,
    narrative: narrative as string | null | undefined,
    body: body as string | null | undefined,
    occurred_at: occurred,
    severity: normalized,
  });
}
