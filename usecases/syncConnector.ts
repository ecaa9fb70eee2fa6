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
import { findConnector, recordSyncOutcome, saveSyncCursor, type ConnectorRow } from '../sql/connectors.ts';
import { recordOutboundEvent } from '../sql/outboundEvents.ts';
import { withTransaction } from '../lib/db.ts';
import type { AppContext } from '../lib/context.ts';
import { enqueueJob } from '../jobs/runtime.ts';
import { connectorSync } from '../jobs/queue/connector__sync.ts';
import { ingestRecords } from './ingestRecords.ts';
import { validateIngestRecord, type IssueInput } from '../domain/ingestRecord.ts';
import { type JobContext, PermanentJobError } from '../jobs/runtime.ts';
import { openPullConfig, pullPage } from './pullConnectorPage.ts';

/** At most this many pages per sync (a source that never says it is done cannot loop forever). */
const MAX_PAGES = 1_000;

function toInputs(connector: ConnectorRow, records: unknown[]): { inputs: IssueInput[]; rejected: number } {
  const inputs: IssueInput[] = [];
  let rejected = 0;
  for (const record of records) {
    const checked = validateIngestRecord(record, connector.name);
    if (checked.ok) inputs.push(checked.input);
    else rejected++;
  }
  return { inputs, rejected };
}

/** The connector__sync job: `job` reports progress and carries the shutdown signal. */
export async function syncConnector(job: JobContext, payload: { workspace_id: string; connector_id: string }) {
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
}

/** POST /v1/connectors/{id}/sync: queues a sync of the connector (a sync already waiting is returned: one job key per connector). */
export async function startConnectorSync(app: AppContext, workspaceId: string, connectorId: string): Promise<{ jobId: string }> {
  // A keyed enqueue is several statements (find the waiting run, else insert): one transaction.
  const { job } = await withTransaction(app.pool, (client) =>
    enqueueJob(client, connectorSync, { workspace_id: workspaceId, connector_id: connectorId }, { workspaceId, jobKey: `connector_sync:${connectorId}` }),
  );
  return { jobId: job.id };
}
