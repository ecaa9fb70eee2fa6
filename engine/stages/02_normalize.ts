/**
 * Stage 2, normalize: every issue's title and narrative masked (volatile tokens), lowercased,
 * tokenised, stop words removed and stemmed (engine/text/normalize.ts). Tokens are interned in one
 * vocabulary so that 100 000 issues stay small in memory and in storage. Beside them, the narrative's
 * template tokens (engine/text/templateTokens.ts: white-space split, case kept, digits and paths
 * masked) for the template miner of stage 5, in a vocabulary of their own; a narrative of more than
 * TEMPLATE_TOKEN_LIMIT tokens keeps only its length (such a text is prose, not a printed template).
 * And the structured features of each report (exception classes, stack frames, components, error codes;
 * engine/text/features.ts) in a vocabulary of their own, for the report similarity stage 7 places
 * reports with (issue 31).
 */
import { normalizeText } from '../text/normalize.ts';
import { templateTokens, WILDCARD } from '../text/templateTokens.ts';
import { structuredFeatures } from '../text/features.ts';
import type { TokenIdColumn } from '../text/tfidf.ts';
import type { StageContext } from './context.ts';
import type { SnapshotOutput } from './01_snapshot.ts';

export interface NormalizeOutput {
  issue_ids: string[];
  vocabulary: string[];
  /** Document i's tokens are ids[offsets[i] .. offsets[i+1]) into `vocabulary`. */
  title: TokenIdColumn;
  body: TokenIdColumn;
  /** Masked, lowercased text (stop words kept) for phrase matching in extraction. */
  title_text: string[];
  body_text: string[];
  template_vocabulary: string[];
  /** The narrative's template tokens, ids into `template_vocabulary` (none when longer than the limit). */
  template: TokenIdColumn;
  /** The narrative's number of template tokens (also when longer than the limit). */
  template_length: Uint32Array;
  /** Structured features of title and narrative (engine/text/features.ts: `kind:value`), ids into `feature_vocabulary`. */
  features?: TokenIdColumn;
  feature_vocabulary?: string[];
}

/** Log lines, alerts and monitor messages are short; a narrative longer than this is not mined. */
export const TEMPLATE_TOKEN_LIMIT = 64;

export function tokensOf(column: TokenIdColumn, vocabulary: string[], doc: number): string[] {
  const out: string[] = [];
  for (let p = column.offsets[doc]; p < column.offsets[doc + 1]; p++) out.push(vocabulary[column.ids[p]]);
  return out;
}

export function normalize(input: { snapshot: SnapshotOutput }, _ctx: StageContext): NormalizeOutput {
  const { issues } = input.snapshot;
  const { vocabulary, intern } = interner();
  const templateVocabulary = interner();
  const title = columnBuilder(issues.length);
  const body = columnBuilder(issues.length);
  const title_text: string[] = [];
  const body_text: string[] = [];
  const template = columnBuilder(issues.length);
  const template_length = new Uint32Array(issues.length);
  const featureVocabulary = interner();
  const features = columnBuilder(issues.length);
  issues.forEach((issue, i) => {
    const t = normalizeText(issue.title);
    title_text.push(t.text);
    title.add(i, t.tokens, intern);
    const b = normalizeText(issue.narrative);
    body_text.push(b.text);
    body.add(i, b.tokens, intern);
    const m = templateTokens(issue.narrative, TEMPLATE_TOKEN_LIMIT);
    template.add(i, m.tokens, templateVocabulary.intern);
    template_length[i] = m.length;
    features.add(i, structuredFeatures(issue.title, issue.narrative), featureVocabulary.intern);
  });
  return {
    issue_ids: issues.map((i) => i.id),
    vocabulary,
    title: title.done(),
    body: body.done(),
    title_text,
    body_text,
    template_vocabulary: templateVocabulary.vocabulary,
    template: template.done(),
    template_length,
    features: features.done(),
    feature_vocabulary: featureVocabulary.vocabulary,
  };
}

/**
 * The template tokens of `texts` as stage 2 builds them (engine/text/templateTokens.ts, interned in one
 * vocabulary), for the miner run on its own (tests, benchmarks): the column, the vocabulary and the
 * wildcard's id.
 */
export function templateColumn(texts: string[], limit = TEMPLATE_TOKEN_LIMIT): { column: TokenIdColumn; vocabulary: string[]; wildcard: number } {
  const { vocabulary, intern } = interner();
  const wildcard = intern(WILDCARD);
  const column = columnBuilder(texts.length);
  texts.forEach((text, i) => column.add(i, templateTokens(text, limit).tokens, intern));
  return { column: column.done(), vocabulary, wildcard };
}

function interner() {
  const vocabulary: string[] = [];
  const index = new Map<string, number>();
  const intern = (token: string) => {
    let id = index.get(token);
    if (id === undefined) {
      id = vocabulary.length;
      vocabulary.push(token);
      index.set(token, id);
    }
    return id;
  };
  return { vocabulary, intern };
}

/** A token column filled document by document into a growing typed array (100,000 issues hold millions of tokens). */
function columnBuilder(documents: number) {
  const offsets = new Uint32Array(documents + 1);
  let ids = new Uint32Array(1 << 16);
  let length = 0;
  return {
    add(doc: number, tokens: string[], intern: (token: string) => number) {
      if (length + tokens.length > ids.length) {
        const grown = new Uint32Array(Math.max(ids.length * 2, length + tokens.length));
        grown.set(ids.subarray(0, length));
        ids = grown;
      }
      for (const token of tokens) ids[length++] = intern(token);
      offsets[doc + 1] = length;
    },
    done: (): TokenIdColumn => ({ offsets, ids: ids.slice(0, length) }),
  };
}
