/**
 * Crest alerts (engine stage 8): a pattern's alert opens when a run finds its probability of
 * recurrence within the alert horizon at or above the threshold, and stays open (refreshed by each
 * run, never raised twice) until a run finds it below the threshold or no longer fits the pattern.
 * Opening and resolving are events (aggregate `alert`: alert.raised, alert.resolved); a raised alert
 * is also an outbound event for webhooks. In the lock order of every writer, alerts come after
 * patterns and recommendations.
 */
import type { Queryable } from '../lib/db.ts';
import type { Provenance } from '../engine/stages/context.ts';
import type { CrestAlert } from '../engine/stages/08_hazard.ts';
import type { Actor, EventBatch, NewEvent } from './events.ts';
import { recordOutboundEvent } from './outboundEvents.ts';
import { equalityFilters, type ListSource } from './pagination.ts';
import { isUuid } from '../lib/ids.ts';

export const alertStatuses = ['open', 'resolved'] as const;
export type AlertStatus = (typeof alertStatuses)[number];

export interface AlertRow extends Record<string, unknown> {
  id: string;
  workspace_id: string;
  pattern_id: string;
  run_id: string;
  last_run_id: string;
  status: AlertStatus;
  probability: number;
  lower: number;
  upper: number;
  threshold: number;
  horizon_days: number;
  since_last_days: number;
  last_occurrence_at: Date;
  as_of: Date;
  raised_at: Date;
  resolved_at: Date | null;
  resolved_run_id: string | null;
  provenance: Provenance;
}

const figures = (a: CrestAlert) => ({
  probability: a.probability,
  lower: a.lower,
  upper: a.upper,
  threshold: a.threshold,
  horizon_days: a.horizon_days,
  since_last_days: a.since_last_days,
  last_occurrence_at: a.last_occurrence_at,
  as_of: a.as_of,
  provenance: a.provenance,
});

/** Opens, refreshes and resolves the workspace's alerts from one run's crest alerts. */
export async function applyAlerts(
  db: Queryable,
  events: EventBatch,
  actor: Actor,
  runId: string,
  alerts: CrestAlert[],
): Promise<{ raised: number; resolved: number }> {
  const workspaceId = events.workspaceId;
  const open = new Map(
    (await db.query<AlertRow>(`select * from pattern_alerts where workspace_id = $1 and status = 'open' order by id for update`, [workspaceId])).rows.map(
      (r) => [r.pattern_id, r],
    ),
  );
  const fresh = alerts.filter((a) => !open.has(a.pattern_id));
  const kept = alerts.filter((a) => open.has(a.pattern_id));
  const current = new Set(alerts.map((a) => a.pattern_id));
  const ended = [...open.values()].filter((r) => !current.has(r.pattern_id));

  const records = (list: CrestAlert[], idOf: (a: CrestAlert) => string) =>
    JSON.stringify(list.map((a) => ({ id: idOf(a), pattern_id: a.pattern_id, ...figures(a) })));
  const recordType = `id uuid, pattern_id uuid, probability double precision, lower double precision, upper double precision, threshold double precision,
    horizon_days integer, since_last_days double precision, last_occurrence_at timestamptz, as_of timestamptz, provenance jsonb`;
  if (kept.length) {
    await db.query(
      `update pattern_alerts a set last_run_id = $2, probability = r.probability, lower = r.lower, upper = r.upper, threshold = r.threshold,
         horizon_days = r.horizon_days, since_last_days = r.since_last_days, last_occurrence_at = r.last_occurrence_at, as_of = r.as_of, provenance = r.provenance
         from jsonb_to_recordset($3::jsonb) as r(${recordType})
        where a.workspace_id = $1 and a.id = r.id`,
      [workspaceId, runId, records(kept, (a) => open.get(a.pattern_id)!.id)],
    );
  }
  // A run retried after its results committed finds its own alerts open (kept above): never raised twice.
  const raised = fresh.length
    ? (
        await db.query<AlertRow>(
          `insert into pattern_alerts (id, workspace_id, pattern_id, run_id, last_run_id, status, probability, lower, upper, threshold, horizon_days,
             since_last_days, last_occurrence_at, as_of, raised_at, provenance)
           select r.id, $1, r.pattern_id, $2, $2, 'open', r.probability, r.lower, r.upper, r.threshold, r.horizon_days,
             r.since_last_days, r.last_occurrence_at, r.as_of, $3, r.provenance
             from jsonb_to_recordset($4::jsonb) as r(${recordType})
           returning *`,
          [workspaceId, runId, events.recordedAt, records(fresh, (a) => a.id)],
        )
      ).rows
    : [];
  if (ended.length) {
    await db.query(`update pattern_alerts set status = 'resolved', resolved_at = $2, resolved_run_id = $3 where id = any($1::uuid[])`, [
      ended.map((r) => r.id),
      events.recordedAt,
      runId,
    ]);
  }

  const raisedEvents = raised.map(
    (r): NewEvent => ({
      aggregateType: 'alert',
      aggregateId: r.id,
      eventType: 'alert.raised',
      payload: {
        pattern_id: r.pattern_id,
        run_id: runId,
        probability: r.probability,
        lower: r.lower,
        upper: r.upper,
        threshold: r.threshold,
        horizon_days: r.horizon_days,
      },
    }),
  );
  const resolvedEvents = ended.map(
    (r): NewEvent => ({ aggregateType: 'alert', aggregateId: r.id, eventType: 'alert.resolved', payload: { pattern_id: r.pattern_id, run_id: runId } }),
  );
  events.add(actor, [...raisedEvents, ...resolvedEvents]);
  for (const e of raisedEvents) await recordOutboundEvent(db, workspaceId, 'alert.raised', { alert_id: e.aggregateId, ...e.payload });
  return { raised: raised.length, resolved: ended.length };
}

export async function findAlert(db: Queryable, workspaceId: string, id: string): Promise<AlertRow | null> {
  if (!isUuid(id)) return null;
  const { rows } = await db.query<AlertRow>('select * from pattern_alerts where workspace_id = $1 and id = $2', [workspaceId, id]);
  return rows[0] ?? null;
}

/** GET /v1/alerts. */
export function alertList(workspaceId: string, f: { status?: string; pattern_id?: string }): ListSource {
  return {
    ...equalityFilters({ workspace_id: workspaceId, status: f.status, pattern_id: f.pattern_id }),
    select: '*',
    from: 'pattern_alerts',
    sortColumns: { raised_at: { expr: 'raised_at', type: 'timestamptz' }, probability: { expr: 'probability', type: 'double precision' } },
    idExpr: 'id',
  };
}
