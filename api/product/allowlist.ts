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
  { method: 'post', path: '/admin/password-reset/request', group: 'authentication' },
  { method: 'post', path: '/admin/password-reset/confirm', group: 'authentication' },
  { method: 'post', path: '/password-reset/request', group: 'authentication' },
  { method: 'post', path: '/password-reset/confirm', group: 'authentication' },
  { method: 'post', path: '/accept-invite', group: 'authentication' },
  { method: 'get', path: '/admin/tenants', group: 'onboarding' },
  { method: 'post', path: '/admin/tenants', group: 'onboarding' },
  { method: 'get', path: '/admin/tenants/{tenant_id}', group: 'onboarding' },
  { method: 'post', path: '/admin/tenants/{tenant_id}/provision', group: 'onboarding' },
  { method: 'get', path: '/admin/tenants/{tenant_id}/provision/status', group: 'onboarding' },
  { method: 'post', path: '/admin/tenants/{tenant_id}/impersonate', group: 'onboarding' },
  { method: 'post', path: '/admin/tenants/{tenant_id}/ingest/upload', group: 'onboarding' },
  { method: 'post', path: '/admin/tenants/{tenant_id}/ingest/commit', group: 'onboarding' },
  { method: 'put', path: '/admin/tenants/{tenant_id}/training-config', group: 'onboarding' },
  { method: 'put', path: '/admin/tenants/{tenant_id}/data-policy', group: 'onboarding' },
  { method: 'post', path: '/admin/tenants/{tenant_id}/sources/seed', group: 'onboarding' },
  { method: 'post', path: '/admin/tenants/{tenant_id}/train', group: 'onboarding' },
  { method: 'get', path: '/admin/tenants/{tenant_id}/train/status', group: 'onboarding' },
  { method: 'get', path: '/admin/tenants/{tenant_id}/checkpoints', group: 'onboarding' },
  { method: 'post', path: '/admin/tenants/{tenant_id}/checkpoints/{checkpoint_id}/activate', group: 'onboarding' },
  { method: 'post', path: '/admin/tenants/{tenant_id}/invite', group: 'onboarding' },
  { method: 'get', path: '/admin/tenants/{tenant_id}/invitations', group: 'onboarding' },
  { method: 'post', path: '/admin/tenants/{tenant_id}/go-live', group: 'onboarding' },
  { method: 'get', path: '/insights/snapshot', group: 'insights' },
  { method: 'get', path: '/members', group: 'members' },
  { method: 'get', path: '/sources', group: 'sources' },
  { method: 'post', path: '/sources', group: 'sources' },
  { method: 'post', path: '/sources/{source_id}/upload', group: 'sources' },
  { method: 'get', path: '/metrics', group: 'observability' },
  { method: 'get', path: '/admin/jobs', group: 'observability' },
  { method: 'get', path: '/admin/jobs/{job_id}', group: 'observability' },
  { method: 'post', path: '/admin/jobs/{job_id}/retry', group: 'observability' },
  { method: 'post', path: '/admin/jobs/{job_id}/cancel', group: 'observability' },
  { method: 'get', path: '/admin/outbox', group: 'observability' },
  { method: 'get', path: '/health', group: 'health' },
  { method: 'get', path: '/health/live', group: 'health' },
  { method: 'get', path: '/health/ready', group: 'health' },
  { method: 'get', path: '/remediation/caps', group: 'remediation' },
  { method: 'post', path: '/remediation/caps', group: 'remediation' },
  { method: 'patch', path: '/remediation/caps/{cap_id}', group: 'remediation' },
  { method: 'get', path: '/remediation/reviews', group: 'remediation' },
  { method: 'patch', path: '/remediation/reviews/{review_id}', group: 'remediation' },
  { method: 'get', path: '/remediation/audit-log', group: 'remediation' },
  { method: 'get', path: '/remediation/export.xlsx', group: 'remediation' },
];

export const isAllowed = (list: readonly AllowedOperation[], method: string, path: string) => list.some((op) => op.method === method && op.path === path);
