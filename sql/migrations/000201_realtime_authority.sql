-- Issue 26: realtime streams end within seconds of the event that ends their authority. Every change
-- that can take a sign-in's authority away announces the workspace on `svc_authority`; each API
-- process re-checks the open streams of that workspace and closes those no longer allowed.
create function announce_authority_change() returns trigger language plpgsql as $$
declare
  affected uuid;
begin
  affected := case when tg_op = 'DELETE' then old.workspace_id else new.workspace_id end;
  perform pg_notify('svc_authority', affected::text);
  return null;
end;
$$;

create function announce_workspace_authority_change() returns trigger language plpgsql as $$
begin
  perform pg_notify('svc_authority', new.id::text);
  return null;
end;
$$;

create trigger memberships_authority after update of role or delete on memberships
  for each row execute function announce_authority_change();
create trigger token_families_authority after update of revoked_at on token_families
  for each row when (new.revoked_at is not null and old.revoked_at is null) execute function announce_authority_change();
create trigger workspaces_authority after update of sso_required, mfa_required on workspaces
  for each row when (new.sso_required and not old.sso_required or new.mfa_required and not old.mfa_required)
  execute function announce_workspace_authority_change();
create trigger api_keys_authority after update of revoked_at on api_keys
  for each row execute function announce_authority_change();
create trigger service_account_tokens_authority after update of revoked_at or delete on service_account_tokens
  for each row execute function announce_authority_change();
