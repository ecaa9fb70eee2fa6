/**
 * What each producer's notifications are about, read from committed state: the issues an ingest
 * created or escalated, what an engine run found (new and re-found patterns, predictions, crest
 * alerts, proposed recommendations), an invitation, a workspace's week.
 */
import type { AppContext } from '../../lib/context.ts';
import type { Queryable } from '../../lib/db.ts';
import type { Severity } from '../../sql/issueRules.ts';
import type { NotificationItem } from './routing.ts';

const link = (app: AppContext, path: string) => `${app.config.APP_URL}/platform/${path}`;

export async function issueItems(app: AppContext, db: Queryable, workspaceId: string, created: string[], escalated: string[]): Promise<NotificationItem[]> {
  const { rows } = await db.query<{ id: string; title: string; severity: Severity; source: string }>(
    'select id, title, severity, source from issues where workspace_id = $1 and id = any($2::uuid[])',
    [workspaceId, [...created, ...escalated]],
  );
  const byId = new Map(rows.map((r) => [r.id, r]));
  const items: NotificationItem[] = [];
  for (const id of created) {
    const issue = byId.get(id);
    if (!issue) continue;
    items.push({
      kind: 'new_issue_ingested',
      subject_type: 'issue',
      subject_id: id,
      title: `New ${issue.severity} issue: ${issue.title}`,
      body: `A ${issue.severity} issue was ingested from ${issue.source}: "${issue.title}".`,
      link: link(app, `issues/${id}`),
      severity: issue.severity,
    });
  }
  for (const id of escalated) {
    const issue = byId.get(id);
    if (!issue) continue;
    items.push({
      kind: 'issue_escalated_critical',
      subject_type: 'issue',
      subject_id: id,
      title: `Issue escalated to critical: ${issue.title}`,
      body: `The issue "${issue.title}" (source ${issue.source}) is now critical.`,
      link: link(app, `issues/${id}`),
      severity: 'critical',
    });
  }
  return items;
}

interface PatternRef {
  pattern_id: string;
  name: string;
  risk_score: number;
}

/**
 * An engine run's findings. pattern_detected: a pattern this run produced that no earlier run had;
 * pattern_confirmed: one an earlier run had too (found again); new_prediction: the run's prediction
 * of a pattern (once per pattern); high_confidence_prediction: a crest alert this run raised;
 * recommendation_pushed: a proposed recommendation of the run.
 */
