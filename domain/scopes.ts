/**
 * The complete list of /v1 scopes: one declared table, published in /openapi.json
 * (`components.securitySchemes.bearerAuth` and `x-scopes`). Every route declares the one scope it
 * requires.
 */
export const scopeTable = {
  'issues:read': 'Read issues, their event history and root causes',
  'issues:write': 'Create, update and close issues',
  'ingest:write': 'Push signals through /v1/ingest',
  'patterns:read': 'Read patterns, hazard models, financials, counterfactuals and alerts',
  'patterns:write': 'Change pattern status',
  'predictions:read': 'Read predictions and backtests',
  'recommendations:read': 'Read recommendations and fix verification',
  'recommendations:write': 'Record that a recommended fix was implemented',
  'review:read': 'Read the review queue',
  'review:write': 'Resolve or dismiss review-queue items',
  'configs:read': 'Read config registry documents',
  'configs:write': 'Create and activate config versions',
  'engine:read': 'Read engine runs, manifests and stability reports',
  'engine:run': 'Trigger and replay engine runs',
  'reports:read': 'Read report jobs and reports',
  'reports:write': 'Request reports',
  'exports:read': 'Read exports',
  'connectors:read': 'Read connectors',
  'connectors:write': 'Create, configure, test and sync connectors',
  'sources:read': 'Read per-source ingest statistics',
  'webhooks:read': 'Read webhooks and their deliveries',
  'webhooks:admin': 'Create, change, rotate and delete webhooks',
  'events:read': 'Read the workspace event feed',
  'jobs:read': 'Poll background jobs',
  'jobs:write': 'Cancel queued background jobs',
  'members:read': 'List members and invitations',
  'members:write': 'Invite members, change roles, remove members',
  'notifications:read': "Read the caller's notification preferences",
  'notifications:write': "Change the caller's notification preferences",
  'audit:read': 'Read security audit events',
  'workspace:admin': 'Administer the workspace: service accounts, SSO, SCIM',
  'shell:read': "Read the console's navigation model",
  'mfa:manage': "Enrol, verify and remove the caller's own second factors and recovery codes",
} as const;

export type Scope = keyof typeof scopeTable;
export const allScopes = Object.keys(scopeTable) as Scope[];

export function isScope(value: string): value is Scope {
  return Object.hasOwn(scopeTable, value);
}
