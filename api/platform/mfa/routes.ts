/** The caller's second factors (scope `mfa:manage`, human users only): list, enrol, verify, remove, recovery codes. */
import { z } from 'zod';
import { AppError } from '../../../lib/errors.ts';
import * as mfa from '../../../sql/mfa.ts';
import { reply } from '../../http/routes.ts';
import { listQuery, listResponse, paginate } from '../pagination.ts';
import type { Principal } from '../principal.ts';
import { platformRoute } from '../route.ts';
import { enrolFactor, type FactorOwner, newRecoveryCodes, removeFactor, verifyOwnFactor } from '../../../usecases/mfaFactors.ts';

const factorSchema = z.object({
  id: z.string(),
  type: z.enum(['totp', 'sms']),
  status: z.enum(['pending', 'verified']),
  phone_number: z.string().nullable().describe('SMS factors: the number with all but the last 4 digits masked'),
  created_at: z.string(),
  verified_at: z.string().nullable(),
});
const enrolledSchema = z.object({
  id: z.string(),
  type: z.enum(['totp', 'sms']),
  status: z.literal('pending'),
  otpauth_uri: z.string().optional().describe('TOTP only, returned once: the secret for an authenticator app'),
});

const maskPhone = (phone: string) => phone.slice(0, -4).replace(/\d/g, '*') + phone.slice(-4);
const toFactor = (f: mfa.FactorRow) => ({
  id: f.id,
  type: f.type,
  status: f.status,
  phone_number: f.phone_number ? maskPhone(f.phone_number) : null,
  created_at: f.created_at.toISOString(),
  verified_at: f.verified_at?.toISOString() ?? null,
});

/** MFA belongs to people: service accounts and API keys have no factors. */
function humanUser(principal: Principal): string {
  if (principal.kind !== 'user' || !principal.userId) throw new AppError('forbidden', 'Only users have MFA factors');
  return principal.userId;
}

const factorOwner = (principal: Principal, clientIp: string): FactorOwner => ({ userId: humanUser(principal), workspaceId: principal.workspaceId, clientIp });

const factorParams = z.object({ id: z.uuid({ error: 'must be a factor id' }) });
const notFound = () => new AppError('not_found', 'MFA factor not found');

export const mfaRoutes = [
  platformRoute({
    method: 'get',
    path: '/v1/mfa/factors',
    operationId: 'listMfaFactors',
    summary: "The caller's enrolled factors",
    tags: ['mfa'],
    scope: 'mfa:manage',
    query: listQuery({}, ['created_at'], 'created_at'),
    responses: { 200: { description: 'A page of factors', schema: listResponse(factorSchema) } },
    handler: async ({ query, principal, app }) =>
      reply.ok(
        await paginate(app.pool, mfa.factorList(humanUser(principal)), { query, cursorKey: app.secrets.cursorKey }, (row) =>
          toFactor(row as unknown as mfa.FactorRow),
        ),
      ),
  }),
  platformRoute({
    method: 'post',
    path: '/v1/mfa/factors',
    operationId: 'enrolMfaFactor',
    summary: 'Enrol a TOTP or SMS factor (pending until verified)',
    description:
      'TOTP: the answer carries `otpauth_uri` once (RFC 6238: SHA-1, 6 digits, 30-second steps); the secret is stored encrypted. ' +
      'SMS: a 6-digit code valid 5 minutes is sent to `phone_number` (E.164).',
    tags: ['mfa'],
    scope: 'mfa:manage',
    body: z.discriminatedUnion(
      'type',
      [
        z.object({ type: z.literal('totp') }),
        z.object({
          type: z.literal('sms'),
          phone_number: z
            .string()
            .trim()
            .regex(/^\+[1-9]\d{6,14}$/, 'must be an E.164 phone number such as +15551234567'),
        }),
      ],
      { error: 'must be totp or sms' },
    ),
    responses: { 201: { description: 'The pending factor', schema: enrolledSchema } },
    handler: async ({ body, principal, app, req }) => reply.created(await enrolFactor(app, factorOwner(principal, req.clientIp), body)),
  }),
  platformRoute({
    method: 'post',
    path: '/v1/mfa/factors/{id}/verify',
    operationId: 'verifyMfaFactor',
    summary: 'Verify a factor with a code it produced',
    description: 'Five wrong codes lock the factor for 15 minutes (429 `rate_limited` with Retry-After). A TOTP step is accepted only once.',
    tags: ['mfa'],
    scope: 'mfa:manage',
    params: factorParams,
    body: z.object({
      code: z
        .string()
        .trim()
        .regex(/^\d{6}$/, 'must be 6 digits'),
    }),
    responses: {
      200: { description: 'Verified', schema: z.object({ id: z.string(), status: z.literal('verified') }) },
      404: { description: 'Not found' },
      429: { description: 'The factor is locked after too many wrong codes (`rate_limited`)' },
    },
    handler: async ({ params, body, principal, app, req }) => {
      const factor = await verifyOwnFactor(app, factorOwner(principal, req.clientIp), params.id, body.code);
      return reply.ok({ id: factor.id, status: 'verified' });
    },
  }),
  platformRoute({
    method: 'delete',
    path: '/v1/mfa/factors/{id}',
    operationId: 'deleteMfaFactor',
    summary: 'Remove a factor (recovery codes go with the last verified one)',
    tags: ['mfa'],
    scope: 'mfa:manage',
    params: factorParams,
    responses: { 204: { description: 'Removed' }, 404: { description: 'Not found' } },
    handler: async ({ params, principal, app, req }) => {
      if (!(await removeFactor(app, factorOwner(principal, req.clientIp), params.id))) throw notFound();
      return reply.noContent();
    },
  }),
  platformRoute({
    method: 'post',
    path: '/v1/mfa/recovery-codes',
    operationId: 'createMfaRecoveryCodes',
    summary: 'Generate 10 single-use recovery codes (replacing earlier ones; shown once)',
    tags: ['mfa'],
    scope: 'mfa:manage',
    responses: {
      201: { description: 'The codes', schema: z.object({ codes: z.array(z.string()) }) },
      409: { description: 'No verified factor yet (`conflict`)' },
    },
    handler: async ({ principal, app, req }) => reply.created({ codes: await newRecoveryCodes(app, factorOwner(principal, req.clientIp)) }),
  }),
];
