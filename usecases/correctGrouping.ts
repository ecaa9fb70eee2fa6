/**
 * People correct the grouping (issue 31): merge one pattern into another, move an issue to another
 * pattern or out of every one, keep two issues apart, and undo any of these. Each is a
 * grouping_decision event in the log (the constraint every later engine run reads at its cut-off,
 * engine/cluster/constraints.ts), takes effect at once on the projections (issue.pattern_assigned
 * events carrying the decision id, pattern.updated events for counts and `merged_into`), is audited,
 * and a merge or its undo goes to webhooks as pattern.updated.
 *
 * One transaction per decision, in the write protocol of sql/events.ts: the issues it moves are locked
 * first (id order), then the patterns (id order), then the decision row for an undo; the events are
 * flushed last, and the pattern rows (which carry their last sequence) are written after the flush.
 */
import { randomUUID } from 'node:crypto';
import type { AppContext } from '../lib/context.ts';
import { withTransaction, type Queryable } from '../lib/db.ts';
import { AppError } from '../lib/errors.ts';
import type { GroupingDecisionKind } from '../engine/cluster/constraints.ts';
import { recordAudit, type AuditEntry } from '../sql/audit.ts';
import { EventBatch, type Actor, type NewEvent } from '../sql/events.ts';
import {
  findGroupingDecision,
  insertGroupingDecision,
  lockPatterns,
  markDecisionUndone,
  patternMemberIds,
  type DecisionEffect,
  type GroupingDecisionRow,
} from '../sql/groupingDecisions.ts';
import { assignPatterns } from '../sql/issueProjection.ts';
import { lockIssuesById } from '../sql/issues.ts';
import { recordOutboundEvent } from '../sql/outboundEvents.ts';
import { applyPatternEvent, upsertPatternRows, type PatternRow } from '../sql/patternProjection.ts';

export interface GroupingActor {
  actor: Actor & { type: 'user' | 'service_account' | 'api_key' };
  clientIp?: string | null;
}

export type GroupingRequest =
  | { kind: 'merge'; source_pattern_id: string; target_pattern_id: string; note?: string | null }
  | { kind: 'move'; issue_id: string; pattern_id: string | null; note?: string | null }
  | { kind: 'keep_apart'; issue_ids: [string, string]; note?: string | null };

const patternNotFound = () => new AppError('not_found', 'Pattern not found');
const issueNotFound = () => new AppError('not_found', 'Issue not found');
const invalid = (field: string, message: string) => new AppError('validation_error', 'Request validation failed', { [field]: message });

function assertNotMerged(p: PatternRow, field: string) {
  if (p.merged_into) throw new AppError('conflict', `Pattern ${p.id} was merged into ${p.merged_into}`, { [field]: `was merged into ${p.merged_into}` });
}

/** Moves issues (locked rows) between patterns (locked rows): their events and projection rows, and the pattern counts. */
function moveEvents(
  moves: DecisionEffect['moved'],
  patterns: Map<string, PatternRow>,
  decisionId: string,
  extra: Map<string, Record<string, unknown>>,
): { issueEvents: NewEvent[]; patternEvents: NewEvent[] } {
  const delta = new Map<string, number>();
  const issueEvents: NewEvent[] = [];
  for (const m of moves) {
    issueEvents.push({
      aggregateType: 'issue',
      aggregateId: m.issue_id,
      eventType: 'issue.pattern_assigned',
      payload: { pattern_id: m.to, decision_id: decisionId },
    });
    if (m.from) delta.set(m.from, (delta.get(m.from) ?? 0) - 1);
    if (m.to) delta.set(m.to, (delta.get(m.to) ?? 0) + 1);
  }
  const changes = new Map<string, Record<string, unknown>>();
  for (const [id, d] of delta) {
    const row = patterns.get(id);
    if (row && d !== 0) changes.set(id, { issue_count: Math.max(0, row.issue_count + d) });
  }
  for (const [id, c] of extra) changes.set(id, { ...changes.get(id), ...c });
  const patternEvents = [...changes]
    .sort((a, b) => (a[0] < b[0] ? -1 : 1))
    .map(
      ([id, c]): NewEvent => ({ aggregateType: 'pattern', aggregateId: id, eventType: 'pattern.updated', payload: { changes: c, decision_id: decisionId } }),
    );
  return { issueEvents, patternEvents };
}

