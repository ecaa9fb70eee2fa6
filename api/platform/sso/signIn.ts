/**
 * The SSO sign-in flow: `authorize` picks the workspace's connection, checks the redirect URI
 * against the connection's allowlist and records a single-use state (with the PKCE verifier and
 * nonce, or the SAML request id) for 10 minutes; the OIDC callback and the SAML assertion consumer
 * service redeem it, verify what the identity provider asserted, and sign the identity in through
 * exchange rule 1 (`signInIdentity`: deny by default) scoped to the connection's workspace.
 * E-mail addresses asserted by a connection count as verified only inside its organization's verified
 * domains (and inside its own `domains`, when set), and for OIDC only with `email_verified: true`.
 * The identity is namespaced by the connection: it can never stand for a platform identity or
 * another connection's, whatever issuer or entity id the connection names.
 */
import type { Request } from 'express';
import type { AppContext } from '../../../lib/context.ts';
import { randomToken, sha256Hex } from '../../../lib/crypto.ts';
import { AppError } from '../../../lib/errors.ts';
import * as sso from '../../../sql/sso.ts';
import { verifiedDomainOrganization } from '../../../sql/workspaceDomains.ts';
import { findOrganizationBySlug, firstWorkspaceOfOrganization } from '../../../sql/workspaces.ts';
import { signInIdentity } from '../../../usecases/signIn.ts';
import type { VerifiedIdentity } from '../../../usecases/signIn.ts';
import type { TokenPair } from '../../../usecases/tokenPairs.ts';
import { platformBaseUrl } from '../publicUrl.ts';
import { completeOidcSignIn, oidcAuthorizeUrl } from './oidc.ts';
import { samlAuthorizeUrl, samlEndpoints, verifySamlResponse } from './saml.ts';

export const STATE_TTL_MS = 10 * 60_000;

export async function workspaceConnections(app: AppContext, slug: string) {
  const org = await findOrganizationBySlug(app.pool, slug);
  const workspace = org ? await firstWorkspaceOfOrganization(app.pool, org.id) : null;
  if (!workspace) throw new AppError('not_found', `No workspace '${slug}'`);
  return sso.connectionsOfWorkspace(app.pool, workspace.id);
}

/** Whether an e-mail asserted by the connection counts as verified: its domain is one its organization verified. */
async function domainVerified(app: AppContext, connection: sso.SsoConnectionRow, email: string | null): Promise<boolean> {
  const domain = email?.split('@')[1];
  if (!domain || (connection.domains.length && !connection.domains.includes(domain))) return false;
  const owner = await verifiedDomainOrganization(app.pool, domain);
  return owner !== null && owner === (await sso.organizationOfConnection(app.pool, connection.id));
}

export async function startSsoSignIn(
  app: AppContext,
  req: Request,
  input: { workspace: string; redirectUri?: string; connectionId?: string },
): Promise<{ redirect_url: string; state: string }> {
  const connections = await workspaceConnections(app, input.workspace);
  const connection = input.connectionId ? connections.find((c) => c.id === input.connectionId) : connections[0];
  if (!connection) throw new AppError('not_found', input.connectionId ? 'SSO connection not found' : 'This workspace has no SSO connection');
  if (connection.type === 'oidc' && !input.redirectUri) throw new AppError('validation_error', 'Request validation failed', { redirect_uri: 'is required' });
  if (input.redirectUri && !connection.redirect_uris.includes(input.redirectUri)) {
    throw new AppError('validation_error', 'Request validation failed', { redirect_uri: 'is not an allowed redirect URI of this SSO connection' });
  }
  const state = randomToken(32);
  const expiresAt = new Date(app.clock.now().getTime() + STATE_TTL_MS);
  if (connection.type === 'oidc') {
    const codeVerifier = randomToken(48);
    const nonce = randomToken(24);
    const redirectUrl = await oidcAuthorizeUrl(app, connection, { redirectUri: input.redirectUri!, state, nonce, codeVerifier });
    await sso.insertLoginState(app.pool, {
      stateHash: sha256Hex(state),
      connectionId: connection.id,
      redirectUri: input.redirectUri!,
      codeVerifier,
      nonce,
      samlRequestId: null,
      expiresAt,
    });
    return { redirect_url: redirectUrl, state };
  }
  const requestId = `_${randomToken(20)}`;
  const redirectUrl = await samlAuthorizeUrl(connection, samlEndpoints(platformBaseUrl(app, req), connection.id), state, requestId);
  await sso.insertLoginState(app.pool, {
    stateHash: sha256Hex(state),
    connectionId: connection.id,
    redirectUri: input.redirectUri ?? null,
    codeVerifier: null,
    nonce: null,
    samlRequestId: requestId,
    expiresAt,
  });
  return { redirect_url: redirectUrl, state };
}

