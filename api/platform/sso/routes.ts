/**
 * SSO: connection administration (scope `workspace:admin`) and the public sign-in flow
 * (providers, authorize, the OIDC callback and the SAML assertion consumer service).
 */
import { z } from 'zod';
import type { AppContext } from '../../../lib/context.ts';
import { AppError } from '../../../lib/errors.ts';
import { normalizeCertificate } from '../../../lib/certificates.ts';
import * as sso from '../../../sql/sso.ts';
import { findWorkspace } from '../../../sql/workspaces.ts';
import { reply } from '../../http/routes.ts';
import { tokenPairSchema } from '../auth/routes.ts';
import { listQuery, listResponse, paginate } from '../pagination.ts';
import { workspaceActor } from '../principal.ts';
import { platformRoute } from '../route.ts';
import { platformBaseUrl } from '../publicUrl.ts';
import { testOidcConnection } from './oidc.ts';
import { samlEndpoints, spMetadataXml, testSamlConnection } from './saml.ts';
import { completeOidcCallback, completeSamlAcs, startSsoSignIn, workspaceConnections } from './signIn.ts';
import { createSsoConnection, deleteSsoConnection, ssoConnectionNotFound, updateSsoConnection } from '../../../usecases/admin/ssoConnections.ts';

const domain = z
  .string()
  .trim()
  .toLowerCase()
  .regex(/^(?=.{1,253}$)([a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/, 'must be a domain name');
const httpUrl = z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' });
const certificate = z
  .string()
  .min(1, 'must not be empty')
  .refine((value) => {
    try {
      normalizeCertificate(value);
      return true;
    } catch {
      return false;
    }
  }, 'must be an X.509 certificate (PEM or base64)');

const common = {
  name: z.string().trim().min(1, 'must not be empty').max(100, 'must be at most 100 characters'),
  domains: z.array(domain).max(50).optional(),
  redirect_uris: z.array(httpUrl).max(20).optional().describe('Allowed `redirect_uri` values of /v1/auth/sso/authorize (exact match)'),
};
const oidcSettings = z.object({
  issuer: httpUrl,
  client_id: z.string().trim().min(1, 'must not be empty'),
  client_secret: z.string().min(1, 'must not be empty'),
});
const samlSettings = z.object({ idp_entity_id: z.string().trim().min(1, 'must not be empty'), idp_sso_url: httpUrl, idp_certificate: certificate });

const connectionSchema = z.object({
  id: z.string(),
  type: z.enum(['oidc', 'saml']),
  name: z.string(),
  domains: z.array(z.string()),
  redirect_uris: z.array(z.string()),
  oidc: z.object({ issuer: z.string(), client_id: z.string(), client_secret_set: z.literal(true) }).optional(),
  saml: z
    .object({ idp_entity_id: z.string(), idp_sso_url: z.string(), idp_certificate_fingerprint256: z.string(), sp_entity_id: z.string(), acs_url: z.string() })
    .optional(),
  created_at: z.string(),
  updated_at: z.string(),
});

function toConnection(row: sso.SsoConnectionRow, base: string) {
  const endpoints = samlEndpoints(base, row.id);
  return {
    id: row.id,
    type: row.type,
    name: row.name,
    domains: row.domains,
    redirect_uris: row.redirect_uris,
    ...(row.type === 'oidc' ? { oidc: { issuer: row.oidc_issuer!, client_id: row.oidc_client_id!, client_secret_set: true as const } } : {}),
    ...(row.type === 'saml'
      ? {
          saml: {
            idp_entity_id: row.saml_idp_entity_id!,
            idp_sso_url: row.saml_idp_sso_url!,
            idp_certificate_fingerprint256: normalizeCertificate(row.saml_idp_certificate!).certificate.fingerprint256,
            sp_entity_id: endpoints.spEntityId,
            acs_url: endpoints.acsUrl,
          },
        }
      : {}),
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}

const params = z.object({ id: z.uuid({ error: 'must be a connection id' }) });

async function requireConnection(app: AppContext, workspaceId: string, id: string) {
  const row = await sso.findConnection(app.pool, workspaceId, id);
  if (!row) throw ssoConnectionNotFound();
  return row;
}

export const ssoConnectionRoutes = [
  platformRoute({
    method: 'post',
    path: '/v1/sso/connections',
    operationId: 'createSsoConnection',
    summary: 'Create an OIDC or SAML connection',
    description: 'The OIDC client secret is stored encrypted and never returned. The SAML IdP certificate must parse as X.509.',
    tags: ['sso'],
    scope: 'workspace:admin',
    body: z.discriminatedUnion(
      'type',
      [z.object({ type: z.literal('oidc'), ...common, oidc: oidcSettings }), z.object({ type: z.literal('saml'), ...common, saml: samlSettings })],
      { error: 'must be oidc or saml' },
    ),
    responses: { 201: { description: 'Created', schema: connectionSchema }, 409: { description: 'The name is taken (`conflict`)' } },
    handler: async ({ body, principal, app, req }) =>
      reply.created(toConnection(await createSsoConnection(app, workspaceActor(principal, req.clientIp), body), platformBaseUrl(app, req))),
  }),
  platformRoute({
    method: 'get',
    path: '/v1/sso/connections',
    operationId: 'listSsoConnections',
    summary: 'List SSO connections',
    tags: ['sso'],
    scope: 'workspace:admin',
    query: listQuery({}, ['created_at', 'name'], '-created_at'),
    responses: { 200: { description: 'A page of connections', schema: listResponse(connectionSchema) } },
    handler: async ({ query, principal, app, req }) =>
      reply.ok(
        await paginate(app.pool, sso.ssoConnectionList(principal.workspaceId), { query, cursorKey: app.secrets.cursorKey }, (row) =>
          toConnection(row as unknown as sso.SsoConnectionRow, platformBaseUrl(app, req)),
        ),
      ),
  }),
  platformRoute({
    method: 'get',
    path: '/v1/sso/connections/{id}',
    operationId: 'getSsoConnection',
    summary: 'Get an SSO connection',
    tags: ['sso'],
    scope: 'workspace:admin',
    params,
    responses: { 200: { description: 'The connection', schema: connectionSchema }, 404: { description: 'Not found' } },
    handler: async ({ params: p, principal, app, req }) =>
      reply.ok(toConnection(await requireConnection(app, principal.workspaceId, p.id), platformBaseUrl(app, req))),
  }),
  platformRoute({
    method: 'patch',
    path: '/v1/sso/connections/{id}',
    operationId: 'updateSsoConnection',
    summary: 'Change an SSO connection (its type stays)',
    tags: ['sso'],
    scope: 'workspace:admin',
    params,
    body: z.object({
      name: common.name.optional(),
      domains: common.domains,
      redirect_uris: common.redirect_uris,
      oidc: oidcSettings.partial().optional(),
      saml: samlSettings.partial().optional(),
    }),
    responses: {
      200: { description: 'The updated connection', schema: connectionSchema },
      404: { description: 'Not found' },
      409: { description: 'The name is taken (`conflict`)' },
    },
    handler: async ({ params: p, body, principal, app, req }) =>
      reply.ok(toConnection(await updateSsoConnection(app, workspaceActor(principal, req.clientIp), p.id, body), platformBaseUrl(app, req))),
  }),
  platformRoute({
    method: 'delete',
    path: '/v1/sso/connections/{id}',
    operationId: 'deleteSsoConnection',
    summary: 'Delete an SSO connection',
    description: 'The last connection of a workspace that enforces SSO cannot be deleted (409): nobody could sign in.',
    tags: ['sso'],
    scope: 'workspace:admin',
    params,
    responses: {
      204: { description: 'Deleted' },
      404: { description: 'Not found' },
      409: { description: 'The workspace enforces SSO through it (`conflict`)' },
    },
    handler: async ({ params: p, principal, app, req }) => {
      await deleteSsoConnection(app, workspaceActor(principal, req.clientIp), p.id);
      return reply.noContent();
    },
  }),
  platformRoute({
    method: 'post',
    path: '/v1/sso/connections/{id}/test',
    operationId: 'testSsoConnection',
    summary: 'Test a connection against its identity provider',
    description:
      'OIDC: the discovery document and its key set are fetched. SAML: the IdP certificate is parsed and checked for validity and the SP metadata built.',
    tags: ['sso'],
    scope: 'workspace:admin',
    params,
    responses: { 200: { description: 'The outcome', schema: z.object({ ok: z.boolean(), detail: z.string() }) }, 404: { description: 'Not found' } },
    handler: async ({ params: p, principal, app, req }) => {
      const row = await requireConnection(app, principal.workspaceId, p.id);
      return reply.ok(
        row.type === 'oidc' ? await testOidcConnection(app, row) : testSamlConnection(row, samlEndpoints(platformBaseUrl(app, req), row.id), app.clock.now()),
      );
    },
  }),
  platformRoute({
    method: 'get',
    path: '/v1/sso/connections/{id}/metadata',
    operationId: 'getSsoConnectionMetadata',
    summary: 'SAML service-provider metadata (XML) to register with the identity provider',
    tags: ['sso'],
    scope: 'workspace:admin',
    params,
    responses: {
      200: { description: 'EntityDescriptor with SPSSODescriptor and AssertionConsumerService', contentType: 'application/samlmetadata+xml' },
      404: { description: 'Not found, or not a SAML connection' },
    },
    handler: async ({ params: p, principal, app, req, res }) => {
      const row = await requireConnection(app, principal.workspaceId, p.id);
      if (row.type !== 'saml') throw new AppError('not_found', 'SAML metadata exists only for SAML connections');
      res
        .status(200)
        .type('application/samlmetadata+xml')
        .send(spMetadataXml(row, samlEndpoints(platformBaseUrl(app, req), row.id)));
    },
  }),
];

const providerSchema = z.object({ id: z.string(), type: z.enum(['oidc', 'saml']), name: z.string(), domains: z.array(z.string()) });

export const ssoSignInRoutes = [
  platformRoute({
    method: 'get',
    path: '/v1/auth/sso/providers',
    operationId: 'listSsoProviders',
    summary: "A workspace's SSO providers (for a sign-in page)",
    tags: ['sso'],
    auth: 'public',
    query: z.object({ workspace: z.string().trim().min(1, 'must not be empty').describe('Organization slug') }),
    responses: {
      200: { description: 'The providers', schema: z.object({ data: z.array(providerSchema), sso_required: z.boolean() }) },
      404: { description: 'Unknown workspace' },
    },
    handler: async ({ query, app }) => {
      const connections = await workspaceConnections(app, query.workspace);
      const ssoRequired = connections.length ? ((await findWorkspace(app.pool, connections[0].workspace_id))?.sso_required ?? false) : false;
      return reply.ok({ data: connections.map((c) => ({ id: c.id, type: c.type, name: c.name, domains: c.domains })), sso_required: ssoRequired });
    },
  }),
  platformRoute({
    method: 'get',
    path: '/v1/auth/sso/authorize',
    operationId: 'authorizeSso',
    summary: 'Start an SSO sign-in: the URL to send the browser to, and its state',
    description:
      "OIDC: authorization-code flow with PKCE (S256) and a nonce; `redirect_uri` is required and must be one of the connection's `redirect_uris`. " +
      'SAML: an AuthnRequest (HTTP-Redirect binding) with the state as RelayState. The state is single-use and lives 10 minutes.',
    tags: ['sso'],
    auth: 'public',
    query: z.object({
      workspace: z.string().trim().min(1, 'must not be empty').describe('Organization slug'),
      redirect_uri: httpUrl.optional(),
      connection_id: z.uuid({ error: 'must be a connection id' }).optional().describe("Default: the workspace's first connection"),
    }),
    responses: {
      200: { description: 'Where to send the browser', schema: z.object({ redirect_url: z.string(), state: z.string() }) },
      404: { description: 'Unknown workspace or no connection' },
      503: { description: 'The identity provider could not be reached' },
    },
    handler: async ({ query, app, req }) =>
      reply.ok(await startSsoSignIn(app, req, { workspace: query.workspace, redirectUri: query.redirect_uri, connectionId: query.connection_id })),
  }),
  platformRoute({
    method: 'get',
    path: '/v1/auth/sso/callback',
    operationId: 'completeSsoCallback',
    summary: 'Complete an OIDC sign-in: code exchange and ID-token validation, then the token pair',
    description:
      'Called with the `code` and `state` the identity provider appended to the redirect URI. The ID token is checked for signature, issuer, audience, nonce and expiry; ' +
      "the identity then signs in by exchange rule 1 (deny by default) into the connection's workspace. A user with a second factor sends the same `code` and `state` with `mfa_code` to POST /v1/auth/sso/callback instead (never in a query string).",
    tags: ['sso'],
    auth: 'public',
    query: z.object({
      state: z.string().min(1, 'must not be empty'),
      code: z.string().min(1, 'must not be empty').optional(),
      error: z.string().optional(),
      error_description: z.string().optional(),
      mfa_code: z
        .never({ error: 'must not travel in the query string (proxies and browser history keep it): POST /v1/auth/sso/callback with it in the body' })
        .optional(),
    }),
    responses: {
      200: { description: 'Token pair', schema: tokenPairSchema },
      401: { description: 'The state, code or ID token is invalid (`invalid_grant`)' },
      403: { description: 'No membership (`forbidden`) or a second factor is needed (`mfa_required`)' },
    },
    handler: async ({ query, app, req }) => {
      if (query.error || !query.code) {
        throw new AppError('invalid_grant', 'The identity provider did not sign the user in', { reason: query.error_description ?? query.error ?? 'no code' });
      }
      return reply.ok(await completeOidcCallback(app, req, { state: query.state, code: query.code }));
    },
  }),
  platformRoute({
    method: 'post',
    path: '/v1/auth/sso/callback',
    operationId: 'completeSsoCallbackWithMfa',
    summary: 'Complete an OIDC sign-in with a second factor: code, state and mfa_code in the body',
    description: 'The same as GET /v1/auth/sso/callback, with `mfa_code` in the body so that it never appears in a URL (issue 26).',
    tags: ['sso'],
    auth: 'public',
    body: z.object({
      state: z.string().min(1, 'must not be empty'),
      code: z.string().min(1, 'must not be empty'),
      mfa_code: z.string().trim().min(1, 'must not be empty').max(64).optional(),
    }),
    responses: {
      200: { description: 'Token pair', schema: tokenPairSchema },
      401: { description: 'The state, code, ID token or mfa_code is invalid (`invalid_grant`)' },
      403: { description: 'No membership (`forbidden`) or a second factor is needed (`mfa_required`)' },
    },
    handler: async ({ body, app, req }) => reply.ok(await completeOidcCallback(app, req, { state: body.state, code: body.code, mfaCode: body.mfa_code })),
  }),
  platformRoute({
    method: 'post',
    path: '/v1/auth/sso/saml/acs',
    operationId: 'consumeSamlAssertion',
    summary: 'SAML assertion consumer service (HTTP-POST binding): verify the response, then the token pair',
    description: 'The signed assertion is checked for signature, issuer, audience, recipient, time window and replay.',
    tags: ['sso'],
    auth: 'public',
    bodyContentType: 'application/x-www-form-urlencoded',
    body: z.object({
      SAMLResponse: z.string().min(1, 'must not be empty'),
      RelayState: z.string().optional(),
      mfa_code: z.string().trim().min(1).max(64).optional(),
    }),
    responses: {
      200: { description: 'Token pair', schema: tokenPairSchema },
      401: { description: 'The response is invalid, expired, misaddressed or replayed (`invalid_grant`)' },
      403: { description: 'No membership (`forbidden`) or a second factor is needed (`mfa_required`)' },
    },
    handler: async ({ body, app, req }) =>
      reply.ok(await completeSamlAcs(app, req, { samlResponse: body.SAMLResponse, relayState: body.RelayState, mfaCode: body.mfa_code })),
  }),
];
