/**
 * Predictions (engine stage 9): the latest prediction of every fitted pattern, replaced by each run
 * (a prediction's id names one run's projection), and every run's backtest, kept per run.
 */
import type { Queryable } from '../lib/db.ts';
import type { Provenance } from '../engine/stages/context.ts';
import type { BacktestOutput, Prediction } from '../engine/stages/09_predict.ts';
import { equalityFilters, type ListSource } from './pagination.ts';
import { isUuid } from '../lib/ids.ts';

export interface PredictionRow extends Record<string, unknown> {
  id: string;
  workspace_id: string;
  pattern_id: string;
  run_id: string;
  p_recurrence: number;
  expected_time_to_next_days: number;
  horizon_days: number;
  prediction: Omit<Prediction, 'provenance'>;
  provenance: Provenance;
  created_at: Date;
}

export interface BacktestRow extends Record<string, unknown> {
  run_id: string;
  workspace_id: string;
  as_of: Date;
  backtest: Omit<BacktestOutput, 'provenance'>;
  provenance: Provenance;
  created_at: Date;
}

export async function replacePredictions(db: Queryable, workspaceId: string, runId: string, predictions: Prediction[]): Promise<void> {
  await db.query('delete from predictions where workspace_id = $1', [workspaceId]);
  await db.query(
    `insert into predictions (id, workspace_id, pattern_id, run_id, p_recurrence, expected_time_to_next_days, horizon_days, prediction, provenance)
     select r.id, $1, r.pattern_id, $2, r.p, r.t, r.horizon_days, r.prediction, r.provenance
       from jsonb_to_recordset($3::jsonb) as r(id uuid, pattern_id uuid, p double precision, t double precision, horizon_days integer, prediction jsonb, provenance jsonb)`,
    [
      workspaceId,
      runId,
      JSON.stringify(
        predictions.map(({ provenance, ...prediction }) => ({
          id: prediction.id,
          pattern_id: prediction.pattern_id,
          p: prediction.p_recurrence.estimate,
          t: prediction.expected_time_to_next_days.estimate,
          horizon_days: prediction.horizon_days,
          prediction,
          provenance,
        })),
      ),
    ],
  );
}

/** A retried run (its first attempt failed after its results committed) writes the same backtest again. */
export async function saveBacktest(
  db: Queryable,
  workspaceId: string,
  runId: string,
  asOf: string,
  { provenance, ...backtest }: BacktestOutput,
): Promise<void> {
  await db.query(
    `insert into prediction_backtests (run_id, workspace_id, as_of, backtest, provenance) values ($1, $2, $3, $4, $5)
     on conflict (run_id) do update set backtest = excluded.backtest, provenance = excluded.provenance`,
    [runId, workspaceId, asOf, JSON.stringify(backtest), JSON.stringify(provenance)],
  );
}

export async function findPrediction(db: Queryable, workspaceId: string, id: string): Promise<PredictionRow | null> {
  if (!isUuid(id)) return null;
  const { rows } = await db.query<PredictionRow>('select * from predictions where workspace_id = $1 and id = $2', [workspaceId, id]);
  return rows[0] ?? null;
}

/** GET /v1/predictions/backtests. */
export function backtestList(workspaceId: string, f: { run_id?: string }): ListSource {
  return {
    ...equalityFilters({ workspace_id: workspaceId, run_id: f.run_id }),
    select: '*',
    from: 'prediction_backtests',
    sortColumns: { created_at: { expr: 'created_at', type: 'timestamptz' } },
    idExpr: 'run_id',
  };
}
