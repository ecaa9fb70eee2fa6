/**
 * Ending a sign-in (POST /v1/auth/sign-out): the refresh token names its token family; the family is
 * revoked, so its refresh tokens are refused and its access tokens stop authenticating at once (the
 * authenticator checks the family on every request). An unknown or already revoked token changes
 * nothing and is not reported: like token revocation (RFC 7009), the answer reveals nothing.
 */
import type { AppContext } from '../lib/context.ts';
import { sha256Hex } from '../lib/crypto.ts';
import { withTransaction } from '../lib/db.ts';
import { recordAudit } from '../sql/audit.ts';
import * as families from '../sql/tokenFamilies.ts';

export async function signOut(app: AppContext, refreshToken: string, clientIp: string): Promise<void> {
  await withTransaction(app.pool, async (client) => {
    const found = await families.lockRefreshToken(client, sha256Hex(refreshToken));
    if (!found || found.family.revoked_at) return;
    await families.revokeFamily(client, found.family.id, 'signed_out');
    await recordAudit(client, {
      workspaceId: found.family.workspace_id,
      action: 'auth.signed_out',
      actorType: 'user',
      actorId: found.family.user_id,
      targetType: 'token_family',
      targetId: found.family.id,
      clientIp,
    });
  });
}
