/** Inbound webhook payloads accepted recently (replay protection of POST /v1/webhooks/inbound/{connector_id}). */
import type { Queryable } from '../lib/db.ts';

/** The delivery that accepted this payload after `since`, if any. */
export async function recentReceipt(db: Queryable, connectorId: string, dedupKey: string, since: Date): Promise<{ delivery_id: string } | null> {
  const { rows } = await db.query<{ delivery_id: string }>(
    'select delivery_id from inbound_webhook_receipts where connector_id = $1 and dedup_key = $2 and received_at > $3',
    [connectorId, dedupKey, since],
  );
  return rows[0] ?? null;
}

/**
 * Records that a delivery accepted the payload; false when another delivery accepted it after
 * `since` (a concurrent duplicate: the caller rolls back). A receipt older than `since` is replaced.
 * Receipts past the window are purged on the way.
 */
export async function recordReceipt(db: Queryable, r: { connectorId: string; dedupKey: string; deliveryId: string; at: Date; since: Date }): Promise<boolean> {
  await db.query('delete from inbound_webhook_receipts where received_at <= $1', [r.since]);
  const { rows } = await db.query(
    `insert into inbound_webhook_receipts (connector_id, dedup_key, delivery_id, received_at) values ($1, $2, $3, $4)
     on conflict (connector_id, dedup_key) do update set delivery_id = excluded.delivery_id, received_at = excluded.received_at
       where inbound_webhook_receipts.received_at <= $5
     returning 1`,
    [r.connectorId, r.dedupKey, r.deliveryId, r.at, r.since],
  );
  return rows.length > 0;
}
