/**
 * SCIM bearer tokens: creating one (the plaintext is returned once, only its SHA-256 hash is kept)
 * and revoking one. Each change is audited in the same transaction.
 */
import type { AppContext } from '../../lib/context.ts';
import { randomToken, sha256Hex } from '../../lib/crypto.ts';
import { withTransaction } from '../../lib/db.ts';
import { AppError } from '../../lib/errors.ts';
import { SCIM_TOKEN_PREFIX } from '../../domain/credentials.ts';
import * as scim from '../../sql/scim.ts';
import { recordActorAudit, type WorkspaceActor } from '../workspaceActor.ts';

export async function createScimToken(app: AppContext, actor: WorkspaceActor, name: string): Promise<{ row: scim.ScimTokenRow; secret: string }> {
  return withTransaction(app.pool, async (client) => {
    const secret = randomToken(32, SCIM_TOKEN_PREFIX);
    const row = await scim.insertScimToken(client, actor.workspaceId, name, sha256Hex(secret), actor.subjectId);
    await recordActorAudit(client, actor, 'scim.token.created', { type: 'scim_token', id: row.id }, { name: row.name });
    return { row, secret };
  });
}

/** The token stops working immediately. */
export async function revokeScimToken(app: AppContext, actor: WorkspaceActor, id: string): Promise<void> {
  await withTransaction(app.pool, async (client) => {
    if (!(await scim.revokeScimToken(client, actor.workspaceId, id))) throw new AppError('not_found', 'SCIM token not found');
    await recordActorAudit(client, actor, 'scim.token.revoked', { type: 'scim_token', id });
  });
}
