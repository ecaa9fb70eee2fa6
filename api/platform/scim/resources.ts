/**
 * SCIM Users and Groups of one workspace. The stored SCIM document is the source of truth for what
 * a client sent; the columns are its projection for filtering and uniqueness. Each provisioned user
 * is a `users` row; while active they hold a membership whose role is the highest role among their
 * groups (see syncMembership). Deactivation (active=false) keeps the user
 * listed, removes the membership and revokes every sign-in; DELETE does the same and forgets them.
 */
import type { PoolClient, Queryable } from '../../../lib/db.ts';
import { recordAudit } from '../../../sql/audit.ts';
import * as scim from '../../../sql/scim.ts';
import * as users from '../../../sql/users.ts';
import { invalidValue, ScimError, scimNotFound } from './errors.ts';
import type { FilterAttribute } from './filter.ts';
import { applyPatch, ENTERPRISE_USER_SCHEMA, scimBoolean, SVC_GROUP_SCHEMA, type PatchOperation } from './patch.ts';
import { isUuid } from '../../../lib/ids.ts';

export const USER_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:User';
export const GROUP_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:Group';
export const LIST_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:ListResponse';
export const PATCH_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';

export interface ScimScope {
  workspaceId: string;
  /** The organization whose accounts this token manages (and no other). */
  organizationId: string;
  tokenId: string;
  /** `{base_url}/scim/v2/{tenant}`, for meta.location. */
  base: string;
  clientIp: string;
}

type Doc = Record<string, unknown>;
const isObject = (value: unknown): value is Doc => typeof value === 'object' && value !== null && !Array.isArray(value);
const optionalString = (value: unknown, attribute: string): string | null => {
  if (value === undefined || value === null || value === '') return null;
  if (typeof value !== 'string') throw invalidValue(`${attribute} must be a string`);
  return value;
};
const READ_ONLY = ['id', 'meta', 'groups', 'password', 'schemas'];

const EMAIL_SUB_ATTRIBUTES = ['value', 'type', 'primary'] as const;
export const userFilterAttributes: Record<string, FilterAttribute> = {
  id: { kind: 'column', sql: 'id::text', caseExact: true },
  userName: { kind: 'column', sql: 'user_name', caseExact: false },
  externalId: { kind: 'column', sql: 'external_id', caseExact: true },
  displayName: { kind: 'column', sql: 'display_name', caseExact: false },
  active: { kind: 'column', sql: 'active::text', caseExact: false },
  'emails.value': { kind: 'jsonArray', column: 'emails', key: 'value', caseExact: false, subAttributes: EMAIL_SUB_ATTRIBUTES },
  'emails.type': { kind: 'jsonArray', column: 'emails', key: 'type', caseExact: false, subAttributes: EMAIL_SUB_ATTRIBUTES },
  emails: { kind: 'jsonArray', column: 'emails', key: 'value', caseExact: false, subAttributes: EMAIL_SUB_ATTRIBUTES },
  'name.givenName': { kind: 'column', sql: 'given_name', caseExact: false },
  'name.familyName': { kind: 'column', sql: 'family_name', caseExact: false },
};

export const groupFilterAttributes: Record<string, FilterAttribute> = {
  id: { kind: 'column', sql: 'id::text', caseExact: true },
  displayName: { kind: 'column', sql: 'display_name', caseExact: false },
  externalId: { kind: 'column', sql: 'external_id', caseExact: true },
};

// ---------------------------------------------------------------------------------------------
// Users
// ---------------------------------------------------------------------------------------------

/** Validates a User document and derives its columns; the stored document keeps what the client sent. */
function userFields(input: unknown): scim.ScimUserFields {
  if (!isObject(input)) throw new ScimError(400, 'The body must be a SCIM User object', 'invalidSyntax');
  const document: Doc = {};
  for (const [key, value] of Object.entries(input)) if (!READ_ONLY.includes(key.toLowerCase()) && value !== undefined) document[key] = value;
  const get = (name: string) => document[Object.keys(document).find((k) => k.toLowerCase() === name.toLowerCase()) ?? name];
  const userName = optionalString(get('userName'), 'userName')?.trim();
  if (!userName) throw invalidValue('userName is required');
  const rawEmails = get('emails') ?? [];
  if (!Array.isArray(rawEmails)) throw invalidValue('emails must be an array');
  const emails = rawEmails.map((e, i) => {
    if (!isObject(e) || typeof e.value !== 'string' || !e.value.includes('@')) throw invalidValue(`emails[${i}].value must be an e-mail address`);
    return {
      value: e.value.trim(),
      ...(typeof e.type === 'string' ? { type: e.type } : {}),
      ...(e.primary !== undefined ? { primary: scimBoolean(e.primary, 'emails.primary') } : {}),
    };
  });
  const active = get('active') === undefined || get('active') === null ? true : scimBoolean(get('active'), 'active');
  const name = get('name');
  if (name !== undefined && name !== null && !isObject(name)) throw invalidValue('name must be an object');
  for (const key of Object.keys(document)) {
    const lower = key.toLowerCase();
    if (lower === 'active') document[key] = active;
    if (lower === 'emails') document[key] = emails;
    if (lower === 'username') document[key] = userName;
  }
  return {
    userName,
    externalId: optionalString(get('externalId'), 'externalId'),
    active,
    displayName: optionalString(get('displayName'), 'displayName'),
    givenName: isObject(name) ? optionalString(name.givenName, 'name.givenName') : null,
    familyName: isObject(name) ? optionalString(name.familyName, 'name.familyName') : null,
    emails,
    document: { ...document, active },
  };
}