async function commit(
  db: Queryable,
  events: EventBatch,
  who: GroupingActor,
  decisionEvent: NewEvent,
  moves: DecisionEffect['moved'],
  patterns: Map<string, PatternRow>,
  extra: Map<string, Record<string, unknown>>,
  audit: Omit<AuditEntry, 'workspaceId' | 'actorType' | 'actorId' | 'clientIp'>,
  webhook: Record<string, unknown> | null,
): Promise<number> {
  const decisionId = decisionEvent.aggregateId;
  const { issueEvents, patternEvents } = moveEvents(moves, patterns, decisionId, extra);
  await assignPatterns(
    db,
    moves.map((m) => ({ id: m.issue_id, pattern_id: m.to })),
  );
  await recordAudit(db, { ...audit, workspaceId: events.workspaceId, actorType: who.actor.type, actorId: who.actor.id, clientIp: who.clientIp ?? null });
  if (webhook) await recordOutboundEvent(db, events.workspaceId, 'pattern.updated', webhook);
  events.add(who.actor, [decisionEvent, ...issueEvents, ...patternEvents]);
  const written = await events.flush();
  const touched = new Map<string, PatternRow>();
  for (const e of written) {
    if (e.aggregate_type !== 'pattern') continue;
    touched.set(e.aggregate_id, applyPatternEvent(touched.get(e.aggregate_id) ?? patterns.get(e.aggregate_id), e));
  }
  await upsertPatternRows(db, [...touched.values()]);
  return written[0].sequence;
}

/** Records a person's grouping decision and applies it at once; returns the decision. */
export async function decideGrouping(app: AppContext, workspaceId: string, who: GroupingActor, request: GroupingRequest): Promise<GroupingDecisionRow> {
  const id = randomUUID();
  return withTransaction(app.pool, async (client) => {
    const events = await EventBatch.start(client, workspaceId);
    let kind: GroupingDecisionKind = request.kind;
    let source: string | null = null;
    let target: string | null = null;
    let issueIds: string[] = [];
    let moves: DecisionEffect['moved'] = [];
    const extra = new Map<string, Record<string, unknown>>();
    let patterns: Map<string, PatternRow>;
    let webhook: Record<string, unknown> | null = null;
    let audit: Omit<AuditEntry, 'workspaceId' | 'actorType' | 'actorId' | 'clientIp'>;
    if (request.kind === 'merge') {
      kind = 'merge';
      source = request.source_pattern_id;
      target = request.target_pattern_id;
      if (source === target) throw invalid('into', 'must be another pattern');
      const members = await lockIssuesById(client, workspaceId, await patternMemberIds(client, workspaceId, source));
      patterns = await lockPatterns(client, workspaceId, [source, target]);
      const from = patterns.get(source);
      const to = patterns.get(target);
      if (!from || !to) throw patternNotFound();
      assertNotMerged(from, 'id');
      assertNotMerged(to, 'into');
      const still = members.filter((m) => m.pattern_id === source);
      issueIds = still.map((m) => m.id).sort();
      moves = issueIds.map((issue) => ({ issue_id: issue, from: source, to: target }));
      extra.set(source, { merged_into: target, issue_count: 0 });
      extra.set(target, { issue_count: to.issue_count + moves.length });
      webhook = { pattern_id: source, change: 'merged', merged_into: target, by: 'person', decision_id: id, issues: moves.length };
      audit = { action: 'grouping.merged', targetType: 'pattern', targetId: source, metadata: { decision_id: id, into: target, issues: moves.length } };
    } else if (request.kind === 'move') {
      kind = 'move';
      const [issue] = await lockIssuesById(client, workspaceId, [request.issue_id]);
      if (!issue) throw issueNotFound();
      source = issue.pattern_id;
      target = request.pattern_id;
      patterns = await lockPatterns(
        client,
        workspaceId,
        [source, target].filter((p): p is string => p !== null),
      );
      if (target) {
        const to = patterns.get(target);
        if (!to) throw patternNotFound();
        assertNotMerged(to, 'pattern_id');
      }
      issueIds = [issue.id];
      moves = source === target ? [] : [{ issue_id: issue.id, from: source, to: target }];
      audit = { action: 'grouping.moved', targetType: 'issue', targetId: issue.id, metadata: { decision_id: id, from: source, to: target } };
    } else {
      kind = 'keep_apart';
      const [a, b] = request.issue_ids;
      if (a === b) throw invalid('issue_id', 'must be another issue');
      const rows = await lockIssuesById(client, workspaceId, [a, b]);
      const first = rows.find((r) => r.id === a);
      const second = rows.find((r) => r.id === b);
      if (!first || !second) throw issueNotFound();
      patterns = await lockPatterns(client, workspaceId, second.pattern_id ? [second.pattern_id] : []);
      issueIds = [a, b];
      // Sharing a pattern now: the second issue leaves it (the next run places it elsewhere, or nowhere).
      if (first.pattern_id && first.pattern_id === second.pattern_id) moves = [{ issue_id: b, from: second.pattern_id, to: null }];
      audit = {
        action: 'grouping.kept_apart',
        targetType: 'issue',
        targetId: a,
        metadata: { decision_id: id, other_issue_id: b, left: moves[0]?.from ?? null },
      };
    }
    const effect: DecisionEffect = { moved: moves };
    const note = request.note ?? null;
    const sequence = await commit(
      client,
      events,
      who,
      {
        aggregateType: 'grouping_decision',
        aggregateId: id,
        eventType: 'grouping_decision.made',
        payload: { kind, source_pattern_id: source, target_pattern_id: target, issue_ids: issueIds, effect, note },
      },
      moves,
      patterns,
      extra,
      audit,
      webhook,
    );
    const row: GroupingDecisionRow = {
      id,
      workspace_id: workspaceId,
      kind,
      status: 'active',
      source_pattern_id: source,
      target_pattern_id: target,
      issue_ids: issueIds,
      effect,
      note,
      decided_by_type: who.actor.type,
      decided_by: who.actor.id,
      decided_at: events.recordedAt,
      undone_by_type: null,
      undone_by: null,
      undone_at: null,
      last_sequence: sequence,
    };
    await insertGroupingDecision(client, row);
    return row;
  });
}

