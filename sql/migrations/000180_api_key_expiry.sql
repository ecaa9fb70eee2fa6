-- Workspace API keys may expire (set at issue or later through PATCH /v1/api-keys/{id}).
alter table api_keys add column expires_at timestamptz;
