/** Employees (staff of the control plane) and their cookie sessions; tokens stored only as hashes. */
import type { Queryable } from '../lib/db.ts';

export const controlRoles = ['onboarding_admin', 'support_readonly'] as const;
export type ControlRole = (typeof controlRoles)[number];

export interface EmployeeRow {
  id: string;
  email: string;
  password_hash: string;
  full_name: string;
  control_role: ControlRole;
  active: boolean;
  created_at: Date;
  updated_at: Date;
}

/** Creates the employee, or updates the password, role (and name when given) of an existing one. */
export async function upsertEmployee(
  db: Queryable,
  e: { email: string; passwordHash: string; role: ControlRole; fullName?: string },
): Promise<{ employee: EmployeeRow; created: boolean }> {
  const { rows } = await db.query<EmployeeRow & { created: boolean }>(
    `insert into employees (email, password_hash, control_role, full_name)
     values (lower($1), $2, $3, coalesce($4, split_part(lower($1), '@', 1)))
     on conflict (email) do update set password_hash = excluded.password_hash, control_role = excluded.control_role,
       full_name = coalesce($4, employees.full_name), active = true, updated_at = now()
     returning *, (xmax = 0) as created`,
    [e.email, e.passwordHash, e.role, e.fullName ?? null],
  );
  const { created, ...employee } = rows[0];
  return { employee, created };
}

export async function findEmployeeByEmail(db: Queryable, email: string): Promise<EmployeeRow | null> {
  const { rows } = await db.query<EmployeeRow>('select * from employees where email = lower($1)', [email]);
  return rows[0] ?? null;
}

export async function setEmployeePassword(db: Queryable, id: string, passwordHash: string): Promise<void> {
  await db.query('update employees set password_hash = $2, updated_at = now() where id = $1', [id, passwordHash]);
}

/** Replaces the hash only while it is still `expected` (a rehash at login never undoes a password change). */
export async function upgradeEmployeePasswordHash(db: Queryable, id: string, expected: string, passwordHash: string): Promise<void> {
  await db.query('update employees set password_hash = $3 where id = $1 and password_hash = $2', [id, expected, passwordHash]);
}

export async function insertEmployeeSession(
  db: Queryable,
  s: { employeeId: string; tokenHash: string; ip: string | null; userAgent: string | null; expiresAt: Date },
): Promise<{ id: string }> {
  const { rows } = await db.query<{ id: string }>(
    `insert into employee_sessions (employee_id, token_hash, ip, user_agent, expires_at) values ($1, $2, $3, $4, $5) returning id`,
    [s.employeeId, s.tokenHash, s.ip, s.userAgent, s.expiresAt],
  );
  return rows[0];
}

/** The live (unrevoked, unexpired at `now`) session with this token hash, of an active employee. */
export async function findLiveEmployeeSession(db: Queryable, tokenHash: string, now: Date): Promise<(EmployeeRow & { session_id: string }) | null> {
  const { rows } = await db.query<EmployeeRow & { session_id: string }>(
    `select e.*, s.id as session_id
       from employee_sessions s join employees e on e.id = s.employee_id
      where s.token_hash = $1 and s.revoked_at is null and s.expires_at > $2 and e.active`,
    [tokenHash, now],
  );
  return rows[0] ?? null;
}

export async function revokeEmployeeSession(db: Queryable, sessionId: string, now: Date): Promise<void> {
  await db.query('update employee_sessions set revoked_at = $2 where id = $1 and revoked_at is null', [sessionId, now]);
}

export async function revokeAllEmployeeSessions(db: Queryable, employeeId: string, now: Date): Promise<number> {
  const { rowCount } = await db.query('update employee_sessions set revoked_at = $2 where employee_id = $1 and revoked_at is null', [employeeId, now]);
  return rowCount ?? 0;
}
