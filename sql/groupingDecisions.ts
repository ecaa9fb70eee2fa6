/**
 * People's grouping decisions (issue 31): the `grouping_decisions` projection of the events
 * - grouping_decision.made {kind, source_pattern_id, target_pattern_id, issue_ids, effect, note}
 * - grouping_decision.undone {effect}
 * and the decisions in force at a log position, folded from those events (what an engine run reads, so
 * that a replay sees exactly what the run saw).
 */
import type { Queryable } from '../lib/db.ts';
import type { GroupingDecision, GroupingDecisionKind } from '../engine/cluster/constraints.ts';
import type { PatternRow } from './patternProjection.ts';
import { patternColumns } from './patternProjection.ts';
import { isUuid } from '../lib/ids.ts';
import type { ListSource } from './pagination.ts';

/** What a decision changed at once: the issues it moved and the pattern each left. */
export interface DecisionEffect {
  moved: Array<{ issue_id: string; from: string | null; to: string | null }>;
}

export interface GroupingDecisionRow {
  id: string;
  workspace_id: string;
  kind: GroupingDecisionKind;
  status: 'active' | 'undone';
  source_pattern_id: string | null;
  target_pattern_id: string | null;
  issue_ids: string[];
  effect: DecisionEffect;
  note: string | null;
  decided_by_type: string;
  decided_by: string | null;
  decided_at: Date;
  undone_by_type: string | null;
  undone_by: string | null;
  undone_at: Date | null;
  last_sequence: number;
}

export async function insertGroupingDecision(db: Queryable, row: GroupingDecisionRow): Promise<void> {
  await db.query(
    `insert into grouping_decisions (id, workspace_id, kind, status, source_pattern_id, target_pattern_id, issue_ids, effect, note,
                                     decided_by_type, decided_by, decided_at, last_sequence)
     values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)`,
    [
      row.id,
      row.workspace_id,
      row.kind,
      row.status,
      row.source_pattern_id,
      row.target_pattern_id,
      row.issue_ids,
      JSON.stringify(row.effect),
      row.note,
      row.decided_by_type,
      row.decided_by,
      row.decided_at,
      row.last_sequence,
    ],
  );
}

export async function findGroupingDecision(db: Queryable, workspaceId: string, id: string, lock = false): Promise<GroupingDecisionRow | null> {
  if (!isUuid(id)) return null;
  const { rows } = await db.query<GroupingDecisionRow>(`select * from grouping_decisions where workspace_id = $1 and id = $2${lock ? ' for update' : ''}`, [
    workspaceId,
    id,
  ]);
  return rows[0] ?? null;
}

export async function markDecisionUndone(
  db: Queryable,
  id: string,
  by: { type: string; id: string | null },
  at: Date,
  sequence: number,
): Promise<GroupingDecisionRow> {
  const { rows } = await db.query<GroupingDecisionRow>(
    `update grouping_decisions set status = 'undone', undone_by_type = $2, undone_by = $3, undone_at = $4, last_sequence = $5 where id = $1 returning *`,
    [id, by.type, by.id, at, sequence],
  );
  return rows[0];
}

export interface GroupingDecisionFilters {
  kind?: string;
  /** The decision names the pattern as its source or its target. */
  pattern_id?: string;
  /** The decision names the issue (moved, kept apart, or a member of a merged pattern). */
  issue_id?: string;
  /** true: only undone decisions; false: only those in force. */
  undone?: boolean;
}

/** GET /v1/grouping-decisions. */
export function groupingDecisionList(workspaceId: string, f: GroupingDecisionFilters): ListSource {
  const where = ['workspace_id = $1'];
  const params: unknown[] = [workspaceId];
  if (f.kind) where.push(`kind = $${params.push(f.kind)}`);
  if (f.pattern_id) {
    const n = params.push(f.pattern_id);
    where.push(`(source_pattern_id = $${n}::uuid or target_pattern_id = $${n}::uuid)`);
  }
  if (f.issue_id) where.push(`issue_ids @> array[$${params.push(f.issue_id)}::uuid]`);
  if (f.undone !== undefined) where.push(`status = $${params.push(f.undone ? 'undone' : 'active')}`);
  return {
    where,
    params,
    select: '*',
    from: 'grouping_decisions',
    sortColumns: { decided_at: { expr: 'decided_at', type: 'timestamptz' } },
    idExpr: 'id',
  };
}

