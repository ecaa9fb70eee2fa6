/** Every product-surface route by group; only those on the allowlist are published. */
import type { ProductRoute } from './route.ts';
import { healthRoutes } from './health/routes.ts';

export const productRoutes: ProductRoute[] = [...healthRoutes];
