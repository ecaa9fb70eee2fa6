/**
 * The remediation workbook, streamed: exceljs' streaming WorkbookWriter writes straight into the
 * destination (the HTTP response) while each sheet's rows come from a server-side cursor, a batch at
 * a time. After every batch the writer waits until the zip has caught up and the destination has
 * drained (lib/xlsxStream.ts), so neither deflate nor a slow reader lets the workbook pile up in
 * memory: memory stays flat whatever the history's length. Timestamps are ISO 8601 strings (UTC) and metadata is JSON text.
 */
import type { Writable } from 'node:stream';
import type { PoolClient } from '../../lib/db.ts';
import { sheetCaughtUp, streamingWorkbook } from '../../lib/xlsxStream.ts';
import { allCapsSql, type CapRow } from '../../sql/tenant/caps.ts';
import { cursorBatches } from '../../sql/cursor.ts';
import { allReviewsSql, type ReviewRow } from '../../sql/tenant/reviews.ts';
import { allTenantAuditSql, type TenantAuditRow } from '../../sql/tenant/audit.ts';
import { iso } from '../../lib/isoTimestamp.ts';

export const XLSX_MEDIA_TYPE = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';
export const EXPORT_BATCH_ROWS = 1000;
// Excel's limit on the characters of one cell.
const MAX_CELL = 32_767;

type Cell = string | number | null;
interface Sheet<T> {
  name: string;
  cursor: string;
  sql: string;
  headers: string[];
  row(r: T): Cell[];
}

const text = (v: string | null) => (v === null ? null : v.length > MAX_CELL ? v.slice(0, MAX_CELL) : v);
const sheet = <T>(s: Sheet<T>) => s as Sheet<unknown>;

export const remediationSheets: Sheet<unknown>[] = [
  sheet<CapRow>({
    name: 'CAPs',
    cursor: 'export_caps',
    sql: allCapsSql,
    headers: [
      'id',
      'version',
      'status',
      'title',
      'problem_statement',
      'target_type',
      'target_id',
      'owner_user_id',
      'due_date',
      'created_by',
      'created_at',
      'updated_at',
    ],
    row: (c) => [
      c.id,
      c.version,
      c.status,
      text(c.title),
      text(c.problem_statement),
      c.target_type,
      c.target_id,
      c.owner_user_id,
      c.due_date,
      c.created_by,
      iso(c.created_at),
      iso(c.updated_at),
    ],
  }),
  sheet<ReviewRow>({
    name: 'Reviews',
    cursor: 'export_reviews',
    sql: allReviewsSql,
    headers: ['id', 'cap_id', 'cap_version', 'target_type', 'target_id', 'decision', 'comment', 'requested_by', 'decided_by', 'created_at', 'decided_at'],
    row: (r) => [
      r.id,
      r.cap_id,
      r.cap_version,
      r.target_type,
      r.target_id,
      r.decision,
      text(r.comment),
      r.requested_by,
      r.decided_by,
      iso(r.created_at),
      iso(r.decided_at),
    ],
  }),
  sheet<TenantAuditRow>({
    name: 'Audit log',
    cursor: 'export_audit',
    sql: allTenantAuditSql,
    headers: ['id', 'occurred_at', 'action', 'actor_type', 'actor_id', 'resource_type', 'resource_id', 'client_ip', 'trace_id', 'metadata'],
    row: (a) => [
      a.id,
      iso(a.occurred_at),
      a.action,
      a.actor_type,
      a.actor_id,
      a.resource_type,
      a.resource_id,
      a.client_ip,
      a.trace_id,
      text(JSON.stringify(a.metadata)),
    ],
  }),
];

/**
 * Writes the workbook into `destination` and ends it. `client` must be inside a transaction whose
 * search_path is the tenant's schema (one snapshot: use REPEATABLE READ so the sheets agree).
 * Returns the data rows written per sheet.
 */
export async function writeRemediationWorkbook(client: PoolClient, destination: Writable, signal: AbortSignal): Promise<Record<string, number>> {
  const workbook = streamingWorkbook(destination);
  const counts: Record<string, number> = {};
  for (const s of remediationSheets) {
    const worksheet = workbook.addWorksheet(s.name, { views: [{ state: 'frozen', ySplit: 1 }] });
    worksheet.addRow(s.headers).commit();
    counts[s.name] = 0;
    for await (const rows of cursorBatches<object>(client, s.cursor, s.sql, EXPORT_BATCH_ROWS)) {
      for (const r of rows) worksheet.addRow(s.row(r)).commit();
      counts[s.name] += rows.length;
      await sheetCaughtUp(worksheet, destination, signal);
    }
    worksheet.commit();
  }
  signal.throwIfAborted();
  const finished = workbook.commit();
  // The response may be gone before the zip's end reaches it: then 'finish' never comes.
  await new Promise<void>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    finished.then(
      () => {
        signal.removeEventListener('abort', onAbort);
        resolve();
      },
      (err) => {
        signal.removeEventListener('abort', onAbort);
        reject(err);
      },
    );
  });
  return counts;
}
