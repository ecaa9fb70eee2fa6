/** Validation of `svc staff create` flags: a clear usage error for each bad value. */
import { MIN_PASSWORD_LENGTH } from '../lib/passwords.ts';
import { controlRoles, type ControlRole } from '../sql/employees.ts';
import { requireFlag, UsageError } from './cli.ts';

export function parseStaffInput(flags: Record<string, string | boolean | undefined>): {
  email: string;
  password: string;
  role: ControlRole;
  fullName?: string;
} {
  const email = requireFlag(flags, 'email').trim().toLowerCase();
  if (!/^[^\s@]+@[^\s@]+$/.test(email)) throw new UsageError(`--email must be an e-mail address, got '${email}'`);
  const password = requireFlag(flags, 'password');
  if (password.length < MIN_PASSWORD_LENGTH) throw new UsageError(`--password must be at least ${MIN_PASSWORD_LENGTH} characters`);
  const role = requireFlag(flags, 'role');
  if (!(controlRoles as readonly string[]).includes(role)) throw new UsageError(`--role must be one of ${controlRoles.join(', ')}, got '${role}'`);
  const name = typeof flags.name === 'string' ? flags.name.trim() : undefined;
  if (flags.name !== undefined && !name) throw new UsageError('--name must not be empty');
  return { email, password, role: role as ControlRole, fullName: name };
}
