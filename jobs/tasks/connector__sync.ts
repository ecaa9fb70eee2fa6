/**
 * Syncs an `http_pull` connector: GETs its JSON endpoint page by page through the SSRF guard, from the
 * stored cursor on, and ingests each page through the ingest path of /v1/ingest (records upsert on
 * (source, external_id); the connector's name is the default source). Each page's records and the
 * cursor reached commit together, so a sync that dies resumes where it stopped and a re-run ingests
 * nothing twice.
 *
 * The endpoint answers `{records: [...], next_cursor?, has_more?}` (or the array at `records_path`,
 * a dot path, or a bare array); the next page is requested with `?<cursor_param>=<next_cursor>`
 * (default `cursor`). It goes on while `has_more` is true, or, without `has_more`, while a page has
 * records and a new `next_cursor`. The last `next_cursor` is kept for the next sync.
 * Ends with `connector.sync.succeeded` or `connector.sync.failed` (then the job fails, not retried).
 */
import { z } from 'zod';
import { postOutbound } from '../../lib/outbound/index.ts';
import { findConnector, recordSyncOutcome, saveSyncCursor, type ConnectorRow } from '../../sql/connectors.ts';
import { recordOutboundEvent } from '../../sql/outboundEvents.ts';
import { withTransaction } from '../../lib/db.ts';
import { ingestRecords } from '../ingestRecords.ts';
import { ingestRecordSchema, toIssueInput } from '../../api/platform/ingest/record.ts';
import type { IssueInput } from '../../sql/issues.ts';
import { openSecret, sealSecret } from '../../lib/secretBox.ts';
import type { AppContext } from '../../lib/context.ts';
import { defineTask, PermanentJobError, type JobContext } from '../runtime.ts';
import { policyOf } from './webhook__deliver.ts';

export const httpPullConfigSchema = z.object({
  url: z.string({ error: 'is required' }).trim().min(1, 'must not be empty').max(2048, 'must be at most 2048 characters'),
  headers: z.record(z.string(), z.string(), { error: 'must map header names to strings' }).optional(),
  records_path: z.string().trim().min(1).max(200).optional(),
  cursor_param: z
    .string()
    .trim()
    .min(1)
    .max(100)
    .regex(/^[A-Za-z0-9_.-]+$/, 'must be a plain query parameter name')
    .optional(),
});
export type HttpPullConfig = z.output<typeof httpPullConfigSchema>;

/**
 * An http_pull config as stored: its `headers` (usually credentials) sealed like webhook signing
 * secrets (lib/secretBox.ts, Secrets.webhookKey) in `headers_sealed`, their names alone in the clear
 * in `header_names` (issue 26).
 */
export function sealPullConfig(app: Pick<AppContext, 'secrets'>, config: HttpPullConfig): Record<string, unknown> {
  const { headers, ...rest } = config;
  if (!headers || !Object.keys(headers).length) return rest;
  return { ...rest, header_names: Object.keys(headers), headers_sealed: sealSecret(app.secrets.webhookKey, JSON.stringify(headers)) };
}

/** The stored config with its headers opened (a config stored before issue 26 keeps plain `headers`). */
export function openPullConfig(app: Pick<AppContext, 'secrets'>, stored: Record<string, unknown>): HttpPullConfig {
  const { headers_sealed: sealed, header_names: _names, ...rest } = stored;
  const headers = typeof sealed === 'string' ? JSON.parse(openSecret(app.secrets.webhookKey, sealed)) : rest.headers;
  return httpPullConfigSchema.parse({ ...rest, ...(headers ? { headers } : {}) });
}

/** At most this many pages per sync (a source that never says it is done cannot loop forever). */
const MAX_PAGES = 1_000;
const MAX_PAGE_BYTES = 20 * 1024 * 1024;
const PULL_TIMEOUT_MS = 30_000;

export interface PulledPage {
  records: unknown[];
  nextCursor: string | null;
  hasMore: boolean | null;
}

function valueAtPath(root: unknown, path: string): unknown {
  let value = root;
  for (const key of path.split('.')) {
    if (value === null || typeof value !== 'object') return undefined;
    value = (value as Record<string, unknown>)[key];
  }
  return value;
}

