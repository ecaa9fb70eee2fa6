/**
 * Webhook deliveries: one row per (event, webhook), created by the fan-out (sql/outboundEvents.ts),
 * and every attempt. A worker leases the due deliveries of one webhook (status `running`, with
 * `next_attempt_at` moved to when the lease expires), posts them, and records the attempts of the
 * batch in one statement. A worker that dies leaves its deliveries `running` with an expired lease:
 * they are due again, so nothing is lost and any later run of that webhook's task sends them.
 */
import type { Queryable } from '../lib/db.ts';
import { webhookWakeSpec } from './outboundEvents.ts';
import { equalityFilters, type ListSource } from './pagination.ts';
import { isUuid } from '../lib/ids.ts';

export interface DueDelivery {
  id: string;
  workspace_id: string;
  webhook_id: string;
  event_id: string;
  event_type: string;
  attempts: number;
  event_created_at: Date;
  event_payload: Record<string, unknown>;
}

/** The JSON body of an outbound delivery (CONTRACT.md): the same bytes on every attempt. */
export function deliveryBody(d: Pick<DueDelivery, 'event_id' | 'event_type' | 'event_created_at' | 'workspace_id' | 'event_payload'>): string {
  return JSON.stringify({
    id: d.event_id,
    type: d.event_type,
    created_at: d.event_created_at.toISOString(),
    workspace_id: d.workspace_id,
    data: d.event_payload,
  });
}

/**
 * Leases up to `limit` due deliveries of a webhook, oldest first, skipping rows another worker is
 * leasing right now, and counts the attempt.
 */
export async function leaseDueDeliveries(db: Queryable, webhookId: string, limit: number, leaseMs: number): Promise<DueDelivery[]> {
  const { rows } = await db.query<DueDelivery>(
    `with due as (
       select id from webhook_deliveries
        where webhook_id = $1 and status in ('queued', 'running') and next_attempt_at <= now()
        order by next_attempt_at, created_at limit $2 for update skip locked
     ), leased as (
       update webhook_deliveries d set status = 'running', attempts = d.attempts + 1, next_attempt_at = now() + make_interval(secs => $3 / 1000.0)
         from due where d.id = due.id
       returning d.id, d.workspace_id, d.webhook_id, d.event_id, d.event_type, d.attempts, d.created_at
     )
     select l.id, l.workspace_id, l.webhook_id, l.event_id, l.event_type, l.attempts, e.created_at as event_created_at, e.payload as event_payload
       from leased l join outbound_events e on e.id = l.event_id
      order by l.created_at`,
    [webhookId, limit, leaseMs],
  );
  return rows;
}

export interface AttemptOutcome {
  id: string;
  attempt: number;
  status_code: number | null;
  duration_ms: number;
  error: string | null;
  response_preview: string;
  /** succeeded or failed (final), or queued with `next_attempt_at`. */
  status: 'succeeded' | 'failed' | 'queued';
  next_attempt_at: string | null;
}

/** Records a batch's attempts and moves each delivery on: two statements, whatever the batch size. */
export async function recordAttempts(db: Queryable, workspaceId: string, outcomes: AttemptOutcome[]): Promise<void> {
  if (!outcomes.length) return;
  const json = JSON.stringify(outcomes);
  await db.query(
    `with o as (
       select * from jsonb_to_recordset($2::jsonb) as o(id uuid, attempt integer, status_code integer, duration_ms integer, error text,
         response_preview text, status text, next_attempt_at timestamptz)
     ), attempts as (
       insert into webhook_delivery_attempts (delivery_id, attempt, workspace_id, status_code, duration_ms, error, response_preview)
       select o.id, o.attempt, $1, o.status_code, o.duration_ms, o.error, o.response_preview from o
       on conflict (delivery_id, attempt) do nothing
     )
     update webhook_deliveries d set status = o.status, status_code = o.status_code, duration_ms = o.duration_ms, delivered_at = now(),
       last_error = o.error, next_attempt_at = coalesce(o.next_attempt_at, d.next_attempt_at)
       from o where d.id = o.id and d.workspace_id = $1 and d.status = 'running' and d.attempts = o.attempt`,
    [workspaceId, json],
  );
}

