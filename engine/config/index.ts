/**
 * The config registry's kinds: schema, semantic checks and shipped defaults of each. A workspace
 * that never posted a config runs on the defaults.
 */
import type { z } from 'zod';
import { checkCluster, clusterSchema, defaultCluster, type ClusterConfig } from './cluster.ts';
import { checkHazard, defaultHazard, hazardSchema, type HazardConfig } from './hazard.ts';
import { checkRateCard, defaultRateCard, rateCardSchema, type RateCardConfig } from './rateCard.ts';
import { checkRubric, defaultRubric, rubricSchema, type RubricConfig } from './rubric.ts';
import { checkTaxonomy, defaultTaxonomy, taxonomySchema, type TaxonomyConfig } from './taxonomy.ts';

export const configKinds = ['rubric', 'cluster', 'hazard', 'rate-card', 'taxonomy'] as const;
export type ConfigKind = (typeof configKinds)[number];

export interface ConfigDocuments {
  rubric: RubricConfig;
  cluster: ClusterConfig;
  hazard: HazardConfig;
  'rate-card': RateCardConfig;
  taxonomy: TaxonomyConfig;
}

interface KindDefinition<T> {
  schema: z.ZodType<T>;
  check(doc: T, issue: (path: string, message: string) => void): void;
  defaults: T;
}

export const configDefinitions: { [K in ConfigKind]: KindDefinition<ConfigDocuments[K]> } = {
  rubric: { schema: rubricSchema, check: checkRubric, defaults: defaultRubric },
  cluster: { schema: clusterSchema, check: checkCluster, defaults: defaultCluster },
  hazard: { schema: hazardSchema, check: checkHazard, defaults: defaultHazard },
  'rate-card': { schema: rateCardSchema, check: checkRateCard, defaults: defaultRateCard },
  taxonomy: { schema: taxonomySchema, check: checkTaxonomy, defaults: defaultTaxonomy },
};

export const isConfigKind = (value: string): value is ConfigKind => (configKinds as readonly string[]).includes(value);

/** Validates a document of `kind`: the schema first, then the semantic checks; problems keyed by dot-path. */
export function validateConfig<K extends ConfigKind>(
  kind: K,
  document: unknown,
): { ok: true; value: ConfigDocuments[K] } | { ok: false; details: Record<string, string> } {
  const definition = configDefinitions[kind] as KindDefinition<ConfigDocuments[K]>;
  const parsed = definition.schema.safeParse(document);
  const details: Record<string, string> = {};
  if (!parsed.success) {
    for (const i of parsed.error.issues) {
      // An unknown key is reported at its own path, not at the object that holds it.
      const paths = i.code === 'unrecognized_keys' ? i.keys.map((key) => [...i.path, key]) : [i.path];
      for (const path of paths) details[path.map(String).join('.') || 'document'] ??= i.code === 'unrecognized_keys' ? 'is not a known field' : i.message;
    }
    return { ok: false, details };
  }
  definition.check(parsed.data, (path, message) => {
    details[path] ??= message;
  });
  return Object.keys(details).length ? { ok: false, details } : { ok: true, value: parsed.data };
}
