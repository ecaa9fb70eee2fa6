-- Issue 31: pattern lineage and people's grouping decisions.
-- A pattern merged into another answers with where it went; a split names its successors (folded from
-- pattern.updated events, sql/patternProjection.ts).
alter table patterns add column merged_into uuid, add column split_into uuid[] not null default '{}';

-- The projection of grouping_decision.* events (sql/groupingDecisions.ts): a person's merge of two
-- patterns, move of an issue (to a pattern or out of any) or keeping two issues apart. The engine reads
-- the decisions in force from the event log up to a run's cut-off (sql/engineRuns.ts buildSnapshotInput);
-- this table serves the API (undo, the grouping explanation).
create table grouping_decisions (
  id uuid primary key,
  workspace_id uuid not null references workspaces (id) on delete cascade,
  kind text not null check (kind in ('merge', 'move', 'keep_apart')),
  status text not null default 'active' check (status in ('active', 'undone')),
  source_pattern_id uuid,
  target_pattern_id uuid,
  issue_ids uuid[] not null,
  -- What the decision changed at once (the issues it moved and from where), for its undo.
  effect jsonb not null default '{}',
  note text,
  decided_by_type text not null,
  decided_by text,
  decided_at timestamptz not null,
  undone_by_type text,
  undone_by text,
  undone_at timestamptz,
  last_sequence bigint not null
);
create index grouping_decisions_workspace on grouping_decisions (workspace_id, decided_at desc, id desc);
create index grouping_decisions_issues on grouping_decisions using gin (issue_ids);
