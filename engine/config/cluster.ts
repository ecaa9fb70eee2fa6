/**
 * cluster: the text features, k-means search and stability check of engine stages 4-7.
 * Bootstrap Jaccard thresholds follow Hennig's clusterboot: below 0.6 a cluster is not trusted,
 * 0.75 and above it is stable.
 */
import { z } from 'zod';

export const clusterSchema = z.strictObject({
  seed: z
    .number()
    .int()
    .min(0)
    .max(2 ** 31 - 1),
  hash_dimensions: z
    .number()
    .int()
    .min(256)
    .max(1 << 20),
  reduced_dimensions: z.number().int().min(8).max(512),
  k_min: z.number().int().min(2).max(1000),
  k_max: z.number().int().min(2).max(2000),
  max_iterations: z.number().int().min(5).max(1000),
  sample_size: z.number().int().min(100).max(100_000),
  min_cluster_size: z.number().int().min(2).max(10_000),
  outlier_quantile: z.number().min(0.5).max(1),
  bootstrap_samples: z.number().int().min(0).max(100),
  unstable_below: z.number().min(0).max(1),
  stable_at: z.number().min(0).max(1),
  /**
   * Unused since issue 31 (identity is decided by members' votes, engine/cluster/identity.ts). Kept in
   * the schema and the shipped default: removing it would change the default's content-addressed
   * version id, and runs that used the old default resolve their config by that id
   * (sql/engineRuns.ts), as would every stored version that carries it under the strict schema.
   */
  match_threshold: z.number().min(0).max(1).describe('Unused since issue 31 (pattern identity is decided by member votes); accepted for compatibility'),
});
export type ClusterConfig = z.infer<typeof clusterSchema>;

export function checkCluster(doc: ClusterConfig, issue: (path: string, message: string) => void): void {
  if (doc.k_max < doc.k_min) issue('k_max', 'must be at least k_min');
  if (doc.reduced_dimensions > doc.hash_dimensions) issue('reduced_dimensions', 'must not exceed hash_dimensions');
  if (doc.stable_at < doc.unstable_below) issue('stable_at', 'must be at least unstable_below');
}

export const defaultCluster: ClusterConfig = {
  seed: 20_261_121,
  hash_dimensions: 1 << 15,
  reduced_dimensions: 20,
  k_min: 2,
  k_max: 150,
  max_iterations: 100,
  sample_size: 3000,
  min_cluster_size: 3,
  outlier_quantile: 0.99,
  bootstrap_samples: 10,
  unstable_below: 0.6,
  stable_at: 0.75,
  match_threshold: 0.5,
};
