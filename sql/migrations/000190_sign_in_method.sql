-- Issue 16: a workspace that enforces SSO refuses every sign-in not made through it, including the
-- live ones (their access tokens and refresh tokens); a token family records how it began.
alter table token_families
  add column method text not null default 'exchange' check (method in ('exchange', 'sso'));
