/**
 * The counts of the console's navigation (GET /v1/shell/nav): one declared list, each count a cheap
 * indexed query guarded by the scope that may see it, all answered by one statement. Adding a count
 * is one line here.
 */
import type { Queryable } from '../lib/db.ts';

export interface NavCount {
  key: string;
  /** The /v1 scope whose holders see this count. */
  scope: string;
  /** A scalar count; $1 is the workspace id, $2 the user id (null for machine callers). */
  sql: string;
  /** A count of the calling member's own (needs a user; machine callers do not see it). */
  member?: boolean;
}

export const navCounts: readonly NavCount[] = [
  { key: 'open_review_items', scope: 'review:read', sql: `select count(*) from review_items where workspace_id = $1 and status = 'open'` },
  // The member's in-app counter (moved in the statement that inserts or reads notifications): one primary-key read.
  {
    key: 'unread_notifications',
    scope: 'notifications:read',
    member: true,
    sql: `select coalesce((select unread from notification_unread_counts where workspace_id = $1 and user_id = $2), 0)`,
  },
  { key: 'active_crest_alerts', scope: 'patterns:read', sql: `select count(*) from pattern_alerts where workspace_id = $1 and status = 'open'` },
  // Queued or running jobs: a range of the workspace's recent job_runs (index job_runs_workspace_created; a
  // partial index on status would cost every job's status updates their HOT path, see 000008).
  {
    key: 'running_jobs',
    scope: 'jobs:read',
    sql: `select count(*) from job_runs where workspace_id = $1 and created_at > now() - interval '30 days' and status in ('queued', 'running')`,
  },
];

/** The counts among `navCounts` whose scope the caller holds, in one round trip. */
export async function navCountValues(db: Queryable, workspaceId: string, userId: string | null, scopes: ReadonlySet<string>): Promise<Record<string, number>> {
  const visible = navCounts.filter((c) => scopes.has(c.scope) && (!c.member || userId !== null));
  if (!visible.length) return {};
  const select = visible.map((c) => `(${c.sql})::int as "${c.key}"`).join(', ');
  const { rows } = await db.query<Record<string, number>>(`select ${select} from (select $1::uuid, $2::uuid) as params`, [workspaceId, userId]);
  return rows[0];
}
