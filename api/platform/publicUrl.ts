/**
 * The base URL clients reach the platform surface at: PLATFORM_URL; without it, the address this
 * server accepted the connection on (issue 26). Never the request's `Host` header: a link signed or
 * published from it (an export download URL, a SAML SP entity id and ACS URL) would point wherever the
 * caller said. Behind a proxy, set PLATFORM_URL (docs/configuration.md).
 */
import type { Request } from 'express';
import type { AppContext } from '../../lib/context.ts';

export function platformBaseUrl(app: AppContext, req: Request): string {
  if (app.config.PLATFORM_URL) return app.config.PLATFORM_URL;
  const address = req.socket.localAddress ?? '127.0.0.1';
  const host = address.includes(':') && !address.startsWith('::ffff:') ? `[${address}]` : address.replace(/^::ffff:/, '');
  return `http://${host}:${req.socket.localPort}`;
}
