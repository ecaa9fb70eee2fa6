/**
 * Stage 5, cluster: two paths, decided per source from a measurable property of its narratives.
 *
 * Templated path: machine text (log lines, alerts, monitor messages) is printed by templates. The
 * source's narratives are mined (engine/cluster/templateMiner.ts) when at least half of them are short
 * (at most TEMPLATE_TOKEN_LIMIT tokens); the source is templated when at least half of its short
 * narratives share their template with another issue (template coverage ≥ 0.5). Its short issues are
 * grouped by template: a template printed at least twice is a cluster (labels k, k + 1, …, no
 * centroid); a line printed once stays unclustered. Prose reports almost never repeat a whole text
 * shape, so their coverage stays near 0 whatever their length. A source of more than DECISION_SAMPLE
 * short narratives is decided on an evenly spaced sample of that size, and mined in full only when
 * templated. Each source's decision and its figures
 * are in `paths` (the run's provenance of the decision). The short narratives are read in their line
 * order (engine/cluster/readingOrder.ts: by a digest of the template tokens), not the snapshot's: the
 * sample, the template numbering and the miner's first-match folds go by position, so the same lines at
 * other times are mined the same (issue 31, session 16).
 *
 * Prose path: spherical k-means over the embedding with k chosen automatically (silhouette on
 * a sample, engine/cluster/selectK.ts), then Lloyd iterations over all issues from the sample's
 * centroids. Issues far from every centroid (the least similar `1 - outlier_quantile` share) and the
 * members of clusters smaller than `min_cluster_size` stay unclustered (label -1). The prose issues are
 * read in their reading order (engine/cluster/readingOrder.ts: by a digest of title and narrative), not
 * the snapshot's, and the result mapped back: the sample and the seeding pick rows by position, so the
 * same reports in another snapshot order get the same clustering (issue 31, session 15).
 */
import { createRng, deriveSeed, sampleIndices } from '../rng.ts';
import { lloyd, rowsOf, type Dense } from '../cluster/kmeans.ts';
import { lineOrder, readingOrder } from '../cluster/readingOrder.ts';
import { selectK } from '../cluster/selectK.ts';
import { round } from '../round.ts';
import { defaultMinerOptions, mineTemplates } from '../cluster/templateMiner.ts';
import { WILDCARD } from '../text/templateTokens.ts';
import type { StageContext } from './context.ts';
import type { SnapshotOutput } from './01_snapshot.ts';
import { TEMPLATE_TOKEN_LIMIT, type NormalizeOutput } from './02_normalize.ts';
import type { VectorizeOutput } from './04_vectorize.ts';

export interface PathDecision {
  source: string;
  path: 'templated' | 'prose';
  issues: number;
  /** Share of the source's narratives of at most TEMPLATE_TOKEN_LIMIT tokens. */
  short_share: number;
  /** Share of the short narratives whose template another issue of the source shares. */
  template_coverage: number;
  templates: number;
}

export interface MinedTemplate {
  label: number;
  source: string;
  /** The template with `<*>` at its variable positions. */
  text: string;
  size: number;
}

const MIN_SHORT_SHARE = 0.5;
const MIN_TEMPLATE_COVERAGE = 0.5;
const DECISION_SAMPLE = 4000;

export interface ClusterOutput {
  k: number;
  labels: Int32Array;
  /** Cosine similarity of each issue to its cluster's centroid. */
  similarity: Float32Array;
  /** k × dimensions, unit rows. */
  centroids: Float32Array;
  /** Indices of the issues in the selection sample, increasing. */
  sample: Uint32Array;
  /**
   * The issues (snapshot indices) in the order clustering read them (engine/cluster/readingOrder.ts):
   * the prose issues in their reading order (stage 6 reads them so too), then the templated ones in
   * their line order, source by source. Stage 7's ties go to the earlier issue in it.
   */
  order: Uint32Array;
  selection: Array<{ k: number; silhouette: number }>;
  outlier_similarity: number;
  unclustered: number;
  /** 1 where the issue took the templated path. */
  templated: Uint8Array;
  paths: PathDecision[];
  /** The mined templates printed at least twice: labels k … k + templates.length - 1. */
  templates: MinedTemplate[];
}

const SELECTION_RESTARTS = 3;
const SILHOUETTE_SAMPLE = 1000;

export function denseOf(v: VectorizeOutput): Dense {
  return { n: v.issue_ids.length, d: v.dimensions, data: Float64Array.from(v.embedding) };
}

