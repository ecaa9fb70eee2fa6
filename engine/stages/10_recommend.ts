/**
 * Stage 10, recommend: what each pattern costs, what fixing it is worth, and the refined risk score.
 *
 * Financials (rate-card config): the cost of one occurrence of severity s is
 * c(s) = cost_per_occurrence[s] + downtime_hours[s] · downtime_cost_per_hour; a pattern's cost per
 * occurrence is the mean c over its members. Expected cost over a horizon = expected occurrences
 * (stage 8 forecast) × cost per occurrence, its interval the forecast's count interval × cost per
 * occurrence. Patterns without a fit get their cost to date and no expected cost.
 *
 * Recommendations, one per pattern: the playbook of the pattern's root cause (taxonomy). Abstained,
 * with the reason, when the root-cause rollup abstained (`root_cause_abstained`), when the root cause
 * has no playbook in the taxonomy (`no_playbook`, e.g. a reviewer's cause outside it) or when the
 * pattern has no hazard fit to base a business case on (`not_fitted`). The business case, over the
 * longest forecast horizon H:
 *   avoided_cost = expected_reduction × expected cost over H (interval likewise),
 *   fix_cost     = playbook effort_hours × engineering_hourly_rate,
 *   roi          = (avoided_cost - fix_cost) / fix_cost (null when fix_cost = 0),
 *   payback_days = fix_cost / (avoided_cost / H) (null when avoided_cost = 0),
 *   confidence   = rollup share × n_gaps / (n_gaps + 10): agreement of the members on the root cause,
 *                  discounted for a short history.
 *
 * Risk score (0-100), refined from recurrence probability, severity and cost:
 *   risk = round(100 · (0.40 · p + 0.30 · severity + 0.30 · cost)), where
 *   p        = p_recurrence estimate within `prediction_horizon_days` (stage 9),
 *   severity = the part-1 severity component (mean member weight: critical 1, high 0.7, medium 0.4, low 0.15),
 *   cost     = E / (E + C), E the expected cost over `prediction_horizon_days` and C the cost of one
 *              critical occurrence (c(critical)): 0.5 when a critical occurrence's worth is expected.
 * Patterns without a fit keep the part-1 score (basis `patterns`).
 */
import type { TaxonomyConfig } from '../config/taxonomy.ts';
import { occurrenceCost } from '../finance/occurrenceCost.ts';
import { round } from '../round.ts';
import { membersLink, provenance, type Provenance, type StageContext } from './context.ts';
import type { SnapshotOutput } from './01_snapshot.ts';
import { derivedUuid, type PatternsOutput } from './07_patterns.ts';
import type { Estimate, HazardOutput, PatternHazardFitted } from './08_hazard.ts';
import type { PredictOutput } from './09_predict.ts';

export interface HorizonCost {
  horizon_days: number;
  /** Expected occurrences within the horizon (stage 8 forecast). */
  expected_occurrences: number;
  /** Expected cost within the horizon, in `currency`, with the interval from the count interval. */
  expected_cost: Estimate;
}

export interface PatternFinancials {
  pattern_id: string;
  /** ISO 4217 code of every amount (rate card). */
  currency: string;
  /** Mean cost of one occurrence over the pattern's members, in `currency`. */
  cost_per_occurrence: number;
  /** Members of the pattern (occurrences so far). */
  occurrences_to_date: number;
  /** Σ cost of the members so far, in `currency`. */
  cost_to_date: number;
  /** 'hazard' when expected costs come from a fit; 'none' (no horizons) when the pattern has none. */
  basis: 'hazard' | 'none';
  /** One per stage 8 forecast horizon, ascending. */
  horizons: HorizonCost[];
  provenance: Provenance;
}

export interface BusinessCase {
  currency: string;
  /** The window the avoided cost is counted over (longest forecast horizon), days. */
  horizon_days: number;
  /** Cost the fix is expected to avoid within the window, with interval. */
  avoided_cost: Estimate;
  /** Playbook effort_hours × engineering_hourly_rate, in `currency`. */
  fix_cost: number;
  /** (avoided - fix) / fix, dimensionless; null when fix_cost = 0. */
  roi: number | null;
  /** Days of avoided cost that pay for the fix; null when nothing is avoided. */
  payback_days: number | null;
  /** 0-1: rollup share × n_gaps / (n_gaps + 10). */
  confidence: number;
}

export interface Recommendation {
  /** Deterministic from the run and the pattern. */
  id: string;
  pattern_id: string;
  status: 'proposed' | 'abstained';
  /** Why no recommendation was made; null when proposed. */
  /** `dormant`: the pattern's fit no longer describes it (its silence), so there is no forecast to build a case on. */
  abstain_reason: 'root_cause_abstained' | 'no_playbook' | 'not_fitted' | 'dormant' | null;
  /** The pattern's root cause (null when the rollup abstained). */
  root_cause: string | null;
  /** The root cause's playbook; null when abstained for lack of one. */
  playbook: TaxonomyConfig['root_causes'][number]['playbook'] | null;
  /** null when abstained. */
  business_case: BusinessCase | null;
  provenance: Provenance;
}

export interface RiskScore {
  pattern_id: string;
  /** Integer 0-100. */
  risk_score: number;
  /** 'hazard': the refined formula; 'patterns': the part-1 score kept (no fit). */
  basis: 'hazard' | 'patterns';
  /** Refined components (each 0-1), or the part-1 ones (severity, recency, volume) on basis 'patterns'. */
  components: { p_recurrence: number; severity: number; cost: number } | { severity: number; recency: number; volume: number };
  /** E: expected cost within `prediction_horizon_days` in the rate card's currency; null on basis 'patterns'. */
  expected_cost: number | null;
  provenance: Provenance;
}

