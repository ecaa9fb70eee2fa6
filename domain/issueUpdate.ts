/**
 * What a PATCH of an issue changes (pure): the fields that differ, the engine status recomputed when
 * the narrative changes (domain/engineEligibility.ts, judged at the time the change was received), and
 * a status change checked against the workflow (domain/issueTransitions.ts; 409 on an invalid one).
 * Null when nothing changes.
 */
import { AppError } from '../lib/errors.ts';
import { engineEligibility, type EngineStatus } from './engineEligibility.ts';
import { canTransition, type IssueStatus } from './issueTransitions.ts';
import type { Severity } from './severity.ts';

export interface IssuePatch {
  title?: string;
  narrative?: string | null;
  severity?: Severity;
  status?: IssueStatus;
}

/** What the rule reads of the issue as it stands. */
export interface IssueState {
  title: string;
  narrative: string | null;
  severity: Severity;
  status: IssueStatus;
  occurred_at: Date | null;
  engine_status: EngineStatus;
  ineligible_reason: string | null;
}

export interface IssueUpdate {
  /** The `issue.updated` event's changes; empty when only the status changes. */
  changes: Record<string, unknown>;
  /** The `issue.status_changed` event's payload, when the status changes. */
  statusChange: { from: IssueStatus; to: IssueStatus } | null;
}

export function issueUpdate(current: IssueState, patch: IssuePatch, receivedAt: Date): IssueUpdate | null {
  const changes: Record<string, unknown> = {};
  if (patch.title !== undefined && patch.title !== current.title) changes.title = patch.title;
  if (patch.severity !== undefined && patch.severity !== current.severity) changes.severity = patch.severity;
  const narrativeChanged = patch.narrative !== undefined && patch.narrative !== current.narrative;
  if (narrativeChanged) changes.narrative = patch.narrative;
  const statusChanged = patch.status !== undefined && patch.status !== current.status;
  if (statusChanged && !canTransition(current.status, patch.status!)) {
    throw new AppError('conflict', `An issue cannot move from ${current.status} to ${patch.status}`, { from: current.status, to: patch.status });
  }
  if (!Object.keys(changes).length && !statusChanged) return null;
  if (narrativeChanged) {
    const eligibility = engineEligibility(patch.narrative ?? null, current.occurred_at, receivedAt);
    if (eligibility.status !== current.engine_status) changes.engine_status = eligibility.status;
    if (eligibility.reason !== current.ineligible_reason) changes.ineligible_reason = eligibility.reason;
  }
  return { changes, statusChange: statusChanged ? { from: current.status, to: patch.status! } : null };
}
