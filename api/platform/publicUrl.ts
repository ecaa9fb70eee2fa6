/** The base URL clients reach the platform surface at: PLATFORM_URL, else the request's own origin. */
import type { Request } from 'express';
import type { AppContext } from '../../lib/context.ts';

export function platformBaseUrl(app: AppContext, req: Request): string {
  return app.config.PLATFORM_URL ?? `${req.protocol}://${req.get('host')}`;
}
