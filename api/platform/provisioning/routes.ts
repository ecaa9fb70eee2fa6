/**
 * POST /v1/provisioning/clients: organization, workspace, owner and membership, an optional one-time
 * workspace API key and an owner invite link, in one transaction, authenticated by a platform
 * provisioning key. Retries with the same Idempotency-Key replay the first response byte for byte
 * (the generic /v1 idempotency cache); without it a repeat for the same slug and owner answers 200
 * `created: false` with `api_key: null`.
 */
import { z } from 'zod';
import { plans, provisionClient } from '../../../usecases/provisionClient.ts';
import { reply } from '../../http/routes.ts';
import { platformRoute } from '../route.ts';

function isIanaTimezone(tz: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}

const provisionBody = z.object({
  organization: z.object({
    name: z.string().trim().min(1, 'must not be empty').max(200, 'must be at most 200 characters'),
    slug: z
      .string()
      .min(1, 'must not be empty')
      .max(63, 'must be at most 63 characters')
      .regex(/^[a-z0-9][a-z0-9-]*$/, 'must match ^[a-z0-9][a-z0-9-]*$'),
    plan: z.enum(plans, { error: `must be one of ${plans.join(', ')}` }).default('free'),
    seats: z.number().int('must be an integer').min(0, 'must not be negative').max(2_147_483_647, 'must be at most 2147483647').optional(),
    timezone: z.string().refine(isIanaTimezone, 'must be an IANA timezone').optional(),
  }),
  workspace: z.object({ name: z.string().trim().min(1, 'must not be empty').max(200).optional() }).optional(),
  owner: z.object({
    email: z.email({ error: 'must be an e-mail address' }).transform((e) => e.toLowerCase()),
    name: z.string().trim().min(1, 'must not be empty').max(200).optional(),
  }),
  issue_api_key: z.boolean().default(true),
  send_owner_invite: z.boolean().default(true),
});
const provisionedClientSchema = z.object({
  created: z.boolean(),
  organization: z.object({ id: z.string(), slug: z.string(), name: z.string(), plan: z.enum(plans) }),
  workspace: z.object({ id: z.string(), name: z.string() }),
  owner: z.object({ user_id: z.string(), membership_id: z.string(), email: z.string(), role: z.literal('owner') }),
  api_key: z.object({ id: z.string(), secret: z.string().describe('One-time; a /v1 bearer token'), scopes: z.array(z.string()), note: z.string() }).nullable(),
  owner_invite: z
    .object({ id: z.string(), url: z.string().nullable().describe('null when the link was issued by an earlier call'), expires_at: z.string() })
    .nullable(),
});
export const provisioningRoutes = [
  platformRoute({
    method: 'post',
    path: '/v1/provisioning/clients',
    operationId: 'provisionClient',
    summary: 'Provision a client: organization, workspace, owner, API key and owner invite in one call',
    description:
      'Authenticated by a platform provisioning key (not a user token). 201 for a new client; 200 `created: false` for a repeat with the same slug and owner; ' +
      '409 for a slug owned by someone else or an Idempotency-Key reused with another body; 422 on validation failure; 503 when no provisioning key is configured.',
    tags: ['provisioning'],
    auth: 'provisioning',
    validationStatus: 422,
    body: provisionBody,
    responses: {
      201: { description: 'Provisioned', schema: provisionedClientSchema },
      200: { description: 'Already provisioned for this owner', schema: provisionedClientSchema },
      409: { description: 'Slug taken by another owner, or Idempotency-Key reused with another body' },
      422: { description: 'Validation failed (`validation_error`)' },
      503: { description: 'No provisioning key configured (`service_unavailable`)' },
    },
    handler: async ({ body, app, req }) => {
      const result = await provisionClient(app, body, req.clientIp);
      return result.created ? reply.created(result) : reply.ok(result);
    },
  }),
];
