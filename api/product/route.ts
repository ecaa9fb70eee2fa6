/**
 * A product-surface route: the shared route shape plus its credential (`public`, a staff session or
 * a tenant session), the staff roles or tenant permission it needs, and whether it is exempt from
 * the CSRF check. Only routes listed in allowlist.ts are ever mounted.
 */
import type { z } from 'zod';
import type { AppContext } from '../../lib/context.ts';
import type { AnyZodObject, BaseRoute, Reply, Request, Response } from '../http/routes.ts';

export type ProductAuthKind = 'public' | 'staff' | 'tenant';

type Out<S, Fallback> = S extends z.ZodType ? z.output<S> : Fallback;

export interface ProductInput<P, Q, B> {
  params: Out<P, Record<string, string>>;
  query: Out<Q, Record<string, never>>;
  body: Out<B, undefined>;
  app: AppContext;
  req: Request;
  res: Response;
}

export interface ProductRoute extends BaseRoute {
  auth: ProductAuthKind;
  /** Staff roles allowed to call a staff route (default: every staff role). */
  staffRoles?: readonly string[];
  /** Tenant permission required by a tenant route. */
  permission?: string;
  /** Login-type routes that must work without a CSRF token. */
  csrfExempt: boolean;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  handler(input: ProductInput<any, any, any>): Promise<Reply | void> | Reply | void;
}

type RouteFields<P, Q, B> = Omit<BaseRoute, 'params' | 'query' | 'body'> & {
  params?: P;
  query?: Q;
  body?: B;
  auth: ProductAuthKind;
  staffRoles?: readonly string[];
  permission?: string;
  csrfExempt?: boolean;
  handler(input: ProductInput<P, Q, B>): Promise<Reply | void> | Reply | void;
};

export function productRoute<
  P extends AnyZodObject | undefined = undefined,
  Q extends AnyZodObject | undefined = undefined,
  B extends z.ZodType | undefined = undefined,
>(def: RouteFields<P, Q, B>): ProductRoute {
  return {
    ...def,
    params: def.params as AnyZodObject | undefined,
    query: def.query as AnyZodObject | undefined,
    body: def.body as z.ZodType | undefined,
    csrfExempt: def.csrfExempt ?? false,
    handler: def.handler as ProductRoute['handler'],
  };
}
