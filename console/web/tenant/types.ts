/** The product API's tenant resources as the tenant pages read them (shapes of /openapi.json). */

export interface IntervalValue {
  estimate: number;
  lower: number;
  upper: number;
}

export type PatternForecast =
  | {
      status: 'fitted';
      model: 'weibull' | 'exponential';
      occurrences: number;
      last_occurrence_at: string;
      since_last_days: number;
      expected_next_days: IntervalValue;
      expected_next_at: { estimate: string; lower: string; upper: string };
      recurrence_probability: IntervalValue;
      hazard_curve: { times_days: number[]; hazard: number[]; lower: number[]; upper: number[] };
    }
  | { status: 'not_fitted'; reason: 'no_timestamps' | 'insufficient_events' | 'dormant'; detail: string; occurrences: number };

export type Severity = 'critical' | 'high' | 'medium' | 'low';
export const SEVERITIES: Severity[] = ['critical', 'high', 'medium', 'low'];

export interface InsightRecord {
  id: string;
  source: string;
  external_id: string;
  title: string;
  severity: Severity;
  occurred_at: string | null;
}

export interface InsightPattern {
  id: string;
  rank: number;
  name: string;
  size: number;
  risk_score: number;
  risk_components: { severity: number; recency: number; volume: number };
  top_terms: string[];
  severity_counts: Record<Severity, number>;
  stability: { jaccard: number | null; status: string };
  first_seen_at: string | null;
  last_seen_at: string | null;
  records: InsightRecord[];
  forecast: PatternForecast | null;
}

/** A pattern as `GET /insights/snapshot?view=summary` lists it: without its records and forecast. */
export type InsightPatternSummary = Omit<InsightPattern, 'records' | 'forecast'>;

export type InsightSnapshot = Snapshot<InsightPattern>;
export type InsightSnapshotSummary = Snapshot<InsightPatternSummary>;

type Snapshot<P> =
  | {
      status: 'active';
      dataset_version: number;
      model_version: number;
      checkpoint_id: string;
      trained_at: string;
      activated_at: string | null;
      record_count: number;
      clustered_count: number;
      forecasts: { as_of: string; interval_level: number; recurrence_horizon_days: number } | null;
      patterns: P[];
    }
  | { status: 'no_active_model'; detail: string; patterns: [] };

export interface Member {
  user_id: string;
  email: string;
  full_name: string;
  roles: Array<{ profile: string; label: string }>;
  joined_at: string;
}

export interface Source {
  id: string;
  name: string;
  kind: 'file_upload' | 'api' | 'webhook' | 'email';
  config: Record<string, unknown>;
  upload_count: number;
  last_upload_at: string | null;
  created_at: string;
}

export interface Upload {
  id: string;
  status: 'uploaded' | 'failed' | 'committed';
  filename: string;
  format: 'csv' | 'xlsx' | null;
  byte_size: number;
  row_count: number;
  duplicate_rows: number;
  ignored_columns: string[];
  error_detail: string | null;
  dataset_id: string | null;
}

export const CAP_STATUSES = ['draft', 'submitted', 'approved', 'in_progress', 'verified', 'closed', 'rejected', 'cancelled'] as const;
export type CapStatus = (typeof CAP_STATUSES)[number];
export const CAP_TARGET_TYPES = ['pattern', 'recommendation', 'record', 'source', 'other'] as const;

export interface Cap {
  id: string;
  version: number;
  status: CapStatus;
  next_statuses: CapStatus[];
  title: string;
  problem_statement: string | null;
  target_type: (typeof CAP_TARGET_TYPES)[number];
  target_id: string;
  owner_user_id: string | null;
  due_date: string | null;
  created_by: string | null;
  created_at: string;
  updated_at: string;
}

export interface Review {
  id: string;
  cap_id: string;
  cap_version: number;
  target_type: string;
  target_id: string;
  decision: 'approved' | 'rejected' | null;
  comment: string | null;
  requested_by: string | null;
  decided_by: string | null;
  created_at: string;
  decided_at: string | null;
}

export interface AuditEntry {
  id: string;
  action: string;
  actor_type: 'user' | 'employee' | 'system';
  actor_id: string | null;
  resource_type: string | null;
  resource_id: string | null;
  client_ip: string | null;
  metadata: Record<string, unknown>;
  occurred_at: string;
}
