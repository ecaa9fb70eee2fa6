-- The payload of an ingest's issue.created / issue.reingested event, built from the issue's row (issue 11).
--
-- Ingest writes each issue's row and then its one event, whose payload repeats the row's fields
-- (sql/issueProjection.ts folds exactly these fields back into the row). Building the payload here from
-- the row the same transaction wrote, instead of sending it again as JSON, halves what an ingest sends
-- and parses. The result equals the JSON the service would have written: timestamps as JavaScript's
-- toISOString() writes them (UTC, milliseconds, "Z"; the two agree for the years 1 to 9999, the only
-- ones an issue row can hold), absent values as null. `via` is the issue.created event's `via`
-- (ignored for issue.reingested). Tested against the JSON payloads in test/sql/eventLog.test.ts.
create function issue_event_payload(i issues, event_type text, via text) returns jsonb language sql stable as $$
  select jsonb_build_object(
           'title', i.title,
           'narrative', i.narrative,
           'severity', i.severity,
           'occurred_at', to_char(i.occurred_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
           'source_created_at', to_char(i.source_created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
           'engine_status', i.engine_status,
           'ineligible_reason', i.ineligible_reason)
         || case when event_type = 'issue.created' then jsonb_build_object('source', i.source, 'external_id', i.external_id, 'via', via) else '{}'::jsonb end
$$;
