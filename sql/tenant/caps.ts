/**
 * Corrective action plans of a tenant, stored and read (inside its schema: every function takes a
 * client inside `withTenant`, and the writing ones must run in its transaction). The rules (status
 * moves, the version rule) are domain/capWorkflow.ts; the use cases that apply them, with their audit
 * rows, are usecases/remediation/createCap.ts, editCap.ts and decideReview.ts.
 */
import type { Queryable } from '../../lib/db.ts';
import { AppError, conflict } from '../../lib/errors.ts';
import type { CapStatus } from '../../domain/capWorkflow.ts';

/**
 * What a CAP can be about: what the engine produced for the tenant (`pattern`: a pattern of one of
 * its models; `recommendation`), one of its records or sources, or anything else (`other`, free id).
 */
export const capTargetTypes = ['pattern', 'recommendation', 'record', 'source', 'other'] as const;
export type CapTargetType = (typeof capTargetTypes)[number];

export interface CapRow {
  id: string;
  version: number;
  status: CapStatus;
  title: string;
  problem_statement: string | null;
  target_type: CapTargetType;
  target_id: string;
  owner_user_id: string | null;
  due_date: string | null;
  created_by: string | null;
  created_at: Date;
  updated_at: Date;
}

export const capColumns = `id, version, status, title, problem_statement, target_type, target_id, owner_user_id,
  to_char(due_date, 'YYYY-MM-DD') as due_date, created_by, created_at, updated_at`;

/** Every CAP of the tenant schema, oldest first (the remediation export's sheet). */
export const allCapsSql = `select ${capColumns} from caps order by created_at, id`;

export const CAP_NOT_FOUND = 'CAP not found.';
const OPEN_DUPLICATE = 'Another open CAP on this target has the same problem statement (or, without one, the same title).';

export interface CapFilter {
  targetType?: CapTargetType;
  targetId?: string;
}

/** Newest first; both filters optional. */
export async function listCaps(db: Queryable, filter: CapFilter = {}): Promise<CapRow[]> {
  const { rows } = await db.query<CapRow>(
    `select ${capColumns} from caps where ($1::text is null or target_type = $1) and ($2::text is null or target_id = $2)
      order by created_at desc, id desc`,
    [filter.targetType ?? null, filter.targetId ?? null],
  );
  return rows;
}

export async function findCap(db: Queryable, id: string, lock = false): Promise<CapRow | null> {
  const { rows } = await db.query<CapRow>(`select ${capColumns} from caps where id::text = $1 ${lock ? 'for update' : ''}`, [id]);
  return rows[0] ?? null;
}

// Targets the tenant's own data can confirm; `recommendation` and `other` are taken as given.
const targetExists: Partial<Record<CapTargetType, string>> = {
  pattern: 'select 1 from insight_patterns where pattern_id::text = $1 limit 1',
  record: 'select 1 from dataset_records where record_id::text = $1 limit 1',
  source: 'select 1 from sources where id::text = $1',
};

export async function assertTarget(db: Queryable, type: CapTargetType, id: string): Promise<void> {
  const sql = targetExists[type];
  if (sql && !(await db.query(sql, [id])).rowCount) throw new AppError('unprocessable', `Unknown ${type} '${id}' in this workspace.`);
}

export async function assertOwner(db: Queryable, ownerId: string | null | undefined): Promise<void> {
  if (ownerId && !(await db.query('select 1 from users where id = $1 and active', [ownerId])).rowCount) {
    throw new AppError('unprocessable', `owner_user_id '${ownerId}' is not an active user of this workspace.`);
  }
}

export interface NewCap {
  targetType: CapTargetType;
  targetId: string;
  title: string;
  problemStatement?: string | null;
  ownerUserId?: string | null;
  dueDate?: string | null;
}

const isUniqueViolation = (err: unknown, constraint: string) =>
  (err as { code?: string }).code === '23505' && (err as { constraint?: string }).constraint === constraint;