/** The decisions that name the issue (moved, kept apart, or a member of a merged pattern), newest first. */
export async function decisionsOfIssue(db: Queryable, workspaceId: string, issueId: string): Promise<GroupingDecisionRow[]> {
  const { rows } = await db.query<GroupingDecisionRow>(
    `select * from grouping_decisions where workspace_id = $1 and issue_ids @> array[$2::uuid] order by decided_at desc, id desc limit 50`,
    [workspaceId, issueId],
  );
  return rows;
}

/** Locks the patterns (in id order, the lock order of every writer) and returns them by id. */
export async function lockPatterns(db: Queryable, workspaceId: string, ids: string[]): Promise<Map<string, PatternRow>> {
  const wanted = [...new Set(ids.filter(isUuid))].sort();
  if (!wanted.length) return new Map();
  const { rows } = await db.query<PatternRow>(
    `select ${patternColumns} from patterns where workspace_id = $1 and id = any($2::uuid[]) order by id for update`,
    [workspaceId, wanted],
  );
  return new Map(rows.map((r) => [r.id, r]));
}

/** Ids of the issues in the pattern now. */
export async function patternMemberIds(db: Queryable, workspaceId: string, patternId: string): Promise<string[]> {
  const { rows } = await db.query<{ id: string }>(
    `select p.issue_id as id from issue_patterns p join issue_records r on r.id = p.issue_id
      where r.workspace_id = $1 and p.pattern_id = $2 order by p.issue_id`,
    [workspaceId, patternId],
  );
  return rows.map((r) => r.id);
}

/**
 * The decisions in force at log position `sequence` (made, not undone, by then), in decision order, and
 * one `restore` per undo recorded after `sinceSequence` (the previous run's cut-off): the issues it put
 * back and where (engine/cluster/constraints.ts).
 */
export async function groupingDecisionsAt(db: Queryable, workspaceId: string, sequence: number, sinceSequence: number): Promise<GroupingDecision[]> {
  const { rows } = await db.query<{ aggregate_id: string; sequence: number; event_type: string; payload: Record<string, unknown>; recorded_at: Date }>(
    `select aggregate_id, sequence, event_type, payload, recorded_at from events
      where workspace_id = $1 and aggregate_type = 'grouping_decision' and sequence <= $2 order by sequence`,
    [workspaceId, sequence],
  );
  const inForce = new Map<string, GroupingDecision>();
  const restores: GroupingDecision[] = [];
  for (const e of rows) {
    const p = e.payload;
    if (e.event_type === 'grouping_decision.undone') {
      inForce.delete(e.aggregate_id);
      const moved = ((p.effect as DecisionEffect | undefined)?.moved ?? []).filter((m) => m.to !== null);
      if (Number(e.sequence) > sinceSequence && moved.length)
        restores.push({
          id: e.aggregate_id,
          kind: 'restore',
          source_pattern_id: null,
          target_pattern_id: moved[0].to,
          issue_ids: moved.filter((m) => m.to === moved[0].to).map((m) => m.issue_id),
          decided_at: e.recorded_at.toISOString(),
        });
      continue;
    }
    inForce.set(e.aggregate_id, {
      id: e.aggregate_id,
      kind: p.kind as GroupingDecisionKind,
      source_pattern_id: (p.source_pattern_id as string | null) ?? null,
      target_pattern_id: (p.target_pattern_id as string | null) ?? null,
      issue_ids: p.issue_ids as string[],
      decided_at: e.recorded_at.toISOString(),
    });
  }
  return [...inForce.values(), ...restores];
}

