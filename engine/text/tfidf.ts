/**
 * Hashed TF-IDF of engine stage 4: unigrams (title tokens weighted `titleWeight`) plus adjacent-token
 * bigrams (weight `bigramWeight`) hashed into `dimensions` features; sublinear tf (1 + ln tf) times
 * smoothed idf ln((1 + N) / (1 + df)) + 1; features in fewer than `minDf` documents or more than
 * `maxDfShare` of them dropped; rows L2-normalised.
 */
import type { CsrMatrix } from '../cluster/sparse.ts';
import { featureIndex } from './hashing.ts';

export interface TfidfInput {
  title: string[];
  body: string[];
}

export interface TfidfOptions {
  dimensions: number;
  titleWeight?: number;
  bigramWeight?: number;
  minDf?: number;
  maxDfShare?: number;
}

export interface TfidfResult {
  matrix: CsrMatrix;
  idf: Float32Array;
  /** A readable token for each used feature (the first seen), for naming patterns. */
  vocabulary: Map<number, string>;
}

function documentFeatures(doc: TfidfInput, o: Required<TfidfOptions>, vocabulary: Map<number, string>): Map<number, number> {
  const counts = new Map<number, number>();
  const add = (token: string, weight: number) => {
    const f = featureIndex(token, o.dimensions);
    counts.set(f, (counts.get(f) ?? 0) + weight);
    if (!vocabulary.has(f)) vocabulary.set(f, token);
  };
  for (const [tokens, weight] of [[doc.title, o.titleWeight], [doc.body, 1]] as const) {
    for (let i = 0; i < tokens.length; i++) {
      add(tokens[i], weight);
      if (i > 0 && o.bigramWeight > 0 && tokens[i - 1] !== tokens[i]) add(`${tokens[i - 1]} ${tokens[i]}`, weight * o.bigramWeight);
    }
  }
  return counts;
}

export function tfidf(docs: TfidfInput[], options: TfidfOptions): TfidfResult {
  const o: Required<TfidfOptions> = { titleWeight: 2, bigramWeight: 0.5, minDf: 2, maxDfShare: 0.5, ...options };
  const vocabulary = new Map<number, string>();
  const perDoc = docs.map((doc) => documentFeatures(doc, o, vocabulary));
  const df = new Uint32Array(o.dimensions);
  for (const counts of perDoc) for (const f of counts.keys()) df[f]++;
  const n = docs.length;
  const maxDf = Math.max(o.minDf, Math.floor(o.maxDfShare * n));
  const idf = new Float32Array(o.dimensions);
  for (let f = 0; f < o.dimensions; f++) {
    if (df[f] >= o.minDf && df[f] <= maxDf) idf[f] = Math.fround(Math.log((1 + n) / (1 + df[f])) + 1);
  }
  let nnz = 0;
  for (const counts of perDoc) for (const f of counts.keys()) if (idf[f] > 0) nnz++;
  const rowPtr = new Uint32Array(n + 1);
  const colIdx = new Uint32Array(nnz);
  const values = new Float32Array(nnz);
  let p = 0;
  perDoc.forEach((counts, i) => {
    const features = [...counts.keys()].filter((f) => idf[f] > 0).sort((a, b) => a - b);
    let norm = 0;
    const start = p;
    for (const f of features) {
      const w = (1 + Math.log(counts.get(f)!)) * idf[f];
      colIdx[p] = f;
      values[p] = w;
      norm += w * w;
      p++;
    }
    const inv = norm > 0 ? 1 / Math.sqrt(norm) : 0;
    for (let q = start; q < p; q++) values[q] = Math.fround(values[q] * inv);
    rowPtr[i + 1] = p;
  });
  for (const f of [...vocabulary.keys()]) if (idf[f] === 0) vocabulary.delete(f);
  return { matrix: { rows: n, cols: o.dimensions, rowPtr, colIdx, values }, idf, vocabulary };
}
