/** Liveness and readiness. Ready means the database answers and every migration is applied. */
import { z } from 'zod';
import { databaseAnswers } from '../../../lib/db.ts';
import { migrationsApplied } from '../../../sql/migrate.ts';
import { reply } from '../../http/routes.ts';
import { productRoute } from '../route.ts';

const statusSchema = z.object({ status: z.literal('ok') });
const readySchema = z.object({
  status: z.literal('ready'),
  checks: z.object({ database: z.literal('ok'), migrations: z.literal('ok') }),
});
const notReadySchema = z.object({
  detail: z.object({
    status: z.literal('not_ready'),
    checks: z.object({ database: z.enum(['ok', 'unreachable']), migrations: z.enum(['ok', 'pending', 'unknown']) }),
  }),
});

export const healthRoutes = [
  productRoute({
    method: 'get',
    path: '/health',
    operationId: 'health',
    summary: 'Liveness and orchestration check',
    tags: ['health'],
    auth: 'public',
    responses: { 200: { description: 'The process is up', schema: statusSchema } },
    handler: () => reply.ok({ status: 'ok' }),
  }),
  productRoute({
    method: 'get',
    path: '/health/live',
    operationId: 'health_live',
    summary: 'Liveness',
    tags: ['health'],
    auth: 'public',
    responses: { 200: { description: 'The process is up', schema: statusSchema } },
    handler: () => reply.ok({ status: 'ok' }),
  }),
  productRoute({
    method: 'get',
    path: '/health/ready',
    operationId: 'health_ready',
    summary: 'Readiness: the database answers and migrations are applied',
    tags: ['health'],
    auth: 'public',
    responses: {
      200: { description: 'Ready to serve', schema: readySchema },
      503: { description: 'Not ready', schema: notReadySchema },
    },
    handler: async ({ app }) => {
      const database = (await databaseAnswers(app.pool)) ? 'ok' : 'unreachable';
      const migrations = database === 'ok' ? ((await migrationsApplied(app.pool)) ? 'ok' : 'pending') : 'unknown';
      if (database === 'ok' && migrations === 'ok') return reply.ok({ status: 'ready', checks: { database, migrations } });
      return { status: 503, body: { detail: { status: 'not_ready', checks: { database, migrations } } } };
    },
  }),
];
