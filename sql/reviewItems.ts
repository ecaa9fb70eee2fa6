/**
 * The review queue: items a human must decide (missing narrative, abstained extraction, root cause
 * or criticality). Creating and deciding an item are events (aggregate `review_item`), added to the
 * transaction's event batch. In the lock order of every writer, an item comes after its issue.
 *
 * The engine's items are questions (engine/review/questions.ts): one per pattern and question or per
 * issue, keyed `pattern:<id>:<kind>` / `issue:<id>:<kind>`. Every run brings the open ones up to date
 * (`syncEngineQuestions`): a question asked again is refreshed in place (count, risk, candidates), a
 * new one is opened unless a reviewer dismissed it, and an open one the run no longer asks (the
 * engine or a pattern's majority settled it) is closed as `resolved` by the engine with a
 * `review_item.superseded` event, which is not a reviewer's decision and never feeds a run.
 */
import { prepared, type Queryable } from '../lib/db.ts';
import type { Actor, EventBatch, NewEvent } from './events.ts';
import { equalityFilters, type ListSource } from './pagination.ts';
import { isUuid } from '../lib/ids.ts';

export const reviewKinds = ['missing_narrative', 'extraction', 'root_cause', 'criticality'] as const;
export type ReviewKind = (typeof reviewKinds)[number];
export const reviewStatuses = ['open', 'resolved', 'dismissed'] as const;
export type ReviewStatus = (typeof reviewStatuses)[number];

export interface ReviewItemRow extends Record<string, unknown> {
  id: string;
  workspace_id: string;
  kind: ReviewKind;
  status: ReviewStatus;
  issue_id: string | null;
  pattern_id: string | null;
  reason: string;
  candidates: unknown[];
  provenance: Record<string, unknown>;
  decision: Record<string, unknown> | null;
  decided_by: string | null;
  decided_at: Date | null;
  question_key: string | null;
  issue_count: number;
  risk_blocked: number;
  created_at: Date;
  updated_at: Date;
}

export interface NewReviewItem {
  kind: ReviewKind;
  issueId: string | null;
  patternId?: string | null;
  reason: string;
  candidates?: unknown[];
  provenance?: Record<string, unknown>;
  questionKey?: string | null;
  issueCount?: number;
  riskBlocked?: number;
}

const reviewItemColumns =
  'id, workspace_id, kind, status, issue_id, pattern_id, reason, candidates, provenance, decision, decided_by, decided_at, question_key, issue_count, risk_blocked, created_at, updated_at';

const insertReviewItems = prepared(
  'review_items_open',
  `insert into review_items (workspace_id, kind, issue_id, pattern_id, reason, candidates, provenance, question_key, issue_count, risk_blocked)
   select $1, i.kind, i.issue_id, i.pattern_id, i.reason, i.candidates, i.provenance, i.question_key, i.issue_count, i.risk_blocked
     from rows from (unnest($2::text[]), unnest($3::uuid[]), unnest($4::uuid[]), unnest($5::text[]), jsonb_array_elements($6::jsonb), jsonb_array_elements($7::jsonb),
                     unnest($8::text[]), unnest($9::int[]), unnest($10::float8[]))
          as i(kind, issue_id, pattern_id, reason, candidates, provenance, question_key, issue_count, risk_blocked)
   on conflict do nothing
   returning ${reviewItemColumns}`,
);

