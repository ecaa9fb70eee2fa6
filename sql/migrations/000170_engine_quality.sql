-- Issue 17: readable patterns and a review queue a person can work.
-- Patterns carry how they were found (templated or prose), their template with `<*>` slots, and a few
-- representative member issues ({issue_id, title}).
alter table patterns
  add column path text check (path in ('templated', 'prose')),
  add column template text,
  add column examples jsonb not null default '[]';

-- Review items are questions: one per pattern and question (`pattern:<id>:<kind>`, issue_id null) or
-- per issue (`issue:<id>:<kind>`); one decision settles the `issue_count` issues it covers. Items are
-- worked riskiest first (`risk_blocked`: the pattern's risk / 100 × the issues covered).
alter table review_items
  add column question_key text,
  add column issue_count integer not null default 1 check (issue_count >= 0),
  add column risk_blocked double precision not null default 0;
create unique index review_items_one_open_question on review_items (workspace_id, question_key) where status = 'open' and question_key is not null;
create index review_items_risk on review_items (workspace_id, risk_blocked desc, id desc);
