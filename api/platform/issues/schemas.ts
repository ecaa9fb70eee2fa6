/** The issue resource of /v1 and the input fields shared by ingest and POST /v1/issues. */
import { z } from 'zod';
import type { IssueRow } from '../../../sql/issueProjection.ts';
import { DEFAULT_SEVERITY, severities } from '../../../domain/severity.ts';
import { engineStatuses } from '../../../domain/engineEligibility.ts';
import { issueStatuses } from '../../../domain/issueTransitions.ts';

export const issueSchema = z.object({
  id: z.string(),
  title: z.string(),
  status: z.enum(issueStatuses),
  severity: z.enum(severities),
  pattern_id: z.string().nullable(),
  created_at: z.string(),
  narrative: z.string().nullable(),
  source: z.string(),
  external_id: z.string().nullable(),
  engine_status: z.enum(engineStatuses),
  ineligible_reason: z.string().nullable(),
  occurred_at: z.string().nullable(),
  source_created_at: z.string(),
  updated_at: z.string(),
  resolved_at: z.string().nullable(),
  closed_at: z.string().nullable(),
  version: z.number().int(),
});
export type Issue = z.infer<typeof issueSchema>;

const iso = (d: Date | null) => d?.toISOString() ?? null;

export function toIssue(r: IssueRow): Issue {
  return {
    id: r.id,
    title: r.title,
    status: r.status,
    severity: r.severity,
    pattern_id: r.pattern_id,
    created_at: r.created_at.toISOString(),
    narrative: r.narrative,
    source: r.source,
    external_id: r.external_id,
    engine_status: r.engine_status,
    ineligible_reason: r.ineligible_reason,
    occurred_at: iso(r.occurred_at),
    source_created_at: r.source_created_at.toISOString(),
    updated_at: r.updated_at.toISOString(),
    resolved_at: iso(r.resolved_at),
    closed_at: iso(r.closed_at),
    version: r.version,
  };
}

export { DEFAULT_SEVERITY };
