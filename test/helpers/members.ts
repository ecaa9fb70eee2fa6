/** Members of a workspace with their own access tokens, for tests that need several users. */
import type { Role } from '../../domain/memberRoles.ts';
import { issueTokenPair } from '../../usecases/tokenPairs.ts';
import type { AppContext } from '../../lib/context.ts';
import { ensureMembership, upsertUserByEmail } from '../../sql/users.ts';
import { insertOrganization, insertWorkspace } from '../../sql/workspaces.ts';

export interface TestMember {
  userId: string;
  email: string;
  token: string;
}

/** Adds (or reuses) the user with `email` as a member with `role` and signs them in. */
export async function addMember(app: AppContext, workspaceId: string, email: string, role: Role = 'member'): Promise<TestMember> {
  const { user } = await upsertUserByEmail(app.pool, email, email.split('@')[0]);
  await ensureMembership(app.pool, workspaceId, user.id, role);
  const pair = await issueTokenPair(app, app.pool, user.id, workspaceId, role, '127.0.0.1');
  return { userId: user.id, email, token: pair.access_token };
}

/** A second organization with its workspace (another tenant of the same database). */
export async function addWorkspace(app: AppContext, slug: string, timezone: string | null = null): Promise<string> {
  const org = await insertOrganization(app.pool, { slug, name: `Org ${slug}`, plan: 'free', timezone });
  return (await insertWorkspace(app.pool, org!.id, `Workspace ${slug}`)).id;
}
