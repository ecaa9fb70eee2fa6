/**
 * Hashed TF-IDF of engine stage 4: unigrams (title tokens weighted `titleWeight`) plus adjacent-token
 * bigrams (weight `bigramWeight`) hashed into `dimensions` features; sublinear tf (1 + ln tf) times
 * smoothed idf ln((1 + N) / (1 + df)) + 1; features in fewer than `minDf` documents or more than
 * `maxDfShare` of them dropped; rows L2-normalised.
 */
import type { CsrMatrix } from '../cluster/sparse.ts';
import { fnv1a } from './hashing.ts';

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
}

/** Documents as interned token ids (the columns of engine stage 2): doc i's tokens are ids[offsets[i] .. offsets[i+1]). */
export interface TokenIdColumn {
  offsets: Uint32Array;
  ids: Uint32Array;
}

export interface TokenIdDocuments {
  /** Distinct strings: equal ids ⇔ equal tokens. */
  vocabulary: readonly string[];
  title: TokenIdColumn;
  body: TokenIdColumn;
}

export function tfidf(docs: TfidfInput[], options: TfidfOptions): TfidfResult {
  const vocabulary: string[] = [];
  const index = new Map<string, number>();
  const column = (pick: (d: TfidfInput) => string[]): TokenIdColumn => {
    const offsets = new Uint32Array(docs.length + 1);
    const ids: number[] = [];
    docs.forEach((doc, i) => {
      for (const token of pick(doc)) {
        let id = index.get(token);
        if (id === undefined) {
          id = vocabulary.length;
          vocabulary.push(token);
          index.set(token, id);
        }
        ids.push(id);
      }
      offsets[i + 1] = ids.length;
    });
    return { offsets, ids: Uint32Array.from(ids) };
  };
  const title = column((d) => d.title);
  const body = column((d) => d.body);
  return tfidfOfTokenIds({ vocabulary, title, body }, options);
}

const NO_FEATURE = 0xffffffff;

/** Each distinct token's FNV-1a state (to continue into bigrams) and its unigram feature. */
export function termHashes(words: readonly string[], dims: number): { state: Uint32Array; unigram: Uint32Array } {
  const state = new Uint32Array(words.length);
  const unigram = new Uint32Array(words.length);
  for (let t = 0; t < words.length; t++) {
    state[t] = fnv1a(words[t]);
    unigram[t] = state[t] % dims;
  }
  return { state, unigram };
}

/** The feature of the bigram `a b` from a's FNV-1a state: fnv1a(`${a} ${b}`) % dims without building the string. */
export function bigramFeature(stateOfA: number, b: string, dims: number): number {
  let h = stateOfA;
  h ^= 32; // the space between the two tokens
  h = Math.imul(h, 0x01000193);
  for (let k = 0; k < b.length; k++) {
    h ^= b.charCodeAt(k);
    h = Math.imul(h, 0x01000193);
  }
  return (h >>> 0) % dims;
}

/**
 * `tfidf` over interned token ids, on typed arrays: each distinct token is hashed once, a bigram's
 * hash continues FNV-1a from its first token's state (fnv1a(`${a} ${b}`) without building the
 * string), and documents accumulate into one dense scratch row. Same features and weights as hashing
 * the strings one by one. A feature has no name here: engine stage 7 names it from a pattern's members.
 */
export function tfidfOfTokenIds(docs: TokenIdDocuments, options: TfidfOptions): TfidfResult {
  const o: Required<TfidfOptions> = { titleWeight: 2, bigramWeight: 0.5, minDf: 2, maxDfShare: 0.5, ...options };
  const dims = o.dimensions;
  const words = docs.vocabulary;
  const n = docs.title.offsets.length - 1;
  const { state, unigram } = termHashes(words, dims);
  const columns = [docs.title, docs.body];
  const weights = [o.titleWeight, 1];
  const withBigrams = o.bigramWeight > 0;
  // The bigram feature ending at each token position (NO_FEATURE where there is none).
  const bigram = columns.map((c) => new Uint32Array(c.ids.length));
  const df = new Uint32Array(dims);
  const lastDoc = new Int32Array(dims).fill(-1);
  for (let i = 0; i < n; i++) {
    for (let c = 0; c < 2; c++) {
      const { offsets, ids } = columns[c];
      const bigrams = bigram[c];
      for (let p = offsets[i]; p < offsets[i + 1]; p++) {
        const id = ids[p];
        const f = unigram[id];
        if (lastDoc[f] !== i) {
          lastDoc[f] = i;
          df[f]++;
        }
        bigrams[p] = NO_FEATURE;
        if (p > offsets[i] && withBigrams) {
          const prev = ids[p - 1];
          if (prev !== id && words[prev] !== words[id]) {
            const g = bigramFeature(state[prev], words[id], dims);
            bigrams[p] = g;
            if (lastDoc[g] !== i) {
              lastDoc[g] = i;
              df[g]++;
            }
          }
        }
      }
    }
  }
  const maxDf = Math.max(o.minDf, Math.floor(o.maxDfShare * n));
  const idf = new Float32Array(dims);
  for (let f = 0; f < dims; f++) {
    if (df[f] >= o.minDf && df[f] <= maxDf) idf[f] = Math.fround(Math.log((1 + n) / (1 + df[f])) + 1);
  }

  // Per document: its kept features (sorted) with their summed weights, in the dense scratch row.
  const counts = new Float64Array(dims);
  const mark = lastDoc.fill(-1);
  let touched = new Uint32Array(64);
  const gather = (i: number): number => {
    let m = 0;
    const touch = (f: number, w: number) => {
      if (idf[f] === 0) return;
      if (mark[f] !== i) {
        mark[f] = i;
        counts[f] = 0;
        if (m === touched.length) {
          const grown = new Uint32Array(touched.length * 2);
          grown.set(touched);
          touched = grown;
        }
        touched[m++] = f;
      }
      counts[f] += w;
    };
    for (let c = 0; c < 2; c++) {
      const { offsets, ids } = columns[c];
      const bigrams = bigram[c];
      const weight = weights[c];
      for (let p = offsets[i]; p < offsets[i + 1]; p++) {
        touch(unigram[ids[p]], weight);
        if (bigrams[p] !== NO_FEATURE) touch(bigrams[p], weight * o.bigramWeight);
      }
    }
    return m;
  };
  const rowPtr = new Uint32Array(n + 1);
  for (let i = 0; i < n; i++) rowPtr[i + 1] = rowPtr[i] + gather(i);
  const nnz = rowPtr[n];
  const colIdx = new Uint32Array(nnz);
  const values = new Float32Array(nnz);
  mark.fill(-1);
  for (let i = 0; i < n; i++) {
    const m = gather(i);
    const features = touched.subarray(0, m).sort();
    let p = rowPtr[i];
    let norm = 0;
    for (let q = 0; q < m; q++) {
      const f = features[q];
      const w = (1 + Math.log(counts[f])) * idf[f];
      colIdx[p] = f;
      values[p] = w;
      norm += w * w;
      p++;
    }
    const inv = norm > 0 ? 1 / Math.sqrt(norm) : 0;
    for (let q = rowPtr[i]; q < p; q++) values[q] = Math.fround(values[q] * inv);
  }
  return { matrix: { rows: n, cols: dims, rowPtr, colIdx, values }, idf };
}
