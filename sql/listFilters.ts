/**
 * The filters of the issue, pattern and prediction lists as SQL, one definition each: the list
 * routes (GET /v1/issues, /v1/patterns, /v1/predictions) and exports (POST /v1/exports) both build
 * their `where` from here, so an export holds exactly the rows its list shows. The request schemas
 * of the filters live beside the list routes (api/platform/<resource>/filters.ts).
 */
import { issueColumns } from './issueProjection.ts';
import { patternColumns } from './patternProjection.ts';
import { recurrenceColumn } from './patternResults.ts';
import type { ListSource } from './pagination.ts';

export interface IssueFilters {
  status?: string;
  severity?: string;
  pattern_id?: string;
  q?: string;
  date_from?: string;
  date_to?: string;
  has_pattern?: boolean;
  source?: string;
}

export interface PatternFilters {
  status?: string;
  search?: string;
  domain?: string;
  risk_min?: number;
  risk_max?: number;
}

export interface PredictionFilters {
  pattern_id?: string;
  min_p?: number;
}

export interface FilterSql {
  where: string[];
  params: unknown[];
}

/** `workspace_id = $1` and the filters, unqualified column names of `issues`. */
export function issueFilterSql(workspaceId: string, f: IssueFilters): FilterSql {
  const where = ['workspace_id = $1'];
  const params: unknown[] = [workspaceId];
  if (f.status) where.push(`status = $${params.push(f.status)}`);
  if (f.severity) where.push(`severity = $${params.push(f.severity)}`);
  if (f.pattern_id) where.push(`pattern_id = $${params.push(f.pattern_id)}`);
  if (f.source) where.push(`source = $${params.push(f.source)}`);
  if (f.q) where.push(`search @@ websearch_to_tsquery('english', $${params.push(f.q)})`);
  if (f.date_from) where.push(`source_created_at >= $${params.push(f.date_from)}`);
  if (f.date_to) where.push(`source_created_at < $${params.push(f.date_to)}`);
  if (f.has_pattern !== undefined) where.push(f.has_pattern ? 'pattern_id is not null' : 'pattern_id is null');
  return { where, params };
}

const likePattern = (text: string) => `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

export function patternFilterSql(workspaceId: string, f: PatternFilters): FilterSql {
  const where = ['workspace_id = $1'];
  const params: unknown[] = [workspaceId];
  if (f.status) where.push(`status = $${params.push(f.status)}`);
  if (f.search) where.push(`name ilike $${params.push(likePattern(f.search))}`);
  if (f.domain) where.push(`domain = $${params.push(f.domain)}`);
  if (f.risk_min !== undefined) where.push(`risk_score >= $${params.push(f.risk_min)}`);
  if (f.risk_max !== undefined) where.push(`risk_score <= $${params.push(f.risk_max)}`);
  return { where, params };
}

export function predictionFilterSql(workspaceId: string, f: PredictionFilters): FilterSql {
  const where = ['workspace_id = $1'];
  const params: unknown[] = [workspaceId];
  if (f.pattern_id) where.push(`pattern_id = $${params.push(f.pattern_id)}`);
  if (f.min_p !== undefined) where.push(`p_recurrence >= $${params.push(f.min_p)}`);
  return { where, params };
}

/** GET /v1/issues. */
export function issueList(workspaceId: string, f: IssueFilters): ListSource {
  return {
    ...issueFilterSql(workspaceId, f),
    select: issueColumns,
    from: 'issues',
    sortColumns: {
      created_at: { expr: 'created_at', type: 'timestamptz' },
      source_created_at: { expr: 'source_created_at', type: 'timestamptz' },
      updated_at: { expr: 'updated_at', type: 'timestamptz' },
    },
    idExpr: 'id',
  };
}

/** GET /v1/patterns. */
export function patternList(workspaceId: string, f: PatternFilters): ListSource {
  return {
    ...patternFilterSql(workspaceId, f),
    select: `${patternColumns}, ${recurrenceColumn}`,
    from: 'patterns',
    sortColumns: {
      risk_score: { expr: 'risk_score', type: 'integer' },
      issue_count: { expr: 'issue_count', type: 'integer' },
      last_seen_at: { expr: "coalesce(last_seen_at, '-infinity'::timestamptz)", type: 'timestamptz' },
    },
    idExpr: 'id',
  };
}

/** GET /v1/predictions. */
export function predictionList(workspaceId: string, f: PredictionFilters): ListSource {
  return {
    ...predictionFilterSql(workspaceId, f),
    select: '*',
    from: 'predictions',
    sortColumns: {
      p_recurrence: { expr: 'p_recurrence', type: 'double precision' },
      expected_time_to_next_days: { expr: 'expected_time_to_next_days', type: 'double precision' },
      created_at: { expr: 'created_at', type: 'timestamptz' },
    },
    idExpr: 'id',
  };
}
