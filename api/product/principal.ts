/** Who is calling a product route, as resolved by the session guard (api/product/guard.ts). */
import type { ControlRole } from '../../sql/employees.ts';

export interface StaffPrincipal {
  employeeId: string;
  email: string;
  fullName: string;
  role: ControlRole;
  sessionId: string;
}

export interface TenantPrincipal {
  tenantId: string;
  /** The workspace slug. */
  slug: string;
  /** The tenant's schema (use with `withTenant`). */
  schema: string;
  userId: string;
  email: string;
  fullName: string;
  /** Sorted union of the user's role-profile permissions. */
  permissions: string[];
  sessionId: string;
  /** The employee who is impersonating the user in this session, or null. */
  impersonatedBy: { employeeId: string; email: string; fullName: string } | null;
}

export interface Principals {
  staff?: StaffPrincipal;
  tenant?: TenantPrincipal;
}
