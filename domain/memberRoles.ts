/**
 * Workspace membership roles: which scopes each grants on /v1 (one table), who may grant which role,
 * and the last-owner rule. Tokens of human users carry their role's scopes (re-checked against the
 * current role on every request); service-account tokens and API keys carry exactly the scopes they
 * were created with.
 */
import { AppError } from '../lib/errors.ts';
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

/**
 * Why an actor may not change a member from `current` to `next` in a workspace with `ownerCount`
 * owners, or null when they may: both roles must be ones the actor may grant (403), and the last
 * owner stays an owner (409).
 */
export function roleChangeRefusal(actor: Role, current: Role, next: Role, ownerCount: number): AppError | null {
  if (!canGrant(actor, next) || !canGrant(actor, current)) return new AppError('forbidden', `A ${actor} cannot change a ${current} into a ${next}`);
  if (current === 'owner' && next !== 'owner' && ownerCount <= 1) return lastOwner();
  return null;
}

/** Why an actor may not remove a member with role `current`, or null: the same grant rule, and never the last owner. */
export function removalRefusal(actor: Role, current: Role, ownerCount: number): AppError | null {
  if (!canGrant(actor, current)) return new AppError('forbidden', `A ${actor} cannot remove a ${current}`);
  if (current === 'owner' && ownerCount <= 1) return lastOwner();
  return null;
}

const lastOwner = () => new AppError('conflict', 'The workspace must keep at least one owner');
