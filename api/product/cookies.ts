/**
 * The surface's cookies (product-api.md, Authentication): `svc_admin_session` (12 h) and
 * `svc_tenant_session` (24 h, `<slug>:<token>`) are httpOnly; `svc_csrf` is readable by the console.
 * All are SameSite=Lax, path `/`; Secure is forced in production and otherwise follows the request
 * scheme (https, or `X-Forwarded-Proto: https` when TRUST_PROXY is set).
 *
 * The CSRF value is `<nonce>.<mac>[.<mac>]`, one HMAC of the nonce per session cookie the browser
 * holds when it is issued (the staff console may hold a tenant session too, after impersonation).
 * A value planted by a sibling subdomain carries no MAC for the victim's session, so it fails even
 * when header and cookie agree.
 */
import { ringVerifies } from '../../lib/keyRing.ts';
import type { Request, Response } from 'express';
import type { AppContext } from '../../lib/context.ts';
import { hmacSha256, randomToken, sha256Hex } from '../../lib/crypto.ts';
import { STAFF_SESSION_TTL_MS, TENANT_SESSION_TTL_MS } from '../../domain/productSessions.ts';

export const STAFF_COOKIE = 'svc_admin_session';
export const TENANT_COOKIE = 'svc_tenant_session';
export const CSRF_COOKIE = 'svc_csrf';

/** Cookies of the request (first value wins, values URL-decoded when they are encoded). */
export function readCookies(req: Request): Map<string, string> {
  const cookies = new Map<string, string>();
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    const name = part.slice(0, eq).trim();
    let value = part.slice(eq + 1).trim();
    if (value.startsWith('"') && value.endsWith('"') && value.length >= 2) value = value.slice(1, -1);
    try {
      value = decodeURIComponent(value);
    } catch {
      // not percent-encoded: keep as sent
    }
    if (name && !cookies.has(name)) cookies.set(name, value);
  }
  return cookies;
}

function secure(app: AppContext, req: Request): boolean {
  if (app.config.NODE_ENV === 'production') return true;
  if (req.protocol === 'https') return true;
  if (!app.config.TRUST_PROXY) return false;
  const proto = req.headers['x-forwarded-proto'];
  return (Array.isArray(proto) ? proto[0] : proto)?.split(',')[0]?.trim().toLowerCase() === 'https';
}

function setCookie(app: AppContext, req: Request, res: Response, name: string, value: string, maxAgeMs: number, httpOnly: boolean): void {
  // `encode: String`: the tenant cookie's colon and the tokens (base64url) are sent as they are.
  res.cookie(name, value, { httpOnly, sameSite: 'lax', path: '/', secure: secure(app, req), maxAge: maxAgeMs, encode: String });
}

const csrfMac = (key: Buffer, nonce: string, session: string) => hmacSha256(key, `${nonce}|${sha256Hex(session)}`).toString('base64url');

/** True when `token` was issued by this server together with the session cookie `session`. */
export function csrfTokenMatchesSession(app: AppContext, token: string, session: string): boolean {
  const [nonce, ...macs] = token.split('.');
  if (!nonce || !macs.length || macs.length > 2) return false;
  // Any key of the ring: a CSRF token issued before a CSRF_KEY rotation stays valid for its session.
  let match = false;
  for (const mac of macs) match = ringVerifies(app.secrets.csrfKey, mac, (key) => csrfMac(key, nonce, session)) || match;
  return match;
}

/** Sets a session cookie and a fresh CSRF cookie (bound to it and to the other session held, if any) with the same lifetime. */
export function setSessionCookies(app: AppContext, req: Request, res: Response, name: typeof STAFF_COOKIE | typeof TENANT_COOKIE, value: string): void {
  const ttl = name === STAFF_COOKIE ? STAFF_SESSION_TTL_MS : TENANT_SESSION_TTL_MS;
  setCookie(app, req, res, name, value, ttl, true);
  const other = readCookies(req).get(name === STAFF_COOKIE ? TENANT_COOKIE : STAFF_COOKIE);
  const nonce = randomToken(16);
  const macs = [value, ...(other ? [other] : [])].map((session) => csrfMac(app.secrets.csrfKey.current, nonce, session));
  setCookie(app, req, res, CSRF_COOKIE, [nonce, ...macs].join('.'), ttl, false);
}

/** Expires a session cookie (the CSRF cookie stays: the other session may still use it). */
export function clearSessionCookie(app: AppContext, req: Request, res: Response, name: typeof STAFF_COOKIE | typeof TENANT_COOKIE): void {
  res.clearCookie(name, { httpOnly: true, sameSite: 'lax', path: '/', secure: secure(app, req) });
}
