/**
 * Workspace API keys: issuing one (the secret is returned once, only its SHA-256 hash is kept),
 * setting or clearing its expiry, revoking it. Each change is audited in the same transaction
 * (`api_key.created`, `api_key.expiry_set`, `api_key.revoked`).
 */
import type { AppContext } from '../../lib/context.ts';
import { randomToken, sha256Hex } from '../../lib/crypto.ts';
import { withTransaction } from '../../lib/db.ts';
import { AppError } from '../../lib/errors.ts';
import { API_KEY_PREFIX } from '../../domain/credentials.ts';
import { provisionedApiKeyScopes } from '../../domain/memberRoles.ts';
import * as apiKeys from '../../sql/apiKeys.ts';
import { recordActorAudit, type WorkspaceActor } from '../workspaceActor.ts';

export const apiKeyNotFound = () => new AppError('not_found', 'API key not found');
const target = (id: string) => ({ type: 'api_key', id });

/** Scopes default to the member role's, as for the key issued at provisioning. */
export async function issueApiKey(
  app: AppContext,
  actor: WorkspaceActor,
  input: { note: string; scopes?: string[]; expiresAt?: Date },
): Promise<{ row: apiKeys.ApiKeyMetadataRow; secret: string }> {
  return withTransaction(app.pool, async (client) => {
    const secret = randomToken(32, API_KEY_PREFIX);
    const scopes = [...new Set(input.scopes ?? provisionedApiKeyScopes)];
    const row = await apiKeys.issueApiKey(client, actor.workspaceId, input.note, sha256Hex(secret), scopes, input.expiresAt ?? null);
    await recordActorAudit(client, actor, 'api_key.created', target(row.id), { note: row.note, scopes, expires_at: row.expires_at?.toISOString() ?? null });
    return { row, secret };
  });
}

/** A past time expires the key at once; null clears the expiry. 404 for an unknown or revoked key. */
export async function setApiKeyExpiry(app: AppContext, actor: WorkspaceActor, id: string, expiresAt: Date | null): Promise<apiKeys.ApiKeyMetadataRow> {
  return withTransaction(app.pool, async (client) => {
    const row = await apiKeys.setApiKeyExpiry(client, actor.workspaceId, id, expiresAt);
    if (!row) throw apiKeyNotFound();
    await recordActorAudit(client, actor, 'api_key.expiry_set', target(row.id), { expires_at: row.expires_at?.toISOString() ?? null });
    return row;
  });
}

export async function revokeApiKey(app: AppContext, actor: WorkspaceActor, id: string): Promise<void> {
  await withTransaction(app.pool, async (client) => {
    const row = await apiKeys.revokeApiKey(client, actor.workspaceId, id);
    if (!row) throw apiKeyNotFound();
    await recordActorAudit(client, actor, 'api_key.revoked', target(row.id));
  });
}
