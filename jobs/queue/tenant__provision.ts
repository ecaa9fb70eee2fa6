/**
 * A tenant's provisioning (jobs/tasks/tenant__provision.ts); one per tenant (`provisionJobKey`).
 */
import { z } from 'zod';
import { defineJob } from '../runtime.ts';

export const tenantProvision = defineJob({
  name: 'tenant__provision',
  payload: z.object({ tenant_id: z.uuid() }),
  maxAttempts: 3,
});

export const provisionJobKey = (tenantId: string) => `provision:${tenantId}`;
