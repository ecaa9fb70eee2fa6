/**
 * Delivers one outbox e-mail. `queueMail` writes the outbox row and enqueues this task on the
 * caller's transaction (jobs/queue/mail__send.ts), so a committed invitation always has its e-mail on the way.
 *
 * At least once, never twice after a send succeeded: the message carries a Message-ID derived from
 * the outbox row (the same on every attempt, so a receiver can drop a duplicate), and once the SMTP
 * server accepted it the outcome is recorded before anything else can fail; recording is retried
 * in place (a database outage) rather than by a new attempt, which would send again. Only a worker
 * that dies between the SMTP acceptance and that record sends the message a second time.
 *
 * Bodies carry one-time links: a delivered message's body is erased, the log never holds a body, and
 * maintenance__purge_expired deletes old rows. Without SMTP_URL the message stays in the outbox
 * (status `logged`, for a developer to read) until that purge.
 */
import type { z } from 'zod';
import { mailTransport } from '../lib/mail.ts';
import { findOutboxEmail, markOutboxEmail } from '../sql/outbox.ts';
import { type JobContext, PermanentJobError } from '../jobs/runtime.ts';
import type { mailSend } from '../jobs/queue/mail__send.ts';

export async function sendOutboxEmail({ outbox_email_id }: z.output<(typeof mailSend)['payload']>, job: JobContext) {
  const { app } = job;
  const mail = await findOutboxEmail(app.pool, outbox_email_id);
  if (!mail) throw new PermanentJobError(`outbox e-mail ${outbox_email_id} does not exist`);
  if (mail.status === 'sent' || mail.status === 'logged') return { status: mail.status };
  const transport = mailTransport(app.config);
  if (!transport) {
    app.logger.info('e-mail not sent (SMTP_URL unset); kept in outbox_emails until the purge', {
      outbox_email_id: mail.id,
      to: mail.to_address,
      subject: mail.subject,
    });
    await markOutboxEmail(app.pool, mail.id, 'logged');
    return { status: 'logged' };
  }
  try {
    await transport.sendMail({
      messageId: messageId(mail.id, app.config.MAIL_FROM),
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
  await recordUntilStored(
    () => markOutboxEmail(app.pool, mail.id, 'sent'),
    job.signal,
    (err) => app.logger.warn('e-mail sent; recording it failed, trying again', { outbox_email_id: mail.id, err }),
  );
  return { status: 'sent' };
}

/** `<{outbox id}@{domain of MAIL_FROM}>`: stable across attempts. */
export function messageId(outboxEmailId: string, mailFrom: string): string {
  const domain = /@([^>\s]+)/.exec(mailFrom)?.[1] ?? 'svc.local';
  return `<${outboxEmailId}@${domain}>`;
}

/** Retries `record` with backoff (up to 30 s apart) until it succeeds; gives up only on shutdown. */
async function recordUntilStored(record: () => Promise<void>, signal: AbortSignal, onFailure: (err: unknown) => void): Promise<void> {
  for (let delay = 100; ; delay = Math.min(delay * 2, 30_000)) {
    try {
      return await record();
    } catch (err) {
      if (signal.aborted) throw err;
      onFailure(err);
      await new Promise((resolve) => setTimeout(resolve, delay));
    }
  }
}
