/**
 * Why an issue is in its pattern (GET /v1/issues/{id}/grouping, issue 31), computed from the texts:
 * - the template's slots with the values this issue fills them with (templated patterns);
 * - the nearest members: cosine of tf-idf vectors over the members' normalised tokens (title and
 *   narrative, engine/text/normalize.ts), idf from the pattern's members and the issue;
 * - the features that decided: the terms contributing most to the issue's cosine with the pattern's
 *   centroid, each marked by what it is (an exception class, a stack frame, a file or path, an error
 *   code, else a term).
 * A reading of the grouping for people, not the run's own computation (stage 4's hashed embedding is not
 * kept per issue): its similarities are on the same texts and tokens, not the same figures.
 */
import { normalizeText } from '../text/normalize.ts';
import { WILDCARD } from '../text/templateTokens.ts';

export interface ExplainText {
  id: string;
  title: string;
  narrative: string | null;
}

export type FeatureKind = 'exception' | 'frame' | 'path' | 'error_code' | 'term';

export interface GroupingExplanation {
  slots: Array<{ position: number; value: string | null }> | null;
  similarity_to_pattern: number | null;
  nearest: Array<{ issue_id: string; title: string; similarity: number }>;
  features: Array<{ feature: string; kind: FeatureKind; weight: number }>;
}

const NEAREST = 5;
const FEATURES = 8;
const round4 = (x: number) => Math.round(x * 1e4) / 1e4;

/** What a raw token of the text is, when it is more than a word. */
function kindOf(raw: string): FeatureKind {
  if (/^[\w.$]*(Exception|Error)$/.test(raw)) return 'exception';
  if (/^[a-z_][\w$]*(\.[\w$]+){2,}\(?/.test(raw) && /\(|\.[a-z]\w*$/.test(raw)) return 'frame';
  if (/[\\/]/.test(raw) || /\.(java|py|js|ts|go|c|cc|cpp|h|xml|sh|scala|rb)\b/.test(raw)) return 'path';
  if (/^[A-Z][A-Z0-9]+-\d+$/.test(raw) || /^(E|ERR|ORA-|0x)[0-9A-F]{2,}$/i.test(raw)) return 'error_code';
  return 'term';
}

/** The template's slots and the tokens of the text at them (null when the text does not have the template's shape). */
export function templateSlots(template: string, text: string): GroupingExplanation['slots'] {
  const shape = template.split(/\s+/).filter(Boolean);
  const tokens = text.split(/\s+/).filter(Boolean);
  const slots: Array<{ position: number; value: string | null }> = [];
  shape.forEach((t, position) => {
    if (t.includes(WILDCARD)) slots.push({ position, value: shape.length === tokens.length ? tokens[position] : null });
  });
  return slots;
}

export function explainGrouping(issue: ExplainText, members: readonly ExplainText[], template: string | null): GroupingExplanation {
  const textOf = (t: ExplainText) => `${t.title}\n${t.narrative ?? ''}`;
  const others = members.filter((m) => m.id !== issue.id);
  const docs = [issue, ...others].map((t) => {
    const tf = new Map<string, number>();
    for (const token of normalizeText(textOf(t)).tokens) tf.set(token, (tf.get(token) ?? 0) + 1);
    return tf;
  });
  const df = new Map<string, number>();
  for (const d of docs) for (const t of d.keys()) df.set(t, (df.get(t) ?? 0) + 1);
  const n = docs.length;
  const vectors = docs.map((d) => {
    const v = new Map<string, number>();
    let norm = 0;
    for (const [t, c] of d) {
      const w = (1 + Math.log(c)) * Math.log((1 + n) / (1 + df.get(t)!));
      if (w > 0) {
        v.set(t, w);
        norm += w * w;
      }
    }
    norm = Math.sqrt(norm) || 1;
    for (const [t, w] of v) v.set(t, w / norm);
    return v;
  });
  const cos = (a: Map<string, number>, b: Map<string, number>) => {
    let dot = 0;
    const [small, large] = a.size <= b.size ? [a, b] : [b, a];
    for (const [t, w] of small) dot += w * (large.get(t) ?? 0);
    return dot;
  };
  const self = vectors[0];
  const nearest = others
    .map((m, k) => ({ issue_id: m.id, title: m.title, similarity: round4(cos(self, vectors[k + 1])) }))
    .sort((a, b) => b.similarity - a.similarity || (a.issue_id < b.issue_id ? -1 : 1))
    .slice(0, NEAREST);
  let similarity_to_pattern: number | null = null;
  const contributions = new Map<string, number>();
  if (others.length) {
    const centroid = new Map<string, number>();
    for (const v of vectors.slice(1)) for (const [t, w] of v) centroid.set(t, (centroid.get(t) ?? 0) + w / others.length);
    let norm = 0;
    for (const w of centroid.values()) norm += w * w;
    norm = Math.sqrt(norm) || 1;
    let dot = 0;
    for (const [t, w] of self) {
      const c = (w * (centroid.get(t) ?? 0)) / norm;
      if (c > 0) contributions.set(t, c);
      dot += c;
    }
    similarity_to_pattern = round4(dot);
  }
  // The raw token each normalised feature came from, to say what it is.
  const rawOf = new Map<string, string>();
  for (const raw of textOf(issue)
    .split(/[\s,;:"'()[\]{}<>=]+/)
    .filter(Boolean)) {
    const cleaned = raw.replace(/[.]+$/, '');
    for (const token of normalizeText(cleaned).tokens) if (!rawOf.has(token) || kindOf(cleaned) !== 'term') rawOf.set(token, cleaned);
  }
  const features = [...contributions]
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
    .slice(0, FEATURES)
    .map(([feature, weight]) => {
      const raw = rawOf.get(feature);
      return { feature: raw && kindOf(raw) !== 'term' ? raw : feature, kind: raw ? kindOf(raw) : ('term' as FeatureKind), weight: round4(weight) };
    });
  return { slots: template ? templateSlots(template, issue.narrative ?? issue.title) : null, similarity_to_pattern, nearest, features };
}
