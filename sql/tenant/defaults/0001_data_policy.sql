-- A new tenant's data policy is explicit from the start: keep every record (no retention limit) and
-- do not redact. Staff change it with PUT /admin/tenants/{id}/data-policy; a re-run keeps their choice.
insert into data_policy (retention_days, redact_pii) values (null, false) on conflict (singleton) do nothing;
