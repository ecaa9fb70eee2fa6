/**
 * Changing a member's notification preferences: PUT replaces, PATCH merges (domain/notificationPreferences.ts),
 * under the membership's lock so two concurrent changes apply one after the other. Webhook URLs go
 * through the outbound guard when stored (they are checked again at every send).
 */
import type { AppContext } from '../../lib/context.ts';
import { withTransaction } from '../../lib/db.ts';
import { AppError } from '../../lib/errors.ts';
import { policyOf } from '../../lib/outbound/appPolicy.ts';
import { checkOutboundUrl, OutboundRefusedError } from '../../lib/outbound/index.ts';
import { applyPreferences, type PreferencesInput } from '../../domain/notificationPreferences.ts';
import { findPreferences, lockPreferences, savePreferences, type MemberPreferences } from '../../sql/notificationPreferences.ts';

export const notAMember = () => new AppError('forbidden', 'The caller is not a member of this workspace');

async function checkUrls(app: AppContext, input: PreferencesInput): Promise<void> {
  const details: Record<string, string> = {};
  for (const field of ['chat_webhook_url', 'collab_webhook_url'] as const) {
    const url = input[field];
    if (!url) continue;
    try {
      await checkOutboundUrl(policyOf(app), url);
    } catch (err) {
      if (!(err instanceof OutboundRefusedError)) throw err;
      details[field] = err.message;
    }
  }
  if (Object.keys(details).length) throw new AppError('validation_error', 'Request validation failed', details);
}

/** Answers the stored preferences; 403 when the user is not a member of the workspace. */
export async function changePreferences(
  app: AppContext,
  workspaceId: string,
  userId: string,
  input: PreferencesInput,
  mode: 'replace' | 'merge',
): Promise<MemberPreferences> {
  await checkUrls(app, input);
  return withTransaction(app.pool, async (client) => {
    await lockPreferences(client, workspaceId, userId);
    const current = await findPreferences(client, workspaceId, userId);
    if (!current) throw notAMember();
    const next = applyPreferences(current.preferences, input, mode);
    const updatedAt = await savePreferences(client, workspaceId, userId, next);
    return { user_id: userId, preferences: next, updated_at: updatedAt };
  });
}