export async function engineRunItems(app: AppContext, db: Queryable, workspaceId: string, runId: string): Promise<NotificationItem[]> {
  const items: NotificationItem[] = [];
  const patterns = await db.query<PatternRef & { seen_before: boolean }>(
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
  for (const p of patterns.rows) {
    items.push(
      p.seen_before
        ? {
            kind: 'pattern_confirmed',
            subject_type: 'pattern',
            subject_id: p.pattern_id,
            title: `Pattern confirmed: ${p.name}`,
            body: `The pattern "${p.name}" was found again by the latest engine run (risk score ${p.risk_score}).`,
            link: link(app, `patterns/${p.pattern_id}`),
            risk_score: p.risk_score,
          }
        : {
            kind: 'pattern_detected',
            subject_type: 'pattern',
            subject_id: p.pattern_id,
            title: `New pattern detected: ${p.name}`,
            body: `The engine detected a new pattern "${p.name}" (risk score ${p.risk_score}).`,
            link: link(app, `patterns/${p.pattern_id}`),
            risk_score: p.risk_score,
          },
    );
  }
  const predictions = await db.query<PatternRef & { p_recurrence: number; horizon_days: number }>(
    `select x.pattern_id, p.name, p.risk_score, x.p_recurrence, x.horizon_days
       from predictions x join patterns p on p.id = x.pattern_id
      where x.workspace_id = $1 and x.run_id = $2 order by x.pattern_id`,
    [workspaceId, runId],
  );
  for (const p of predictions.rows) {
    const percent = Math.round(p.p_recurrence * 100);
    items.push({
      kind: 'new_prediction',
      subject_type: 'pattern',
      subject_id: p.pattern_id,
      title: `New prediction for ${p.name}: ${percent}% within ${p.horizon_days} days`,
      body: `The pattern "${p.name}" has a ${percent}% probability of recurring within ${p.horizon_days} days.`,
      link: link(app, `patterns/${p.pattern_id}`),
      risk_score: p.risk_score,
    });
  }
  const alerts = await db.query<PatternRef & { id: string; probability: number; horizon_days: number }>(
    `select a.id, a.pattern_id, p.name, p.risk_score, a.probability, a.horizon_days
       from pattern_alerts a join patterns p on p.id = a.pattern_id
      where a.workspace_id = $1 and a.run_id = $2 and a.status = 'open' order by a.id`,
    [workspaceId, runId],
  );
  for (const a of alerts.rows) {
    const percent = Math.round(a.probability * 100);
    items.push({
      kind: 'high_confidence_prediction',
      subject_type: 'alert',
      subject_id: a.id,
      title: `High-confidence prediction: ${a.name} (${percent}% within ${a.horizon_days} days)`,
      body: `The pattern "${a.name}" is likely to recur: ${percent}% within ${a.horizon_days} days.`,
      link: link(app, `alerts/${a.id}`),
      risk_score: a.risk_score,
    });
  }
  const recommendations = await db.query<PatternRef & { id: string; root_cause: string | null }>(
    `select r.id, r.pattern_id, p.name, p.risk_score, r.root_cause
       from recommendations r join patterns p on p.id = r.pattern_id
      where r.workspace_id = $1 and r.run_id = $2 and r.status = 'proposed' order by r.id`,
    [workspaceId, runId],
  );
  for (const r of recommendations.rows) {
    items.push({
      kind: 'recommendation_pushed',
      subject_type: 'recommendation',
      subject_id: r.id,
      title: `Fix recommended for ${r.name}`,
      body: `A fix is recommended for the pattern "${r.name}"${r.root_cause ? ` (root cause: ${r.root_cause})` : ''}.`,
      link: link(app, `recommendations/${r.id}`),
      risk_score: r.risk_score,
    });
  }
  return items;
}

export async function invitationItem(
  app: AppContext,
  db: Queryable,
  workspaceId: string,
  invitationId: string,
): Promise<{ item: NotificationItem; email: string; invitedBy: string | null } | null> {
  const { rows } = await db.query<{ email: string; role: string; invited_by: string | null; inviter: string | null }>(
    `select i.email, i.role, i.invited_by, u.name as inviter from invitations i left join users u on u.id = i.invited_by where i.workspace_id = $1 and i.id = $2`,
    [workspaceId, invitationId],
  );
  const inv = rows[0];
  if (!inv) return null;
  return {
    email: inv.email,
    invitedBy: inv.invited_by,
    item: {
      kind: 'member_invited',
      subject_type: 'invitation',
      subject_id: invitationId,
      title: `${inv.email} was invited as ${inv.role}`,
      body: `${inv.inviter ?? 'An administrator'} invited ${inv.email} to the workspace as ${inv.role}.`,
      link: link(app, 'members'),
    },
  };
}

/** The workspace's last seven days before `until`, for the weekly digest. */
export async function weekSummary(db: Queryable, workspaceId: string, until: Date): Promise<string> {
  const { rows } = await db.query<{ issues: number; critical: number; patterns: number; alerts: number; recommendations: number }>(
    `select (select count(*) from issues where workspace_id = $1 and created_at >= $2 and created_at < $3)::int as issues,
            (select count(*) from issues where workspace_id = $1 and created_at >= $2 and created_at < $3 and severity = 'critical')::int as critical,
            (select count(*) from patterns where workspace_id = $1 and created_at >= $2 and created_at < $3)::int as patterns,
            (select count(*) from pattern_alerts where workspace_id = $1 and status = 'open')::int as alerts,
            (select count(*) from recommendations where workspace_id = $1 and status = 'proposed')::int as recommendations`,
    [workspaceId, new Date(until.getTime() - 7 * 86_400_000), until],
  );
  const s = rows[0];
  return (
    `In the last 7 days: ${s.issues} new issues (${s.critical} critical), ${s.patterns} new patterns. ` +
    `Now: ${s.alerts} open crest alerts, ${s.recommendations} proposed fixes.`
  );
}
