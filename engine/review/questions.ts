/**
 * The review questions of a run: the engine's abstentions grouped so that one human decision settles
 * every issue a question covers, ordered by the risk they block.
 *
 * - A pattern whose members do not agree on a root cause (no majority among the decided members,
 *   engine/stages/07_patterns.ts) asks one `root_cause` question; one without a domain asks one
 *   `extraction` question; members at a criticality boundary ask one `criticality` question. The
 *   question covers the pattern's members, its candidates are what the members' evidence points to
 *   (decided members' values, then abstained members' best candidates, counted), and the answer
 *   applies to all of them and to the pattern's next runs (a pattern decision in the snapshot). A
 *   pattern whose majority decided answers its abstained members itself: no question.
 * - An issue in no pattern asks its own questions only when it is severe enough for a wrong guess to
 *   matter (`minSeverity`, default high): a low-severity singleton left undecided blocks little, and
 *   its judgement stays `abstained` on GET /v1/issues/{id}/root-cause.
 * Risk blocked = the pattern's risk score / 100 × the issues the question covers (for a single
 * issue: its severity weight); highest first, ties by key.
 */
import { round } from '../round.ts';
import type { SnapshotOutput } from '../stages/01_snapshot.ts';
import type { ExtractOutput } from '../stages/03_extract.ts';

export type QuestionKind = 'extraction' | 'root_cause' | 'criticality';

export interface ReviewQuestion {
  /** Stable across runs: `pattern:<id>:<kind>` or `issue:<id>:<kind>`. */
  key: string;
  kind: QuestionKind;
  pattern_id: string | null;
  issue_id: string | null;
  /** How many issues the decision settles. */
  issue_count: number;
  risk_blocked: number;
  reason: string;
  candidates: Array<{ id: string; score: number }>;
}

export interface PatternForQuestions {
  id: string;
  name: string;
  risk_score: number;
  domain: string | null;
  root_cause: string | null;
  /** Snapshot indices of the members. */
  members: number[];
  /** Kinds a reviewer already answered for this pattern. */
  decided: Set<QuestionKind>;
}

export const SEVERITY_WEIGHT = { critical: 1, high: 0.7, medium: 0.4, low: 0.15 } as const;
type Severity = keyof typeof SEVERITY_WEIGHT;

function counted(values: Array<string | null | undefined>, limit = 3): Array<{ id: string; score: number }> {
  const counts = new Map<string, number>();
  for (const v of values) if (v) counts.set(v, (counts.get(v) ?? 0) + 1);
  return [...counts.entries()]
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
    .slice(0, limit)
    .map(([id, score]) => ({ id, score }));
}

export function reviewQuestions(
  snapshot: SnapshotOutput,
  extract: ExtractOutput,
  patterns: PatternForQuestions[],
  inPattern: ArrayLike<boolean>,
  minSeverity: Severity = 'high',
): ReviewQuestion[] {
  const questions: ReviewQuestion[] = [];
  const results = extract.results;
  for (const p of patterns) {
    const blocked = (count: number) => round((p.risk_score / 100) * count, 4);
    const ask = (kind: QuestionKind, covered: number[], reason: string, candidates: Array<{ id: string; score: number }>) => {
      if (!covered.length || p.decided.has(kind)) return;
      questions.push({
        key: `pattern:${p.id}:${kind}`,
        kind,
        pattern_id: p.id,
        issue_id: null,
        issue_count: covered.length,
        risk_blocked: blocked(covered.length),
        reason,
        candidates,
      });
    };
    if (p.root_cause === null) {
      const votes = p.members.map((i) => results[i].root_cause.value ?? results[i].root_cause.candidates[0]?.id);
      ask('root_cause', p.members, `The ${p.members.length} issues of pattern "${p.name}" do not agree on a root cause`, counted(votes));
    }
    if (p.domain === null) {
      const votes = p.members.map((i) => results[i].domain.value ?? results[i].domain.candidates[0]?.id);
      ask('extraction', p.members, `The ${p.members.length} issues of pattern "${p.name}" do not agree on a domain`, counted(votes));
    }
    const boundary = p.members.filter((i) => results[i].criticality.abstained);
    ask('criticality', boundary, `${boundary.length} issues of pattern "${p.name}" score at a criticality level boundary`, []);
  }
  const minWeight = SEVERITY_WEIGHT[minSeverity];
  const position = new Map(snapshot.issues.map((issue, i) => [issue.id, i]));
  for (const a of extract.abstentions) {
    const i = position.get(a.issue_id)!;
    const severity = snapshot.issues[i].severity;
    if (inPattern[i] || SEVERITY_WEIGHT[severity] < minWeight) continue;
    questions.push({
      key: `issue:${a.issue_id}:${a.kind}`,
      kind: a.kind,
      pattern_id: null,
      issue_id: a.issue_id,
      issue_count: 1,
      risk_blocked: SEVERITY_WEIGHT[severity],
      reason: a.reason,
      candidates: a.candidates,
    });
  }
  return questions.sort((a, b) => b.risk_blocked - a.risk_blocked || (a.key < b.key ? -1 : 1));
}
