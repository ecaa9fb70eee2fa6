/**
 * product-api.md, Console proxy rules 1: the product API paths reachable without a session. The proxy
 * lets only these through without a session cookie; the browser app treats a 401 on any other path
 * as a lost session. Shared by console/server and console/web.
 */
export const PUBLIC_PATHS: ReadonlySet<string> = new Set([
  '/admin/login',
  '/admin/password-reset/request',
  '/admin/password-reset/confirm',
  '/login',
  '/accept-invite',
  '/password-reset/request',
  '/password-reset/confirm',
  '/health',
  '/health/live',
  '/health/ready',
]);