/**
 * Inserts a draft CAP, or (rule 3) finds the open CAP on the same target with the same dedupe key
 * (`created: false`, no row). Concurrent identical creations meet at the unique partial index
 * `caps_open_dedupe`: ON CONFLICT DO NOTHING waits for the other transaction and, when it committed,
 * skips; the select that follows (a new snapshot under READ COMMITTED) finds its row.
 */
export async function insertCap(db: Queryable, cap: NewCap, createdBy: string): Promise<{ cap: CapRow; created: boolean }> {
  for (;;) {
    const { rows } = await db.query<CapRow>(
      `insert into caps (target_type, target_id, title, problem_statement, owner_user_id, due_date, created_by)
       values ($1, $2, $3, $4, $5, $6, $7)
       on conflict (target_type, target_id, md5(dedupe_key)) where status not in ('closed', 'rejected', 'cancelled') do nothing
       returning ${capColumns}`,
      [cap.targetType, cap.targetId, cap.title, cap.problemStatement ?? null, cap.ownerUserId ?? null, cap.dueDate ?? null, createdBy],
    );
    if (rows[0]) return { cap: rows[0], created: true };
    const existing = await db.query<CapRow>(
      `select ${capColumns} from caps
        where target_type = $1 and target_id = $2 and status not in ('closed', 'rejected', 'cancelled')
          and dedupe_key = case when $4::text is null then 'title:' || $3 else 'problem:' || $4 end`,
      [cap.targetType, cap.targetId, cap.title, cap.problemStatement ?? null],
    );
    // None: the conflicting CAP was closed meanwhile (or an md5 collision, which cannot repeat): try again.
    if (existing.rows[0]) return { cap: existing.rows[0], created: false };
  }
}

export interface CapChanges {
  status?: CapStatus;
  title?: string;
  problemStatement?: string | null;
  ownerUserId?: string | null;
  dueDate?: string | null;
}

const editableColumns = {
  title: 'title',
  problemStatement: 'problem_statement',
  ownerUserId: 'owner_user_id',
  dueDate: 'due_date',
} as const satisfies Record<keyof Omit<CapChanges, 'status'>, keyof CapRow>;

/**
 * Writes an edit of `cap` (read under its row lock) that moves it to `to`, adding one to its version;
 * answers the new row and what changed (for the audit row). A change that would duplicate another
 * open CAP on the target is 409.
 */
export async function updateCapRow(
  db: Queryable,
  cap: CapRow,
  to: CapStatus,
  changes: CapChanges,
): Promise<{ updated: CapRow; diff: Record<string, { from: unknown; to: unknown }> }> {
  const diff: Record<string, { from: unknown; to: unknown }> = {};
  if (to !== cap.status) diff.status = { from: cap.status, to };
  const sets = ['status = $3'];
  const values: unknown[] = [cap.id, cap.version, to];
  for (const [field, column] of Object.entries(editableColumns) as Array<
    [keyof typeof editableColumns, (typeof editableColumns)[keyof typeof editableColumns]]
  >) {
    const value = changes[field];
    if (value === undefined) continue;
    values.push(value);
    sets.push(`${column} = $${values.length}`);
    if (cap[column] !== value) diff[column] = { from: cap[column], to: value };
  }
  try {
    const { rows } = await db.query<CapRow>(
      `update caps set ${sets.join(', ')}, version = version + 1, updated_at = now() where id = $1 and version = $2 returning ${capColumns}`,
      values,
    );
    return { updated: rows[0], diff };
  } catch (err) {
    if (isUniqueViolation(err, 'caps_open_dedupe')) throw conflict(OPEN_DUPLICATE);
    throw err;
  }
}

/** Sets a CAP's status (a review decision), adding one to its version. */
export async function setCapStatus(db: Queryable, id: string, status: CapStatus): Promise<CapRow> {
  const { rows } = await db.query<CapRow>(`update caps set status = $2, version = version + 1, updated_at = now() where id = $1 returning ${capColumns}`, [
    id,
    status,
  ]);
  return rows[0];
}
