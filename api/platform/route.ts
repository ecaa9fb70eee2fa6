/**
 * A /v1 route: the shared route shape plus how the caller authenticates (`bearer` with one required
 * scope, `public`, or the platform `provisioning` key). Handlers receive parsed, typed input.
 */
import type { z } from 'zod';
import type { AppContext } from '../../lib/context.ts';
import type { ErrorCode } from '../../lib/errors.ts';
import type { AnyZodObject, BaseRoute, Reply, Request, Response } from '../http/routes.ts';
import type { Principal } from './principal.ts';
import type { Scope } from '../../domain/scopes.ts';

export type PlatformAuthKind = 'bearer' | 'public' | 'provisioning';

type Out<S, Fallback> = S extends z.ZodType ? z.output<S> : Fallback;

export interface PlatformInput<P, Q, B, A extends PlatformAuthKind> {
  params: Out<P, Record<string, string>>;
  query: Out<Q, Record<string, never>>;
  body: Out<B, undefined>;
  principal: A extends 'bearer' ? Principal : null;
  app: AppContext;
  req: Request;
  res: Response;
}

export interface PlatformRoute extends BaseRoute {
  auth: PlatformAuthKind;
  /** Required for `bearer` routes. */
  scope: Scope | null;
  /** Status of a request validation failure: 400 on /v1, 422 where the spec says so (provisioning). */
  validationStatus: 400 | 422;
  /**
   * The error of a request whose only problems are in its body, where the contract names one (a config
   * version that is not a JSON object is `config_invalid`, like any other failure of its schema).
   */
  invalidBody?: { code: ErrorCode; message: string };
  /**
   * `replica`: a read that tolerates replication lag; with DATABASE_REPLICA_URL its handler's `app.pool`
   * is the replica unless the caller's workspace wrote something the replica has not replayed yet
   * (lib/readReplica.ts). The handler must only read.
   */
  readsFrom: 'primary' | 'replica';
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  handler(input: PlatformInput<any, any, any, any>): Promise<Reply | void> | Reply | void;
}

type RouteFields<P, Q, B, A extends PlatformAuthKind> = Omit<BaseRoute, 'params' | 'query' | 'body'> & {
  params?: P;
  query?: Q;
  body?: B;
  auth?: A;
  validationStatus?: 400 | 422;
  invalidBody?: { code: ErrorCode; message: string };
  readsFrom?: 'primary' | 'replica';
  handler(input: PlatformInput<P, Q, B, A>): Promise<Reply | void> | Reply | void;
} & (A extends 'bearer' ? { scope: Scope } : { scope?: never });

export function platformRoute<
  P extends AnyZodObject | undefined = undefined,
  Q extends AnyZodObject | undefined = undefined,
  B extends z.ZodType | undefined = undefined,
  A extends PlatformAuthKind = 'bearer',
>(def: RouteFields<P, Q, B, A>): PlatformRoute {
  return {
    ...def,
    params: def.params as AnyZodObject | undefined,
    query: def.query as AnyZodObject | undefined,
    body: def.body as z.ZodType | undefined,
    auth: def.auth ?? 'bearer',
    scope: (def.scope as Scope | undefined) ?? null,
    validationStatus: def.validationStatus ?? 400,
    readsFrom: def.readsFrom ?? 'primary',
    handler: def.handler as PlatformRoute['handler'],
  };
}