/** Reads one page (also what `POST /v1/connectors/{id}/test` does); throws an Error saying what is wrong. */
export async function pullPage(job: Pick<JobContext, 'app'>, config: HttpPullConfig, cursor: string | null): Promise<PulledPage> {
  const url = new URL(config.url);
  if (cursor !== null) url.searchParams.set(config.cursor_param ?? 'cursor', cursor);
  const res = await postOutbound(policyOf(job.app), {
    method: 'GET',
    url: url.toString(),
    headers: config.headers,
    maxResponseBytes: MAX_PAGE_BYTES,
    responseTimeoutMs: PULL_TIMEOUT_MS,
  });
  if (!res.ok) throw new Error(`GET ${url.origin}${url.pathname} failed: ${res.error}`);
  if (res.truncated) throw new Error(`GET ${url.origin}${url.pathname}: the page is larger than ${MAX_PAGE_BYTES} bytes`);
  let body: unknown;
  try {
    body = JSON.parse(res.responsePreview);
  } catch {
    throw new Error(`GET ${url.origin}${url.pathname} did not answer JSON`);
  }
  const records = config.records_path ? valueAtPath(body, config.records_path) : Array.isArray(body) ? body : valueAtPath(body, 'records');
  if (!Array.isArray(records)) throw new Error(`the response holds no array at ${config.records_path ?? 'records'}`);
  const meta = (body && typeof body === 'object' && !Array.isArray(body) ? body : {}) as Record<string, unknown>;
  const next = meta.next_cursor;
  return {
    records,
    nextCursor: typeof next === 'string' && next ? next : typeof next === 'number' ? String(next) : null,
    hasMore: typeof meta.has_more === 'boolean' ? meta.has_more : null,
  };
}

function toInputs(connector: ConnectorRow, records: unknown[]): { inputs: IssueInput[]; rejected: number } {
  const inputs: IssueInput[] = [];
  let rejected = 0;
  for (const record of records) {
    const parsed = ingestRecordSchema.safeParse(record && typeof record === 'object' ? { source: connector.name, ...record } : record);
    if (parsed.success) inputs.push(toIssueInput(parsed.data));
    else rejected++;
  }
  return { inputs, rejected };
}

export const connectorSync = defineTask({
  name: 'connector__sync',
  payload: z.object({ workspace_id: z.uuid(), connector_id: z.uuid() }),
  coalescing: true,
  maxAttempts: 1,
  async run(payload, job) {
    const app = job.app;
    const connector = await findConnector(app.pool, payload.workspace_id, payload.connector_id);
    if (!connector) throw new PermanentJobError('the connector no longer exists');
    if (connector.kind !== 'http_pull') throw new PermanentJobError(`a ${connector.kind} connector does not sync`);
    const config = openPullConfig(job.app, connector.config);
    const caller = { workspaceId: connector.workspace_id, actor: { type: 'system' as const, id: connector.id } };
    let cursor = connector.sync_cursor;
    let pages = 0;
    let ingested = 0;
    let rejected = 0;
    try {
      for (;;) {
        if (pages >= MAX_PAGES) throw new Error(`stopped after ${MAX_PAGES} pages`);
        const page = await pullPage(job, config, cursor);
        pages++;
        const next = page.nextCursor ?? cursor;
        const { inputs, rejected: bad } = toInputs(connector, page.records);
        rejected += bad;
        if (inputs.length) {
          await ingestRecords(app, caller, inputs, 'batch', bad, (client) => saveSyncCursor(client, connector.id, next));
          ingested += inputs.length;
        } else if (next !== cursor) {
          await saveSyncCursor(app.pool, connector.id, next);
        }
        await job.progress(Math.min(95, pages * 10), `page_${pages}`);
        const more = page.hasMore ?? (page.records.length > 0 && next !== cursor);
        cursor = next;
        if (!more || job.signal.aborted) break;
      }
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      await withTransaction(app.pool, async (client) => {
        await recordSyncOutcome(client, connector.id, 'failed', message);
        await recordOutboundEvent(client, connector.workspace_id, 'connector.sync.failed', {
          connector_id: connector.id,
          error: message,
          pages,
          records: ingested,
        });
      });
      throw new PermanentJobError(message);
    }
    const result = { connector_id: connector.id, pages, records: ingested, rejected, cursor };
    await withTransaction(app.pool, async (client) => {
      await recordSyncOutcome(client, connector.id, 'succeeded', null);
      await recordOutboundEvent(client, connector.workspace_id, 'connector.sync.succeeded', result);
    });
    return result;
  },
});
