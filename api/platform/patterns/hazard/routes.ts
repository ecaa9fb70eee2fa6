/**
 * A pattern's engine results: the hazard fit with curves and forecast (404 `not_fitted` with
 * `details.reason` when there is none), financials, counterfactuals (computed on request over the
 * pattern's members and the active rate card) and the root-cause rollup with its recommendation.
 */
import { z } from 'zod';
import type { AppContext } from '../../../../lib/context.ts';
import { AppError } from '../../../../lib/errors.ts';
import { counterfactual } from '../../../../engine/finance/counterfactual.ts';
import { issueDigest, membersLink } from '../../../../engine/stages/context.ts';
import { activeConfig } from '../../../../sql/configs.ts';
import { findFinancials, findHazard } from '../../../../sql/patternResults.ts';
import { findPattern, latestPatternRollup, patternMembers } from '../../../../sql/patterns.ts';
import { recommendationOfPattern } from '../../../../sql/recommendations.ts';
import type { PatternRow } from '../../../../sql/patternProjection.ts';
import { queryDecimal, reply } from '../../../http/routes.ts';
import { platformRoute } from '../../route.ts';
import { counterfactualSchema, financialsSchema, hazardSchema, rootCausesSchema } from './schemas.ts';

const idParams = z.object({ id: z.string() });

async function patternOf(app: AppContext, workspaceId: string, id: string): Promise<PatternRow> {
  const pattern = await findPattern(app.pool, workspaceId, id);
  if (!pattern) throw new AppError('not_found', 'Pattern not found');
  return pattern;
}

const counterfactualQuery = z
  .object({
    fix_date: z
      .union([z.iso.date(), z.iso.datetime({ offset: true })], { error: 'must be an ISO 8601 date or timestamp' })
      .optional()
      .describe('The fix in place from this date: what would it have avoided since? (exactly one of fix_date and reduction)'),
    reduction: queryDecimal(z.number().gt(0, 'must be greater than 0').max(1, 'must be at most 1'))
      .optional()
      .describe('Share (0-1] of occurrences a fix removes, over the whole history (exactly one of fix_date and reduction)'),
  })
  .refine((q) => (q.fix_date === undefined) !== (q.reduction === undefined), {
    message: 'exactly one of fix_date and reduction is required',
    path: ['fix_date'],
  });

