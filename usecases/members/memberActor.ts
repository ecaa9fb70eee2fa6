/** Who acts on a workspace's members, with which role, and the member a change is about. */
import type { Queryable } from '../../lib/db.ts';
import { AppError } from '../../lib/errors.ts';
import { isUuid } from '../../lib/ids.ts';
import type { Role } from '../../domain/memberRoles.ts';
import * as users from '../../sql/users.ts';
import type { WorkspaceActor } from '../workspaceActor.ts';

/** Who acts on a workspace's members: a /v1 caller and its address (usecases/workspaceActor.ts). */
export type MemberActor = WorkspaceActor;

/** The role a caller acts with on members and invitations: a user's membership role; machine credentials act as admins. */
export async function actingRole(db: Queryable, actor: MemberActor): Promise<Role> {
  if (actor.kind !== 'user') return 'admin';
  const membership = await users.findMembership(db, actor.workspaceId, actor.userId!);
  return (membership?.role as Role | undefined) ?? 'viewer';
}

export const memberNotFound = () => new AppError('not_found', 'Member not found');

/**
 * The member a role change or removal is about (404 when none), the number of the workspace's owners
 * and the caller's role. The owners are locked first, so two demotions or removals cannot both see
 * another owner left.
 */
export async function lockMemberChange(db: Queryable, actor: MemberActor, userId: string) {
  if (!isUuid(userId)) throw memberNotFound();
  const owners = await users.lockOwners(db, actor.workspaceId);
  const current = await users.findMembership(db, actor.workspaceId, userId);
  if (!current) throw memberNotFound();
  return { current, role: current.role as Role, ownerCount: owners.length, acting: await actingRole(db, actor) };
}
