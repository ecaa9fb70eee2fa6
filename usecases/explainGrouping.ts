/**
 * GET /v1/issues/{id}/grouping (issue 31): why the issue is in its pattern — the path (template or
 * prose), the template with its slots, the nearest members and their similarity, the features that
 * decided (engine/cluster/explain.ts), who placed it (the run, or a person's decision) and every
 * grouping decision that names it.
 */
import type { Queryable } from '../lib/db.ts';
import { explainGrouping, type GroupingExplanation } from '../engine/cluster/explain.ts';
import { findIssue } from '../sql/issues.ts';
import { findPattern } from '../sql/patterns.ts';
import { decisionsOfIssue, latestAssignment, patternMemberTexts, type GroupingDecisionRow } from '../sql/groupingDecisions.ts';

/** Members read for the explanation (the nearest are found among them). */
const MEMBERS_READ = 300;

export interface GroupingExplanationResult extends GroupingExplanation {
  issue_id: string;
  pattern: { id: string; name: string; path: 'templated' | 'prose' | null; template: string | null; issue_count: number; merged_into: string | null } | null;
  members_compared: number;
  placed_by:
    | { type: 'engine'; run_id: string | null; at: string }
    | { type: 'person'; decision_id: string; kind: string; actor_type: string; actor_id: string | null; at: string }
    | null;
  decisions: GroupingDecisionRow[];
}

export async function explainIssueGrouping(db: Queryable, workspaceId: string, issueId: string): Promise<GroupingExplanationResult | null> {
  const issue = await findIssue(db, workspaceId, issueId);
  if (!issue) return null;
  const pattern = issue.pattern_id ? await findPattern(db, workspaceId, issue.pattern_id) : null;
  const members = pattern ? await patternMemberTexts(db, workspaceId, pattern.id, MEMBERS_READ) : [];
  const explanation = pattern
    ? explainGrouping({ id: issue.id, title: issue.title, narrative: issue.narrative }, members, pattern.template)
    : { slots: null, similarity_to_pattern: null, nearest: [], features: [] };
  const decisions = await decisionsOfIssue(db, workspaceId, issue.id);
  const assignment = await latestAssignment(db, workspaceId, issue.id);
  const byDecision = assignment?.decision_id ? decisions.find((d) => d.id === assignment.decision_id) : undefined;
  const placed_by: GroupingExplanationResult['placed_by'] = !assignment
    ? null
    : assignment.decision_id
      ? {
          type: 'person',
          decision_id: assignment.decision_id,
          kind: byDecision?.kind ?? 'unknown',
          actor_type: assignment.actor_type,
          actor_id: assignment.actor_id,
          at: assignment.recorded_at.toISOString(),
        }
      : { type: 'engine', run_id: assignment.run_id, at: assignment.recorded_at.toISOString() };
  return {
    issue_id: issue.id,
    pattern: pattern
      ? {
          id: pattern.id,
          name: pattern.name,
          path: pattern.path,
          template: pattern.template,
          issue_count: pattern.issue_count,
          merged_into: pattern.merged_into,
        }
      : null,
    members_compared: members.filter((m) => m.id !== issue.id).length,
    ...explanation,
    placed_by,
    decisions,
  };
}
