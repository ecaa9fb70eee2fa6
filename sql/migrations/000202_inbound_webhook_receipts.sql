-- Issue 26: inbound webhook payloads accepted in the last 7 days, by their Standard Webhooks
-- `webhook-id` or, without one, the SHA-256 of their signed bytes. A payload seen again inside the
-- window is answered 202 without being applied again (a captured request cannot be replayed).
create table inbound_webhook_receipts (
  connector_id uuid not null references connectors (id) on delete cascade,
  dedup_key text not null,
  delivery_id uuid not null,
  received_at timestamptz not null,
  primary key (connector_id, dedup_key)
);
create index inbound_webhook_receipts_age on inbound_webhook_receipts (received_at);
