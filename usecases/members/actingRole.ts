/** The role a caller acts with on members and invitations: a user's membership role; machine credentials act as admins. */
import type { Queryable } from '../../lib/db.ts';
import type { Role } from '../../domain/memberRoles.ts';
import * as users from '../../sql/users.ts';

/** Who acts on a workspace's members: a /v1 principal (api/platform/principal.ts) and the caller's address. */
export interface MemberActor {
  kind: 'user' | 'service_account' | 'api_key';
  workspaceId: string;
  userId: string | null;
  subjectId: string;
  clientIp: string;
}

export async function actingRole(db: Queryable, actor: MemberActor): Promise<Role> {
  if (actor.kind !== 'user') return 'admin';
  const membership = await users.findMembership(db, actor.workspaceId, actor.userId!);
  return (membership?.role as Role | undefined) ?? 'viewer';
}
