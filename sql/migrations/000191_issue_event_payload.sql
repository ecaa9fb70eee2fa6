-- The payload of an ingest's issue.created / issue.reingested event, built from the issue's row (issue 11).
--
-- Ingest writes each issue's row and then its one event, whose payload repeats the row's fields
-- (sql/issueProjection.ts folds exactly these fields back into the row). Building the payload here from
-- the row the same transaction wrote, instead of sending it again as JSON, halves what an ingest sends
-- and parses. The result equals the JSON the service would have written: timestamps as JavaScript's
-- toISOString() writes them (UTC, milliseconds, "Z"; the two agree for the years 1 to 9999, the only
-- ones an issue row can hold), absent values as null. `via` is the issue.created event's `via`
-- (ignored for issue.reingested). Tested against the JSON payloads in test/sql/eventLog.test.ts.
-- The row's columns are passed one by one (not the row): a one-expression SQL function of scalars is
-- inlined into the calling statement, and no composite row is built per event.
create function issue_event_payload(
  event_type text, via text, source text, external_id text, title text, narrative text, severity text,
  occurred_at timestamptz, source_created_at timestamptz, engine_status text, ineligible_reason text
) returns jsonb language sql stable as $$
  select case when event_type = 'issue.created'
    then jsonb_build_object(
           'source', source, 'external_id', external_id, 'title', title, 'narrative', narrative, 'severity', severity,
           'occurred_at', to_char(occurred_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
           'source_created_at', to_char(source_created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
           'engine_status', engine_status, 'ineligible_reason', ineligible_reason, 'via', via)
    else jsonb_build_object(
           'title', title, 'narrative', narrative, 'severity', severity,
           'occurred_at', to_char(occurred_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
           'source_created_at', to_char(source_created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
           'engine_status', engine_status, 'ineligible_reason', ineligible_reason)
  end
$$;
