/**
 * One chat delivery of a notification (jobs/tasks/notification__chat.ts).
 */
import { z } from 'zod';
import { defineJob } from '../runtime.ts';

export const notificationChat = defineJob({
  name: 'notification__chat',
  payload: z.object({ delivery_id: z.uuid() }),
  maxAttempts: 8,
  returnsResult: true,
});
