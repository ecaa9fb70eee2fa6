/**
 * Headers on every console response. Scripts and styles come only from the console itself (no
 * `unsafe-inline`), nothing may frame it, and requests go only to its own origin (the proxy).
 */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

export const securityHeaders: ReadonlyArray<[string, string]> = [
  ['content-security-policy', CONTENT_SECURITY_POLICY],
  ['x-content-type-options', 'nosniff'],
  ['referrer-policy', 'no-referrer'],
  ['x-frame-options', 'DENY'],
  ['cross-origin-opener-policy', 'same-origin'],
];
