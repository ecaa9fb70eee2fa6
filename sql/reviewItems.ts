/**
 * The review queue: items a human must decide (missing narrative, abstained extraction, root cause
 * or criticality). Creating and deciding an item are events (aggregate `review_item`), added to the
 * transaction's event batch. In the lock order of every writer, an item comes after its issue.
 */
import type { Queryable } from '../lib/db.ts';
import type { Actor, EventBatch, NewEvent } from './events.ts';

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
}

/** Opens items (one open item per issue and kind: an existing open one is kept) and logs them. */
export async function openReviewItems(db: Queryable, events: EventBatch, actor: Actor, items: NewReviewItem[]): Promise<ReviewItemRow[]> {
  if (!items.length) return [];
  const workspaceId = events.workspaceId;
  const { rows } = await db.query<ReviewItemRow>(
    `insert into review_items (workspace_id, kind, issue_id, pattern_id, reason, candidates, provenance)
     select $1, i.kind, i.issue_id, i.pattern_id, i.reason, i.candidates, i.provenance
       from rows from (unnest($2::text[]), unnest($3::uuid[]), unnest($4::uuid[]), unnest($5::text[]), jsonb_array_elements($6::jsonb), jsonb_array_elements($7::jsonb))
            as i(kind, issue_id, pattern_id, reason, candidates, provenance)
     on conflict (workspace_id, issue_id, kind) where status = 'open' do nothing
     returning *`,
    [
      workspaceId,
      items.map((i) => i.kind),
      items.map((i) => i.issueId),
      items.map((i) => i.patternId ?? null),
      items.map((i) => i.reason),
      // One JSON array each, not jsonb[]: a jsonb[] literal quotes every element again (as in events.ts).
      JSON.stringify(items.map((i) => i.candidates ?? [])),
      JSON.stringify(items.map((i) => i.provenance ?? {})),
    ],
  );
  events.add(
    actor,
    rows.map((r): NewEvent => ({
      aggregateType: 'review_item',
      aggregateId: r.id,
      eventType: 'review_item.opened',
      payload: { kind: r.kind, issue_id: r.issue_id, pattern_id: r.pattern_id, reason: r.reason, candidates: r.candidates, provenance: r.provenance },
    })),
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
  events.add(actor, rows.map((r) => decidedEvent(r)));
  return rows;
}

const decidedEvent = (r: ReviewItemRow): NewEvent => ({
  aggregateType: 'review_item',
  aggregateId: r.id,
  eventType: `review_item.${r.status}`,
  payload: { kind: r.kind, issue_id: r.issue_id, decision: r.decision },
});

export async function lockReviewItem(db: Queryable, workspaceId: string, id: string): Promise<ReviewItemRow | null> {
  if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(id)) return null;
  const { rows } = await db.query<ReviewItemRow>('select * from review_items where workspace_id = $1 and id = $2 for update', [workspaceId, id]);
  return rows[0] ?? null;
}

export async function findReviewItem(db: Queryable, workspaceId: string, id: string): Promise<ReviewItemRow | null> {
  if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(id)) return null;
  const { rows } = await db.query<ReviewItemRow>('select * from review_items where workspace_id = $1 and id = $2', [workspaceId, id]);
  return rows[0] ?? null;
}

/** The id of the issue's review item of one of `kinds`: an open one first, then the newest. */
export async function latestReviewItemOfIssue(db: Queryable, workspaceId: string, issueId: string, kinds: ReviewKind[]): Promise<string | null> {
  const { rows } = await db.query<{ id: string }>(
    `select id from review_items where workspace_id = $1 and issue_id = $2 and kind = any($3) order by (status = 'open') desc, created_at desc limit 1`,
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