/** Opens items (one open item per issue and kind: an existing open one is kept) and logs them. */
export async function openReviewItems(db: Queryable, events: EventBatch, actor: Actor, items: NewReviewItem[]): Promise<ReviewItemRow[]> {
  if (!items.length) return [];
  const workspaceId = events.workspaceId;
  const { rows } = await db.query<ReviewItemRow>(
    insertReviewItems([
      workspaceId,
      items.map((i) => i.kind),
      items.map((i) => i.issueId),
      items.map((i) => i.patternId ?? null),
      items.map((i) => i.reason),
      // One JSON array each, not jsonb[]: a jsonb[] literal quotes every element again (as in events.ts).
      JSON.stringify(items.map((i) => i.candidates ?? [])),
      JSON.stringify(items.map((i) => i.provenance ?? {})),
      items.map((i) => i.questionKey ?? null),
      items.map((i) => i.issueCount ?? 1),
      items.map((i) => i.riskBlocked ?? 0),
    ]),
  );
  events.add(
    actor,
    rows.map(
      (r): NewEvent => ({
        aggregateType: 'review_item',
        aggregateId: r.id,
        eventType: 'review_item.opened',
        payload: {
          kind: r.kind,
          issue_id: r.issue_id,
          pattern_id: r.pattern_id,
          question_key: r.question_key,
          issue_count: r.issue_count,
          reason: r.reason,
          candidates: r.candidates,
          provenance: r.provenance,
        },
      }),
    ),
  );
  return rows;
}

/** Closes the open items of these issues and kind with a decision, logging each. */
export async function closeOpenItemsOfIssues(
  db: Queryable,
  events: EventBatch,
  actor: Actor,
  issueIds: string[],
  kind: ReviewKind,
  decision: Record<string, unknown>,
): Promise<ReviewItemRow[]> {
  if (!issueIds.length) return [];
  const workspaceId = events.workspaceId;
  const { rows } = await db.query<ReviewItemRow>(
    `update review_items set status = 'resolved', decision = $4, decided_by = $5, decided_at = now(), updated_at = now()
      where workspace_id = $1 and kind = $2 and status = 'open' and issue_id = any($3::uuid[])
      returning *`,
    [workspaceId, kind, issueIds, JSON.stringify(decision), actor.id ?? actor.type],
  );
  events.add(
    actor,
    rows.map((r) => decidedEvent(r)),
  );
  return rows;
}

const decidedEvent = (r: ReviewItemRow): NewEvent => ({
  aggregateType: 'review_item',
  aggregateId: r.id,
  eventType: `review_item.${r.status}`,
  payload: {
    kind: r.kind,
    issue_id: r.issue_id,
    pattern_id: patternOfQuestion(r.question_key),
    question_key: r.question_key,
    issue_count: r.issue_count,
    decision: r.decision,
  },
});

/** The pattern a `pattern:<id>:<kind>` question is about (null for issue questions). */
export function patternOfQuestion(key: string | null): string | null {
  return key?.startsWith('pattern:') ? key.split(':')[1] : null;
}

export interface EngineQuestion {
  key: string;
  kind: 'extraction' | 'root_cause' | 'criticality';
  pattern_id: string | null;
  issue_id: string | null;
  issue_count: number;
  risk_blocked: number;
  reason: string;
  candidates: unknown[];
  provenance: Record<string, unknown>;
}

/**
 * Brings the engine's open questions up to date with a run's (see the header). `inSnapshot`: the
 * issues the run looked at; an open issue question of another issue is left alone. Returns how many
 * were opened, refreshed and superseded.
 */
