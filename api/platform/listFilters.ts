/**
 * The request schemas of the list filters of issues, patterns and predictions: one definition each,
 * used by the list routes (as query parameters) and by POST /v1/exports (as `filters`, where JSON
 * numbers and booleans are read as their query-string form). Their SQL is sql/listFilters.ts.
 */
import { z } from 'zod';
import { issueStatuses } from '../../domain/issueTransitions.ts';
import { patternStatuses } from '../../domain/patternLifecycle.ts';
import { queryBoolean, queryDecimal, queryInteger } from '../http/routes.ts';
import { severityInput } from '../../domain/ingestRecord.ts';

/** A cross-field rule: the arguments of `.refine`. */
type Rule<T> = [(q: T) => boolean, { message: string; path: string[] }];

const timestamp = z.iso.datetime({ offset: true, error: 'must be an ISO 8601 timestamp' });

export const issueFilters = {
  status: z.enum(issueStatuses, { error: `must be one of ${issueStatuses.join(', ')}` }).optional(),
  severity: severityInput.optional().describe('critical, high, medium or low; the ingest aliases p1..p4 and sev1..sev4 are read the same way'),
  pattern_id: z.uuid({ error: 'must be a pattern id' }).optional(),
  q: z.string().trim().min(1, 'must not be empty').max(200, 'must be at most 200 characters').optional().describe('Full-text search over title and narrative'),
  date_from: timestamp.optional().describe('Inclusive start on source_created_at'),
  date_to: timestamp.optional().describe('Exclusive end on source_created_at'),
  has_pattern: queryBoolean.optional(),
  source: z.string().max(100).optional(),
};
/** Cross-field rule of the issue filters. */
export const issueFilterRule: Rule<{ date_from?: string; date_to?: string }> = [
  (q) => !q.date_from || !q.date_to || new Date(q.date_from) < new Date(q.date_to),
  { message: 'must be after date_from', path: ['date_to'] },
];

const risk = (name: string) =>
  queryInteger('must be an integer from 0 to 100', z.number().min(0, 'must be at least 0').max(100, 'must be at most 100')).optional().describe(name);

export const patternFilters = {
  status: z.enum(patternStatuses, { error: `must be one of ${patternStatuses.join(', ')}` }).optional(),
  search: z.string().trim().min(1, 'must not be empty').max(200, 'must be at most 200 characters').optional().describe('Matches pattern names'),
  domain: z.string().max(100).optional().describe('Domain fingerprint'),
  risk_min: risk('Minimum risk score, inclusive'),
  risk_max: risk('Maximum risk score, inclusive; at least risk_min'),
};
export const patternFilterRule: Rule<{ risk_min?: number; risk_max?: number }> = [
  (q) => q.risk_min === undefined || q.risk_max === undefined || q.risk_max >= q.risk_min,
  { message: 'must be at least risk_min', path: ['risk_max'] },
];

export const predictionFilters = {
  pattern_id: z.uuid({ error: 'must be a pattern id' }).optional(),
  min_p: queryDecimal(z.number().max(1, 'must be at most 1')).optional().describe('Only predictions whose p_recurrence estimate is at least this (0-1)'),
};

/** JSON filter values as the query string would carry them (50 -> "50", true -> "true"). */
const asQueryValues = (v: unknown) =>
  v && typeof v === 'object' && !Array.isArray(v)
    ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, typeof x === 'number' || typeof x === 'boolean' ? String(x) : x]))
    : v;

/** The `filters` object of an export: exactly the list's filters, unknown names refused. */
export const exportFilters = {
  issues: z.preprocess(asQueryValues, z.strictObject(issueFilters).refine(...issueFilterRule)),
  patterns: z.preprocess(asQueryValues, z.strictObject(patternFilters).refine(...patternFilterRule)),
  predictions: z.preprocess(asQueryValues, z.strictObject(predictionFilters)),
};
