/** The staff and tenant identities the session routes answer (a tenant session is minted by usecases/tenantSessions.ts). */
import type { Request } from 'express';
import { z } from 'zod';
import { controlRoles, type EmployeeRow } from '../../../sql/employees.ts';
import type { SessionOrigin, TenantMe } from '../../../usecases/tenantSessions.ts';
import type { StaffPrincipal, TenantPrincipal } from '../principal.ts';

export const employeeMeSchema = z
  .object({ id: z.uuid(), email: z.string(), full_name: z.string(), control_role: z.enum(controlRoles) })
  .meta({ title: 'EmployeeMeResponse' });

export const tenantMeSchema = z
  .object({
    user_id: z.uuid(),
    workspace: z.string().describe('The tenant slug'),
    email: z.string(),
    full_name: z.string(),
    permissions: z.array(z.string()).describe('Sorted permissions resolved from the user’s role profiles'),
    impersonated_by: z
      .object({ employee_id: z.uuid(), email: z.string(), full_name: z.string() })
      .nullable()
      .describe('The staff member impersonating the user in this session (POST /admin/tenants/{id}/impersonate), or null'),
  })
  .meta({ title: 'TenantMeResponse' });

export type EmployeeMe = z.output<typeof employeeMeSchema>;
export type { TenantMe };

export const employeeMe = (e: EmployeeRow | StaffPrincipal): EmployeeMe =>
  'employeeId' in e
    ? { id: e.employeeId, email: e.email, full_name: e.fullName, control_role: e.role }
    : { id: e.id, email: e.email, full_name: e.full_name, control_role: e.control_role };

export const tenantMe = (p: TenantPrincipal): TenantMe => ({
  user_id: p.userId,
  workspace: p.slug,
  email: p.email,
  full_name: p.fullName,
  permissions: p.permissions,
  impersonated_by: p.impersonatedBy && { employee_id: p.impersonatedBy.employeeId, email: p.impersonatedBy.email, full_name: p.impersonatedBy.fullName },
});

export const requestIp = (req: Request) => req.clientIp ?? null;
export const requestUserAgent = (req: Request) => req.get('user-agent')?.slice(0, 512) ?? null;
/** Where a session is opened from, as the session rows and audit rows record it. */
export const sessionOrigin = (req: Request): SessionOrigin => ({ ip: requestIp(req), userAgent: requestUserAgent(req) });
