/**
 * The published product surface: exactly these operations. A route defined in a router but not
 * listed here is never mounted, so it answers the same plain 404 `{detail: "Not Found"}` as a path
 * that does not exist. The app refuses to start if an entry has no route behind it.
 */
export interface AllowedOperation {
  method: 'get' | 'post' | 'put' | 'patch' | 'delete';
  path: string;
  group: 'authentication' | 'onboarding' | 'insights' | 'members' | 'sources' | 'remediation' | 'observability' | 'health';
}

export const allowlist: readonly AllowedOperation[] = [
  { method: 'post', path: '/admin/login', group: 'authentication' },
  { method: 'get', path: '/admin/me', group: 'authentication' },
  { method: 'post', path: '/admin/logout', group: 'authentication' },
  { method: 'post', path: '/login', group: 'authentication' },
  { method: 'get', path: '/me', group: 'authentication' },
  { method: 'post', path: '/logout', group: 'authentication' },
  { method: 'get', path: '/workspaces', group: 'authentication' },
  { method: 'get', path: '/admin/tenants', group: 'onboarding' },
  { method: 'post', path: '/admin/tenants', group: 'onboarding' },
  { method: 'get', path: '/admin/tenants/{tenant_id}', group: 'onboarding' },
  { method: 'post', path: '/admin/tenants/{tenant_id}/provision', group: 'onboarding' },
  { method: 'get', path: '/admin/tenants/{tenant_id}/provision/status', group: 'onboarding' },
  { method: 'post', path: '/admin/tenants/{tenant_id}/impersonate', group: 'onboarding' },
  { method: 'get', path: '/metrics', group: 'observability' },
  { method: 'get', path: '/health', group: 'health' },
  { method: 'get', path: '/health/live', group: 'health' },
  { method: 'get', path: '/health/ready', group: 'health' },
];

export const isAllowed = (list: readonly AllowedOperation[], method: string, path: string) =>
  list.some((op) => op.method === method && op.path === path);
