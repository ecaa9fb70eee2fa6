/**
 * GET /admin/outbox: in development without SMTP_URL, what the product would have mailed (the
 * console's outbox page, so an invitation or reset link can be followed on a laptop). Anywhere else
 * it answers 404: a mail's body holds one-time tokens.
 */
import { z } from 'zod';
import { AppError } from '../../../lib/errors.ts';
import { listOutboxEmails } from '../../../sql/outbox.ts';
import { reply } from '../../http/routes.ts';
import { detailSchema } from '../errors.ts';
import { productRoute } from '../route.ts';

export const OUTBOX_UNAVAILABLE = 'The outbox is shown only in development when SMTP_URL is unset.';

const outboxEmailSchema = z
  .object({
    id: z.uuid(),
    to: z.string(),
    subject: z.string(),
    text_body: z.string(),
    status: z.enum(['queued', 'sent', 'logged', 'failed']),
    created_at: z.iso.datetime(),
  })
  .meta({ title: 'OutboxEmail' });

export const outboxRoute = productRoute({
  method: 'get',
  path: '/admin/outbox',
  operationId: 'list_outbox',
  summary: 'Development only: the newest e-mails the product would have sent (SMTP_URL unset)',
  tags: ['observability'],
  auth: 'staff',
  query: z.object({ limit: z.coerce.number().int().min(1).max(200).default(50) }),
  responses: { 200: { description: 'Newest first', schema: z.array(outboxEmailSchema) }, 404: { description: OUTBOX_UNAVAILABLE, schema: detailSchema } },
  handler: async ({ app, query }) => {
    if (app.config.NODE_ENV === 'production' || app.config.SMTP_URL) throw new AppError('not_found', OUTBOX_UNAVAILABLE);
    const mails = await listOutboxEmails(app.pool, query.limit);
    return reply.ok(
      mails.map((m) => ({ id: m.id, to: m.to_address, subject: m.subject, text_body: m.text_body, status: m.status, created_at: m.created_at.toISOString() })),
    );
  },
});
