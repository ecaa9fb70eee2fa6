/**
 * The config registry: kinds rubric, cluster, hazard, rate-card, taxonomy. Versions are immutable and
 * content-addressed; the newest is active unless one was explicitly activated; a workspace without
 * versions runs on the shipped defaults.
 */
import { z } from 'zod';
import { jsonValue } from '../../http/jsonValue.ts';
import { AppError } from '../../../lib/errors.ts';
import { configKinds, isConfigKind, type ConfigKind } from '../../../engine/config/index.ts';
import { activeConfig, configHistory, findConfigVersion, type ActiveConfig, type ConfigVersionRow } from '../../../sql/configs.ts';
import { activateConfigVersion, addConfigVersion } from '../../../usecases/configVersions.ts';
import { reply } from '../../http/routes.ts';
import { actorOf } from '../principal.ts';
import { platformRoute } from '../route.ts';

const versionSchema = z.object({
  id: z.string(),
  kind: z.enum(configKinds),
  document: jsonValue('The config document (its schema depends on the kind)'),
  created_by: z.string().nullable(),
  created_at: z.string(),
});
const activeSchema = z.object({
  id: z.string(),
  source: z.enum(['explicit', 'newest', 'default']),
  document: jsonValue('The config document (its schema depends on the kind)'),
  created_at: z.string().nullable(),
});
const kindSchema = z.object({
  kind: z.enum(configKinds),
  active: activeSchema,
  versions: z.array(versionSchema.omit({ document: true })).describe('History, newest first'),
});

const toVersion = (v: ConfigVersionRow) => ({ id: v.id, kind: v.kind, document: v.document, created_by: v.created_by, created_at: v.created_at.toISOString() });
const toHistoryEntry = (v: ConfigVersionRow) => ({ id: v.id, kind: v.kind, created_by: v.created_by, created_at: v.created_at.toISOString() });
const toActive = (a: ActiveConfig) => ({ id: a.id, source: a.source, document: a.document, created_at: a.created_at?.toISOString() ?? null });

function kindOf(value: string): ConfigKind {
  if (!isConfigKind(value)) throw new AppError('not_found', `Unknown config kind '${value}'; kinds are ${configKinds.join(', ')}`);
  return value;
}

const kindParams = z.object({ kind: z.string() });
const versionParams = z.object({ kind: z.string(), id: z.string() });

export const configRoutes = [
  platformRoute({
    method: 'get',
    path: '/v1/configs',
    operationId: 'listConfigKinds',
    summary: 'The active version of every config kind',
    tags: ['configs'],
    scope: 'configs:read',
    responses: {
      200: { description: 'Active configs by kind', schema: z.object({ data: z.array(z.object({ kind: z.enum(configKinds), active: activeSchema })) }) },
    },
    handler: async ({ principal, app }) =>
      reply.ok({
        data: await Promise.all(configKinds.map(async (kind) => ({ kind, active: toActive(await activeConfig(app.pool, principal.workspaceId, kind)) }))),
      }),
  }),
  platformRoute({
    method: 'get',
    path: '/v1/configs/{kind}',
    operationId: 'getConfigKind',
    summary: 'The active version of a kind and its history',
    tags: ['configs'],
    scope: 'configs:read',
    params: kindParams,
    responses: { 200: { description: 'Active version and history', schema: kindSchema }, 404: { description: 'Unknown kind' } },
    handler: async ({ params, principal, app }) => {
      const kind = kindOf(params.kind);
      const [active, history] = await Promise.all([activeConfig(app.pool, principal.workspaceId, kind), configHistory(app.pool, principal.workspaceId, kind)]);
      return reply.ok({ kind, active: toActive(active), versions: history.map(toHistoryEntry) });
    },
  }),
  platformRoute({
    method: 'post',
    path: '/v1/configs/{kind}/versions',
    operationId: 'createConfigVersion',
    summary: 'Create an immutable version (the body is the document); an identical document returns the existing version',
    description:
      'The version id is the SHA-256 of the canonical JSON (sorted keys). 201 when created, 200 when it already existed; 422 config_invalid with dot-path details.',
    tags: ['configs'],
    scope: 'configs:write',
    params: kindParams,
    body: z.record(z.string(), jsonValue('A setting of the config document, by kind'), { error: 'must be a JSON object (the config document)' }),
    invalidBody: { code: 'config_invalid', message: 'The config document is invalid' },
    responses: {
      201: { description: 'Created', schema: versionSchema.extend({ created: z.literal(true) }) },
      200: { description: 'Identical to an existing version', schema: versionSchema.extend({ created: z.literal(false) }) },
      404: { description: 'Unknown kind' },
      422: { description: 'The document fails schema or semantic validation (`config_invalid`)' },
    },
    handler: async ({ params, body, principal, app }) => {
      const { version, created } = await addConfigVersion(app, principal.workspaceId, actorOf(principal), kindOf(params.kind), body);
      return created ? reply.created({ ...toVersion(version), created: true }) : reply.ok({ ...toVersion(version), created: false });
    },
  }),
  platformRoute({
    method: 'get',
    path: '/v1/configs/{kind}/versions/{id}',
    operationId: 'getConfigVersion',
    summary: 'One version of a config kind',
    tags: ['configs'],
    scope: 'configs:read',
    params: versionParams,
    responses: { 200: { description: 'The version', schema: versionSchema }, 404: { description: 'Unknown kind or version' } },
    handler: async ({ params, principal, app }) => {
      const version = await findConfigVersion(app.pool, principal.workspaceId, kindOf(params.kind), params.id);
      if (!version) throw new AppError('not_found', 'Config version not found');
      return reply.ok(toVersion(version));
    },
  }),
  platformRoute({
    method: 'post',
    path: '/v1/configs/{kind}/versions/{id}/activate',
    operationId: 'activateConfigVersion',
    summary: 'Make a version the active one (it stays active until another is activated)',
    tags: ['configs'],
    scope: 'configs:write',
    params: versionParams,
    responses: { 200: { description: 'The kind with its new active version', schema: kindSchema }, 404: { description: 'Unknown kind or version' } },
    handler: async ({ params, principal, app }) => {
      const kind = kindOf(params.kind);
      const { active, history } = await activateConfigVersion(app, principal.workspaceId, actorOf(principal), kind, params.id);
      return reply.ok({ kind, active: toActive(active), versions: history.map(toHistoryEntry) });
    },
  }),
];