/** The address the `users` row carries: the primary e-mail, else the first, else an e-mail userName. */
function emailOf(f: scim.ScimUserFields): string {
  const email = f.emails.find((e) => e.primary)?.value ?? f.emails[0]?.value ?? (f.userName.includes('@') ? f.userName : null);
  if (!email) throw invalidValue('An e-mail address is required: in emails or as the userName');
  return email.toLowerCase();
}

const displayNameOf = (f: scim.ScimUserFields) => f.displayName ?? ([f.givenName, f.familyName].filter(Boolean).join(' ') || f.userName);

export function toScimUser(row: scim.ScimUserRow, groups: Array<{ id: string; display_name: string }>, base: string) {
  const document = row.extra;
  const schemas = [
    USER_SCHEMA,
    ...(Object.keys(document).some((k) => k.toLowerCase() === ENTERPRISE_USER_SCHEMA.toLowerCase()) ? [ENTERPRISE_USER_SCHEMA] : []),
  ];
  return {
    schemas,
    id: row.id,
    ...document,
    userName: row.user_name,
    ...(row.external_id !== null ? { externalId: row.external_id } : {}),
    active: row.active,
    emails: row.emails,
    groups: groups.map((g) => ({ value: g.id, display: g.display_name, $ref: `${base}/Groups/${g.id}` })),
    meta: { resourceType: 'User', created: row.created_at.toISOString(), lastModified: row.updated_at.toISOString(), location: `${base}/Users/${row.id}` },
  };
}

export async function renderUsers(db: Queryable, rows: scim.ScimUserRow[], base: string) {
  const memberships = rows.length
    ? await scim.groupsOfScimUsers(
        db,
        rows.map((r) => r.id),
      )
    : [];
  return rows.map((row) =>
    toScimUser(
      row,
      memberships.filter((m) => m.scim_user_id === row.id),
      base,
    ),
  );
}

/**
 * Brings the membership in line with the provisioned user: active → member with the group role;
 * inactive → none. `groupsChanged`: their group memberships just changed, so a user left in no group
 * falls back to `member` (leaving the Admins group takes admin away); otherwise a user in no group
 * keeps the role they have. An owner stays owner.
 */
async function syncMembership(db: PoolClient, workspaceId: string, row: scim.ScimUserRow, revokeReason: string, groupsChanged = false): Promise<void> {
  const membership = await users.findMembership(db, workspaceId, row.user_id);
  if (!row.active) {
    if (membership) {
      if (membership.role === 'owner' && (await users.lockOwners(db, workspaceId)).length <= 1) {
        throw new ScimError(400, "The workspace's last owner cannot be deactivated through SCIM", 'mutability');
      }
      await users.deleteMembership(db, workspaceId, row.user_id);
    }
    await scim.revokeUserSignIns(db, workspaceId, row.user_id, revokeReason);
    return;
  }
  const groupRole = await scim.groupRoleOf(db, row.id);
  if (!membership) return void (await users.ensureMembership(db, workspaceId, row.user_id, groupRole ?? 'member'));
  const role = groupRole ?? (groupsChanged ? 'member' : null);
  if (role && membership.role !== 'owner' && membership.role !== role) await users.updateMembershipRole(db, workspaceId, row.user_id, role);
}

const audit = (db: PoolClient, scope: ScimScope, action: string, targetType: string, targetId: string, metadata: Record<string, unknown> = {}) =>
  recordAudit(db, {
    workspaceId: scope.workspaceId,
    action,
    actorType: 'system',
    actorId: `scim_token:${scope.tokenId}`,
    targetType,
    targetId,
    clientIp: scope.clientIp,
    metadata,
  });

const userNameTaken = (userName: string) => new ScimError(409, `A user with userName '${userName}' already exists`, 'uniqueness');

