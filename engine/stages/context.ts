/** What every stage receives besides its inputs: the run's identity, seed, as-of time and configs. */
import type { ConfigDocuments, ConfigKind } from '../config/index.ts';

export interface ResolvedConfig<K extends ConfigKind> {
  id: string;
  document: ConfigDocuments[K];
}

export type ResolvedConfigs = { [K in ConfigKind]: ResolvedConfig<K> };

export interface StageContext {
  runId: string;
  seed: number;
  /** ISO timestamp: the run's "now" (no clock reads inside the engine). */
  asOf: string;
  configs: ResolvedConfigs;
}

/** Provenance carried by every engine output. */
export interface Provenance {
  run_id: string;
  stage: string;
  config_versions: Record<string, string>;
  issue_ids: string[];
}

export function provenance(ctx: StageContext, stage: string, issueIds: string[]): Provenance {
  const config_versions: Record<string, string> = {};
  for (const [kind, config] of Object.entries(ctx.configs)) config_versions[kind] = config.id;
  return { run_id: ctx.runId, stage, config_versions, issue_ids: issueIds };
}
