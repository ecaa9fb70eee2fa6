/**
 * Seeded, self-contained inputs of the engine tests: deterministic ids, stage contexts over the
 * shipped default configs (or hand-made ones), and snapshot inputs built from the synthetic
 * generator of fixtures/synthetic.ts (issues with known themes). Nothing here reads a clock, the
 * environment or a file, so the same call gives the same input in any process.
 */
import { createHash } from 'node:crypto';
import { generateIssues, type SyntheticIssue } from '../../fixtures/synthetic.ts';
import { configDefinitions, configKinds, type ConfigDocuments, type ConfigKind } from '../../engine/config/index.ts';
import type { ResolvedConfigs, StageContext } from '../../engine/stages/context.ts';
import type { PreviousPattern, SnapshotInput } from '../../engine/stages/01_snapshot.ts';

/** A UUID (v4 layout) derived from a label: the same label, the same id. */
export function testUuid(label: string): string {
  const h = createHash('sha256').update(label).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-${((parseInt(h[16], 16) & 0x3) | 0x8).toString(16)}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

export type ConfigOverrides = { [K in ConfigKind]?: Partial<ConfigDocuments[K]> };

/** Every config kind resolved to the shipped defaults (id `<kind>-default`), with overrides merged in. */
export function testConfigs(overrides: ConfigOverrides = {}): ResolvedConfigs {
  const out: Record<string, { id: string; document: unknown }> = {};
  for (const kind of configKinds) {
    const override = overrides[kind];
    out[kind] = { id: override ? `${kind}-test` : `${kind}-default`, document: { ...configDefinitions[kind].defaults, ...override } };
  }
  return out as ResolvedConfigs;
}

export const TEST_AS_OF = '2024-11-01T00:00:00.000Z';

export function testContext(options: { runId?: string; seed?: number; asOf?: string; configs?: ResolvedConfigs } = {}): StageContext {
  return {
    runId: options.runId ?? testUuid('run-1'),
    seed: options.seed ?? 42,
    asOf: options.asOf ?? TEST_AS_OF,
    configs: options.configs ?? testConfigs(),
  };
}

export interface SyntheticInput {
  input: SnapshotInput;
  generated: SyntheticIssue[];
  /** The true theme of each issue id. */
  themeOf: Map<string, string>;
}

/**
 * A snapshot input of `count` generated issues over the first `themeCount` themes. The generator
 * draws issue after issue from one seeded stream, so a larger `count` with the same seed extends the
 * same issues (the first `count` stay identical): "the data grew".
 */
export function syntheticInput(
  count: number,
  seed: number,
  themeCount: number,
  previous: { runId: string; patterns: PreviousPattern[] } | null = null,
): SyntheticInput {
  const generated = generateIssues(count, seed, themeCount);
  const issues = generated.map((g) => ({
    id: testUuid(g.external_id),
    title: g.title,
    narrative: g.narrative,
    severity: g.severity,
    source: 'synthetic',
    occurred_at: g.occurred_at,
    created_at: g.occurred_at,
  }));
  return {
    input: {
      workspace_id: testUuid('workspace'),
      event_sequence: count,
      previous_run_id: previous?.runId ?? null,
      issues,
      decisions: [],
      previous_patterns: previous?.patterns ?? [],
    },
    generated,
    themeOf: new Map(generated.map((g) => [testUuid(g.external_id), g.theme])),
  };
}