/**
 * A provisioned user is an account the organization manages (docs/decisions.md, "Tenant isolation of
 * identity"): created in the organization's own e-mail namespace, or its existing managed account with
 * that address (re-provisioning). A global account or another organization's account with the same
 * address is never adopted, and the answer does not tell whether one exists.
 */
export async function createUser(db: PoolClient, scope: ScimScope, body: unknown): Promise<scim.ScimUserRow> {
  const fields = userFields(body);
  const email = emailOf(fields);
  const { user } = await users.upsertManagedUser(db, scope.organizationId, email, displayNameOf(fields));
  const row = await scim.insertScimUser(db, scope.workspaceId, user.id, fields);
  if (!row) throw userNameTaken(fields.userName);
  await syncMembership(db, scope.workspaceId, row, 'scim_deactivated');
  await audit(db, scope, 'scim.user.provisioned', 'user', user.id, { scim_id: row.id, user_name: row.user_name, active: row.active });
  return row;
}

async function saveUser(db: PoolClient, scope: ScimScope, existing: scim.ScimUserRow, fields: scim.ScimUserFields): Promise<scim.ScimUserRow> {
  const email = emailOf(fields);
  // Only an account the organization manages follows the provisioned address; a global account
  // provisioned before issue 26 keeps its own (its SCIM document still records what the client sent).
  if (!(await users.updateManagedUserEmail(db, scope.organizationId, existing.user_id, email)))
    throw new ScimError(409, `Another provisioned user already has the e-mail address ${email}`, 'uniqueness');
  const row = await scim.updateScimUser(db, scope.workspaceId, existing.id, fields);
  if (!row) throw userNameTaken(fields.userName);
  if (row.active !== existing.active || row.active) await syncMembership(db, scope.workspaceId, row, 'scim_deactivated');
  if (row.active !== existing.active)
    await audit(db, scope, row.active ? 'scim.user.reactivated' : 'scim.user.deactivated', 'user', row.user_id, { scim_id: row.id });
  else await audit(db, scope, 'scim.user.updated', 'user', row.user_id, { scim_id: row.id });
  return row;
}

async function lockUser(db: PoolClient, scope: ScimScope, id: string) {
  const row = await scim.findScimUser(db, scope.workspaceId, id, true);
  if (!row) throw scimNotFound('User');
  return row;
}

export async function replaceUser(db: PoolClient, scope: ScimScope, id: string, body: unknown) {
  const existing = await lockUser(db, scope, id);
  return saveUser(db, scope, existing, userFields(body));
}

export async function patchUser(db: PoolClient, scope: ScimScope, id: string, operations: PatchOperation[]) {
  const existing = await lockUser(db, scope, id);
  const current: Doc = { ...existing.extra, userName: existing.user_name, active: existing.active, emails: existing.emails };
  if (existing.external_id !== null) current.externalId = existing.external_id;
  return saveUser(db, scope, existing, userFields(applyPatch(current, operations, USER_SCHEMA)));
}

export async function deleteUser(db: PoolClient, scope: ScimScope, id: string) {
  const existing = await lockUser(db, scope, id);
  await syncMembership(db, scope.workspaceId, { ...existing, active: false }, 'scim_deprovisioned');
  await scim.deleteScimUser(db, scope.workspaceId, id);
  await audit(db, scope, 'scim.user.deprovisioned', 'user', existing.user_id, { scim_id: id });
}

// ---------------------------------------------------------------------------------------------
// Groups
// ---------------------------------------------------------------------------------------------

const roles = ['admin', 'member', 'viewer'] as const;
/** A group's workspace role: the svc extension's `role`, else read from the name ("Admins", "Viewers"), else member. */
function groupRole(displayName: string, extension: unknown): (typeof roles)[number] {
  if (isObject(extension) && extension.role !== undefined) {
    if (!roles.includes(extension.role as (typeof roles)[number])) throw invalidValue(`${SVC_GROUP_SCHEMA}:role must be one of ${roles.join(', ')}`);
    return extension.role as (typeof roles)[number];
  }
  if (/admin/i.test(displayName)) return 'admin';
  if (/viewer|read.?only/i.test(displayName)) return 'viewer';
  return 'member';
}

interface GroupFields {
  displayName: string;
  externalId: string | null;
  role: (typeof roles)[number];
  members: string[];
}

function groupFields(input: unknown): GroupFields {
  if (!isObject(input)) throw new ScimError(400, 'The body must be a SCIM Group object', 'invalidSyntax');
  const get = (name: string) => input[Object.keys(input).find((k) => k.toLowerCase() === name.toLowerCase()) ?? name];
  const displayName = optionalString(get('displayName'), 'displayName')?.trim();
  if (!displayName) throw invalidValue('displayName is required');
  const members = get('members') ?? [];
  if (!Array.isArray(members)) throw invalidValue('members must be an array');
  const ids = members.map((m, i) => {
    if (!isObject(m) || typeof m.value !== 'string') throw invalidValue(`members[${i}].value must be a User id`);
    return m.value;
  });
  return {
    displayName,
    externalId: optionalString(get('externalId'), 'externalId'),
    role: groupRole(displayName, get(SVC_GROUP_SCHEMA)),
    members: [...new Set(ids)],
  };
}

