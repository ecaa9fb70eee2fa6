/** Who is calling /v1: resolved from the bearer token by the authenticator (api/platform/auth). */
import type { Request } from 'express';
import type { Actor } from '../../sql/events.ts';
import type { Scope } from '../../domain/scopes.ts';
import type { WorkspaceActor } from '../../usecases/workspaceActor.ts';

export interface Principal {
  kind: 'user' | 'service_account' | 'api_key';
  workspaceId: string;
  /** The human behind the token (users only). */
  userId: string | null;
  /** User, service-account or API-key id: the actor recorded in events and audit rows. */
  subjectId: string;
  scopes: ReadonlySet<Scope>;
}

export type ProvisioningKeyCheck = 'valid' | 'invalid' | 'unconfigured';

export interface PlatformAuthenticator {
  /** Resolves a bearer token to a principal, or null when it is unknown, expired or revoked. */
  bearer(token: string, req: Request): Promise<Principal | null>;
  /** Checks a platform provisioning key against SVC_PROVISION_KEY_HASHES. */
  provisioningKey(token: string): ProvisioningKeyCheck;
}

/** The actor recorded in events for what this principal does. */
export function actorOf(principal: Principal): Actor {
  return { type: principal.kind, id: principal.subjectId };
}

/** Who a use case that changes the workspace sees: the principal and the caller's address (audited). */
export function workspaceActor(principal: Principal, clientIp: string): WorkspaceActor {
  return { kind: principal.kind, workspaceId: principal.workspaceId, userId: principal.userId, subjectId: principal.subjectId, clientIp };
}

/** The bearer token of an `Authorization: Bearer …` header, or null when absent or malformed. */
export function bearerToken(req: Request): string | null {
  const header = req.headers.authorization;
  if (!header) return null;
  const match = /^Bearer[ ]+([^\s]+)\s*$/i.exec(header);
  return match ? match[1] : null;
}
