/**
 * Ingest of already validated records into a workspace: the one write path behind `POST
 * /v1/ingest/events`, `POST /v1/ingest/batch` and `svc ingest`. The issues, their events, review
 * items, the post-ingest job (which enqueues the notifications' routing when it runs) and the
 * re-verification of implemented fixes of the records' patterns commit in one transaction, attempted
 * again when a concurrent ingest created one of the same new keys first (the retry re-ingests it).
 */
import type { AppContext } from '../lib/context.ts';
import { withEventBatch, type Actor } from '../sql/events.ts';
import type { PoolClient } from '../lib/db.ts';
import type { IssueInput } from '../domain/ingestRecord.ts';
import { planIngest } from '../domain/ingestPlan.ts';
import type { Queryable } from '../lib/db.ts';
import type { EventBatch } from '../sql/events.ts';
import { storeIngestPlan, type IngestOutcome } from '../sql/issues.ts';
import { enqueueJob } from '../jobs/runtime.ts';
import { ingestProcess } from '../jobs/queue/ingest__process.ts';
import { enqueueVerifications } from '../jobs/queue/recommendation__verify.ts';
import { enqueueNotifications, notifiable } from '../jobs/queue/notification__route.ts';
import { findIssue } from '../sql/issues.ts';
import type { IssueRow } from '../sql/issueProjection.ts';

export interface IngestResult {
  outcome: IngestOutcome;
  issueIds: string[];
  created: number;
  jobId: string;
  summary: { eligible: number; blocked_no_narrative: number; ineligible: number };
}

/** Who ingests: a bearer principal, a connector (inbound webhooks, http_pull syncs) or the CLI. */
export interface IngestCaller {
  workspaceId: string;
  actor: Actor;
}

/**
 * Issues of a batch of records in the caller's event batch: the plan of domain/ingestPlan.ts (dedup
 * on (source, external_id), engine eligibility at `events.recordedAt`), stored by sql/issues.ts. Also
 * the write of POST /v1/issues (`via: 'api'`).
 */
export function ingestIssues(db: Queryable, events: EventBatch, actor: Actor, inputs: IssueInput[], via: 'ingest' | 'api'): Promise<IngestOutcome> {
  return storeIngestPlan(db, events, actor, planIngest(inputs, events.recordedAt), via);
}

/** `alsoInTransaction` writes what must commit with the records (a connector's inbound delivery, a sync cursor), after them and before the post-ingest job. */
export async function ingestRecords(
  app: AppContext,
  caller: IngestCaller,
  inputs: IssueInput[],
  mode: 'event' | 'batch',
  rejected: number,
  alsoInTransaction?: (client: PoolClient, outcome: IngestOutcome) => Promise<void>,
): Promise<IngestResult> {
  const { workspaceId, actor } = caller;
  return withEventBatch(
    app.pool,
    workspaceId,
    async (client, events) => {
      const outcome = await ingestIssues(client, events, actor, inputs, 'ingest');
      await alsoInTransaction?.(client, outcome);
      const issueIds = outcome.results.map((r) => r.issue_id);
      const reingested = outcome.results.filter((r) => !r.created).map((r) => r.issue_id);
      const created = outcome.results.length - reingested.length;
      const escalated = outcome.results.filter((r) => r.escalated).map((r) => r.issue_id);
      const { job } = await enqueueJob(
        client,
        ingestProcess,
        {
          workspace_id: workspaceId,
          mode,
          issue_ids: issueIds,
          created,
          updated: reingested.length,
          rejected,
          notify: { reingested: [...new Set(reingested)], escalated: [...new Set(escalated)] },
        },
        { workspaceId },
      );
      // A new issue has no pattern yet: only re-ingested ones can belong to an implemented fix's pattern.
      await enqueueVerifications(client, workspaceId, reingested);
      const summary = { eligible: 0, blocked_no_narrative: 0, ineligible: 0 };
      for (const r of outcome.results) summary[r.engine_status] += 1;
      return { outcome, issueIds, created, jobId: job.id, summary };
    },
    { retry: true },
  );
}

/**
 * POST /v1/issues: one record through the same plan as ingest (a known (source, external_id) updates
 * its issue), the re-verification of an implemented fix of its pattern and the notifications' routing,
 * in one transaction; returns the issue as stored and whether it was created.
 */
export function createIssue(app: AppContext, caller: IngestCaller, input: IssueInput): Promise<{ issue: IssueRow; created: boolean }> {
  const { workspaceId, actor } = caller;
  return withEventBatch(
    app.pool,
    workspaceId,
    async (client, events) => {
      const { results } = await ingestIssues(client, events, actor, [input], 'api');
      await enqueueVerifications(client, workspaceId, [results[0].issue_id]);
      await enqueueNotifications(client, { source: 'issues', workspace_id: workspaceId, ...notifiable(results) });
      const issue = (await findIssue(client, workspaceId, results[0].issue_id))!;
      return { issue, created: results[0].created };
    },
    { retry: true }, // a concurrent create of the same (source, external_id): the retry updates it
  );
}
