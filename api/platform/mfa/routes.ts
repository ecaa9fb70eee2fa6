/** The caller's second factors (scope `mfa:manage`, human users only): list, enrol, verify, remove, recovery codes. */
import { z } from 'zod';
import { withTransaction } from '../../../lib/db.ts';
import { AppError } from '../../../lib/errors.ts';
import { recordAudit } from '../../../sql/audit.ts';
import * as mfa from '../../../sql/mfa.ts';
import { findUser } from '../../../sql/users.ts';
import { reply } from '../../http/routes.ts';
import { listQuery, listResponse, paginate } from '../pagination.ts';
import type { Principal } from '../principal.ts';
import { platformRoute } from '../route.ts';
import { enrolSms, enrolTotp, regenerateRecoveryCodes, verifyFactor } from '../../../usecases/mfaFactors.ts';

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
    handler: async ({ body, principal, app, req }) => {
      const userId = humanUser(principal);
      let result: { id: string; type: 'totp' | 'sms'; status: 'pending'; otpauth_uri?: string };
      if (body.type === 'totp') {
        const user = (await findUser(app.pool, userId))!;
        const { factor, otpauthUri } = await enrolTotp(app, userId, user.email);
        result = { id: factor.id, type: 'totp', status: 'pending', otpauth_uri: otpauthUri };
      } else {
        const factor = await enrolSms(app, userId, body.phone_number);
        result = { id: factor.id, type: 'sms', status: 'pending' };
      }
      await recordAudit(app.pool, {
        workspaceId: principal.workspaceId,
        action: 'mfa.factor.enrolled',
        actorType: 'user',
        actorId: userId,
        targetType: 'mfa_factor',
        targetId: result.id,
        clientIp: req.clientIp,
        metadata: { type: body.type },
      });
      return reply.created(result);
    },
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
      const userId = humanUser(principal);
      const factor = await verifyFactor(app, userId, params.id, body.code);
      await recordAudit(app.pool, {
        workspaceId: principal.workspaceId,
        action: 'mfa.factor.verified',
        actorType: 'user',
        actorId: userId,
        targetType: 'mfa_factor',
        targetId: factor.id,
        clientIp: req.clientIp,
      });
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
      const userId = humanUser(principal);
      return withTransaction(app.pool, async (client) => {
        if (!(await mfa.deleteFactor(client, userId, params.id))) throw notFound();
        if (!(await mfa.hasVerifiedFactor(client, userId))) await mfa.deleteRecoveryCodes(client, userId);
        await recordAudit(client, {
          workspaceId: principal.workspaceId,
          action: 'mfa.factor.removed',
          actorType: 'user',
          actorId: userId,
          targetType: 'mfa_factor',
          targetId: params.id,
          clientIp: req.clientIp,
        });
        return reply.noContent();
      });
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
    handler: async ({ principal, app, req }) => {
      const userId = humanUser(principal);
      const codes = await regenerateRecoveryCodes(app, userId);
      await recordAudit(app.pool, {
        workspaceId: principal.workspaceId,
        action: 'mfa.recovery_codes.generated',
        actorType: 'user',
        actorId: userId,
        clientIp: req.clientIp,
      });
      return reply.created({ codes });
    },
  }),
];