export interface RecommendOutput {
  currency: string;
  /** One per pattern, in stage 7's order (as are the two lists below). */
  financials: PatternFinancials[];
  recommendations: Recommendation[];
  risk_scores: RiskScore[];
}

const WEIGHTS = { p_recurrence: 0.4, severity: 0.3, cost: 0.3 } as const;
/** Gaps at which a business case's confidence is half the rollup share. */
const CONFIDENCE_HALF_GAPS = 10;

export function recommend(
  input: { snapshot: SnapshotOutput; patterns: PatternsOutput; hazard: HazardOutput; predict: PredictOutput },
  ctx: StageContext,
): RecommendOutput {
  const rateCard = ctx.configs['rate-card'].document;
  const taxonomy = ctx.configs.taxonomy.document;
  const predictionHorizon = ctx.configs.hazard.document.prediction_horizon_days;
  const playbookOf = new Map(taxonomy.root_causes.map((r) => [r.id, r.playbook]));
  const hazardOf = new Map(input.hazard.patterns.map((h) => [h.pattern_id, h]));
  const predictionOf = new Map(input.predict.predictions.map((p) => [p.pattern_id, p]));
  const indexOf = new Map(input.snapshot.issues.map((issue, i) => [issue.id, i]));
  const criticalCost = occurrenceCost(rateCard, 'critical');
  const currency = rateCard.currency;

  const financials: PatternFinancials[] = [];
  const recommendations: Recommendation[] = [];
  const risk_scores: RiskScore[] = [];
  for (const pattern of input.patterns.patterns) {
    const prov = provenance(ctx, 'recommend', pattern.member_ids, membersLink(pattern.id));
    const h = hazardOf.get(pattern.id);
    // A dormant pattern keeps its fit but has no forecast: nothing to cost or to build a case on.
    const fitted: PatternHazardFitted | null = h?.status === 'fitted' && !h.dormancy?.dormant ? h : null;
    const dormant = h?.status === 'fitted' && !fitted;

    let costToDate = 0;
    for (const id of pattern.member_ids) costToDate += occurrenceCost(rateCard, input.snapshot.issues[indexOf.get(id)!].severity);
    const perOccurrence = costToDate / pattern.member_ids.length;
    const horizons: HorizonCost[] = (fitted?.forecast ?? []).map((f) => ({
      horizon_days: f.horizon_days,
      expected_occurrences: f.expected,
      expected_cost: { estimate: f.expected * perOccurrence, lower: f.lower * perOccurrence, upper: f.upper * perOccurrence },
    }));
    financials.push({
      pattern_id: pattern.id,
      currency,
      cost_per_occurrence: perOccurrence,
      occurrences_to_date: pattern.member_ids.length,
      cost_to_date: costToDate,
      basis: fitted ? 'hazard' : 'none',
      horizons,
      provenance: prov,
    });

    const rootCause = pattern.rollup.status === 'decided' ? pattern.root_cause : null;
    const playbook = rootCause === null ? null : (playbookOf.get(rootCause) ?? null);
    const abstainReason: Recommendation['abstain_reason'] =
      rootCause === null ? 'root_cause_abstained' : playbook === null ? 'no_playbook' : dormant ? 'dormant' : !fitted ? 'not_fitted' : null;
    let businessCase: BusinessCase | null = null;
    if (abstainReason === null && playbook && fitted) {
      const window = horizons.at(-1)!;
      const r = playbook.expected_reduction;
      const avoided = { estimate: r * window.expected_cost.estimate, lower: r * window.expected_cost.lower, upper: r * window.expected_cost.upper };
      const fixCost = playbook.effort_hours * rateCard.engineering_hourly_rate;
      businessCase = {
        currency,
        horizon_days: window.horizon_days,
        avoided_cost: avoided,
        fix_cost: fixCost,
        roi: fixCost === 0 ? null : (avoided.estimate - fixCost) / fixCost,
        payback_days: avoided.estimate === 0 ? null : fixCost / (avoided.estimate / window.horizon_days),
        confidence: round((pattern.rollup.share * fitted.n_gaps) / (fitted.n_gaps + CONFIDENCE_HALF_GAPS)),
      };
    }
    recommendations.push({
      id: derivedUuid(`${ctx.runId}:recommendation:${pattern.id}`),
      pattern_id: pattern.id,
      status: abstainReason === null ? 'proposed' : 'abstained',
      abstain_reason: abstainReason,
      root_cause: rootCause,
      playbook,
      business_case: businessCase,
      provenance: prov,
    });

    const prediction = predictionOf.get(pattern.id);
    const atHorizon = horizons.find((c) => c.horizon_days === predictionHorizon);
    if (prediction && atHorizon) {
      const expectedCost = atHorizon.expected_cost.estimate;
      const components = {
        p_recurrence: round(prediction.p_recurrence.estimate),
        severity: pattern.risk_components.severity,
        cost: expectedCost + criticalCost > 0 ? round(expectedCost / (expectedCost + criticalCost)) : 0,
      };
      const score = WEIGHTS.p_recurrence * components.p_recurrence + WEIGHTS.severity * components.severity + WEIGHTS.cost * components.cost;
      risk_scores.push({
        pattern_id: pattern.id,
        risk_score: Math.max(0, Math.min(100, Math.round(100 * score))),
        basis: 'hazard',
        components,
        expected_cost: expectedCost,
        provenance: prov,
      });
    } else {
      risk_scores.push({
        pattern_id: pattern.id,
        risk_score: pattern.risk_score,
        basis: 'patterns',
        components: pattern.risk_components,
        expected_cost: null,
        provenance: prov,
      });
    }
  }
  return { currency, financials, recommendations, risk_scores };
}
