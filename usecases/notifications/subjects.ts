/**
 * What each producer's notifications are about, as notification items (title, body, link): the
 * issues an ingest created or escalated, what an engine run found (new and re-found patterns,
 * predictions, crest alerts, proposed recommendations), an invitation, a workspace's week. The rows
 * come from committed state through sql/notificationSubjects.ts.
 */
import type { AppContext } from '../../lib/context.ts';
import type { Queryable } from '../../lib/db.ts';
import {
  runOpenAlerts,
  runPatternFindings,
  runPredictions,
  runProposedRecommendations,
  subjectInvitation,
  subjectIssues,
  workspaceWeekCounts,
} from '../../sql/notificationSubjects.ts';
import type { NotificationItem } from './routing.ts';

const link = (app: AppContext, path: string) => `${app.config.APP_URL}/platform/${path}`;

export async function issueItems(app: AppContext, db: Queryable, workspaceId: string, created: string[], escalated: string[]): Promise<NotificationItem[]> {
  const rows = await subjectIssues(db, workspaceId, [...created, ...escalated]);
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

/**
 * An engine run's findings. pattern_detected: a pattern this run produced that no earlier run had;
 * pattern_confirmed: one an earlier run had too (found again); new_prediction: the run's prediction
 * of a pattern (once per pattern); high_confidence_prediction: a crest alert this run raised;
 * recommendation_pushed: a proposed recommendation of the run.
 */
export async function engineRunItems(app: AppContext, db: Queryable, workspaceId: string, runId: string): Promise<NotificationItem[]> {
  const items: NotificationItem[] = [];
  for (const p of await runPatternFindings(db, workspaceId, runId)) {
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
  for (const p of await runPredictions(db, workspaceId, runId)) {
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
  for (const a of await runOpenAlerts(db, workspaceId, runId)) {
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
  for (const r of await runProposedRecommendations(db, workspaceId, runId)) {
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
  const inv = await subjectInvitation(db, workspaceId, invitationId);
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
  const s = await workspaceWeekCounts(db, workspaceId, new Date(until.getTime() - 7 * 86_400_000), until);
  return (
    `In the last 7 days: ${s.issues} new issues (${s.critical} critical), ${s.patterns} new patterns. ` +
    `Now: ${s.alerts} open crest alerts, ${s.recommendations} proposed fixes.`
  );
}
