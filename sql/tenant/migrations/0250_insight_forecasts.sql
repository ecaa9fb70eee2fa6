-- Recurrence forecasts in the insight collection (issue 30): a model trained from now on also fits
-- each pattern's recurrence (engine stage 8) and keeps what the insights page shows. Null on
-- collections and patterns materialised before: those models produce no forecasts.
-- `forecasts` of a collection: {as_of, interval_level, recurrence_horizon_days}.
alter table insight_collections add column forecasts jsonb;
-- `forecast` of a pattern: the fitted hazard curve with its interval and the expected next
-- occurrence, or why no model could be fitted (see sql/insights.ts PatternForecast).
alter table insight_patterns add column forecast jsonb;
