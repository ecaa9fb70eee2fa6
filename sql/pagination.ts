/**
 * Keyset pagination for every list endpoint: rows ordered by (sort expression, id), a page is the
 * `limit` rows after the last (sort value, id) seen. The sort value travels as Postgres text so
 * that timestamps keep their microseconds. `total` is exact up to 10000 rows and the planner's
 * estimate above that.
 */
import type { Queryable } from '../lib/db.ts';

export interface SortColumn {
  /** SQL expression, never null (coalesce it if the column is nullable). */
  expr: string;
  /** Postgres type the cursor's text value is cast back to. */
  type: 'timestamptz' | 'integer' | 'bigint' | 'double precision' | 'text' | 'uuid';
}

/**
 * What a list endpoint pages over, declared by the sql module that owns the rows: the columns, the
 * relation, the filters already bound to parameters, the columns it may sort by and the unique id
 * that breaks ties. The route only chooses the sort, the page size and the cursor.
 */
export interface ListSource {
  select: string;
  from: string;
  /** Conditions joined with `and`; placeholders number from $1 into `params`. */
  where: string[];
  params: unknown[];
  /** Sortable field name -> SQL column. */
  sortColumns: Record<string, SortColumn>;
  idExpr: string;
  idType?: 'uuid' | 'bigint' | 'text';
}

/**
 * `column = $n` for each filter that has a value (undefined ones are left out); the first entry is
 * the scope (`workspace_id`) and always present.
 */
export function equalityFilters(filters: Record<string, string | number | undefined>): Pick<ListSource, 'where' | 'params'> {
  const where: string[] = [];
  const params: unknown[] = [];
  for (const [column, value] of Object.entries(filters)) if (value !== undefined) where.push(`${column} = $${params.push(value)}`);
  return { where, params };
}

export interface KeysetQuery {
  select: string;
  from: string;
  /** Conditions joined with `and`; placeholders number from $1 into `params`. */
  where: string[];
  params: unknown[];
  sort: SortColumn;
  direction: 'asc' | 'desc';
  idExpr: string;
  idType?: 'uuid' | 'bigint' | 'text';
  /** [sort value as text, id] of the last row of the previous page. */
  after?: [string, string];
  limit: number;
}

export interface KeysetPage<T> {
  rows: T[];
  hasMore: boolean;
  /** Cursor position of the last row returned. */
  last: [string, string] | null;
}

export const EXACT_TOTAL_LIMIT = 10_000;

export async function keysetPage<T extends Record<string, unknown>>(db: Queryable, q: KeysetQuery): Promise<KeysetPage<T>> {
  const params = [...q.params];
  const where = [...q.where];
  if (q.after) {
    params.push(q.after[0], q.after[1]);
    const op = q.direction === 'desc' ? '<' : '>';
    where.push(`(${q.sort.expr}, ${q.idExpr}) ${op} ($${params.length - 1}::${q.sort.type}, $${params.length}::${q.idType ?? 'uuid'})`);
  }
  params.push(q.limit + 1);
  const sql = `select ${q.select}, (${q.sort.expr})::text as __sort_key, (${q.idExpr})::text as __id_key
    from ${q.from} ${where.length ? `where ${where.join(' and ')}` : ''}
    order by ${q.sort.expr} ${q.direction}, ${q.idExpr} ${q.direction}
    limit $${params.length}`;
  const { rows } = await db.query<T & { __sort_key: string; __id_key: string }>(sql, params);
  const hasMore = rows.length > q.limit;
  const page = hasMore ? rows.slice(0, q.limit) : rows;
  const tail = page.at(-1);
  return {
    rows: page.map(({ __sort_key, __id_key, ...row }) => row as unknown as T),
    hasMore,
    last: tail ? [tail.__sort_key, tail.__id_key] : null,
  };
}

/** Row count of the filtered set: exact up to 10000, the planner's estimate beyond. */
export async function filteredTotal(db: Queryable, from: string, where: string[], params: unknown[]): Promise<number> {
  const whereSql = where.length ? `where ${where.join(' and ')}` : '';
  const { rows } = await db.query<{ n: number }>(`select count(*)::int as n from (select 1 from ${from} ${whereSql} limit ${EXACT_TOTAL_LIMIT + 1}) t`, params);
  if (rows[0].n <= EXACT_TOTAL_LIMIT) return rows[0].n;
  const plan = await db.query<{ 'QUERY PLAN': Array<{ Plan: { 'Plan Rows': number } }> }>(`explain (format json) select 1 from ${from} ${whereSql}`, params);
  return Math.max(EXACT_TOTAL_LIMIT + 1, Math.round(plan.rows[0]['QUERY PLAN'][0].Plan['Plan Rows']));
}
