/**
 * Delivers one outbox e-mail. `queueMail` writes the outbox row and enqueues this task on the
 * caller's transaction, so a committed invitation always has its e-mail on the way.
 */
import { z } from 'zod';
import type { Queryable } from '../../lib/db.ts';
import { mailTransport } from '../../lib/mail.ts';
import { findOutboxEmail, insertOutboxEmail, markOutboxEmail } from '../../sql/outbox.ts';
import { defineTask, enqueueJob, PermanentJobError } from '../runtime.ts';

export const mailSend = defineTask({
  name: 'mail__send',
  payload: z.object({ outbox_email_id: z.uuid() }),
  maxAttempts: 8,
  async run({ outbox_email_id }, job) {
    const { app } = job;
    const mail = await findOutboxEmail(app.pool, outbox_email_id);
    if (!mail) throw new PermanentJobError(`outbox e-mail ${outbox_email_id} does not exist`);
    if (mail.status === 'sent' || mail.status === 'logged') return { status: mail.status };
    const transport = mailTransport(app.config);
    if (!transport) {
      app.logger.info('e-mail not sent (SMTP_URL unset); logged instead', { to: mail.to_address, subject: mail.subject, text: mail.text_body });
      await markOutboxEmail(app.pool, mail.id, 'logged');
      return { status: 'logged' };
    }
    try {
      await transport.sendMail({
        from: app.config.MAIL_FROM,
        to: mail.to_address,
        subject: mail.subject,
        text: mail.text_body,
        html: mail.html_body ?? undefined,
      });
    } catch (err) {
      if (job.attempt >= job.maxAttempts) await markOutboxEmail(app.pool, mail.id, 'failed', (err as Error).message);
      throw err; // transient (SMTP unreachable, 4xx): retried with backoff
    }
    await markOutboxEmail(app.pool, mail.id, 'sent');
    return { status: 'sent' };
  },
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
