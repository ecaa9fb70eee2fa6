/** What every stage receives besides its inputs: the run's identity, seed, as-of time and configs. */
import { createHash } from 'node:crypto';
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

/**
 * Provenance carried by every engine output, bounded whatever the number of issues behind it: how
 * many, a digest of their sorted ids (sha256 of the ids joined by newlines), and where to list them
 * (`/v1/issues?pattern_id=…` for a pattern's members, `/v1/issues/{id}` for one issue), never an
 * inline array of ids.
 */
export interface Provenance {
  run_id: string;
  stage: string;
  config_versions: Record<string, string>;
  issue_count: number;
  issue_digest: string;
  issues_url: string | null;
}

export const membersLink = (patternId: string) => `/v1/issues?pattern_id=${patternId}`;
export const issueLink = (issueId: string) => `/v1/issues/${issueId}`;

/** sha256 of the sorted ids, one per line: the same set of issues gives the same digest. */
export function issueDigest(issueIds: readonly string[]): string {
  return createHash('sha256')
    .update([...issueIds].sort().join('\n'))
    .digest('hex');
}

export function provenance(ctx: StageContext, stage: string, issueIds: readonly string[], issuesUrl: string | null): Provenance {
  const config_versions: Record<string, string> = {};
  for (const [kind, config] of Object.entries(ctx.configs)) config_versions[kind] = config.id;
  return { run_id: ctx.runId, stage, config_versions, issue_count: issueIds.length, issue_digest: issueDigest(issueIds), issues_url: issuesUrl };
}
