/**
 * Stage 2, normalize: every issue's title and narrative masked (volatile tokens), lowercased,
 * tokenised, stop words removed and stemmed (engine/text/normalize.ts). Tokens are interned in one
 * vocabulary so that 100 000 issues stay small in memory and in storage.
 */
import { normalizeText } from '../text/normalize.ts';
import type { StageContext } from './context.ts';
import type { SnapshotOutput } from './01_snapshot.ts';

export interface TokenColumn {
  /** Document i's tokens are ids[offsets[i] .. offsets[i+1]) into the shared vocabulary. */
  offsets: Uint32Array;
  ids: Uint32Array;
}

export interface NormalizeOutput {
  issue_ids: string[];
  vocabulary: string[];
  title: TokenColumn;
  body: TokenColumn;
  /** Masked, lowercased text (stop words kept) for phrase matching in extraction. */
  title_text: string[];
  body_text: string[];
}

export function tokensOf(column: TokenColumn, vocabulary: string[], doc: number): string[] {
  const out: string[] = [];
  for (let p = column.offsets[doc]; p < column.offsets[doc + 1]; p++) out.push(vocabulary[column.ids[p]]);
  return out;
}

export function normalize(input: { snapshot: SnapshotOutput }, _ctx: StageContext): NormalizeOutput {
  const { issues } = input.snapshot;
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
  const columns = { title: { offsets: new Uint32Array(issues.length + 1), ids: [] as number[] }, body: { offsets: new Uint32Array(issues.length + 1), ids: [] as number[] } };
  const title_text: string[] = [];
  const body_text: string[] = [];
  issues.forEach((issue, i) => {
    for (const [name, raw, texts] of [['title', issue.title, title_text], ['body', issue.narrative, body_text]] as const) {
      const normalized = normalizeText(raw);
      texts.push(normalized.text);
      const column = columns[name];
      for (const token of normalized.tokens) column.ids.push(intern(token));
      column.offsets[i + 1] = column.ids.length;
    }
  });
  return {
    issue_ids: issues.map((i) => i.id),
    vocabulary,
    title: { offsets: columns.title.offsets, ids: Uint32Array.from(columns.title.ids) },
    body: { offsets: columns.body.offsets, ids: Uint32Array.from(columns.body.ids) },
    title_text,
    body_text,
  };
}
