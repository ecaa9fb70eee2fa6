/**
 * One outbox e-mail's delivery (jobs/tasks/mail__send.ts). `queueMail` writes the outbox row and
 * enqueues the delivery on the caller's transaction, so a committed invitation always has its e-mail
 * on the way.
 */
import { z } from 'zod';
import type { Queryable } from '../../lib/db.ts';
import { insertOutboxEmail } from '../../sql/outbox.ts';
import { defineJob, enqueueJob } from '../runtime.ts';

export const mailSend = defineJob({
  name: 'mail__send',
  payload: z.object({ outbox_email_id: z.uuid() }),
  maxAttempts: 8,
});

export interface MailMessage {
  to: string;
  subject: string;
  text: string;
  html?: string;
  workspaceId?: string | null;
  tenantId?: string | null;
}

export async function queueMail(db: Queryable, message: MailMessage) {
  const mail = await insertOutboxEmail(db, message);
  return enqueueJob(db, mailSend, { outbox_email_id: mail.id }, { workspaceId: message.workspaceId, tenantId: message.tenantId });
}