const invalidState = () => new AppError('invalid_grant', 'The SSO sign-in could not be verified', { reason: 'unknown, used or expired state' });

async function redeemState(app: AppContext, state: string, type: 'oidc' | 'saml') {
  const login = await sso.consumeLoginState(app.pool, sha256Hex(state));
  if (!login || login.expires_at <= app.clock.now()) throw invalidState();
  const connection = await sso.findConnectionById(app.pool, login.connection_id);
  if (!connection || connection.type !== type) throw invalidState();
  return { login, connection };
}

export async function completeOidcCallback(app: AppContext, req: Request, input: { state: string; code: string; mfaCode?: string }): Promise<TokenPair> {
  const { login, connection } = await redeemState(app, input.state, 'oidc');
  const claims = await completeOidcSignIn(app, connection, {
    code: input.code,
    redirectUri: login.redirect_uri!,
    codeVerifier: login.code_verifier!,
    nonce: login.nonce!,
  });
  const identity: VerifiedIdentity = {
    issuer: connection.oidc_issuer!,
    connectionId: connection.id,
    subject: claims.subject,
    email: claims.email,
    emailVerified: claims.emailVerified && (await domainVerified(app, connection, claims.email)),
    name: claims.name,
  };
  return signInIdentity(app, identity, connection.workspace_id, req.clientIp, { method: 'sso', mfaCode: input.mfaCode });
}

const EMAIL_ATTRIBUTES = ['email', 'mail', 'emailAddress', 'http://schemas.xmlsoap.org/ws/2005/05/identity/claims/emailaddress'];

export async function completeSamlAcs(
  app: AppContext,
  req: Request,
  input: { samlResponse: string; relayState?: string; mfaCode?: string },
): Promise<TokenPair> {
  if (!input.relayState)
    throw new AppError('invalid_grant', 'The SAML response could not be verified', {
      reason: 'RelayState is required (sign-in starts at /v1/auth/sso/authorize)',
    });
  const { login, connection } = await redeemState(app, input.relayState, 'saml');
  const verified = await verifySamlResponse(connection, samlEndpoints(platformBaseUrl(app, req), connection.id), input.samlResponse);
  if (!(await sso.consumeSamlAssertion(app.pool, connection.id, verified.assertionId, verified.expiresAt))) {
    throw new AppError('invalid_grant', 'The SAML response could not be verified', { reason: 'the assertion was already used (replay)' });
  }
  // IdP-initiated (unsolicited) responses are refused: without InResponseTo nothing binds the assertion to a sign-in we started.
  if (!verified.inResponseTo) {
    throw new AppError('invalid_grant', 'The SAML response could not be verified', {
      reason: 'unsolicited response (no InResponseTo): start at /v1/auth/sso/authorize',
    });
  }
  if (verified.inResponseTo !== login.saml_request_id) {
    throw new AppError('invalid_grant', 'The SAML response could not be verified', { reason: 'InResponseTo does not match this sign-in' });
  }
  const profile = verified.profile;
  const attribute = EMAIL_ATTRIBUTES.map((name) => profile[name]).find((v) => typeof v === 'string') as string | undefined;
  const email = (attribute ?? (profile.nameID?.includes('@') ? profile.nameID : null))?.toLowerCase() ?? null;
  const identity: VerifiedIdentity = {
    issuer: connection.saml_idp_entity_id!,
    connectionId: connection.id,
    subject: profile.nameID,
    email,
    emailVerified: await domainVerified(app, connection, email),
    name: typeof profile.displayName === 'string' ? profile.displayName : null,
  };
  return signInIdentity(app, identity, connection.workspace_id, req.clientIp, { method: 'sso', mfaCode: input.mfaCode });
}