export async function syncEngineQuestions(
  db: Queryable,
  events: EventBatch,
  actor: Actor,
  runId: string,
  questions: EngineQuestion[],
  inSnapshot: Set<string>,
): Promise<{ opened: number; refreshed: number; superseded: number }> {
  const workspaceId = events.workspaceId;
  const { rows: open } = await db.query<{ id: string; question_key: string | null; issue_id: string | null; kind: ReviewKind }>(
    `select id, question_key, issue_id, kind from review_items
      where workspace_id = $1 and status = 'open' and kind in ('extraction', 'root_cause', 'criticality') order by id for update`,
    [workspaceId],
  );
  const dismissed = new Set(
    (
      await db.query<{ key: string }>(
        `select coalesce(question_key, 'issue:' || issue_id || ':' || kind) as key from review_items where workspace_id = $1 and status = 'dismissed' and kind in ('extraction', 'root_cause', 'criticality')`,
        [workspaceId],
      )
    ).rows.map((r) => r.key),
  );
  const keyOf = (r: { question_key: string | null; issue_id: string | null; kind: string }) => r.question_key ?? `issue:${r.issue_id}:${r.kind}`;
  const openByKey = new Map(open.map((r) => [keyOf(r), r]));
  const asked = new Set(questions.map((q) => q.key));

  const refresh = questions.filter((q) => openByKey.has(q.key));
  if (refresh.length) {
    await db.query(
      `update review_items r set question_key = q.key, issue_count = q.issue_count, risk_blocked = q.risk_blocked, reason = q.reason,
              candidates = q.candidates, provenance = q.provenance, updated_at = now()
         from jsonb_to_recordset($2::jsonb) as q(id uuid, key text, issue_count int, risk_blocked float8, reason text, candidates jsonb, provenance jsonb)
        where r.workspace_id = $1 and r.id = q.id`,
      [workspaceId, JSON.stringify(refresh.map((q) => ({ ...q, id: openByKey.get(q.key)!.id })))],
    );
  }
  const fresh = questions.filter((q) => !openByKey.has(q.key) && !dismissed.has(q.key));
  // A pattern question's pattern row is written after the run's events: its pattern_id is set then (linkQuestionPatterns).
  const opened = await openReviewItems(
    db,
    events,
    actor,
    fresh.map((q) => ({
      kind: q.kind,
      issueId: q.issue_id,
      patternId: null,
      reason: q.reason,
      candidates: q.candidates,
      provenance: q.provenance,
      questionKey: q.key,
      issueCount: q.issue_count,
      riskBlocked: q.risk_blocked,
    })),
  );
  const stale = open.filter((r) => !asked.has(keyOf(r)) && (r.issue_id === null || inSnapshot.has(r.issue_id)));
  if (stale.length) {
    const decision = { resolved_by: 'engine', run_id: runId, reason: 'No longer asked: the engine or the pattern majority settled it' };
    const { rows } = await db.query<ReviewItemRow>(
      `update review_items set status = 'resolved', decision = $3, decided_by = 'engine', decided_at = now(), updated_at = now()
        where workspace_id = $1 and id = any($2::uuid[]) returning *`,
      [workspaceId, stale.map((r) => r.id), JSON.stringify(decision)],
    );
    events.add(
      actor,
      rows.map((r) => ({ ...decidedEvent(r), eventType: 'review_item.superseded' })),
    );
  }
  return { opened: opened.length, refreshed: refresh.length, superseded: stale.length };
}

/** Sets the pattern of open pattern questions once the run's pattern rows exist. */
export async function linkQuestionPatterns(db: Queryable, workspaceId: string): Promise<void> {
  await db.query(
    `update review_items r set pattern_id = split_part(r.question_key, ':', 2)::uuid
      where r.workspace_id = $1 and r.status = 'open' and r.question_key like 'pattern:%' and r.pattern_id is null
        and exists (select 1 from patterns p where p.id = split_part(r.question_key, ':', 2)::uuid)`,
    [workspaceId],
  );
}

export async function lockReviewItem(db: Queryable, workspaceId: string, id: string): Promise<ReviewItemRow | null> {
  if (!isUuid(id)) return null;
  const { rows } = await db.query<ReviewItemRow>('select * from review_items where workspace_id = $1 and id = $2 for update', [workspaceId, id]);
  return rows[0] ?? null;
}

export async function findReviewItem(db: Queryable, workspaceId: string, id: string): Promise<ReviewItemRow | null> {
  if (!isUuid(id)) return null;
  const { rows } = await db.query<ReviewItemRow>('select * from review_items where workspace_id = $1 and id = $2', [workspaceId, id]);
  return rows[0] ?? null;
}

/**
 * The id of the issue's review item of one of `kinds`, its own or its pattern's question (which
 * settles it): an open one first, then the newest.
 */
