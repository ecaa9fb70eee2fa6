/**
 * List endpoints (cross-cutting rule 6): `limit` 1..100 (default 25), `sort` with a `-` prefix for
 * descending, and opaque cursors signed with HMAC so that a modified or fabricated one is 400
 * `malformed cursor token`. A cursor is bound to the sort and filters it was issued for.
 */
import { ringVerifies, type KeyRing } from '../../lib/keyRing.ts';
import { z } from 'zod';
import { canonicalJson, hmacSha256, sha256Hex } from '../../lib/crypto.ts';
import { AppError } from '../../lib/errors.ts';
import type { Queryable } from '../../lib/db.ts';
import { filteredTotal, keysetPage, type ListSource } from '../../sql/pagination.ts';

export const pageSchema = z.object({
  next_cursor: z.string().nullable(),
  has_more: z.boolean(),
  total: z.number().int().describe('Exact up to 10000 rows; an estimate above'),
});
export type Page = z.infer<typeof pageSchema>;

export const listResponse = <T extends z.ZodType>(item: T) => z.object({ data: z.array(item), page: pageSchema });

/**
 * The query schema of a list endpoint: paging fields plus its filters. `sorts` are the sortable
 * field names; the allowed values are each name and its `-` (descending) form.
 */
export function listQuery<F extends z.ZodRawShape, S extends string>(filters: F, sorts: readonly [S, ...S[]], defaultSort: S | `-${S}`) {
  const sortValues = sorts.flatMap((s) => [s, `-${s}`]) as [string, ...string[]];
  return z.object({
    limit: z.coerce.number({ error: 'must be an integer' }).int('must be an integer').min(1, 'must be at least 1').max(100, 'must be at most 100').default(25),
    cursor: z.string().min(1).max(2048).optional(),
    sort: z.enum(sortValues, { error: `must be one of ${sortValues.join(', ')}` }).default(defaultSort),
    ...filters,
  });
}

interface CursorBody {
  /** sort the cursor was issued for */
  s: string;
  /** hash of the filters */
  f: string;
  /** [sort value, id] of the last row */
  k: [string, string];
}

const malformed = () => new AppError('validation_error', 'malformed cursor token', { cursor: 'malformed cursor token' });

export function signCursor(keys: KeyRing, body: CursorBody): string {
  const payload = Buffer.from(JSON.stringify(body)).toString('base64url');
  return `${payload}.${hmacSha256(keys.current, payload).toString('base64url')}`;
}

/** A cursor signed by any key of the ring (so one issued before a key rotation still pages on). */
export function verifyCursor(keys: KeyRing, token: string): CursorBody {
  const [payload, signature, extra] = token.split('.');
  if (!payload || !signature || extra !== undefined) throw malformed();
  if (!ringVerifies(keys, signature, (key) => hmacSha256(key, payload).toString('base64url'))) throw malformed();
  try {
    const body = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as CursorBody;
    if (typeof body.s !== 'string' || typeof body.f !== 'string' || !Array.isArray(body.k) || body.k.length !== 2) throw malformed();
    return body;
  } catch {
    throw malformed();
  }
}

export interface ListRequest {
  /** The validated query (limit, cursor, sort and filters). */
  query: { limit: number; cursor?: string; sort: string } & Record<string, unknown>;
  cursorKey: KeyRing;
}

/** Runs a keyset-paginated list query and shapes `{data, page}` with `toItem` for each row. */
export async function paginate<Row extends Record<string, unknown>, Item>(
  db: Queryable,
  source: ListSource,
  request: ListRequest,
  toItem: (row: Row) => Item,
): Promise<{ data: Item[]; page: Page }> {
  const spec = { ...source, ...request };
  const { limit, cursor, sort, ...filters } = spec.query;
  const descending = sort.startsWith('-');
  const field = descending ? sort.slice(1) : sort;
  const sortColumn = spec.sortColumns[field];
  if (!sortColumn) throw new Error(`no sort column declared for ${field}`);
  // Bound to the listed resource too: a cursor of one list is not accepted by another.
  const filterHash = sha256Hex(canonicalJson({ from: spec.from, filters })).slice(0, 16);
  let after: [string, string] | undefined;
  if (cursor) {
    const body = verifyCursor(spec.cursorKey, cursor);
    if (body.s !== sort || body.f !== filterHash) {
      throw new AppError('validation_error', 'cursor was issued for a different sort or filter', { cursor: 'does not match this query' });
    }
    after = body.k;
  }
  const [page, total] = await Promise.all([
    keysetPage<Row>(db, {
      select: spec.select,
      from: spec.from,
      where: spec.where,
      params: spec.params,
      sort: sortColumn,
      direction: descending ? 'desc' : 'asc',
      idExpr: spec.idExpr,
      idType: spec.idType,
      after,
      limit,
    }),
    filteredTotal(db, spec.from, spec.where, spec.params),
  ]);
  return {
    data: page.rows.map(toItem),
    page: {
      next_cursor: page.hasMore && page.last ? signCursor(spec.cursorKey, { s: sort, f: filterHash, k: page.last }) : null,
      has_more: page.hasMore,
      total,
    },
  };
}
