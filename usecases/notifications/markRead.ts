/** Marking a user's in-app notifications read (some by id, or all); ids not theirs, unknown or already read change nothing. */
import type { AppContext } from '../../lib/context.ts';
import { withTransaction } from '../../lib/db.ts';
import { markRead, unreadCount } from '../../sql/notifications.ts';

/** Answers how many changed and the unread count after the change. */
export async function markNotificationsRead(
  app: AppContext,
  workspaceId: string,
  userId: string,
  which: string[] | 'all',
): Promise<{ marked: number; unread_count: number }> {
  return withTransaction(app.pool, async (client) => {
    const marked = await markRead(client, workspaceId, userId, which, app.clock.now());
    return { marked, unread_count: await unreadCount(client, workspaceId, userId) };
  });
}