/** When the webhook's next queued or leased delivery is due (null: nothing pending). */
export async function nextDueAt(db: Queryable, webhookId: string): Promise<Date | null> {
  const { rows } = await db.query<{ at: Date | null }>(
    `select min(next_attempt_at) as at from webhook_deliveries where webhook_id = $1 and status in ('queued', 'running')`,
    [webhookId],
  );
  return rows[0].at;
}

/**
 * After a batch: a success ends the endpoint's failing streak; a batch of failures starts one (or
 * continues it). Writes only when the state changes. Returns when the current streak started (null:
 * not failing).
 */
export async function recordEndpointHealth(db: Queryable, webhook: { id: string; failing_since: Date | null }, anySucceeded: boolean): Promise<Date | null> {
  if (anySucceeded === (webhook.failing_since === null)) return webhook.failing_since;
  const { rows } = await db.query<{ failing_since: Date | null }>(
    `update webhooks set failing_since = case when $2 then null else coalesce(failing_since, now()) end where id = $1 returning failing_since`,
    [webhook.id, anySucceeded],
  );
  return rows[0]?.failing_since ?? null;
}

/** Puts one delivery back in the queue for an immediate attempt (manual redelivery). */
export async function requeueDelivery(db: Queryable, workspaceId: string, webhookId: string, deliveryId: string): Promise<DeliveryRow | null> {
  const { rows } = await db.query<DeliveryRow>(
    `update webhook_deliveries set status = 'queued', next_attempt_at = now()
      where workspace_id = $1 and webhook_id = $2 and id = $3 and status <> 'running' returning *`,
    [workspaceId, webhookId, deliveryId],
  );
  return rows[0] ?? null;
}

export interface DeliveryRow extends Record<string, unknown> {
  id: string;
  workspace_id: string;
  webhook_id: string;
  event_id: string;
  event_type: string;
  status: 'queued' | 'running' | 'succeeded' | 'failed' | 'cancelled';
  attempts: number;
  next_attempt_at: Date;
  status_code: number | null;
  duration_ms: number | null;
  delivered_at: Date | null;
  last_error: string | null;
  created_at: Date;
}

/** A delivery with its event (for the list: the payload preview is the body's first 200 bytes). */
/** GET /v1/webhooks/{id}/deliveries: each delivery with its event's time and payload. */
export function deliveryList(webhookId: string): ListSource {
  return {
    ...equalityFilters({ 'd.webhook_id': webhookId }),
    select: 'd.*, e.created_at as event_created_at, e.payload as event_payload',
    from: 'webhook_deliveries d join outbound_events e on e.id = d.event_id',
    sortColumns: { created_at: { expr: 'd.created_at', type: 'timestamptz' } },
    idExpr: 'd.id',
  };
}

export async function findDelivery(db: Queryable, workspaceId: string, webhookId: string, id: string): Promise<DeliveryRow | null> {
  if (!isUuid(id)) return null;
  const { rows } = await db.query<DeliveryRow>('select * from webhook_deliveries where workspace_id = $1 and webhook_id = $2 and id = $3', [
    workspaceId,
    webhookId,
    id,
  ]);
  return rows[0] ?? null;
}

/**
 * Wakes the delivery task of each webhook that has deliveries due for longer than `staleMs` (a
 * worker died holding its job, or its wake-up was lost): the sweeper's one statement.
 */
export async function wakeStaleWebhooks(db: Queryable, staleMs: number): Promise<number> {
  const { rows } = await db.query<{ n: number }>(
    `with stale as (
       select distinct d.webhook_id from webhook_deliveries d join webhooks w on w.id = d.webhook_id
        where d.status in ('queued', 'running') and d.next_attempt_at <= now() - make_interval(secs => $1 / 1000.0) and w.enabled
     ), woken as (
       select j.id from (select array_agg(${webhookWakeSpec('webhook_id', 'now()')}) as specs from stale) s cross join lateral graphile_worker.add_jobs(s.specs) j where s.specs is not null
     )
     select count(*)::int as n from woken`,
    [staleMs],
  );
  return rows[0].n;
}

/**
 * Makes sure the webhook's delivery task runs by `at`: a waiting wake-up keeps its earlier time
 * (preserve run_at); one that is running gets a successor.
 */
export async function wakeWebhookAt(db: Queryable, webhookId: string, at: Date): Promise<void> {
  await db.query(`select 1 from graphile_worker.add_jobs(array[${webhookWakeSpec('$1::uuid', '$2::timestamptz')}], true)`, [webhookId, at]);
}
