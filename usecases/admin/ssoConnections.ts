/**
 * A workspace's SSO connections (OIDC or SAML): creating, changing (its type stays) and deleting
 * one. The OIDC client secret is stored encrypted; a SAML connection may not name the platform's
 * own identity provider (domain/ssoConnections.ts); the last connection of a workspace that
 * enforces SSO cannot be deleted. Each change is audited in the same transaction.
 */
import type { AppContext } from '../../lib/context.ts';
import { normalizeCertificate } from '../../lib/certificates.ts';
import { withTransaction } from '../../lib/db.ts';
import { AppError } from '../../lib/errors.ts';
import { sealSecret } from '../../lib/secretBox.ts';
import { oidcIssuer, platformIssuerRefusal } from '../../domain/ssoConnections.ts';
import * as sso from '../../sql/sso.ts';
import { lockSsoRequired } from '../../sql/workspaces.ts';
import { recordActorAudit, type WorkspaceActor } from '../workspaceActor.ts';

export interface OidcSettings {
  issuer: string;
  client_id: string;
  client_secret: string;
}
export interface SamlSettings {
  idp_entity_id: string;
  idp_sso_url: string;
  /** PEM or bare base64. */
  idp_certificate: string;
}
interface CommonSettings {
  name: string;
  domains?: string[];
  redirect_uris?: string[];
}
export type NewSsoConnection = CommonSettings & ({ type: 'oidc'; oidc: OidcSettings } | { type: 'saml'; saml: SamlSettings });
export type SsoConnectionChanges = Partial<CommonSettings> & { oidc?: Partial<OidcSettings>; saml?: Partial<SamlSettings> };

export const ssoConnectionNotFound = () => new AppError('not_found', 'SSO connection not found');
const nameTaken = (name: string) => new AppError('conflict', `An SSO connection named '${name}' already exists`);
const unique = <T>(values: T[] | undefined) => (values ? [...new Set(values)] : undefined);
const target = (id: string) => ({ type: 'sso_connection', id });

function assertNotPlatformIssuer(app: AppContext, entityId: string | null) {
  const refused = platformIssuerRefusal(entityId, app.config.OIDC_ISSUER);
  if (refused) throw refused;
}

/** 409 when the name is taken. */
export async function createSsoConnection(app: AppContext, actor: WorkspaceActor, input: NewSsoConnection): Promise<sso.SsoConnectionRow> {
  return withTransaction(app.pool, async (client) => {
    const row = await sso.insertConnection(client, actor.workspaceId, input.type, {
      name: input.name,
      domains: unique(input.domains) ?? [],
      redirectUris: unique(input.redirect_uris) ?? [],
      oidcIssuer: input.type === 'oidc' ? oidcIssuer(input.oidc.issuer) : null,
      oidcClientId: input.type === 'oidc' ? input.oidc.client_id : null,
      oidcClientSecretCiphertext: input.type === 'oidc' ? sealSecret(app.secrets.encryptionKey, input.oidc.client_secret) : null,
      samlIdpEntityId: input.type === 'saml' ? input.saml.idp_entity_id : null,
      samlIdpSsoUrl: input.type === 'saml' ? input.saml.idp_sso_url : null,
      samlIdpCertificate: input.type === 'saml' ? normalizeCertificate(input.saml.idp_certificate).pem : null,
    });
    if (!row) throw nameTaken(input.name);
    assertNotPlatformIssuer(app, row.saml_idp_entity_id);
    await recordActorAudit(client, actor, 'sso.connection.created', target(row.id), { type: row.type, name: row.name });
    return row;
  });
}

/** Settings of the other type are a 400; a name taken by another connection is a 409. */
export async function updateSsoConnection(app: AppContext, actor: WorkspaceActor, id: string, changes: SsoConnectionChanges): Promise<sso.SsoConnectionRow> {
  return withTransaction(app.pool, async (client) => {
    const row = await sso.findConnection(client, actor.workspaceId, id, true);
    if (!row) throw ssoConnectionNotFound();
    if ((changes.oidc && row.type !== 'oidc') || (changes.saml && row.type !== 'saml')) {
      throw new AppError('validation_error', 'Request validation failed', { [changes.oidc ? 'oidc' : 'saml']: `does not apply to a ${row.type} connection` });
    }
    const updated = await sso.updateConnection(client, actor.workspaceId, row.id, {
      name: changes.name ?? row.name,
      domains: unique(changes.domains) ?? row.domains,
      redirectUris: unique(changes.redirect_uris) ?? row.redirect_uris,
      oidcIssuer: changes.oidc?.issuer !== undefined ? oidcIssuer(changes.oidc.issuer) : row.oidc_issuer,
      oidcClientId: changes.oidc?.client_id ?? row.oidc_client_id,
      oidcClientSecretCiphertext: changes.oidc?.client_secret
        ? sealSecret(app.secrets.encryptionKey, changes.oidc.client_secret)
        : row.oidc_client_secret_ciphertext,
      samlIdpEntityId: changes.saml?.idp_entity_id ?? row.saml_idp_entity_id,
      samlIdpSsoUrl: changes.saml?.idp_sso_url ?? row.saml_idp_sso_url,
      samlIdpCertificate: changes.saml?.idp_certificate ? normalizeCertificate(changes.saml.idp_certificate).pem : row.saml_idp_certificate,
    });
    if (!updated) throw nameTaken(changes.name!);
    assertNotPlatformIssuer(app, updated.saml_idp_entity_id);
    await recordActorAudit(client, actor, 'sso.connection.updated', target(row.id), { fields: Object.keys(changes) });
    return updated;
  });
}

/** 409 for the last connection of a workspace that enforces SSO: nobody could sign in. */
export async function deleteSsoConnection(app: AppContext, actor: WorkspaceActor, id: string): Promise<void> {
  await withTransaction(app.pool, async (client) => {
    const ssoRequired = await lockSsoRequired(client, actor.workspaceId);
    if (!(await sso.deleteConnection(client, actor.workspaceId, id))) throw ssoConnectionNotFound();
    if (ssoRequired && !(await sso.connectionsOfWorkspace(client, actor.workspaceId)).length) {
      throw new AppError('conflict', 'The workspace enforces SSO: turn sso_required off before deleting its last connection');
    }
    await recordActorAudit(client, actor, 'sso.connection.deleted', target(id));
  });
}
