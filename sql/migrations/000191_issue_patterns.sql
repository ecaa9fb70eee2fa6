-- An issue's pattern lives in its own narrow table. As a column of the issue row, an engine run's
-- assignment rewrote every row it assigned (pattern_id was indexed, so no update was HOT): the first run
-- over 100,000 issues wrote a new version of the whole table with all its indexes (the full-text GIN
-- index too), cleared its visibility map, and left a table-sized region of versions that other
-- transactions could not see, where the list's limited count then read ten times the pages
-- (docs/benchmarks.md, issue 11). The row is now `issue_records`; the view `issues` joins the pattern
-- back, so every reader sees the same columns as before. Writers write `issue_records` and
-- `issue_patterns` (sql/issueProjection.ts).
create table issue_patterns (
  issue_id uuid primary key,
  pattern_id uuid not null
);
insert into issue_patterns (issue_id, pattern_id) select id, pattern_id from issues where pattern_id is not null;
drop index issues_workspace_pattern;
alter table issues drop column pattern_id;
-- An assignment no longer counts as a change of the issue (sql/issueProjection.ts): the stored version and
-- updated_at become what the fold now gives, the count and the time of the issue's other events, so that
-- a rebuild still reproduces every row.
update issues i set version = e.n, updated_at = e.last_at
  from (select aggregate_id, count(*)::int as n, (array_agg(recorded_at order by sequence desc))[1] as last_at
          from events where aggregate_type = 'issue' and event_type <> 'issue.pattern_assigned'
         group by workspace_id, aggregate_id) e
 where i.id = e.aggregate_id and (i.version, i.updated_at) is distinct from (e.n, e.last_at);
alter table issues rename to issue_records;
alter table issue_patterns add foreign key (issue_id) references issue_records (id) on delete cascade;
create index issue_patterns_pattern on issue_patterns (pattern_id);

create view issues as
  select r.id, r.workspace_id, r.source, r.external_id, r.title, r.narrative, r.severity, r.status, r.engine_status, r.ineligible_reason,
         r.occurred_at, r.source_created_at, p.pattern_id, r.created_at, r.updated_at, r.resolved_at, r.closed_at, r.version, r.search
    from issue_records r left join issue_patterns p on p.issue_id = r.id;
