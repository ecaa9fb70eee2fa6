-- The full-text column of issues is kept by a trigger that runs only when a title or narrative is
-- written. As a stored generated column, Postgres recomputed it (two to_tsvector over the narrative) on
-- every update of the row: an engine run's pattern assignment of 100,000 issues spent a quarter of its
-- apply phase there. The values stay as they are.
alter table issues alter column search drop expression;

create function issues_search_document() returns trigger language plpgsql as $$
begin
  new.search := setweight(to_tsvector('english', coalesce(new.title, '')), 'A') || setweight(to_tsvector('english', coalesce(new.narrative, '')), 'B');
  return new;
end $$;

create trigger issues_search_on_insert before insert on issues
  for each row execute function issues_search_document();
create trigger issues_search_on_text_update before update of title, narrative on issues
  for each row execute function issues_search_document();
