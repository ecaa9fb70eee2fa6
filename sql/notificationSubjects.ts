/**
 * What notifications are about, read from committed state for the producers of
 * usecases/notifications/subjects.ts: the issues an ingest created or escalated, an engine run's
 * patterns, predictions, crest alerts and proposed recommendations, an invitation, a workspace's week.
 * Every query is scoped by the workspace id.
 */
import type { Queryable } from '../lib/db.ts';
import type { Severity } from '../domain/severity.ts';

export interface SubjectIssue {
  id: string;
  title: string;
  severity: Severity;
  source: string;
}

export async function subjectIssues(db: Queryable, workspaceId: string, ids: string[]): Promise<SubjectIssue[]> {
  const { rows } = await db.query<SubjectIssue>('select id, title, severity, source from issues where workspace_id = $1 and id = any($2::uuid[])', [
    workspaceId,
    ids,
  ]);
  return rows;
}

export interface SubjectPattern {
  pattern_id: string;
  name: string;
  risk_score: number;
}

/** The patterns a run produced (with issues), each marked `seen_before` when an earlier run had produced it too. */
export async function runPatternFindings(db: Queryable, workspaceId: string, runId: string): Promise<Array<SubjectPattern & { seen_before: boolean }>> {
  const { rows } = await db.query<SubjectPattern & { seen_before: boolean }>(
    `select o.pattern_id, p.name, p.risk_score,
            exists (select 1 from engine_pattern_outputs e join engine_runs r on r.id = e.run_id
                     where e.workspace_id = $1 and e.pattern_id = o.pattern_id and e.run_id <> $2 and r.created_at <= run.created_at) as seen_before
       from engine_pattern_outputs o
       join engine_runs run on run.id = o.run_id
       join patterns p on p.id = o.pattern_id and p.workspace_id = o.workspace_id
      where o.workspace_id = $1 and o.run_id = $2 and p.issue_count > 0
      order by o.pattern_id`,
    [workspaceId, runId],
  );
  return rows;
}

export async function runPredictions(
  db: Queryable,
  workspaceId: string,
  runId: string,
): Promise<Array<SubjectPattern & { p_recurrence: number; horizon_days: number }>> {
  const { rows } = await db.query<SubjectPattern & { p_recurrence: number; horizon_days: number }>(
    `select x.pattern_id, p.name, p.risk_score, x.p_recurrence, x.horizon_days
       from predictions x join patterns p on p.id = x.pattern_id
      where x.workspace_id = $1 and x.run_id = $2 order by x.pattern_id`,
    [workspaceId, runId],
  );
  return rows;
}

/** The crest alerts a run raised that are still open. */
export async function runOpenAlerts(
  db: Queryable,
  workspaceId: string,
  runId: string,
): Promise<Array<SubjectPattern & { id: string; probability: number; horizon_days: number }>> {
  const { rows } = await db.query<SubjectPattern & { id: string; probability: number; horizon_days: number }>(
    `select a.id, a.pattern_id, p.name, p.risk_score, a.probability, a.horizon_days
       from pattern_alerts a join patterns p on p.id = a.pattern_id
      where a.workspace_id = $1 and a.run_id = $2 and a.status = 'open' order by a.id`,
    [workspaceId, runId],
  );
  return rows;
}

export async function runProposedRecommendations(
  db: Queryable,
  workspaceId: string,
  runId: string,
): Promise<Array<SubjectPattern & { id: string; root_cause: string | null }>> {
  const { rows } = await db.query<SubjectPattern & { id: string; root_cause: string | null }>(
    `select r.id, r.pattern_id, p.name, p.risk_score, r.root_cause
       from recommendations r join patterns p on p.id = r.pattern_id
      where r.workspace_id = $1 and r.run_id = $2 and r.status = 'proposed' order by r.id`,
    [workspaceId, runId],
  );
  return rows;
}

export interface SubjectInvitation {
  email: string;
  role: string;
  invited_by: string | null;
  /** The inviting user's name, when known. */
  inviter: string | null;
}

export async function subjectInvitation(db: Queryable, workspaceId: string, invitationId: string): Promise<SubjectInvitation | null> {
  const { rows } = await db.query<SubjectInvitation>(
    `select i.email, i.role, i.invited_by, u.name as inviter from invitations i left join users u on u.id = i.invited_by where i.workspace_id = $1 and i.id = $2`,
    [workspaceId, invitationId],
  );
  return rows[0] ?? null;
}

export interface WeekCounts {
  /** Issues, critical issues and patterns created in [since, until). */
  issues: number;
  critical: number;
  patterns: number;
  /** Open crest alerts and proposed recommendations now. */
  alerts: number;
  recommendations: number;
}

export async function workspaceWeekCounts(db: Queryable, workspaceId: string, since: Date, until: Date): Promise<WeekCounts> {
  const { rows } = await db.query<WeekCounts>(
    `select (select count(*) from issues where workspace_id = $1 and created_at >= $2 and created_at < $3)::int as issues,
            (select count(*) from issues where workspace_id = $1 and created_at >= $2 and created_at < $3 and severity = 'critical')::int as critical,
            (select count(*) from patterns where workspace_id = $1 and created_at >= $2 and created_at < $3)::int as patterns,
            (select count(*) from pattern_alerts where workspace_id = $1 and status = 'open')::int as alerts,
            (select count(*) from recommendations where workspace_id = $1 and status = 'proposed')::int as recommendations`,
    [workspaceId, since, until],
  );
  return rows[0];
}
