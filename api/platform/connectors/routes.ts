/**
 * Connectors (CONTRACT.md): CRUD, `test` (200 `{ok, detail}`) and `sync` (202 `{job_id}`, an
 * `http_pull` connector only). `connectors:read` for GET, `connectors:write` for the rest. The
 * header values of an `http_pull` config (credentials, typically) are never shown back.
 */
import { z } from 'zod';
import { jsonValue } from '../../http/jsonValue.ts';
import type { AppContext } from '../../../lib/context.ts';
import { AppError } from '../../../lib/errors.ts';
import { checkOutboundUrl, OutboundRefusedError } from '../../../lib/outbound/index.ts';
import { startConnectorSync } from '../../../usecases/syncConnector.ts';
import { httpPullConfigSchema, openPullConfig, pullPage, sealPullConfig } from '../../../usecases/pullConnectorPage.ts';
import { policyOf } from '../../../lib/outbound/appPolicy.ts';
import * as connectors from '../../../sql/connectors.ts';
import { findWebhookOfConnector } from '../../../sql/webhooks.ts';
import { reply } from '../../http/routes.ts';
import { issuesToDetails } from '../errors.ts';
import { listQuery, listResponse, paginate } from '../pagination.ts';
import { platformRoute } from '../route.ts';

const connectorSchema = z.object({
  id: z.string(),
  name: z.string(),
  kind: z.enum(connectors.connectorKinds),
  config: z
    .record(z.string(), jsonValue('A setting of the connector, by kind'))
    .describe('http_pull: {url, headers?, records_path?, cursor_param?}; header values are shown as "***"'),
  sync_cursor: z.string().nullable().describe('http_pull: where the next sync resumes'),
  last_synced_at: z.string().nullable(),
  last_sync_status: z.enum(['succeeded', 'failed']).nullable(),
  last_sync_error: z.string().nullable(),
  inbound_url: z.string().nullable().describe('webhook: the path its sender posts to'),
  created_at: z.string(),
  updated_at: z.string(),
});