/** Up to `limit` members of the pattern with their texts (id order), for the grouping explanation. */
export async function patternMemberTexts(
  db: Queryable,
  workspaceId: string,
  patternId: string,
  limit: number,
): Promise<Array<{ id: string; title: string; narrative: string | null }>> {
  const { rows } = await db.query<{ id: string; title: string; narrative: string | null }>(
    `select id, title, narrative from issues where workspace_id = $1 and pattern_id = $2 order by id limit $3`,
    [workspaceId, patternId, limit],
  );
  return rows;
}

/** The issue's latest pattern assignment: by a run (run_id) or a person's decision (decision_id). */
export async function latestAssignment(
  db: Queryable,
  workspaceId: string,
  issueId: string,
): Promise<{
  pattern_id: string | null;
  run_id: string | null;
  decision_id: string | null;
  recorded_at: Date;
  actor_type: string;
  actor_id: string | null;
} | null> {
  const { rows } = await db.query<{
    pattern_id: string | null;
    run_id: string | null;
    decision_id: string | null;
    recorded_at: Date;
    actor_type: string;
    actor_id: string | null;
  }>(
    `select payload->>'pattern_id' as pattern_id, payload->>'run_id' as run_id, payload->>'decision_id' as decision_id, recorded_at, actor_type, actor_id
       from events where workspace_id = $1 and aggregate_type = 'issue' and aggregate_id = $2 and event_type = 'issue.pattern_assigned'
      order by sequence desc limit 1`,
    [workspaceId, issueId],
  );
  return rows[0] ?? null;
}

/** Rebuilds the workspace's `grouping_decisions` from its grouping_decision.* events (sql/projections.ts). */
export async function rebuildGroupingDecisions(db: Queryable, workspaceId: string): Promise<number> {
  const { rows } = await db.query<{
    aggregate_id: string;
    sequence: string;
    event_type: string;
    payload: Record<string, unknown>;
    actor_type: string;
    actor_id: string | null;
    recorded_at: Date;
  }>(
    `select aggregate_id, sequence, event_type, payload, actor_type, actor_id, recorded_at from events
      where workspace_id = $1 and aggregate_type = 'grouping_decision' order by sequence`,
    [workspaceId],
  );
  const decisions = new Map<string, GroupingDecisionRow>();
  for (const e of rows) {
    const p = e.payload;
    if (e.event_type === 'grouping_decision.made') {
      decisions.set(e.aggregate_id, {
        id: e.aggregate_id,
        workspace_id: workspaceId,
        kind: p.kind as GroupingDecisionKind,
        status: 'active',
        source_pattern_id: (p.source_pattern_id as string | null) ?? null,
        target_pattern_id: (p.target_pattern_id as string | null) ?? null,
        issue_ids: p.issue_ids as string[],
        effect: (p.effect as DecisionEffect) ?? { moved: [] },
        note: (p.note as string | null) ?? null,
        decided_by_type: e.actor_type,
        decided_by: e.actor_id,
        decided_at: e.recorded_at,
        undone_by_type: null,
        undone_by: null,
        undone_at: null,
        last_sequence: Number(e.sequence),
      });
    } else if (e.event_type === 'grouping_decision.undone' && decisions.has(e.aggregate_id)) {
      Object.assign(decisions.get(e.aggregate_id)!, {
        status: 'undone',
        undone_by_type: e.actor_type,
        undone_by: e.actor_id,
        undone_at: e.recorded_at,
        last_sequence: Number(e.sequence),
      });
    }
  }
  await db.query('delete from grouping_decisions where workspace_id = $1', [workspaceId]);
  for (const row of decisions.values()) {
    await insertGroupingDecision(db, row);
    if (row.status === 'undone') await markDecisionUndone(db, row.id, { type: row.undone_by_type!, id: row.undone_by }, row.undone_at!, row.last_sequence);
  }
  return decisions.size;
}
