/**
 * Verified e-mail domains (scope `workspace:admin`). Just-in-time sign-up admits a domain only when
 * the workspace lists it in its JIT settings and has verified it: POST /v1/domains returns the DNS TXT
 * record to publish (`_svc-verification.<domain>` = `svc-verification=<token>`), POST
 * /v1/domains/{id}/verify looks it up (DNS_RESOLVER) and marks the claim verified. A domain is
 * verified by one workspace at a time: claiming or verifying one that another workspace holds is 409.
 */
import { z } from 'zod';
import { verificationRecord } from '../../../domain/domainVerification.ts';
import { claimDomain, deleteDomain, verifyDomain } from '../../../usecases/admin/domains.ts';
import * as domains from '../../../sql/workspaceDomains.ts';
import { reply } from '../../http/routes.ts';
import { listQuery, listResponse, paginate } from '../pagination.ts';
import { workspaceActor } from '../principal.ts';
import { platformRoute } from '../route.ts';

const domainSchema = z.object({
  id: z.string(),
  domain: z.string(),
  status: z.enum(['pending', 'verified']),
  txt_record: z.object({ name: z.string(), value: z.string() }).describe('The DNS TXT record that proves ownership'),
  created_at: z.string(),
  verified_at: z.string().nullable(),
});

const toDomain = (row: domains.WorkspaceDomainRow): z.output<typeof domainSchema> => ({
  id: row.id,
  domain: row.domain,
  status: row.verified_at ? 'verified' : 'pending',
  txt_record: verificationRecord(row.domain, row.verification_token),
  created_at: row.created_at.toISOString(),
  verified_at: row.verified_at?.toISOString() ?? null,
});

const domainName = z
  .string()
  .trim()
  .toLowerCase()
  .regex(/^(?=.{1,253}$)([a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/, 'must be a domain name');
const idParams = z.object({ id: z.string() });

export const domainRoutes = [
  platformRoute({
    method: 'get',
    path: '/v1/domains',
    operationId: 'listDomains',
    summary: "The workspace's claimed e-mail domains and their verification",
    tags: ['domains'],
    scope: 'workspace:admin',
    query: listQuery({}, ['created_at'], '-created_at'),
    responses: { 200: { description: 'A page of domains', schema: listResponse(domainSchema) } },
    handler: async ({ query, principal, app }) =>
      reply.ok(
        await paginate(app.pool, domains.domainList(principal.workspaceId), { query, cursorKey: app.secrets.cursorKey }, (row) =>
          toDomain(row as unknown as domains.WorkspaceDomainRow),
        ),
      ),
  }),
  platformRoute({
    method: 'post',
    path: '/v1/domains',
    operationId: 'claimDomain',
    summary: 'Claim an e-mail domain; answers the DNS TXT record that verifies it',
    tags: ['domains'],
    scope: 'workspace:admin',
    body: z.object({ domain: domainName }),
    responses: {
      201: { description: 'Claimed (pending verification); a repeat answers the same claim', schema: domainSchema },
      409: { description: 'Verified by another workspace' },
    },
    handler: async ({ body, principal, app, req }) => reply.created(toDomain(await claimDomain(app, workspaceActor(principal, req.clientIp), body.domain))),
  }),
  platformRoute({
    method: 'post',
    path: '/v1/domains/{id}/verify',
    operationId: 'verifyDomain',
    summary: 'Look up the TXT record and mark the domain verified',
    tags: ['domains'],
    scope: 'workspace:admin',
    params: idParams,
    responses: {
      200: { description: 'Verified', schema: domainSchema },
      404: { description: 'Not found' },
      409: { description: 'Verified by another workspace' },
      422: { description: 'The TXT record was not found (`unprocessable`)' },
    },
    handler: async ({ params, principal, app, req }) => reply.ok(toDomain(await verifyDomain(app, workspaceActor(principal, req.clientIp), params.id))),
  }),
  platformRoute({
    method: 'delete',
    path: '/v1/domains/{id}',
    operationId: 'deleteDomain',
    summary: 'Give up a domain claim (just-in-time sign-up stops admitting it)',
    tags: ['domains'],
    scope: 'workspace:admin',
    params: idParams,
    responses: { 204: { description: 'Deleted' }, 404: { description: 'Not found' } },
    handler: async ({ params, principal, app, req }) => {
      await deleteDomain(app, workspaceActor(principal, req.clientIp), params.id);
      return reply.noContent();
    },
  }),
];
