/**
 * Service accounts and their tokens: creating and deleting an account, issuing a token (the secret
 * is returned once, only its SHA-256 hash is kept) and revoking one. Each change is audited in the
 * same transaction.
 */
import type { AppContext } from '../../lib/context.ts';
import { randomToken, sha256Hex } from '../../lib/crypto.ts';
import { withTransaction } from '../../lib/db.ts';
import { AppError } from '../../lib/errors.ts';
import { SERVICE_ACCOUNT_TOKEN_PREFIX } from '../../domain/credentials.ts';
import type { Scope } from '../../domain/scopes.ts';
import * as accounts from '../../sql/serviceAccounts.ts';
import { recordActorAudit, type WorkspaceActor } from '../workspaceActor.ts';

export const serviceAccountNotFound = () => new AppError('not_found', 'Service account not found');

/** 409 when the workspace already has an account of that name. */
export async function createServiceAccount(
  app: AppContext,
  actor: WorkspaceActor,
  input: { name: string; scopes: readonly Scope[] },
): Promise<accounts.ServiceAccountRow> {
  return withTransaction(app.pool, async (client) => {
    const row = await accounts.insertServiceAccount(client, actor.workspaceId, input.name, [...new Set(input.scopes)], actor.subjectId);
    if (!row) throw new AppError('conflict', `A service account named '${input.name}' already exists`);
    await recordActorAudit(client, actor, 'service_account.created', { type: 'service_account', id: row.id }, { name: row.name, scopes: row.scopes });
    return row;
  });
}

/** Deletes the account and all its tokens. */
export async function deleteServiceAccount(app: AppContext, actor: WorkspaceActor, id: string): Promise<void> {
  await withTransaction(app.pool, async (client) => {
    if (!(await accounts.deleteServiceAccount(client, actor.workspaceId, id))) throw serviceAccountNotFound();
    await recordActorAudit(client, actor, 'service_account.deleted', { type: 'service_account', id });
  });
}

/** A token for the account, expiring at `expiresAt` (which must be in the future: 400 otherwise). */
export async function issueServiceAccountToken(
  app: AppContext,
  actor: WorkspaceActor,
  accountId: string,
  input: { name: string; expiresAt: Date },
): Promise<{ token: accounts.ServiceAccountTokenRow; secret: string }> {
  if (input.expiresAt <= app.clock.now()) throw new AppError('validation_error', 'Request validation failed', { expires_at: 'must be in the future' });
  return withTransaction(app.pool, async (client) => {
    const account = await accounts.findServiceAccount(client, actor.workspaceId, accountId);
    if (!account) throw serviceAccountNotFound();
    const secret = randomToken(32, SERVICE_ACCOUNT_TOKEN_PREFIX);
    const token = await accounts.insertServiceAccountToken(client, account, input.name, sha256Hex(secret), input.expiresAt);
    await recordActorAudit(
      client,
      actor,
      'service_account.token.created',
      { type: 'service_account_token', id: token.id },
      { service_account_id: account.id, expires_at: token.expires_at },
    );
    return { token, secret };
  });
}

/** The token stops working immediately. */
export async function revokeServiceAccountToken(app: AppContext, actor: WorkspaceActor, accountId: string, tokenId: string): Promise<void> {
  await withTransaction(app.pool, async (client) => {
    const token = await accounts.revokeServiceAccountToken(client, actor.workspaceId, accountId, tokenId);
    if (!token) throw new AppError('not_found', 'Service-account token not found');
    await recordActorAudit(client, actor, 'service_account.token.revoked', { type: 'service_account_token', id: token.id });
  });
}
