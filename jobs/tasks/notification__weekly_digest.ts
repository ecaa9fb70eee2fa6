/**
 * Cron, every 15 minutes: produces the weekly_digest notification of every member whose local week
 * has reached Monday 08:00 (their time zone: quiet_hours.timezone, else the organization's, else
 * UTC). The subject is the member's local week, so each member gets one per week however often
 * this runs; it is then routed like any notification (its channels, quiet hours; no e-mail with
 * digest_frequency `never`).
 */
import { z } from 'zod';
import type { AppContext } from '../../lib/context.ts';
import { workspaceRecipients } from '../../sql/notificationPreferences.ts';
import { routeNotifications } from '../../usecases/notifications/deliver.ts';
import { weekOf } from '../../usecases/notifications/localTime.ts';
import { weekSummary } from '../../usecases/notifications/subjects.ts';
import { defineTask } from '../runtime.ts';
import { allWorkspaces } from '../../sql/workspaces.ts';

export async function produceWeeklyDigests(app: AppContext): Promise<number> {
  const now = app.clock.now();
  const workspaces = await allWorkspaces(app.pool);
  let produced = 0;
  for (const workspace of workspaces) {
    const due = new Map<string, string[]>(); // week -> members
    for (const r of await workspaceRecipients(app.pool, workspace.id)) {
      const week = weekOf(now, r.timezone);
      if (week.digestAt.getTime() > now.getTime()) continue;
      due.set(week.monday, [...(due.get(week.monday) ?? []), r.user_id]);
    }
    if (!due.size) continue;
    const summary = await weekSummary(app.pool, workspace.id, now);
    for (const [monday, members] of due) {
      const item = {
        kind: 'weekly_digest' as const,
        subject_type: 'week',
        subject_id: `week:${monday}`,
        title: `Weekly digest of ${workspace.name}, week of ${monday}`,
        body: summary,
        link: `${app.config.APP_URL}/platform`,
      };
      produced += (await routeNotifications(app, workspace.id, [item], { userIds: members })).notifications;
    }
  }
  return produced;
}

export const notificationWeeklyDigestTask = defineTask({
  name: 'notification__weekly_digest',
  payload: z.object({}).loose(),
  maxAttempts: 3,
  async run(_payload, job) {
    return { produced: await produceWeeklyDigests(job.app) };
  },
});
