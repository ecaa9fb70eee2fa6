/**
 * Which scopes each membership role grants on /v1: one table. Tokens of human users carry their
 * role's scopes (re-checked against the current role on every request); service-account tokens and
 * API keys carry exactly the scopes they were created with.
 */
import { allScopes, type Scope } from './scopes.ts';

export const roles = ['owner', 'admin', 'member', 'viewer'] as const;
export type Role = (typeof roles)[number];

const readScopes: Scope[] = [
  'issues:read',
  'patterns:read',
  'predictions:read',
  'recommendations:read',
  'review:read',
  'configs:read',
  'engine:read',
  'reports:read',
  'exports:read',
  'connectors:read',
  'sources:read',
  'webhooks:read',
  'events:read',
  'jobs:read',
  'members:read',
  'notifications:read',
  'notifications:write',
  'shell:read',
  'mfa:manage',
];
const writeScopes: Scope[] = [
  'issues:write',
  'ingest:write',
  'patterns:write',
  'recommendations:write',
  'review:write',
  'configs:write',
  'engine:run',
  'reports:write',
  'connectors:write',
  'jobs:write',
];

export const roleScopes: Record<Role, readonly Scope[]> = {
  owner: allScopes,
  admin: allScopes,
  member: [...readScopes, ...writeScopes],
  viewer: readScopes,
};

/** Scopes of a workspace API key issued by client provisioning: everything a member can do (but MFA, which is for people). */
export const provisionedApiKeyScopes: readonly Scope[] = roleScopes.member.filter((scope) => scope !== 'mfa:manage');

/** Roles an actor may grant: admins manage members and viewers and admins, only owners grant owner. */
export function canGrant(actor: Role, target: Role): boolean {
  if (actor === 'owner') return true;
  if (actor === 'admin') return target !== 'owner';
  return false;
}
