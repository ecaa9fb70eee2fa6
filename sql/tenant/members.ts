/** The member directory of a tenant (inside its schema): active users with their role profiles. */
import type { Queryable } from '../../lib/db.ts';

export interface MemberRow {
  user_id: string;
  email: string;
  full_name: string;
  role_profiles: string[];
  joined_at: Date;
}

export async function memberDirectory(db: Queryable): Promise<MemberRow[]> {
  const { rows } = await db.query<MemberRow>(
    `select u.id as user_id, u.email, u.full_name, u.created_at as joined_at,
            array(select p.name from user_role_profiles g join role_profiles p on p.id = g.role_profile_id
                   where g.user_id = u.id order by p.name) as role_profiles
       from users u where u.active order by lower(u.full_name), u.email`,
  );
  return rows;
}
