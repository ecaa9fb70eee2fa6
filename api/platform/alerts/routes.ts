/**
 * Crest alerts: raised by an engine run when a pattern's probability of recurrence within the alert
 * horizon reaches the hazard config's threshold (event alert.raised), open while later runs still
 * find it there, resolved when one does not (alert.resolved). One open alert per pattern.
 */
import { z } from 'zod';
import { AppError } from '../../../lib/errors.ts';
import { alertStatuses, findAlert, type AlertRow } from '../../../sql/alerts.ts';
import { reply } from '../../http/routes.ts';
import { listQuery, listResponse, paginate } from '../pagination.ts';
import { provenanceSchema } from '../patterns/hazard/schemas.ts';
import { platformRoute } from '../route.ts';
import { alertList } from '../../../sql/alerts.ts';

const alertSchema = z.object({
  id: z.string(),
  pattern_id: z.string(),
  status: z.enum(alertStatuses),
  probability: z.number().describe('P(recurrence within horizon_days | time since the last occurrence), latest run'),
  lower: z.number(),
  upper: z.number(),
  threshold: z.number(),
  horizon_days: z.number().int(),
  since_last_days: z.number(),
  last_occurrence_at: z.string(),
  as_of: z.string().describe('As-of time of the latest run that saw the alert'),
  raised_at: z.string(),
  resolved_at: z.string().nullable(),
  run_id: z.string().describe('The run that raised it'),
  last_run_id: z.string(),
  resolved_run_id: z.string().nullable(),
  provenance: provenanceSchema,
});

const toAlert = (r: AlertRow): z.infer<typeof alertSchema> => ({
  id: r.id,
  pattern_id: r.pattern_id,
  status: r.status,
  probability: r.probability,
  lower: r.lower,
  upper: r.upper,
  threshold: r.threshold,
  horizon_days: r.horizon_days,
  since_last_days: r.since_last_days,
  last_occurrence_at: r.last_occurrence_at.toISOString(),
  as_of: r.as_of.toISOString(),
  raised_at: r.raised_at.toISOString(),
  resolved_at: r.resolved_at?.toISOString() ?? null,
  run_id: r.run_id,
  last_run_id: r.last_run_id,
  resolved_run_id: r.resolved_run_id,
  provenance: r.provenance as unknown as Record<string, unknown>,
});

export const alertRoutes = [
  platformRoute({
    method: 'get',
    path: '/v1/alerts',
    operationId: 'listAlerts',
    summary: 'Crest alerts, newest first',
    tags: ['patterns'],
    scope: 'patterns:read',
    query: listQuery(
      {
        status: z.enum(alertStatuses, { error: `must be one of ${alertStatuses.join(', ')}` }).optional(),
        pattern_id: z.uuid({ error: 'must be a pattern id' }).optional(),
      },
      ['raised_at', 'probability'],
      '-raised_at',
    ),
    responses: { 200: { description: 'A page of alerts', schema: listResponse(alertSchema) } },
    handler: async ({ query, principal, app }) => {
      const page = await paginate(app.pool, alertList(principal.workspaceId, query), { query, cursorKey: app.secrets.cursorKey }, (r) =>
        toAlert(r as AlertRow),
      );
      return reply.ok(page);
    },
  }),
  platformRoute({
    method: 'get',
    path: '/v1/alerts/{id}',
    operationId: 'getAlert',
    summary: 'One crest alert',
    tags: ['patterns'],
    scope: 'patterns:read',
    params: z.object({ id: z.string() }),
    responses: { 200: { description: 'The alert', schema: alertSchema }, 404: { description: 'Not found' } },
    handler: async ({ params, principal, app }) => {
      const row = await findAlert(app.pool, principal.workspaceId, params.id);
      if (!row) throw new AppError('not_found', 'Alert not found');
      return reply.ok(toAlert(row));
    },
  }),
];
