/** Every product-surface route by group; only those on the allowlist are published. */
import type { ProductRoute } from './route.ts';
import { healthRoutes } from './health/routes.ts';
import { insightRoutes } from './insights/routes.ts';
import { memberRoutes } from './members/routes.ts';
import { goLiveRoutes } from './onboarding/goLiveRoutes.ts';
import { ingestRoutes } from './onboarding/ingestRoutes.ts';
import { invitationRoutes } from './onboarding/invitationRoutes.ts';
import { settingsRoutes } from './onboarding/settingsRoutes.ts';
import { trainingRoutes } from './onboarding/trainingRoutes.ts';
import { jobRoutes } from './operations/jobRoutes.ts';
import { outboxRoute } from './operations/outboxRoute.ts';
import { operationsRoutes } from './operations/routes.ts';
import { passwordResetRoutes } from './session/passwordReset.ts';
import { staffSessionRoutes } from './session/staffRoutes.ts';
import { tenantSessionRoutes } from './session/tenantRoutes.ts';
import { sourceRoutes } from './sources/routes.ts';
import { remediationRoutes } from './remediation/routes.ts';
import { impersonateRoute } from './tenants/impersonate.ts';
import { tenantRoutes } from './tenants/routes.ts';

export const productRoutes: ProductRoute[] = [
  ...healthRoutes,
  ...staffSessionRoutes,
  ...tenantSessionRoutes,
  ...passwordResetRoutes,
  ...tenantRoutes,
  impersonateRoute,
  ...ingestRoutes,
  ...settingsRoutes,
  ...trainingRoutes,
  ...invitationRoutes,
  ...goLiveRoutes,
  ...insightRoutes,
  ...memberRoutes,
  ...sourceRoutes,
  ...operationsRoutes,
  ...jobRoutes,
  outboxRoute,
  ...remediationRoutes,
];