/** Per source: the path, and for a templated source its mined templates (issue indices per template). */
function decidePaths(snapshot: SnapshotOutput, norm: NormalizeOutput) {
  const bySource = new Map<string, number[]>();
  snapshot.issues.forEach((issue, i) => {
    const list = bySource.get(issue.source);
    if (list) list.push(i);
    else bySource.set(issue.source, [i]);
  });
  const wildcard = norm.template_vocabulary.indexOf(WILDCARD);
  const decisions: PathDecision[] = [];
  const groups: Array<{ source: string; text: string; members: number[] }> = [];
  const templated = new Uint8Array(snapshot.issues.length);
  // The templated issues in the order the miner read them.
  const lines: number[] = [];
  for (const [source, members] of [...bySource.entries()].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))) {
    let short = members.filter((i) => norm.template_length[i] > 0 && norm.template_length[i] <= TEMPLATE_TOKEN_LIMIT);
    const shortShare = short.length / members.length;
    let coverage = 0;
    let mined: ReturnType<typeof mineTemplates> | null = null;
    if (short.length >= 2 && shortShare >= MIN_SHORT_SHARE) {
      // The short narratives in their line order (engine/cluster/readingOrder.ts), not the snapshot's: the
      // decision sample and the miner (its template numbering, its first-match folds) read them by position.
      short = lineOrder(norm.issue_ids, norm.template, norm.template_vocabulary, short);
      // A large source is decided on an evenly spaced sample (a prose feed is not mined in full for nothing).
      const step = Math.max(1, Math.floor(short.length / DECISION_SAMPLE));
      const sample = step === 1 ? short : short.filter((_, j) => j % step === 0);
      const probe = mineTemplates(norm.template, sample, wildcard, defaultMinerOptions, norm.template_vocabulary);
      let covered = 0;
      for (const t of probe.templates) if (t.size >= 2) covered += t.size;
      coverage = covered / sample.length;
      if (coverage >= MIN_TEMPLATE_COVERAGE)
        mined = step === 1 ? probe : mineTemplates(norm.template, short, wildcard, defaultMinerOptions, norm.template_vocabulary);
    }
    const isTemplated = mined !== null;
    decisions.push({
      source,
      path: isTemplated ? 'templated' : 'prose',
      issues: members.length,
      short_share: round(shortShare),
      template_coverage: round(coverage),
      templates: mined?.templates.length ?? 0,
    });
    if (!isTemplated) continue;
    const perTemplate = mined!.templates.map(() => [] as number[]);
    short.forEach((i, j) => {
      lines.push(i);
      templated[i] = 1;
      perTemplate[mined!.templateOf[j]].push(i);
    });
    mined!.templates.forEach((t, index) => {
      if (t.size >= 2) groups.push({ source, text: Array.from(t.tokens, (id) => norm.template_vocabulary[id]).join(' '), members: perTemplate[index] });
    });
  }
  return { decisions, groups, templated, lines };
}

export function cluster(input: { snapshot: SnapshotOutput; normalize: NormalizeOutput; vectorize: VectorizeOutput }, ctx: StageContext): ClusterOutput {
  const paths = decidePaths(input.snapshot, input.normalize);
  const unmined: number[] = [];
  for (let i = 0; i < paths.templated.length; i++) if (!paths.templated[i]) unmined.push(i);
  // Row j of the clustering is issue prose[j]: the reading order, whatever the snapshot's.
  const prose = readingOrder(input.snapshot.issues, unmined);
  const all = denseOf(input.vectorize);
  const x = rowsOf(all, prose);
  const out = clusterProse(x, ctx);
  // Back to issue positions; template groups after the k-means clusters.
  const labels = new Int32Array(all.n).fill(-1);
  const similarity = new Float32Array(all.n);
  prose.forEach((i, j) => {
    labels[i] = out.labels[j];
    similarity[i] = out.similarity[j];
  });
  const templates: MinedTemplate[] = paths.groups.map((g, t) => {
    for (const i of g.members) {
      labels[i] = out.k + t;
      similarity[i] = 1;
    }
    return { label: out.k + t, source: g.source, text: g.text, size: g.members.length };
  });
  return {
    ...out,
    labels,
    similarity,
    sample: Uint32Array.from(out.sample, (j) => prose[j]).sort(),
    order: Uint32Array.from(prose.concat(paths.lines)),
    unclustered: labels.reduce((u, l) => u + (l < 0 ? 1 : 0), 0),
    templated: paths.templated,
    paths: paths.decisions,
    templates,
  };
}

type ProseClusters = Omit<ClusterOutput, 'templated' | 'paths' | 'templates' | 'order'>;

function clusterProse(x: Dense, ctx: StageContext): ProseClusters {
  const cfg = ctx.configs.cluster.document;
  const none: ProseClusters = {
    k: 0,
    labels: new Int32Array(x.n).fill(-1),
    similarity: new Float32Array(x.n),
    centroids: new Float32Array(0),
    sample: new Uint32Array(0),
    selection: [],
    outlier_similarity: 1,
    unclustered: x.n,
  };
  if (x.d === 0 || x.n < Math.max(2 * cfg.k_min, 2 * cfg.min_cluster_size)) return none;

  const seed = deriveSeed(ctx.seed, 'cluster');
  const sampleIdx = sampleIndices(createRng(seed), x.n, cfg.sample_size);
  const sample = rowsOf(x, sampleIdx);
  const kMax = Math.min(cfg.k_max, Math.floor(sample.n / cfg.min_cluster_size));
  if (kMax < cfg.k_min) return none;
  const selection = selectK(sample, {
    kMin: cfg.k_min,
    kMax,
    seed,
    restarts: SELECTION_RESTARTS,
    maxIterations: cfg.max_iterations,
    silhouetteSample: SILHOUETTE_SAMPLE,
  });
  const full = sample.n === x.n ? selection.assignment : lloyd(x, selection.assignment.centroids, selection.k, cfg.max_iterations, 0.001);

  // Far from every centroid: below the (1 - outlier_quantile) quantile of all similarities.
  const sorted = Float64Array.from(full.similarity).sort();
  const outlierSimilarity = sorted[Math.floor((1 - cfg.outlier_quantile) * (sorted.length - 1))];
  const labels = Int32Array.from(full.labels);
  for (let i = 0; i < x.n; i++) if (full.similarity[i] < outlierSimilarity) labels[i] = -1;
  const sizes = new Int32Array(selection.k);
  for (const l of labels) if (l >= 0) sizes[l]++;
  for (let i = 0; i < x.n; i++) if (labels[i] >= 0 && sizes[labels[i]] < cfg.min_cluster_size) labels[i] = -1;

  return {
    k: selection.k,
    labels,
    similarity: Float32Array.from(full.similarity),
    centroids: Float32Array.from(full.centroids),
    sample: Uint32Array.from(sampleIdx),
    selection: selection.scores,
    outlier_similarity: round(outlierSimilarity, 9),
    unclustered: labels.reduce((u, l) => u + (l < 0 ? 1 : 0), 0),
  };
}
