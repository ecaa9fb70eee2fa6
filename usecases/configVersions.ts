/**
 * The config registry's writes: adding a version of a kind (validated by the kind's schema and
 * rules in engine/config; an identical document answers the existing version) and activating one.
 * Both are events of the workspace, committed with the change.
 */
import type { AppContext } from '../lib/context.ts';
import { AppError } from '../lib/errors.ts';
import { validateConfig, type ConfigKind } from '../engine/config/index.ts';
import * as configs from '../sql/configs.ts';
import { withEventBatch, type Actor } from '../sql/events.ts';

/** 422 `config_invalid` with dot-path details when the document fails the kind's validation. */
export async function addConfigVersion(
  app: AppContext,
  workspaceId: string,
  actor: Actor,
  kind: ConfigKind,
  document: unknown,
): Promise<{ version: configs.ConfigVersionRow; created: boolean }> {
  const checked = validateConfig(kind, document);
  if (!checked.ok) throw new AppError('config_invalid', `The ${kind} document is invalid`, checked.details);
  return withEventBatch(app.pool, workspaceId, (client, events) => configs.createConfigVersion(client, events, kind, checked.value, actor));
}

/** Makes the version the kind's active one; answers the kind's active version and history after the change. */
export async function activateConfigVersion(
  app: AppContext,
  workspaceId: string,
  actor: Actor,
  kind: ConfigKind,
  id: string,
): Promise<{ active: configs.ActiveConfig; history: configs.ConfigVersionRow[] }> {
  return withEventBatch(app.pool, workspaceId, async (client, events) => {
    const version = await configs.findConfigVersion(client, workspaceId, kind, id);
    if (!version) throw new AppError('not_found', 'Config version not found');
    await configs.activateConfigVersion(client, events, kind, version.id, actor);
    const history = await configs.configHistory(client, workspaceId, kind);
    return { active: await configs.activeConfig(client, workspaceId, kind), history };
  });
}
