/** SSO connections of a workspace, the sign-ins started through them, and consumed SAML assertions. */
import type { Queryable } from '../lib/db.ts';
import type { ListSource } from './pagination.ts';

export interface SsoConnectionRow {
  id: string;
  workspace_id: string;
  type: 'oidc' | 'saml';
  name: string;
  domains: string[];
  redirect_uris: string[];
  oidc_issuer: string | null;
  oidc_client_id: string | null;
  oidc_client_secret_ciphertext: string | null;
  saml_idp_entity_id: string | null;
  saml_idp_sso_url: string | null;
  saml_idp_certificate: string | null;
  created_at: Date;
  updated_at: Date;
}

export interface SsoConnectionFields {
  name: string;
  domains: string[];
  redirectUris: string[];
  oidcIssuer: string | null;
  oidcClientId: string | null;
  oidcClientSecretCiphertext: string | null;
  samlIdpEntityId: string | null;
  samlIdpSsoUrl: string | null;
  samlIdpCertificate: string | null;
}

const values = (f: SsoConnectionFields) => [
  f.name,
  f.domains,
  f.redirectUris,
  f.oidcIssuer,
  f.oidcClientId,
  f.oidcClientSecretCiphertext,
  f.samlIdpEntityId,
  f.samlIdpSsoUrl,
  f.samlIdpCertificate,
];

/** Inserts a connection; null when the workspace already has one with this name. */
export async function insertConnection(db: Queryable, workspaceId: string, type: 'oidc' | 'saml', f: SsoConnectionFields): Promise<SsoConnectionRow | null> {
  const { rows } = await db.query<SsoConnectionRow>(
    `insert into sso_connections (workspace_id, type, name, domains, redirect_uris, oidc_issuer, oidc_client_id, oidc_client_secret_ciphertext,
       saml_idp_entity_id, saml_idp_sso_url, saml_idp_certificate)
     values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) on conflict (workspace_id, name) do nothing returning *`,
    [workspaceId, type, ...values(f)],
  );
  return rows[0] ?? null;
}

/** Replaces a connection's settings; null when the new name is taken by another connection. */
export async function updateConnection(db: Queryable, workspaceId: string, id: string, f: SsoConnectionFields): Promise<SsoConnectionRow | null> {
  const taken = await db.query('select 1 from sso_connections where workspace_id = $1 and name = $2 and id <> $3', [workspaceId, f.name, id]);
  if (taken.rows.length) return null;
  const { rows } = await db.query<SsoConnectionRow>(
    `update sso_connections set name = $3, domains = $4, redirect_uris = $5, oidc_issuer = $6, oidc_client_id = $7,
       oidc_client_secret_ciphertext = $8, saml_idp_entity_id = $9, saml_idp_sso_url = $10, saml_idp_certificate = $11, updated_at = now()
     where workspace_id = $1 and id = $2 returning *`,
    [workspaceId, id, ...values(f)],
  );
  return rows[0] ?? null;
}

export async function findConnection(db: Queryable, workspaceId: string, id: string, lock = false): Promise<SsoConnectionRow | null> {
  const { rows } = await db.query<SsoConnectionRow>(`select * from sso_connections where workspace_id = $1 and id = $2${lock ? ' for update' : ''}`, [
    workspaceId,
    id,
  ]);
  return rows[0] ?? null;
}

export async function findConnectionById(db: Queryable, id: string): Promise<SsoConnectionRow | null> {
  const { rows } = await db.query<SsoConnectionRow>('select * from sso_connections where id = $1', [id]);
  return rows[0] ?? null;
}

export async function connectionsOfWorkspace(db: Queryable, workspaceId: string): Promise<SsoConnectionRow[]> {
  const { rows } = await db.query<SsoConnectionRow>('select * from sso_connections where workspace_id = $1 order by created_at, id', [workspaceId]);
  return rows;
}

export async function deleteConnection(db: Queryable, workspaceId: string, id: string): Promise<boolean> {
  const result = await db.query('delete from sso_connections where workspace_id = $1 and id = $2', [workspaceId, id]);
  return (result.rowCount ?? 0) > 0;
}

export interface LoginStateRow {
  state_hash: string;
  connection_id: string;
  redirect_uri: string | null;
  code_verifier: string | null;
  nonce: string | null;
  saml_request_id: string | null;
  expires_at: Date;
  used_at: Date | null;
}

export async function insertLoginState(
  db: Queryable,
  s: {
    stateHash: string;
    connectionId: string;
    redirectUri: string | null;
    codeVerifier: string | null;
    nonce: string | null;
    samlRequestId: string | null;
    expiresAt: Date;
  },
): Promise<void> {
  await db.query(
    `insert into sso_login_states (state_hash, connection_id, redirect_uri, code_verifier, nonce, saml_request_id, expires_at)
     values ($1, $2, $3, $4, $5, $6, $7)`,
    [s.stateHash, s.connectionId, s.redirectUri, s.codeVerifier, s.nonce, s.samlRequestId, s.expiresAt],
  );
}

/** Marks an unused state used and returns it; null when unknown or already used (each state works once). */
export async function consumeLoginState(db: Queryable, stateHash: string): Promise<LoginStateRow | null> {
  const { rows } = await db.query<LoginStateRow>('update sso_login_states set used_at = now() where state_hash = $1 and used_at is null returning *', [
    stateHash,
  ]);
  return rows[0] ?? null;
}

/** Records a SAML assertion id; false when it was consumed before (a replay). */
export async function consumeSamlAssertion(db: Queryable, connectionId: string, assertionId: string, expiresAt: Date): Promise<boolean> {
  await db.query('delete from saml_consumed_assertions where expires_at < now()');
  const { rows } = await db.query(
    `insert into saml_consumed_assertions (connection_id, assertion_id, expires_at) values ($1, $2, $3)
     on conflict do nothing returning assertion_id`,
    [connectionId, assertionId, expiresAt],
  );
  return rows.length > 0;
}

/** GET /v1/sso/connections. */
export function ssoConnectionList(workspaceId: string): ListSource {
  return {
    select: '*',
    from: 'sso_connections',
    where: ['workspace_id = $1'],
    params: [workspaceId],
    sortColumns: { created_at: { expr: 'created_at', type: 'timestamptz' }, name: { expr: 'name', type: 'text' } },
    idExpr: 'id',
  };
}

/** The organization an SSO connection belongs to (through its workspace). */
export async function organizationOfConnection(db: Queryable, connectionId: string): Promise<string | null> {
  const { rows } = await db.query<{ organization_id: string }>(
    'select w.organization_id from sso_connections c join workspaces w on w.id = c.workspace_id where c.id = $1',
    [connectionId],
  );
  return rows[0]?.organization_id ?? null;
}
