/**
 * hazard: recurrence modelling of engine stages 8-9. A pattern needs at least `min_gaps` gaps between
 * occurrences to be fitted; crest alerts fire when P(recurrence within `alert_horizon_days`) reaches
 * `alert_threshold`.
 */
import { z } from 'zod';

export const hazardSchema = z.strictObject({
  min_gaps: z.number().int().min(1).max(1000),
  forecast_horizons_days: z.array(z.number().int().min(1).max(3650)).min(1).max(10),
  alert_horizon_days: z.number().int().min(1).max(3650),
  alert_threshold: z.number().gt(0).lt(1),
  prediction_horizon_days: z.number().int().min(1).max(3650),
  interval_level: z.number().gt(0.5).lt(1),
  curve_points: z.number().int().min(10).max(1000),
  backtest_origins: z.number().int().min(1).max(100),
});
export type HazardConfig = z.infer<typeof hazardSchema>;

export function checkHazard(doc: HazardConfig, issue: (path: string, message: string) => void): void {
  const sorted = [...doc.forecast_horizons_days].sort((a, b) => a - b);
  if (sorted.some((h, i) => h !== doc.forecast_horizons_days[i]) || new Set(sorted).size !== sorted.length) {
    issue('forecast_horizons_days', 'must be strictly increasing');
  }
}

export const defaultHazard: HazardConfig = {
  min_gaps: 3,
  forecast_horizons_days: [7, 30, 90],
  alert_horizon_days: 30,
  alert_threshold: 0.8,
  prediction_horizon_days: 30,
  interval_level: 0.9,
  curve_points: 60,
  backtest_origins: 6,
};
