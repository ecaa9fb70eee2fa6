/**
 * Outgoing text messages through a pluggable sender. The default keeps each message in the
 * `outbox_sms` table and logs it (like mail without SMTP_URL); with SMS_WEBHOOK_URL each message is
 * POSTed as JSON `{to, body}` to that gateway and recorded as `sent` or `failed`.
 */
import type { AppContext } from '../lib/context.ts';
import type { Queryable } from '../lib/db.ts';
import { insertOutboxSms } from '../sql/mfa.ts';

export interface SmsSender {
  send(db: Queryable, to: string, body: string): Promise<void>;
}

export const outboxSmsSender = (app: AppContext): SmsSender => ({
  async send(db, to, body) {
    await insertOutboxSms(db, to, body, 'logged');
    app.logger.info('sms logged (no SMS_WEBHOOK_URL)', { to });
  },
});

export const webhookSmsSender = (app: AppContext, url: string): SmsSender => ({
  async send(db, to, body) {
    let status: 'sent' | 'failed' = 'sent';
    try {
      const res = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ to, body }),
        signal: AbortSignal.timeout(5000),
      });
      if (!res.ok) status = 'failed';
    } catch (err) {
      app.logger.warn('sms gateway unreachable', { err });
      status = 'failed';
    }
    await insertOutboxSms(db, to, body, status);
  },
});

export function smsSender(app: AppContext): SmsSender {
  return app.config.SMS_WEBHOOK_URL ? webhookSmsSender(app, app.config.SMS_WEBHOOK_URL) : outboxSmsSender(app);
}
