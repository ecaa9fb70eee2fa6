/**
 * Stage 1, snapshot: the frozen input of a run. The eligible issues of the workspace as of the
 * cut-off (ids, text, times, severity, source), how many others it left out and why, the reviewers' decisions that feed extraction, and
 * the patterns of the previous run that new clusters are matched against, people's grouping decisions in force; sorted canonically, with a
 * digest of the whole. Issues are ordered by a digest of their content (title, narrative, severity,
 * source, occurred_at), ids only breaking ties between identical content: clustering depends on the
 * order of its input, and the same issues must give the same patterns whatever ids a database
 * happened to assign them (a re-import, another environment, a test's fresh database).
 */
import { createHash } from 'node:crypto';
import { z } from 'zod';
import { digestOutput } from '../manifest.ts';
import type { StageContext } from './context.ts';
import { groupingDecisionKinds, sortDecisions, type GroupingDecision } from '../cluster/constraints.ts';

const snapshotIssueSchema = z.object({
  id: z.uuid(),
  title: z.string(),
  narrative: z.string(),
  severity: z.enum(['critical', 'high', 'medium', 'low']),
  source: z.string(),
  occurred_at: z.string().nullable(),
  created_at: z.string(),
});

// A decision on one issue (issue_id) or on a pattern's question (pattern_id): the latter settles every member.
const decisionSchema = z.object({
  issue_id: z.uuid().nullable(),
  pattern_id: z.uuid().nullable().default(null),
  kind: z.enum(['extraction', 'root_cause', 'criticality']),
  decision: z.record(z.string(), z.unknown()),
  decided_at: z.string(),
});

const previousPatternSchema = z.object({
  id: z.uuid(),
  member_ids: z.array(z.uuid()),
  terms: z.array(z.tuple([z.string(), z.number()])),
});

// A person's grouping decision in force at the cut-off (engine/cluster/constraints.ts): undone ones are not sent.
const groupingDecisionSchema = z.object({
  id: z.uuid(),
  kind: z.enum([...groupingDecisionKinds, 'restore']),
  source_pattern_id: z.uuid().nullable(),
  target_pattern_id: z.uuid().nullable(),
  issue_ids: z.array(z.uuid()),
  decided_at: z.string(),
});

const leftOutSchema = z.object({ engine_status: z.string(), reason: z.string(), count: z.number().int().min(1) });

const snapshotInputSchema = z.object({
  workspace_id: z.uuid(),
  event_sequence: z.number().int().min(0),
  previous_run_id: z.uuid().nullable(),
  issues: z.array(snapshotIssueSchema),
  /** Issues of the workspace at the cut-off that the engine does not read, counted by engine status and reason. */
  left_out: z.array(leftOutSchema).default([]),
  decisions: z.array(decisionSchema),
  previous_patterns: z.array(previousPatternSchema),
  grouping_decisions: z.array(groupingDecisionSchema).default([]),
});
export type SnapshotInput = z.input<typeof snapshotInputSchema>;
export type SnapshotIssue = z.infer<typeof snapshotIssueSchema>;
export type Decision = z.infer<typeof decisionSchema>;
export type PreviousPattern = z.infer<typeof previousPatternSchema>;
export type LeftOut = z.infer<typeof leftOutSchema>;

export interface SnapshotOutput {
  workspace_id: string;
  event_sequence: number;
  previous_run_id: string | null;
  issues: SnapshotIssue[];
  /** Issues at the cut-off left out (not eligible), by engine status and reason, largest first. */
  left_out: LeftOut[];
  /** The latest decision per (issue or pattern, kind). */
  decisions: Decision[];
  previous_patterns: PreviousPattern[];
  /** People's grouping decisions in force, in decision order (absent when there are none: older runs' digests stay). */
  grouping_decisions?: GroupingDecision[];
  input_digest: string;
}

/** `issue:<id>:<kind>` or `pattern:<id>:<kind>`. */
export const decisionKey = (d: Pick<Decision, 'issue_id' | 'pattern_id' | 'kind'>) =>
  d.issue_id ? `issue:${d.issue_id}:${d.kind}` : `pattern:${d.pattern_id}:${d.kind}`;

const byId = <T extends { id: string }>(a: T, b: T) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

const contentDigest = (i: SnapshotIssue) =>
  createHash('sha256')
    .update(JSON.stringify([i.title, i.narrative, i.severity, i.source, i.occurred_at]))
    .digest('hex');

export function snapshot(raw: SnapshotInput, _ctx: StageContext): SnapshotOutput {
  const input = snapshotInputSchema.parse(raw);
  const keyed = input.issues.map((issue) => ({ key: contentDigest(issue), issue }));
  keyed.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : byId(a.issue, b.issue)));
  const issues = keyed.map((k) => k.issue);
  const latest = new Map<string, Decision>();
  for (const d of [...input.decisions].sort((a, b) => (a.decided_at < b.decided_at ? -1 : a.decided_at > b.decided_at ? 1 : 0))) {
    latest.set(decisionKey(d), d);
  }
  const decisions = [...latest.entries()].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0)).map(([, d]) => d);
  const previous_patterns = input.previous_patterns.map((p) => ({ ...p, member_ids: [...p.member_ids].sort() })).sort(byId);
  const frozen = {
    workspace_id: input.workspace_id,
    event_sequence: input.event_sequence,
    previous_run_id: input.previous_run_id,
    issues,
    left_out: [...input.left_out].sort((a, b) => b.count - a.count || (a.engine_status + a.reason < b.engine_status + b.reason ? -1 : 1)),
    decisions,
    previous_patterns,
    ...(input.grouping_decisions.length ? { grouping_decisions: sortDecisions(input.grouping_decisions) } : {}),
  };
  return { ...frozen, input_digest: digestOutput(frozen) };
}