export const patternHazardRoutes = [
  platformRoute({
    method: 'get',
    readsFrom: 'replica',
    path: '/v1/patterns/{id}/hazard',
    operationId: 'getPatternHazard',
    summary: 'The fitted hazard model of a pattern: parameters with uncertainty, survival and hazard curves, forecast',
    description:
      'A dormant pattern (`dormancy.dormant`: its silence since the last occurrence is one the fitted model gives less than a 1% chance) keeps ' +
      'its fit and curves, but its `forecast` is empty and `p_alert` null: the model no longer describes it, so the engine abstains. ' +
      'A pattern whose pace drifts (`trend.kept`) is modelled on a clock with a power-law trend: its parameters and curves are in days at the pace of as_of. ' +
      '404 `not_fitted` with `details.reason` when the model cannot be fitted: `no_timestamps` (no member has occurred_at) or ' +
      '`insufficient_events` (fewer gaps than the hazard config’s min_gaps). Before any engine run fitted the pattern it is also ' +
      '`not_fitted`, with the reason its current members give and `details.run_id` null.',
    tags: ['patterns'],
    scope: 'patterns:read',
    params: idParams,
    responses: { 200: { description: 'The fit', schema: hazardSchema }, 404: { description: '`not_found`, or `not_fitted` with details.reason' } },
    handler: async ({ params, principal, app }) => {
      const pattern = await patternOf(app, principal.workspaceId, params.id);
      const row = await findHazard(app.pool, principal.workspaceId, pattern.id);
      if (!row) {
        const timed = (await patternMembers(app.pool, principal.workspaceId, pattern.id)).filter((m) => m.occurred_at !== null).length;
        throw new AppError('not_fitted', 'No engine run has fitted a hazard model to this pattern yet', {
          reason: timed ? 'insufficient_events' : 'no_timestamps',
          run_id: null,
        });
      }
      const h = row.hazard;
      if (h.status === 'not_fitted') {
        throw new AppError('not_fitted', `The pattern's hazard model cannot be fitted: ${h.detail}`, {
          reason: h.reason,
          detail: h.detail,
          n_gaps: h.n_gaps,
          n_occurrences: h.n_occurrences,
          min_gaps: h.min_gaps,
          run_id: row.run_id,
        });
      }
      return reply.ok({
        pattern_id: pattern.id,
        run_id: row.run_id,
        status: h.status,
        as_of: h.as_of,
        interval_level: h.interval_level,
        model: h.model,
        parameters: h.parameters,
        selection: h.selection,
        n_gaps: h.n_gaps,
        n_censored: h.n_censored,
        n_occurrences: h.n_occurrences,
        dropped_ties: h.dropped_ties,
        first_occurrence_at: h.first_occurrence_at,
        last_occurrence_at: h.last_occurrence_at,
        since_last_days: h.since_last_days,
        // Fits stored before dormancy was decided were all forecast.
        dormancy: h.dormancy ?? null,
        // Fits stored before trends were considered had none.
        trend: h.trend ?? null,
        curves: h.curves,
        forecast: h.forecast,
        p_alert: h.p_alert,
        provenance: row.provenance,
      });
    },
  }),
  platformRoute({
    method: 'get',
    readsFrom: 'replica',
    path: '/v1/patterns/{id}/financials',
    operationId: 'getPatternFinancials',
    summary: "A pattern's cost per occurrence, cost to date and expected cost over the forecast horizons (rate-card config)",
    tags: ['patterns'],
    scope: 'patterns:read',
    params: idParams,
    responses: {
      200: { description: 'Financials', schema: financialsSchema },
      404: { description: 'No such pattern, or no engine run has computed its financials yet' },
    },
    handler: async ({ params, principal, app }) => {
      const pattern = await patternOf(app, principal.workspaceId, params.id);
      const row = await findFinancials(app.pool, principal.workspaceId, pattern.id);
      if (!row) throw new AppError('not_found', 'No engine run has computed the financials of this pattern yet; trigger an engine run');
      return reply.ok({ ...row.financials, pattern_id: pattern.id, run_id: row.run_id, provenance: row.provenance, updated_at: row.updated_at.toISOString() });
    },
  }),
  platformRoute({
    method: 'get',
    readsFrom: 'replica',
    path: '/v1/patterns/{id}/counterfactuals',
    operationId: 'getPatternCounterfactual',
    summary: 'What fixing the pattern at a date, or reducing its rate by a share, would have avoided (occurrences and cost)',
    description:
      'Exactly one of `fix_date` (the occurrences since then, all avoided) and `reduction` (that share of every occurrence so far). ' +
      'Computed now over the pattern’s members that have occurred_at, priced with the active rate card; intervals at the hazard config’s interval_level.',
    tags: ['patterns'],
    scope: 'patterns:read',
    params: idParams,
    query: counterfactualQuery,
    responses: {
      200: { description: 'The counterfactual', schema: counterfactualSchema },
      400: { description: '`validation_error`' },
      404: { description: 'Not found' },
    },
    handler: async ({ params, query, principal, app }) => {
      const pattern = await patternOf(app, principal.workspaceId, params.id);
      const now = app.clock.now();
      if (query.fix_date && Date.parse(query.fix_date) > now.getTime())
        throw new AppError('validation_error', 'Request validation failed', { fix_date: 'must not be in the future' });
      const members = await patternMembers(app.pool, principal.workspaceId, pattern.id);
      const timed = members.filter((m) => m.occurred_at !== null);
      const rateCard = await activeConfig(app.pool, principal.workspaceId, 'rate-card');
      const hazard = await activeConfig(app.pool, principal.workspaceId, 'hazard');
      const result = counterfactual({
        occurrences: timed.map((m) => ({ at: m.occurred_at!.toISOString(), severity: m.severity })),
        fixAt: query.fix_date === undefined ? undefined : new Date(query.fix_date).toISOString(),
        reduction: query.reduction,
        rateCard: rateCard.document,
        asOf: now.toISOString(),
        level: hazard.document.interval_level,
      });
      return reply.ok({
        pattern_id: pattern.id,
        ...result,
        members_without_occurred_at: members.length - timed.length,
        // Bounded: the members it used by count and digest, listed at the link (those with an occurred_at).
        provenance: {
          stage: 'counterfactual',
          config_versions: { 'rate-card': rateCard.id, hazard: hazard.id },
          issue_count: timed.length,
          issue_digest: issueDigest(timed.map((m) => m.id)),
          issues_url: membersLink(pattern.id),
        },
      });
    },
  }),
  platformRoute({
    method: 'get',
    readsFrom: 'replica',
    path: '/v1/patterns/{id}/root-causes',
    operationId: 'getPatternRootCauses',
    summary: "The pattern's root-cause rollup over its members (latest engine run) and the recommendation it led to",
    tags: ['patterns'],
    scope: 'patterns:read',
    params: idParams,
    responses: { 200: { description: 'The rollup', schema: rootCausesSchema }, 404: { description: 'No such pattern, or no engine run produced it yet' } },
    handler: async ({ params, principal, app }) => {
      const pattern = await patternOf(app, principal.workspaceId, params.id);
      const output = await latestPatternRollup(app.pool, principal.workspaceId, pattern.id);
      if (!output) throw new AppError('not_found', 'No engine run has produced this pattern yet');
      const names = new Map((await activeConfig(app.pool, principal.workspaceId, 'taxonomy')).document.root_causes.map((r) => [r.id, r.name]));
      const named = (id: string) => names.get(id) ?? id;
      const rollup = output.rollup;
      const recommendation = await recommendationOfPattern(app.pool, principal.workspaceId, pattern.id);
      return reply.ok({
        pattern_id: pattern.id,
        run_id: output.run_id,
        status: rollup.status,
        root_cause: rollup.root_cause ? { id: rollup.root_cause, name: named(rollup.root_cause) } : null,
        share: rollup.share,
        decided: rollup.decided,
        abstained: rollup.abstained,
        causes: rollup.causes.map((c) => ({ id: c.id, name: named(c.id), count: c.count })),
        recommendation: recommendation ? { id: recommendation.id, status: recommendation.status } : null,
        provenance: output.provenance,
      });
    },
  }),
];
