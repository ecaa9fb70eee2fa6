/**
 * Events for the outside world (issue.ingested, issue.batch_ingested, webhook.*, connector.*,
 * alert.raised, recommendation.regressed …) and their fan-out to webhooks.
 *
 * Recording an event and fanning it out are one statement on the caller's connection, so they commit
 * with the caller's transaction: the event row, one `webhook_deliveries` row per enabled webhook of
 * the workspace that subscribes to the type (empty `event_types`: every type), and one
 * `graphile_worker.add_jobs` call waking each of those webhooks' delivery task. With no subscriber it
 * costs the event insert and one probe of the workspace's webhooks, and no job.
 */
import type { Queryable } from '../lib/db.ts';

/**
 * Every outbound event type, the list `event_types` of a webhook is checked against
 * (platform-api.md's Events table plus the engine's and the endpoints' own, docs/decisions.md).
 */
export const outboundEventTypes = [
  'issue.ingested',
  'issue.batch_ingested',
  'webhook.created',
  'webhook.secret.rotated',
  'webhook.disabled',
  'connector.sync.succeeded',
  'connector.sync.failed',
  'connector.inbound.received',
  'alert.raised',
  'recommendation.regressed',
  'pattern.updated',
] as const;
export type OutboundEventType = (typeof outboundEventTypes)[number];

/** The graphile-worker task that sends a webhook's due deliveries (jobs/tasks/webhook__deliver.ts). */
export const WEBHOOK_DELIVER_TASK = 'webhook__deliver';
/** graphile-worker attempts of one wake-up job (database trouble; delivery failures are retried by schedule). */
export const WEBHOOK_WAKE_MAX_ATTEMPTS = 10;

/**
 * A `graphile_worker.job_spec` waking the delivery task of the webhook whose id is the SQL expression
 * `webhookId`, due at `runAt`. The job key (one per webhook) coalesces wake-ups that wait.
 */
export const webhookWakeSpec = (webhookId: string, runAt: string) =>
  `row('${WEBHOOK_DELIVER_TASK}', json_build_object('webhook_id', ${webhookId}), null, ${runAt}, ${WEBHOOK_WAKE_MAX_ATTEMPTS},
       'webhook_deliver:' || ${webhookId}, 0, null)::graphile_worker.job_spec`;

const recordAndFanOutSql = `with event as (
       insert into outbound_events (workspace_id, event_type, payload, job_run_id) values ($1, $2, $3, $4)
       on conflict (job_run_id) where job_run_id is not null do nothing returning id
     ), deliveries as (
       insert into webhook_deliveries (workspace_id, webhook_id, event_id, event_type)
       select $1, w.id, event.id, $2 from event cross join webhooks w
        where w.workspace_id = $1 and w.enabled and (w.event_types = '{}' or $2 = any (w.event_types))
       returning webhook_id
     ), wake as (
       select array_agg(${webhookWakeSpec('webhook_id', 'now()')}) as specs from deliveries
     ), woken as (
       select j.id from wake cross join lateral graphile_worker.add_jobs(wake.specs) as j where wake.specs is not null
     )
     select event.id, (select count(*) from woken)::int as deliveries from event`;

/** Records one outbound event and fans it out (see above); `deliveries` is the number of webhooks it goes to. */
export async function recordOutboundEvent(
  db: Queryable,
  workspaceId: string,
  eventType: OutboundEventType,
  payload: Record<string, unknown>,
): Promise<{ id: string; deliveries: number }> {
  const { rows } = await db.query<{ id: string; deliveries: number }>(recordAndFanOutSql, [workspaceId, eventType, JSON.stringify(payload), null]);
  return rows[0];
}

/**
 * The outbound event of a job run, recorded and fanned out at most once: a retried job (its worker
 * died after the insert committed) finds the event its earlier attempt recorded, and fans out nothing.
 */
export async function recordJobOutboundEvent(
  db: Queryable,
  jobRunId: string,
  workspaceId: string,
  eventType: OutboundEventType,
  payload: Record<string, unknown>,
): Promise<{ id: string; deliveries: number; created: boolean }> {
  const { rows } = await db.query<{ id: string; deliveries: number }>(recordAndFanOutSql, [workspaceId, eventType, JSON.stringify(payload), jobRunId]);
  if (rows[0]) return { ...rows[0], created: true };
  const existing = await db.query<{ id: string }>('select id from outbound_events where job_run_id = $1', [jobRunId]);
  return { id: existing.rows[0].id, deliveries: 0, created: false };
}
