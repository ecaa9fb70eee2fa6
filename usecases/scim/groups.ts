/**
 * SCIM Groups of one workspace: creating, replacing, patching and deleting a group, each in one
 * transaction. A group carries a workspace role (domain/scim/documents.ts); changing its members
 * brings every affected user's membership in line (syncMembership).
 */
import type { AppContext } from '../../lib/context.ts';
import { withTransaction, type PoolClient } from '../../lib/db.ts';
import { isUuid } from '../../lib/ids.ts';
import { GROUP_SCHEMA, groupFields, type ScimDocument, type ScimGroupFields } from '../../domain/scim/documents.ts';
import { invalidValue, ScimError, scimNotFound } from '../../domain/scim/errors.ts';
import { applyPatch, SVC_GROUP_SCHEMA, type PatchOperation } from '../../domain/scim/patch.ts';
import * as scim from '../../sql/scim.ts';
import { scimAudit, syncMembership, type ScimScope } from './scimScope.ts';

type Doc = ScimDocument;

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

export async function createScimGroup(app: AppContext, scope: ScimScope, body: unknown): Promise<scim.ScimGroupRow> {
  return withTransaction(app.pool, async (db) => {
    const fields = groupFields(body);
    const group = await scim.insertScimGroup(db, scope.workspaceId, fields);
    if (!group) throw groupNameTaken(fields.displayName);
    await setMembers(db, scope, group, fields.members, []);
    await scimAudit(db, scope, 'scim.group.created', 'scim_group', group.id, {
      display_name: group.display_name,
      role: group.role,
      members: fields.members.length,
    });
    return group;
  });
}

async function saveGroup(db: PoolClient, scope: ScimScope, existing: scim.ScimGroupRow, fields: ScimGroupFields, previous: string[]) {
  const group = await scim.updateScimGroup(db, scope.workspaceId, existing.id, fields);
  if (!group) throw groupNameTaken(fields.displayName);
  await setMembers(db, scope, group, fields.members, previous);
  await scimAudit(db, scope, 'scim.group.updated', 'scim_group', group.id, {
    display_name: group.display_name,
    role: group.role,
    members: fields.members.length,
  });
  return group;
}

async function lockGroup(db: PoolClient, scope: ScimScope, id: string) {
  const row = isUuid(id) ? await scim.findScimGroup(db, scope.workspaceId, id, true) : null;
  if (!row) throw scimNotFound('Group');
  return row;
}

export async function replaceScimGroup(app: AppContext, scope: ScimScope, id: string, body: unknown) {
  return withTransaction(app.pool, async (db) => {
    const existing = await lockGroup(db, scope, id);
    return saveGroup(db, scope, existing, groupFields(body), await scim.groupMemberIds(db, id));
  });
}

export async function patchScimGroup(app: AppContext, scope: ScimScope, id: string, operations: PatchOperation[]) {
  return withTransaction(app.pool, async (db) => {
    const existing = await lockGroup(db, scope, id);
    const previous = await scim.groupMemberIds(db, id);
    const current: Doc = { displayName: existing.display_name, members: previous.map((value) => ({ value })) };
    if (existing.external_id !== null) current.externalId = existing.external_id;
    const patched = applyPatch(current, operations, GROUP_SCHEMA);
    // Renaming a group keeps the role it had unless the patch sets one.
    if (!Object.keys(patched).some((k) => k.toLowerCase() === SVC_GROUP_SCHEMA.toLowerCase())) patched[SVC_GROUP_SCHEMA] = { role: existing.role };
    return saveGroup(db, scope, existing, groupFields(patched), previous);
  });
}

export async function deleteScimGroup(app: AppContext, scope: ScimScope, id: string) {
  return withTransaction(app.pool, async (db) => {
    await lockGroup(db, scope, id);
    const members = await scim.deleteScimGroup(db, scope.workspaceId, id);
    for (const user of await scim.scimUsersByIds(db, scope.workspaceId, members)) await syncMembership(db, scope.workspaceId, user, 'scim_deactivated', true);
    await scimAudit(db, scope, 'scim.group.deleted', 'scim_group', id);
  });
}