const toConnector = (row: connectors.ConnectorRow) => {
  const { headers_sealed: _sealed, header_names: names, ...config } = row.config;
  const headerNames = Array.isArray(names) ? (names as string[]) : config.headers && typeof config.headers === 'object' ? Object.keys(config.headers) : [];
  if (headerNames.length) config.headers = Object.fromEntries(headerNames.map((k) => [k, '***']));
  return {
    id: row.id,
    name: row.name,
    kind: row.kind,
    config,
    sync_cursor: row.kind === 'http_pull' ? row.sync_cursor : null,
    last_synced_at: row.last_synced_at?.toISOString() ?? null,
    last_sync_status: row.last_sync_status,
    last_sync_error: row.last_sync_error,
    inbound_url: row.kind === 'webhook' ? `/v1/webhooks/inbound/${row.id}` : null,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
};

const invalid = (details: Record<string, string>) => new AppError('validation_error', 'Request validation failed', details);

/** A kind's config, checked (and an http_pull URL through the SSRF guard); errors under `config.*`. */
async function validConfig(app: AppContext, kind: connectors.ConnectorKind, config: unknown): Promise<Record<string, unknown>> {
  if (kind === 'webhook') {
    if (config !== undefined && (typeof config !== 'object' || config === null || Array.isArray(config) || Object.keys(config).length)) {
      throw invalid({ config: 'must be empty for a webhook connector (its secret is the signing secret of the webhook tied to it)' });
    }
    return {};
  }
  const parsed = httpPullConfigSchema.safeParse(config);
  if (!parsed.success) {
    const details = issuesToDetails(parsed.error.issues.map((issue) => ({ location: 'body' as const, issue, input: undefined })));
    throw invalid(Object.fromEntries(Object.entries(details).map(([k, v]) => [k === 'body' ? 'config' : `config.${k}`, v])));
  }
  try {
    await checkOutboundUrl(policyOf(app), parsed.data.url);
  } catch (err) {
    if (err instanceof OutboundRefusedError) throw invalid({ 'config.url': err.message });
    throw err;
  }
  return sealPullConfig(app, parsed.data);
}

const idParams = z.object({ id: z.string() });
const notFound = () => new AppError('not_found', 'Connector not found');
const nameInput = z.string({ error: 'is required' }).trim().min(1, 'must not be empty').max(100, 'must be at most 100 characters');

export const connectorRoutes = [
  platformRoute({
    method: 'post',
    path: '/v1/connectors',
    operationId: 'createConnector',
    summary: 'Create a connector',
    description:
      'Kinds: `webhook` (inbound push; register a webhook with its `connector_id` to give it a secret) and `http_pull` (`config: {url, headers?, records_path?, cursor_param?}`).',
    tags: ['connectors'],
    scope: 'connectors:write',
    body: z.object({
      name: nameInput,
      kind: z.enum(connectors.connectorKinds, { error: `must be one of ${connectors.connectorKinds.join(', ')}` }),
      config: jsonValue('http_pull: {url, headers?, records_path?, cursor_param?}; webhook: none').optional(),
    }),
    responses: { 201: { description: 'Created', schema: connectorSchema } },
    handler: async ({ body, principal, app }) => {
      const config = await validConfig(app, body.kind, body.config);
      return reply.created(toConnector(await connectors.insertConnector(app.pool, principal.workspaceId, { name: body.name, kind: body.kind, config })));
    },
  }),
  platformRoute({
    method: 'get',
    path: '/v1/connectors',
    operationId: 'listConnectors',
    summary: 'List connectors',
    tags: ['connectors'],
    scope: 'connectors:read',
    query: listQuery({}, ['created_at', 'name'], '-created_at'),
    responses: { 200: { description: 'A page of connectors', schema: listResponse(connectorSchema) } },
    handler: async ({ query, principal, app }) =>
      reply.ok(
        await paginate(app.pool, connectors.connectorList(principal.workspaceId), { query, cursorKey: app.secrets.cursorKey }, (row) =>
          toConnector(row as connectors.ConnectorRow),
        ),
      ),
  }),
  platformRoute({
    method: 'get',
    path: '/v1/connectors/{id}',
    operationId: 'getConnector',
    summary: 'Get a connector',
    tags: ['connectors'],
    scope: 'connectors:read',
    params: idParams,
    responses: { 200: { description: 'The connector', schema: connectorSchema }, 404: { description: 'Not found' } },
    handler: async ({ params, principal, app }) => {
      const row = await connectors.findConnector(app.pool, principal.workspaceId, params.id);
      if (!row) throw notFound();
      return reply.ok(toConnector(row));
    },
  }),
  platformRoute({
    method: 'patch',
    path: '/v1/connectors/{id}',
    operationId: 'updateConnector',
    summary: 'Rename or reconfigure a connector (a new config restarts an http_pull from the beginning)',
    tags: ['connectors'],
    scope: 'connectors:write',
    params: idParams,
    body: z.object({ name: nameInput.optional(), config: jsonValue('http_pull: {url, headers?, records_path?, cursor_param?}; webhook: none').optional() }),
    responses: { 200: { description: 'The updated connector', schema: connectorSchema }, 404: { description: 'Not found' } },
    handler: async ({ params, body, principal, app }) => {
      const existing = await connectors.findConnector(app.pool, principal.workspaceId, params.id);
      if (!existing) throw notFound();
      const config = body.config === undefined ? undefined : await validConfig(app, existing.kind, body.config);
      const row = await connectors.updateConnector(app.pool, principal.workspaceId, params.id, { name: body.name, config });
      if (!row) throw notFound();
      return reply.ok(toConnector(row));
    },
  }),
  platformRoute({
    method: 'delete',
    path: '/v1/connectors/{id}',
    operationId: 'deleteConnector',
    summary: 'Delete a connector (a webhook tied to it stays, untied)',
    tags: ['connectors'],
    scope: 'connectors:write',
    params: idParams,
    responses: { 204: { description: 'Deleted' }, 404: { description: 'Not found' } },
    handler: async ({ params, principal, app }) => {
      if (!(await connectors.deleteConnector(app.pool, principal.workspaceId, params.id))) throw notFound();
      return reply.noContent();
    },
  }),
  platformRoute({
    method: 'post',
    path: '/v1/connectors/{id}/test',
    operationId: 'testConnector',
    summary: 'Check a connector: an http_pull source answers a page of records; a webhook connector has a secret',
    tags: ['connectors'],
    scope: 'connectors:write',
    params: idParams,
    responses: {
      200: { description: 'The outcome (`ok: false` is a result, not an error)', schema: z.object({ ok: z.boolean(), detail: z.string() }) },
      404: { description: 'Not found' },
    },
    handler: async ({ params, principal, app }) => {
      const row = await connectors.findConnector(app.pool, principal.workspaceId, params.id);
      if (!row) throw notFound();
      if (row.kind === 'webhook') {
        const webhook = await findWebhookOfConnector(app.pool, row.id);
        return reply.ok(
          webhook
            ? { ok: true, detail: `Ready: POST /v1/webhooks/inbound/${row.id} signed with the secret of webhook ${webhook.id}` }
            : {
                ok: false,
                detail: 'No webhook is tied to this connector, so it has no secret and every inbound payload is refused; register one with this connector_id',
              },
        );
      }
      try {
        const page = await pullPage({ app }, openPullConfig(app, row.config), row.sync_cursor);
        return reply.ok({ ok: true, detail: `Reached the source: ${page.records.length} records on the page a sync would read next` });
      } catch (err) {
        return reply.ok({ ok: false, detail: (err as Error).message });
      }
    },
  }),
  platformRoute({
    method: 'post',
    path: '/v1/connectors/{id}/sync',
    operationId: 'syncConnector',
    summary: 'Start a sync of an http_pull connector (a background job; poll GET /v1/jobs/{job_id})',
    tags: ['connectors'],
    scope: 'connectors:write',
    params: idParams,
    responses: {
      202: { description: 'Queued (a sync already waiting is returned instead)', schema: z.object({ job_id: z.string() }) },
      404: { description: 'Not found' },
    },
    handler: async ({ params, principal, app }) => {
      const row = await connectors.findConnector(app.pool, principal.workspaceId, params.id);
      if (!row) throw notFound();
      if (row.kind !== 'http_pull')
        throw invalid({ kind: `only http_pull connectors sync; this one is ${row.kind} (its sender pushes to /v1/webhooks/inbound/${row.id})` });
      const { jobId } = await startConnectorSync(app, principal.workspaceId, row.id);
      return reply.accepted({ job_id: jobId });
    },
  }),
];