export function toScimGroup(row: scim.ScimGroupRow, members: Array<{ id: string; user_name: string }> | null, base: string) {
  return {
    schemas: [GROUP_SCHEMA, SVC_GROUP_SCHEMA],
    id: row.id,
    displayName: row.display_name,
    ...(row.external_id !== null ? { externalId: row.external_id } : {}),
    ...(members ? { members: members.map((m) => ({ value: m.id, display: m.user_name, $ref: `${base}/Users/${m.id}` })) } : {}),
    [SVC_GROUP_SCHEMA]: { role: row.role },
    meta: { resourceType: 'Group', created: row.created_at.toISOString(), lastModified: row.updated_at.toISOString(), location: `${base}/Groups/${row.id}` },
  };
}

async function setMembers(db: PoolClient, scope: ScimScope, group: scim.ScimGroupRow, memberIds: string[], previous: string[]) {
  const found = memberIds.every((id) => isUuid(id)) ? await scim.scimUsersByIds(db, scope.workspaceId, memberIds) : [];
  const unknown = memberIds.filter((id) => !found.some((u) => u.id === id));
  if (unknown.length) throw invalidValue(`No such User: ${unknown.join(', ')}`);
  await scim.setGroupMembers(db, group.id, memberIds);
  const affected = new Set([...previous, ...memberIds]);
  for (const user of await scim.scimUsersByIds(db, scope.workspaceId, [...affected]))
    await syncMembership(db, scope.workspaceId, user, 'scim_deactivated', true);
}

const groupNameTaken = (name: string) => new ScimError(409, `A group named '${name}' already exists`, 'uniqueness');

export async function createGroup(db: PoolClient, scope: ScimScope, body: unknown): Promise<scim.ScimGroupRow> {
  const fields = groupFields(body);
  const group = await scim.insertScimGroup(db, scope.workspaceId, fields);
  if (!group) throw groupNameTaken(fields.displayName);
  await setMembers(db, scope, group, fields.members, []);
  await audit(db, scope, 'scim.group.created', 'scim_group', group.id, { display_name: group.display_name, role: group.role, members: fields.members.length });
  return group;
}

async function saveGroup(db: PoolClient, scope: ScimScope, existing: scim.ScimGroupRow, fields: GroupFields, previous: string[]) {
  const group = await scim.updateScimGroup(db, scope.workspaceId, existing.id, fields);
  if (!group) throw groupNameTaken(fields.displayName);
  await setMembers(db, scope, group, fields.members, previous);
  await audit(db, scope, 'scim.group.updated', 'scim_group', group.id, { display_name: group.display_name, role: group.role, members: fields.members.length });
  return group;
}

async function lockGroup(db: PoolClient, scope: ScimScope, id: string) {
  const row = isUuid(id) ? await scim.findScimGroup(db, scope.workspaceId, id, true) : null;
  if (!row) throw scimNotFound('Group');
  return row;
}

export async function replaceGroup(db: PoolClient, scope: ScimScope, id: string, body: unknown) {
  const existing = await lockGroup(db, scope, id);
  return saveGroup(db, scope, existing, groupFields(body), await scim.groupMemberIds(db, id));
}

export async function patchGroup(db: PoolClient, scope: ScimScope, id: string, operations: PatchOperation[]) {
  const existing = await lockGroup(db, scope, id);
  const previous = await scim.groupMemberIds(db, id);
  const current: Doc = { displayName: existing.display_name, members: previous.map((value) => ({ value })) };
  if (existing.external_id !== null) current.externalId = existing.external_id;
  const patched = applyPatch(current, operations, GROUP_SCHEMA);
  // Renaming a group keeps the role it had unless the patch sets one.
  if (!Object.keys(patched).some((k) => k.toLowerCase() === SVC_GROUP_SCHEMA.toLowerCase())) patched[SVC_GROUP_SCHEMA] = { role: existing.role };
  return saveGroup(db, scope, existing, groupFields(patched), previous);
}

export async function deleteGroup(db: PoolClient, scope: ScimScope, id: string) {
  await lockGroup(db, scope, id);
  const members = await scim.deleteScimGroup(db, scope.workspaceId, id);
  for (const user of await scim.scimUsersByIds(db, scope.workspaceId, members)) await syncMembership(db, scope.workspaceId, user, 'scim_deactivated', true);
  await audit(db, scope, 'scim.group.deleted', 'scim_group', id);
}
