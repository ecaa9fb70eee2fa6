/**
 * Reviews of a tenant's CAPs (inside its schema). A review is opened when its CAP is submitted and
 * decided exactly once (rule 2); deciding it, which also moves the CAP, is `decideReview` in caps.ts.
 */
import type { Queryable } from '../../lib/db.ts';
import type { CapFilter, CapRow, CapTargetType } from './caps.ts';

export const reviewDecisions = ['approved', 'rejected'] as const;
export type ReviewDecision = (typeof reviewDecisions)[number];

export interface ReviewRow {
  id: string;
  cap_id: string;
  cap_version: number;
  target_type: CapTargetType;
  target_id: string;
  decision: ReviewDecision | null;
  comment: string | null;
  requested_by: string | null;
  decided_by: string | null;
  created_at: Date;
  decided_at: Date | null;
}

const select = `select r.id, r.cap_id, r.cap_version, c.target_type, c.target_id, r.decision, r.comment, r.requested_by,
       r.decided_by, r.created_at, r.decided_at
  from reviews r join caps c on c.id = r.cap_id`;

export const REVIEW_NOT_FOUND = 'Review not found.';

/** Newest first; filtered by the target of their CAP. */
export async function listReviews(db: Queryable, filter: CapFilter = {}): Promise<ReviewRow[]> {
  const { rows } = await db.query<ReviewRow>(
    `${select} where ($1::text is null or c.target_type = $1) and ($2::text is null or c.target_id = $2)
      order by r.created_at desc, r.id desc`,
    [filter.targetType ?? null, filter.targetId ?? null],
  );
  return rows;
}

/** The review, locked until the transaction ends (two decisions of one review run one after the other). */
export async function lockReview(db: Queryable, id: string): Promise<ReviewRow | null> {
  const { rows } = await db.query<ReviewRow>(`${select} where r.id::text = $1 for update of r`, [id]);
  return rows[0] ?? null;
}

export async function insertReview(db: Queryable, cap: CapRow, requestedBy: string): Promise<ReviewRow> {
  const { rows } = await db.query<{ id: string }>('insert into reviews (cap_id, cap_version, requested_by) values ($1, $2, $3) returning id', [
    cap.id,
    cap.version,
    requestedBy,
  ]);
  return (await lockReview(db, rows[0].id))!;
}

export async function recordDecision(db: Queryable, id: string, decision: ReviewDecision, comment: string | null, decidedBy: string): Promise<ReviewRow> {
  await db.query('update reviews set decision = $2, comment = $3, decided_by = $4, decided_at = now() where id = $1 and decision is null', [
    id,
    decision,
    comment,
    decidedBy,
  ]);
  return (await lockReview(db, id))!;
}

/** Every review with its CAP's target, oldest first (the remediation export's sheet). */
export const allReviewsSql = `select r.id, r.cap_id, r.cap_version, c.target_type, c.target_id, r.decision, r.comment, r.requested_by, r.decided_by, r.created_at, r.decided_at
  from reviews r join caps c on c.id = r.cap_id order by r.created_at, r.id`;
