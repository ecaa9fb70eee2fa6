/**
 * Posts one chat notification to the member's `chat_webhook_url` (read when it is sent: a URL
 * changed or removed since routing counts) through the outbound path of webhooks (lib/outbound:
 * SSRF guard at connect time, timeouts, no redirects), signed with the member's chat secret and
 * the CONTRACT.md headers. Any 2xx is success; anything else is retried with graphile-worker's
 * backoff (8 attempts); a target the guard refuses, or a member without chat any more, fails at
 * once. A delivery already sent is not sent again.
 */
import { findPreferences } from '../../sql/notificationPreferences.ts';
import { findDelivery, markDeliveries } from '../../sql/notifications.ts';
import { chatBody, chatSigningSecrets } from '../../usecases/notifications/chat.ts';
import { postSigned } from '../../lib/outbound/index.ts';
import { policyOf } from '../../lib/outbound/appPolicy.ts';
import { defineTask, PermanentJobError } from '../runtime.ts';
import { notificationChat } from '../queue/notification__chat.ts';

export const notificationChatTask = defineTask({
  ...notificationChat,
  async run({ delivery_id }, job) {
    const { app } = job;
    const delivery = await findDelivery(app.pool, delivery_id);
    if (!delivery) throw new PermanentJobError(`notification delivery ${delivery_id} does not exist`);
    if (delivery.status === 'sent' || delivery.status === 'failed') return { status: delivery.status };
    const member = await findPreferences(app.pool, delivery.workspace_id, delivery.user_id);
    const url = member?.preferences.chat_webhook_url;
    if (!url) {
      await markDeliveries(app.pool, [delivery.id], 'failed', 'the member has no chat_webhook_url any more');
      return { status: 'failed' };
    }
    const [secret, ...previousSecrets] = chatSigningSecrets(app.secrets.chatSigningKey, delivery.workspace_id, delivery.user_id);
    const now = app.clock.now();
    const body = JSON.stringify(chatBody(delivery.id, delivery.notification, now));
    const result = await postSigned(policyOf(app), { url, body, secret, previousSecrets, messageId: delivery.id, timestamp: now });
    if (result.ok) {
      await markDeliveries(app.pool, [delivery.id], 'sent', `HTTP ${result.statusCode}`);
      return { status: 'sent', status_code: result.statusCode };
    }
    const detail = result.error ?? `HTTP ${result.statusCode}`;
    if (result.refused || job.attempt >= job.maxAttempts) {
      await markDeliveries(app.pool, [delivery.id], 'failed', detail);
      if (result.refused) throw new PermanentJobError(detail);
    }
    throw new Error(`chat delivery failed: ${detail}`);
  },
});
