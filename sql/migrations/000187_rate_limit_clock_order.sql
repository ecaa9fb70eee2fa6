-- rate_limit_take with requests that reach the row out of clock order (issue 11, scale-out).
--
-- Every process passes its own clock. Two requests of one client racing at a window boundary can
-- reach the row in the other order: the one that read 59.999 s after the one that read 60.001 s,
-- which already moved the row to the new window. The late one used to find neither its window nor
-- the one before it, count from zero and move the row back a window, dropping the counts of both
-- windows: a client flooding across a boundary got a whole fresh budget. Now a request whose window
-- is older than the row's counts at the start of the row's window.
create or replace function rate_limit_take(p_key text, p_limit integer, p_window_ms bigint, p_now_ms bigint)
returns table (allowed boolean, remaining integer, retry_after_ms bigint)
language plpgsql as $$
declare
  v_window_start bigint := p_now_ms - (p_now_ms % p_window_ms);
  v_row rate_limit_counters;
  v_current integer := 0;
  v_previous integer := 0;
  v_elapsed bigint;
  v_weight double precision;
  v_estimate double precision;
  v_wait double precision;
begin
  insert into rate_limit_counters (key, window_start_ms, current_hits, previous_hits)
  values (p_key, v_window_start, 0, 0)
  on conflict (key) do nothing;
  select * into v_row from rate_limit_counters where key = p_key for update;

  if v_row.window_start_ms > v_window_start then
    v_window_start := v_row.window_start_ms;
    v_elapsed := 0;
  else
    v_elapsed := p_now_ms - v_window_start;
  end if;

  if v_row.window_start_ms = v_window_start then
    v_current := v_row.current_hits; v_previous := v_row.previous_hits;
  elsif v_row.window_start_ms = v_window_start - p_window_ms then
    v_previous := v_row.current_hits;
  end if;

  v_weight := (p_window_ms - v_elapsed)::double precision / p_window_ms;
  v_estimate := v_previous * v_weight + v_current;
  if v_estimate + 1 <= p_limit then
    update rate_limit_counters
       set window_start_ms = v_window_start, current_hits = v_current + 1, previous_hits = v_previous, updated_at = now()
     where key = p_key;
    return query select true, greatest(0, floor(p_limit - v_estimate - 1))::integer, 0::bigint;
  else
    update rate_limit_counters
       set window_start_ms = v_window_start, current_hits = v_current, previous_hits = v_previous, updated_at = now()
     where key = p_key;
    -- Earliest time the estimate drops to limit - 1: first inside this window (the previous
    -- window's weight decays), otherwise in the next one (this window becomes the previous).
    if v_current <= p_limit - 1 and v_previous > 0 then
      v_wait := p_window_ms * (1 - (p_limit - 1 - v_current)::double precision / v_previous) - v_elapsed;
    else
      v_wait := (p_window_ms - v_elapsed) + p_window_ms * (1 - (p_limit - 1)::double precision / greatest(v_current, 1));
    end if;
    return query select false, 0, greatest(1, ceil(v_wait))::bigint;
  end if;
end;
$$;
