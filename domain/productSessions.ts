/** How long a product-surface session lives (product-api.md): an employee's 12 hours, a tenant user's 24. */
export const STAFF_SESSION_TTL_MS = 12 * 60 * 60 * 1000;
export const TENANT_SESSION_TTL_MS = 24 * 60 * 60 * 1000;
