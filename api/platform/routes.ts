/** Every /v1 route, by resource group. The platform app mounts exactly these. */
import type { PlatformRoute } from './route.ts';
import { auditRoutes } from './audit/routes.ts';
import { authRoutes } from './auth/routes.ts';
import { jobRoutes } from './jobs/routes.ts';
import { invitationRoutes, memberRoutes } from './members/routes.ts';
import { provisioningRoutes } from './provisioning/routes.ts';
import { serviceAccountRoutes } from './serviceAccounts/routes.ts';
import { workspaceRoutes } from './workspaces/routes.ts';

export const platformRoutes: PlatformRoute[] = [
  ...authRoutes,
  ...provisioningRoutes,
  ...workspaceRoutes,
  ...memberRoutes,
  ...invitationRoutes,
  ...serviceAccountRoutes,
  ...jobRoutes,
  ...auditRoutes,
];
