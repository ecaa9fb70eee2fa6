/**
 * SCIM Users of one workspace: provisioning, replacing, patching and deprovisioning a user, each in
 * one transaction. The stored SCIM document is the source of truth for what a client sent; the
 * columns are its projection for filtering and uniqueness (domain/scim/documents.ts). Each
 * provisioned user is a `users` row; while active they hold a membership whose role is the highest
 * role among their groups (syncMembership). Deactivation (active=false) keeps the user listed,
 * removes the membership and revokes every sign-in; DELETE does the same and forgets them.
 */
import type { AppContext } from '../../lib/context.ts';
import { withTransaction, type PoolClient } from '../../lib/db.ts';
import { displayNameOf, emailOf, USER_SCHEMA, userFields, type ScimDocument, type ScimUserFields } from '../../domain/scim/documents.ts';
import { ScimError, scimNotFound } from '../../domain/scim/errors.ts';
import { applyPatch, type PatchOperation } from '../../domain/scim/patch.ts';
import * as scim from '../../sql/scim.ts';
import * as users from '../../sql/users.ts';
import { scimAudit, syncMembership, type ScimScope } from './scimScope.ts';

type Doc = ScimDocument;

const userNameTaken = (userName: string) => new ScimError(409, `A user with userName '${userName}' already exists`, 'uniqueness');

/**
 * A provisioned user is an account the organization manages (docs/decisions.md, "Tenant isolation of
 * identity"): created in the organization's own e-mail namespace, or its existing managed account with
 * that address (re-provisioning). A global account or another organization's account with the same
 * address is never adopted, and the answer does not tell whether one exists.
 */
export async function provisionScimUser(app: AppContext, scope: ScimScope, body: unknown): Promise<scim.ScimUserRow> {
  return withTransaction(app.pool, async (db) => {
    const fields = userFields(body);
    const email = emailOf(fields);
    const { user } = await users.upsertManagedUser(db, scope.organizationId, email, displayNameOf(fields));
    const row = await scim.insertScimUser(db, scope.workspaceId, user.id, fields);
    if (!row) throw userNameTaken(fields.userName);
    await syncMembership(db, scope.workspaceId, row, 'scim_deactivated');
    await scimAudit(db, scope, 'scim.user.provisioned', 'user', user.id, { scim_id: row.id, user_name: row.user_name, active: row.active });
    return row;
  });
}

async function saveUser(db: PoolClient, scope: ScimScope, existing: scim.ScimUserRow, fields: ScimUserFields): Promise<scim.ScimUserRow> {
  const email = emailOf(fields);
  // Only an account the organization manages follows the provisioned address; a global account
  // provisioned before issue 26 keeps its own (its SCIM document still records what the client sent).
  if (!(await users.updateManagedUserEmail(db, scope.organizationId, existing.user_id, email)))
    throw new ScimError(409, `Another provisioned user already has the e-mail address ${email}`, 'uniqueness');
  const row = await scim.updateScimUser(db, scope.workspaceId, existing.id, fields);
  if (!row) throw userNameTaken(fields.userName);
  if (row.active !== existing.active || row.active) await syncMembership(db, scope.workspaceId, row, 'scim_deactivated');
  if (row.active !== existing.active)
    await scimAudit(db, scope, row.active ? 'scim.user.reactivated' : 'scim.user.deactivated', 'user', row.user_id, { scim_id: row.id });
  else await scimAudit(db, scope, 'scim.user.updated', 'user', row.user_id, { scim_id: row.id });
  return row;
}

async function lockUser(db: PoolClient, scope: ScimScope, id: string) {
  const row = await scim.findScimUser(db, scope.workspaceId, id, true);
  if (!row) throw scimNotFound('User');
  return row;
}

export async function replaceScimUser(app: AppContext, scope: ScimScope, id: string, body: unknown) {
  return withTransaction(app.pool, async (db) => {
    const existing = await lockUser(db, scope, id);
    return saveUser(db, scope, existing, userFields(body));
  });
}

export async function patchScimUser(app: AppContext, scope: ScimScope, id: string, operations: PatchOperation[]) {
  return withTransaction(app.pool, async (db) => {
    const existing = await lockUser(db, scope, id);
    const current: Doc = { ...existing.extra, userName: existing.user_name, active: existing.active, emails: existing.emails };
    if (existing.external_id !== null) current.externalId = existing.external_id;
    return saveUser(db, scope, existing, userFields(applyPatch(current, operations, USER_SCHEMA)));
  });
}

export async function deprovisionScimUser(app: AppContext, scope: ScimScope, id: string) {
  return withTransaction(app.pool, async (db) => {
    const existing = await lockUser(db, scope, id);
    await syncMembership(db, scope.workspaceId, { ...existing, active: false }, 'scim_deprovisioned');
    await scim.deleteScimUser(db, scope.workspaceId, id);
    await scimAudit(db, scope, 'scim.user.deprovisioned', 'user', existing.user_id, { scim_id: id });
  });
}
