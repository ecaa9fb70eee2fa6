/** Pattern queries (the projection's writes are in patternProjection.ts). */
import type { Queryable } from '../lib/db.ts';
import { patternColumns, type PatternRow } from './patternProjection.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export async function findPattern(db: Queryable, workspaceId: string, id: string): Promise<PatternRow | null> {
  if (!UUID.test(id)) return null;
  const { rows } = await db.query<PatternRow>(`select ${patternColumns} from patterns where workspace_id = $1 and id = $2`, [workspaceId, id]);
  return rows[0] ?? null;
}
