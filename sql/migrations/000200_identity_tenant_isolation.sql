-- Issue 26: tenant isolation of identity.
--
-- Organization-managed accounts: a user created by an organization's SCIM token (or by just-in-time
-- sign-up through its SSO connection) is managed by that organization, in an e-mail namespace of its
-- own. The platform's global accounts (invitations, provisioning, JIT through the platform identity
-- provider) keep one address each; a managed account may share its address with a global account or
-- with another organization's managed account without ever being the same row.
alter table users add column managed_by_organization_id uuid references organizations (id) on delete cascade;
drop index users_email;
create unique index users_email on users (lower(email)) where managed_by_organization_id is null;
create unique index users_managed_email on users (managed_by_organization_id, lower(email)) where managed_by_organization_id is not null;

-- Identity links are namespaced by where they were asserted: the platform identity provider
-- (connection_id null, keyed by issuer and subject) or one SSO connection (keyed by the connection
-- and the subject), so that no connection's identities can collide with the platform's or with
-- another connection's, whatever issuer or entity id its admin typed.
alter table user_identities add column connection_id uuid references sso_connections (id) on delete cascade;
alter table user_identities drop constraint user_identities_pkey;
create unique index user_identities_platform on user_identities (issuer, subject) where connection_id is null;
create unique index user_identities_connection on user_identities (connection_id, subject) where connection_id is not null;
-- Links written by SSO sign-ins before this migration were stored under the connection's free-text
-- issuer (possibly the platform's own, the takeover of the issue): they are dropped. A genuine user
-- is linked again, namespaced, at their next sign-in by their verified e-mail.
delete from user_identities i
 where exists (select 1 from sso_connections c where c.oidc_issuer = i.issuer or c.saml_idp_entity_id = i.issuer);
