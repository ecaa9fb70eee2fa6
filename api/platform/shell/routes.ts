/**
 * GET /v1/shell/nav: the navigation model of a console: the sections the caller's scopes open (each
 * with the badge count it shows), the counts (sql/shellNav.ts) and the features this deployment
 * offers. One statement for all counts: cheap enough to fetch on every focus.
 */
import { z } from 'zod';
import { reportKinds } from '../../../engine/report/facts.ts';
import { exportFormats, exportResources } from '../../../sql/exports.ts';
import { navCountValues } from '../../../sql/shellNav.ts';
import { reply } from '../../http/routes.ts';
import { platformRoute } from '../route.ts';
import type { Scope } from '../../../domain/scopes.ts';

interface Section {
  id: string;
  label: string;
  path: string;
  scope: Scope;
  /** A key of the counts shown as this section's badge. */
  badge?: string;
}

/** Console sections in display order; `path` is the console route (the /v1 list behind it has the same name). */
export const sections: readonly Section[] = [
  { id: 'issues', label: 'Issues', path: '/issues', scope: 'issues:read' },
  { id: 'patterns', label: 'Patterns', path: '/patterns', scope: 'patterns:read', badge: 'active_crest_alerts' },
  { id: 'predictions', label: 'Predictions', path: '/predictions', scope: 'predictions:read' },
  { id: 'recommendations', label: 'Recommendations', path: '/recommendations', scope: 'recommendations:read' },
  { id: 'review_queue', label: 'Review queue', path: '/review-queue', scope: 'review:read', badge: 'open_review_items' },
  { id: 'reports', label: 'Reports', path: '/reports', scope: 'reports:read' },
  { id: 'exports', label: 'Exports', path: '/exports', scope: 'exports:read' },
  { id: 'engine', label: 'Engine runs', path: '/engine/runs', scope: 'engine:read' },
  { id: 'jobs', label: 'Jobs', path: '/jobs', scope: 'jobs:read', badge: 'running_jobs' },
  { id: 'sources', label: 'Sources', path: '/sources', scope: 'sources:read' },
  { id: 'configs', label: 'Configuration', path: '/configs', scope: 'configs:read' },
  { id: 'members', label: 'Members', path: '/members', scope: 'members:read' },
  { id: 'audit', label: 'Audit log', path: '/audit-events', scope: 'audit:read' },
  { id: 'notifications', label: 'Notifications', path: '/notifications', scope: 'notifications:read', badge: 'unread_notifications' },
  { id: 'settings', label: 'Workspace settings', path: '/settings', scope: 'workspace:admin' },
];

const navSchema = z.object({
  sections: z.array(z.object({ id: z.string(), label: z.string(), path: z.string(), badge: z.number().int().optional() })),
  counts: z.record(z.string(), z.number().int()).describe('Only the counts the caller may see'),
  features: z.object({
    auth_provider: z.string(),
    report_kinds: z.array(z.string()),
    export_resources: z.array(z.string()),
    export_formats: z.array(z.string()),
  }),
});

export const shellRoutes = [
  platformRoute({
    method: 'get',
    path: '/v1/shell/nav',
    operationId: 'getShellNav',
    summary: "The console's navigation: sections the caller's scopes allow, badge counts, features",
    description: 'Fetch on focus, not on a timer.',
    tags: ['shell'],
    scope: 'shell:read',
    responses: { 200: { description: 'The navigation model', schema: navSchema } },
    handler: async ({ principal, app }) => {
      const counts = await navCountValues(app.pool, principal.workspaceId, principal.userId, principal.scopes);
      return reply.ok({
        sections: sections
          .filter((s) => principal.scopes.has(s.scope))
          .map((s) => ({ id: s.id, label: s.label, path: s.path, ...(s.badge && s.badge in counts ? { badge: counts[s.badge] } : {}) })),
        counts,
        features: {
          auth_provider: app.config.AUTH_PROVIDER,
          report_kinds: [...reportKinds],
          export_resources: [...exportResources],
          export_formats: [...exportFormats],
        },
      });
    },
  }),
];
