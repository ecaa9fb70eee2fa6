/**
 * The latest per-pattern results of engine stages 8 and 10: the hazard fit (or why there is none)
 * and the financials. A run replaces the workspace's rows; runs of a workspace never overlap, so
 * nothing else writes these tables.
 */
import type { Queryable } from '../lib/db.ts';
import type { Provenance } from '../engine/stages/context.ts';
import type { HazardOutput, PatternHazard } from '../engine/stages/08_hazard.ts';
import type { PatternFinancials } from '../engine/stages/10_recommend.ts';

/** A pattern's stage 8 output with the run's as-of time and interval level (the output keeps those once). */
type Stored<H> = H extends PatternHazard ? Omit<H, 'provenance'> & { as_of: string; interval_level: number } : never;
export type StoredHazard = Stored<PatternHazard>;

export interface PatternHazardRow {
  pattern_id: string;
  workspace_id: string;
  run_id: string;
  status: 'fitted' | 'not_fitted';
  reason: 'no_timestamps' | 'insufficient_events' | null;
  hazard: StoredHazard;
  provenance: Provenance;
  updated_at: Date;
}

export interface PatternFinancialsRow {
  pattern_id: string;
  workspace_id: string;
  run_id: string;
  financials: Omit<PatternFinancials, 'provenance'>;
  provenance: Provenance;
  updated_at: Date;
}

export const recurrenceStatuses = ['recurring', 'dormant', 'not_fitted'] as const;
export type RecurrenceStatus = (typeof recurrenceStatuses)[number];

/**
 * A select-list column of `patterns` rows: what the latest run's hazard stage said of the pattern's
 * recurrence (`recurring`: forecast; `dormant`: fitted, but silent for longer than the fit allows, so
 * not forecast; `not_fitted`), null before any run fitted it.
 */
export const recurrenceColumn = `(select case when h.status = 'not_fitted' then 'not_fitted'
    when coalesce((h.hazard->'dormancy'->>'dormant')::boolean, false) then 'dormant' else 'recurring' end
    from pattern_hazards h where h.pattern_id = patterns.id and h.workspace_id = patterns.workspace_id) as recurrence`;

const withoutProvenance = <T extends { provenance: Provenance }>({ provenance: _, ...rest }: T) => rest;

export async function replaceHazards(db: Queryable, workspaceId: string, runId: string, output: HazardOutput): Promise<void> {
  await db.query('delete from pattern_hazards where workspace_id = $1', [workspaceId]);
  const rows = output.patterns.map((p) => ({
    pattern_id: p.pattern_id,
    status: p.status,
    reason: p.status === 'not_fitted' ? p.reason : null,
    hazard: { ...withoutProvenance(p), as_of: output.as_of, interval_level: output.interval_level },
    provenance: p.provenance,
  }));
  await db.query(
    `insert into pattern_hazards (pattern_id, workspace_id, run_id, status, reason, hazard, provenance)
     select r.pattern_id, $1, $2, r.status, r.reason, r.hazard, r.provenance
       from jsonb_to_recordset($3::jsonb) as r(pattern_id uuid, status text, reason text, hazard jsonb, provenance jsonb)`,
    [workspaceId, runId, JSON.stringify(rows)],
  );
}

export async function replaceFinancials(db: Queryable, workspaceId: string, runId: string, financials: PatternFinancials[]): Promise<void> {
  await db.query('delete from pattern_financials where workspace_id = $1', [workspaceId]);
  await db.query(
    `insert into pattern_financials (pattern_id, workspace_id, run_id, financials, provenance)
     select r.pattern_id, $1, $2, r.financials, r.provenance
       from jsonb_to_recordset($3::jsonb) as r(pattern_id uuid, financials jsonb, provenance jsonb)`,
    [workspaceId, runId, JSON.stringify(financials.map((f) => ({ pattern_id: f.pattern_id, financials: withoutProvenance(f), provenance: f.provenance })))],
  );
}

export async function findHazard(db: Queryable, workspaceId: string, patternId: string): Promise<PatternHazardRow | null> {
  const { rows } = await db.query<PatternHazardRow>('select * from pattern_hazards where workspace_id = $1 and pattern_id = $2', [workspaceId, patternId]);
  return rows[0] ?? null;
}

export async function findFinancials(db: Queryable, workspaceId: string, patternId: string): Promise<PatternFinancialsRow | null> {
  const { rows } = await db.query<PatternFinancialsRow>('select * from pattern_financials where workspace_id = $1 and pattern_id = $2', [
    workspaceId,
    patternId,
  ]);
  return rows[0] ?? null;
}
