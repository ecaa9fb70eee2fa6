/** Every product-surface route by group; only those on the allowlist are published. */
import type { ProductRoute } from './route.ts';
import { healthRoutes } from './health/routes.ts';
import { operationsRoutes } from './operations/routes.ts';
import { staffSessionRoutes } from './session/staffRoutes.ts';
import { tenantSessionRoutes } from './session/tenantRoutes.ts';
import { impersonateRoute } from './tenants/impersonate.ts';
import { tenantRoutes } from './tenants/routes.ts';

export const productRoutes: ProductRoute[] = [
  ...healthRoutes,
  ...staffSessionRoutes,
  ...tenantSessionRoutes,
  ...tenantRoutes,
  impersonateRoute,
  ...operationsRoutes,
];
