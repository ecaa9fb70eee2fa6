/**
 * A product-surface route: the shared route shape plus its credential (`public`, a staff session or
 * a tenant session), the staff roles or tenant permission it needs, and whether it is exempt from
 * the CSRF check. Only routes listed in allowlist.ts are ever mounted.
 */
import type { z } from 'zod';
import type { AppContext } from '../../lib/context.ts';
import type { AnyZodObject, BaseRoute, Reply, Request, Response } from '../http/routes.ts';
import type { ControlRole } from '../../sql/employees.ts';
import type { TenantPermission } from '../../sql/tenant/roles.ts';
import type { StaffPrincipal, TenantPrincipal } from './principal.ts';

export type ProductAuthKind = 'public' | 'staff' | 'tenant';

type Out<S, Fallback> = S extends z.ZodType ? z.output<S> : Fallback;

/** The principal a handler receives: `staff` on staff routes, `tenant` on tenant routes. */
type PrincipalOf<A extends ProductAuthKind> = A extends 'staff' ? { staff: StaffPrincipal } : A extends 'tenant' ? { tenant: TenantPrincipal } : unknown;

export type ProductInput<P, Q, B, A extends ProductAuthKind = ProductAuthKind> = {
  params: Out<P, Record<string, string>>;
  query: Out<Q, Record<string, never>>;
  body: Out<B, undefined>;
  app: AppContext;
  req: Request;
  res: Response;
} & PrincipalOf<A>;

export interface ProductRoute extends BaseRoute {
  auth: ProductAuthKind;
  /** Staff roles allowed to call a staff route (default: every role for GET, `onboarding_admin` for writes). */
  staffRoles?: readonly ControlRole[];
  /** Tenant permission required by a tenant route. */
  permission?: TenantPermission;
  /** Login-type routes that must work without a CSRF token. */
  csrfExempt: boolean;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  handler(input: ProductInput<any, any, any, any>): Promise<Reply | void> | Reply | void;
}

type RouteFields<P, Q, B, A extends ProductAuthKind> = Omit<BaseRoute, 'params' | 'query' | 'body'> & {
  params?: P;
  query?: Q;
  body?: B;
  auth: A;
  staffRoles?: readonly ControlRole[];
  permission?: TenantPermission;
  csrfExempt?: boolean;
  handler(input: ProductInput<P, Q, B, A>): Promise<Reply | void> | Reply | void;
};

export function productRoute<
  P extends AnyZodObject | undefined = undefined,
  Q extends AnyZodObject | undefined = undefined,
  B extends z.ZodType | undefined = undefined,
  A extends ProductAuthKind = ProductAuthKind,
>(def: RouteFields<P, Q, B, A>): ProductRoute {
  return {
    ...def,
    params: def.params as AnyZodObject | undefined,
    query: def.query as AnyZodObject | undefined,
    body: def.body as z.ZodType | undefined,
    csrfExempt: def.csrfExempt ?? false,
    handler: def.handler as ProductRoute['handler'],
  };
}
