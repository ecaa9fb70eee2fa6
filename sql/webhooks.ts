/**
 * Webhooks: outbound endpoints of a workspace. The signing secret is stored sealed (lib/secretBox.ts)
 * by the caller, which alone holds the key. A webhook tied to a connector also holds the secret
 * that verifies that connector's inbound payloads (one webhook per connector).
 */
import type { Queryable } from '../lib/db.ts';
import { equalityFilters, type ListSource } from './pagination.ts';
import { isUuid } from '../lib/ids.ts';

export interface WebhookRow extends Record<string, unknown> {
  id: string;
  workspace_id: string;
  url: string;
  event_types: string[];
  enabled: boolean;
  description: string;
  connector_id: string | null;
  secret_ciphertext: string;
  secret_rotated_at: Date | null;
  failing_since: Date | null;
  disabled_reason: string | null;
  created_at: Date;
  updated_at: Date;
}

export async function insertWebhook(
  db: Queryable,
  workspaceId: string,
  w: { url: string; eventTypes: string[]; description: string; connectorId: string | null; secretCiphertext: string },
): Promise<WebhookRow> {
  const { rows } = await db.query<WebhookRow>(
    `insert into webhooks (workspace_id, url, event_types, description, connector_id, secret_ciphertext)
     values ($1, $2, $3, $4, $5, $6) returning *`,
    [workspaceId, w.url, w.eventTypes, w.description, w.connectorId, w.secretCiphertext],
  );
  return rows[0];
}

export async function findWebhook(db: Queryable, workspaceId: string, id: string, options: { lock?: boolean } = {}): Promise<WebhookRow | null> {
  if (!isUuid(id)) return null;
  const { rows } = await db.query<WebhookRow>(`select * from webhooks where workspace_id = $1 and id = $2 ${options.lock ? 'for update' : ''}`, [
    workspaceId,
    id,
  ]);
  return rows[0] ?? null;
}

/** By id alone: the delivery task (its job carries only the webhook id). */
export async function findWebhookById(db: Queryable, id: string): Promise<WebhookRow | null> {
  const { rows } = await db.query<WebhookRow>('select * from webhooks where id = $1', [id]);
  return rows[0] ?? null;
}

/** The webhook whose secret verifies a connector's inbound payloads (any workspace: the route is public). */
export async function findWebhookOfConnector(db: Queryable, connectorId: string): Promise<WebhookRow | null> {
  if (!isUuid(connectorId)) return null;
  const { rows } = await db.query<WebhookRow>('select * from webhooks where connector_id = $1', [connectorId]);
  return rows[0] ?? null;
}

export interface WebhookPatch {
  url?: string;
  eventTypes?: string[];
  enabled?: boolean;
  description?: string;
}

export async function updateWebhook(db: Queryable, workspaceId: string, id: string, patch: WebhookPatch): Promise<WebhookRow | null> {
  if (!isUuid(id)) return null;
  // Enabling again clears the failure state that disabled it.
  const { rows } = await db.query<WebhookRow>(
    `update webhooks set url = coalesce($3, url), event_types = coalesce($4, event_types), description = coalesce($6, description),
       enabled = coalesce($5, enabled),
       failing_since = case when $5 then null else failing_since end,
       disabled_reason = case when $5 then null when $5 = false then 'disabled by a user' else disabled_reason end,
       updated_at = now()
     where workspace_id = $1 and id = $2 returning *`,
    [workspaceId, id, patch.url ?? null, patch.eventTypes ?? null, patch.enabled ?? null, patch.description ?? null],
  );
  return rows[0] ?? null;
}

export async function rotateWebhookSecret(db: Queryable, workspaceId: string, id: string, secretCiphertext: string): Promise<WebhookRow | null> {
  if (!isUuid(id)) return null;
  const { rows } = await db.query<WebhookRow>(
    `update webhooks set secret_ciphertext = $3, secret_rotated_at = now(), updated_at = now() where workspace_id = $1 and id = $2 returning *`,
    [workspaceId, id, secretCiphertext],
  );
  return rows[0] ?? null;
}

export async function deleteWebhook(db: Queryable, workspaceId: string, id: string): Promise<boolean> {
  if (!isUuid(id)) return false;
  const { rowCount } = await db.query('delete from webhooks where workspace_id = $1 and id = $2', [workspaceId, id]);
  return rowCount === 1;
}

/** An endpoint that answered 410 or has failed for too long stops receiving deliveries. */
export async function disableWebhook(db: Queryable, id: string, reason: string): Promise<WebhookRow | null> {
  const { rows } = await db.query<WebhookRow>(
    `update webhooks set enabled = false, disabled_reason = $2, updated_at = now() where id = $1 and enabled returning *`,
    [id, reason],
  );
  return rows[0] ?? null;
}

/** GET /v1/webhooks (never their secrets: the route shapes each row). */
export function webhookList(workspaceId: string): ListSource {
  return {
    ...equalityFilters({ workspace_id: workspaceId }),
    select: '*',
    from: 'webhooks',
    sortColumns: { created_at: { expr: 'created_at', type: 'timestamptz' } },
    idExpr: 'id',
  };
}