/**
 * Undoes a decision: it stops being a constraint from the next run on, and what it moved and is still
 * where it put it goes back (a merged pattern gets its members back and `merged_into` null).
 */
export async function undoGrouping(app: AppContext, workspaceId: string, who: GroupingActor, decisionId: string): Promise<GroupingDecisionRow> {
  return withTransaction(app.pool, async (client) => {
    const events = await EventBatch.start(client, workspaceId);
    const seen = await findGroupingDecision(client, workspaceId, decisionId);
    if (!seen) throw new AppError('not_found', 'Grouping decision not found');
    const issues = new Map(
      (
        await lockIssuesById(
          client,
          workspaceId,
          seen.effect.moved.map((m) => m.issue_id),
        )
      ).map((r) => [r.id, r]),
    );
    const patternIds = [seen.source_pattern_id, seen.target_pattern_id, ...seen.effect.moved.flatMap((m) => [m.from, m.to])].filter(
      (p): p is string => p !== null,
    );
    const patterns = await lockPatterns(client, workspaceId, patternIds);
    const decision = (await findGroupingDecision(client, workspaceId, decisionId, true))!;
    if (decision.status !== 'active') throw new AppError('conflict', 'Grouping decision is already undone');
    // Back where it was, when it is still where the decision put it and where it was can take it.
    const moves = decision.effect.moved
      .filter((m) => issues.has(m.issue_id) && issues.get(m.issue_id)!.pattern_id === m.to)
      .map((m) => {
        const back = m.from && patterns.get(m.from) && (patterns.get(m.from)!.merged_into === null || m.from === decision.source_pattern_id) ? m.from : null;
        return { issue_id: m.issue_id, from: m.to, to: back };
      })
      .filter((m) => m.from !== m.to);
    const extra = new Map<string, Record<string, unknown>>();
    let webhook: Record<string, unknown> | null = null;
    if (decision.kind === 'merge' && decision.source_pattern_id && patterns.has(decision.source_pattern_id)) {
      const source = patterns.get(decision.source_pattern_id)!;
      const back = moves.filter((m) => m.to === source.id).length;
      extra.set(source.id, { merged_into: null, issue_count: source.issue_count + back });
      webhook = { pattern_id: source.id, change: 'unmerged', merged_into: null, by: 'person', decision_id: decision.id, issues: back };
    }
    const sequence = await commit(
      client,
      events,
      who,
      {
        aggregateType: 'grouping_decision',
        aggregateId: decision.id,
        eventType: 'grouping_decision.undone',
        payload: { kind: decision.kind, effect: { moved: moves } },
      },
      moves,
      patterns,
      extra,
      { action: 'grouping.undone', targetType: 'grouping_decision', targetId: decision.id, metadata: { kind: decision.kind, issues: moves.length } },
      webhook,
    );
    return markDecisionUndone(client, decision.id, who.actor, events.recordedAt, sequence);
  });
}