export async function latestReviewItemOfIssue(db: Queryable, workspaceId: string, issueId: string, kinds: ReviewKind[]): Promise<string | null> {
  const { rows } = await db.query<{ id: string }>(
    `select r.id from review_items r
      where r.workspace_id = $1 and r.kind = any($3)
        and (r.issue_id = $2 or r.question_key = any(select 'pattern:' || i.pattern_id || ':' || k from issues i, unnest($3::text[]) k where i.workspace_id = $1 and i.id = $2 and i.pattern_id is not null))
      order by (r.status = 'open') desc, r.created_at desc limit 1`,
    [workspaceId, issueId, kinds],
  );
  return rows[0]?.id ?? null;
}

/** Records a reviewer's decision on an open item (resolve or dismiss) and logs it. */
export async function decideReviewItem(
  db: Queryable,
  events: EventBatch,
  actor: Actor,
  id: string,
  status: 'resolved' | 'dismissed',
  decision: Record<string, unknown>,
): Promise<ReviewItemRow> {
  const { rows } = await db.query<ReviewItemRow>(
    `update review_items set status = $3, decision = $4, decided_by = $5, decided_at = now(), updated_at = now()
      where workspace_id = $1 and id = $2 returning *`,
    [events.workspaceId, id, status, JSON.stringify(decision), actor.id ?? actor.type],
  );
  events.add(actor, [decidedEvent(rows[0])]);
  return rows[0];
}

/** GET /v1/review-queue. */
export function reviewItemList(workspaceId: string, f: { kind?: string; status?: string; issue_id?: string; pattern_id?: string }): ListSource {
  const { where, params } = equalityFilters({ workspace_id: workspaceId, kind: f.kind, status: f.status, issue_id: f.issue_id });
  // A pattern's items: those about it, and its questions (keyed `pattern:<id>:…`).
  if (f.pattern_id) where.push(`(pattern_id = $${params.push(f.pattern_id)} or question_key like 'pattern:' || $${params.length} || ':%')`);
  return {
    where,
    params,
    select: '*',
    from: 'review_items',
    sortColumns: { risk_blocked: { expr: 'risk_blocked', type: 'double precision' }, created_at: { expr: 'created_at', type: 'timestamptz' } },
    idExpr: 'id',
  };
}

/**
 * A reviewer's answer to a pattern's question reaches its members at once: their latest extraction
 * takes the answer (source `human`, confidence 1). The pattern's fingerprint and later members follow
 * with the next run, which reads the decision from the event log (sql/engineRuns.ts). Returns how many
 * issues it settled.
 */
export async function settlePatternMembers(
  db: Queryable,
  workspaceId: string,
  patternId: string,
  kind: ReviewKind,
  decision: Record<string, unknown>,
): Promise<number> {
  const human = (value: unknown) => JSON.stringify({ value, confidence: 1, source: 'human', abstained: false });
  const sets: string[] = [];
  const params: unknown[] = [workspaceId, patternId];
  if (kind === 'root_cause' || (kind === 'extraction' && typeof decision.root_cause === 'string'))
    sets.push(`root_cause = root_cause || $${params.push(human(decision.root_cause))}::jsonb`);
  if (kind === 'extraction') sets.push(`domain = domain || $${params.push(human(decision.domain))}::jsonb`);
  if (kind === 'criticality')
    sets.push(
      `criticality = criticality || $${params.push(JSON.stringify({ level: decision.criticality, confidence: 1, source: 'human', abstained: false }))}::jsonb`,
    );
  if (!sets.length) return 0;
  const { rowCount } = await db.query(
    `update issue_extractions e set ${sets.join(', ')}, updated_at = now()
      from issues i where i.workspace_id = $1 and i.pattern_id = $2 and e.issue_id = i.id and e.workspace_id = $1`,
    params,
  );
  return rowCount ?? 0;
}
