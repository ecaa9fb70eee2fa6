/**
 * Onboarding data for product tests: record files written the way users produce them (CSV with
 * RFC 4180 quoting, XLSX through exceljs), generated records with known themes, multipart uploads
 * over real HTTP, and the steps from a provisioned tenant to an active checkpoint.
 */
import ExcelJS from 'exceljs';
import { generateIssues } from '../../fixtures/synthetic.ts';
import { latestTenantJobRun, type JobRun } from '../../sql/jobRuns.ts';
import { eventually, type TestApp } from './app.ts';
import type { HttpResponse } from './http.ts';
import type { ProductClient, ProductOptions } from './product.ts';

export interface RecordInput {
  external_id: string;
  title: string;
  narrative?: string | null;
  occurred_at?: string | null;
  severity?: string | null;
  source: string;
}

export const RECORD_COLUMNS = ['external_id', 'title', 'narrative', 'occurred_at', 'severity', 'source'] as const;

/** `count` generated records over `themes` themes (seeded: the same call, the same records). */
export function syntheticRecords(count: number, seed = 7, themes = 4, source = 'legacy-tracker'): RecordInput[] {
  return generateIssues(count, seed, themes).map((g) => ({
    external_id: g.external_id,
    title: g.title,
    narrative: g.narrative,
    occurred_at: g.occurred_at,
    severity: g.severity,
    source,
  }));
}

const csvField = (value: string) => (/[",\r\n]/.test(value) ? `"${value.replace(/"/g, '""')}"` : value);

/** A CSV file (CRLF line ends, a UTF-8 BOM as spreadsheet programs write it). */
export function recordsCsv(records: RecordInput[], columns: readonly string[] = RECORD_COLUMNS): string {
  const lines = [columns.join(',')];
  for (const r of records) lines.push(columns.map((c) => csvField(String((r as unknown as Record<string, unknown>)[c] ?? ''))).join(','));
  return '\ufeff' + lines.join('\r\n') + '\r\n';
}

/** An XLSX workbook whose first worksheet holds the records (occurred_at as real date cells). */
export async function recordsXlsx(records: RecordInput[]): Promise<Buffer> {
  const workbook = new ExcelJS.Workbook();
  const sheet = workbook.addWorksheet('records');
  sheet.addRow([...RECORD_COLUMNS]);
  for (const r of records)
    sheet.addRow([r.external_id, r.title, r.narrative ?? null, r.occurred_at ? new Date(r.occurred_at) : null, r.severity ?? null, r.source]);
  workbook.addWorksheet('notes').addRow(['this sheet is ignored']);
  return Buffer.from(await workbook.xlsx.writeBuffer());
}

/** POSTs one multipart `file` part (or the given form) through the cookie jar. */
export function uploadFile(
  client: ProductClient,
  path: string,
  filename: string,
  content: string | Buffer,
  options: ProductOptions & { field?: string } = {},
): Promise<HttpResponse> {
  const form = new FormData();
  form.append(options.field ?? 'file', new Blob([content]), filename);
  return client.request('POST', path, { ...options, raw: form });
}

export async function waitForTrainJob(
  t: TestApp,
  tenantId: string,
  until: (job: JobRun) => boolean = (j) => j.status === 'succeeded' || j.status === 'failed',
  timeoutMs = 60_000,
): Promise<JobRun> {
  return eventually(
    async () => {
      const job = await latestTenantJobRun(t.app.pool, tenantId, 'tenant__train');
      return job && until(job) ? job : undefined;
    },
    timeoutMs,
    'the train job',
  );
}

function expectStatus(res: HttpResponse, status: number, what: string): void {
  if (res.status !== status) throw new Error(`${what}: expected ${status}, got ${res.status} ${res.text}`);
}

/** Upload + commit of `records` (CSV): the dataset summary. */
export async function ingestRecords(staff: ProductClient, tenantId: string, records: RecordInput[]) {
  const upload = await uploadFile(staff, `/admin/tenants/${tenantId}/ingest/upload`, 'history.csv', recordsCsv(records));
  expectStatus(upload, 201, 'upload');
  if (upload.body.status !== 'uploaded') throw new Error(`upload ${upload.body.status}: ${upload.body.error_detail}`);
  const commit = await staff.post(`/admin/tenants/${tenantId}/ingest/commit`, { upload_id: upload.body.id });
  expectStatus(commit, 201, 'commit');
  return commit.body;
}

/** Queues training, waits for it to succeed and returns the checkpoint it stored. */
export async function trainCheckpoint(t: TestApp, staff: ProductClient, tenantId: string, body?: unknown) {
  const queued = await staff.post(`/admin/tenants/${tenantId}/train`, body);
  expectStatus(queued, 202, 'train');
  const job = await waitForTrainJob(t, tenantId, (j) => j.id === queued.body.job_id && (j.status === 'succeeded' || j.status === 'failed'));
  if (job.status !== 'succeeded') throw new Error(`training failed: ${job.error_detail}`);
  const list = await staff.get(`/admin/tenants/${tenantId}/checkpoints`);
  return list.body.find((c: { job_id: string }) => c.job_id === job.id);
}

/** Ingest, train and activate: a tenant ready to show insights. Returns the active checkpoint. */
export async function trainedTenant(t: TestApp, staff: ProductClient, tenantId: string, records: RecordInput[] = syntheticRecords(120)) {
  await ingestRecords(staff, tenantId, records);
  const checkpoint = await trainCheckpoint(t, staff, tenantId);
  const activated = await staff.post(`/admin/tenants/${tenantId}/checkpoints/${checkpoint.id}/activate`);
  expectStatus(activated, 200, 'activate');
  return activated.body;
}

/**
 * The records moved in time so that the latest occurred a day before now: a model's as-of is the
 * dataset's time (now), and patterns quiet for longer than their model explains are dormant (no forecast).
 */
export function endingNow(records: RecordInput[]): RecordInput[] {
  const latest = Math.max(...records.map((r) => (r.occurred_at ? Date.parse(r.occurred_at) : 0)));
  const shift = Date.now() - 86_400_000 - latest;
  return records.map((r) => ({ ...r, occurred_at: r.occurred_at ? new Date(Date.parse(r.occurred_at) + shift).toISOString() : r.occurred_at }));
}
