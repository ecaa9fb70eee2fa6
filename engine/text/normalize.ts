/**
 * Text normalisation of engine stage 2, in the manner of log template miners (Drain, He et al. 2017):
 * volatile tokens (URLs, e-mail addresses, UUIDs, IP addresses, timestamps, file paths, hex ids,
 * numbers) are masked and dropped, the rest is lowercased, split (camelCase identifiers also yield
 * their parts), stop words removed and lightly stemmed.
 */
import { stem } from './stem.ts';
import { stopWords } from './stopwords.ts';

/**
 * Whether `text` has a `-` at `gaps[0]` characters after another `-`, the next `gaps[1]` after that, and
 * so on: what a UUID (`-` 5, 10 and 15 characters after its first) or a date (`-` 3 after the first)
 * cannot do without. A scan of the dashes only, much cheaper than the expression it guards on texts
 * full of dashes that are neither (stack traces, options, issue keys): the expression still decides.
 */
function dashesAt(text: string, gaps: readonly number[]): boolean {
  const last = gaps[gaps.length - 1];
  for (let i = text.indexOf('-'); i !== -1 && i + last < text.length; i = text.indexOf('-', i + 1)) {
    let all = true;
    for (const gap of gaps) if (text.charCodeAt(i + gap) !== 45) all = false;
    if (all) return true;
  }
  return false;
}
const UUID_DASHES = [5, 10, 15];
const DATE_DASHES = [3];

// Each mask with what its matches cannot do without: a text without it skips that scan.
const MASKS: Array<[RegExp, string, (text: string) => boolean]> = [
  [/\b(?:https?|ftp|file|hdfs|s3a?|wasbs?|abfss?):\/\/\S+/gi, ' ', (t) => t.includes('://')],
  [/\b[\w.+-]+@[\w-]+\.[\w.-]+\b/g, ' ', (t) => t.includes('@')],
  [/\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/gi, ' ', (t) => dashesAt(t, UUID_DASHES)],
  [/\b\d{1,3}(?:\.\d{1,3}){3}(?::\d+)?\b/g, ' ', (t) => t.includes('.')],
  [/\b\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:[.,]\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?\b/g, ' ', (t) => dashesAt(t, DATE_DASHES)],
  [/\b\d{1,2}:\d{2}(?::\d{2})(?:[.,]\d+)?\b/g, ' ', (t) => t.includes(':')],
  [/(?:^|\s)(?:[A-Za-z]:)?(?:[\\/][\w.$-]+){2,}[\\/]?/g, ' ', (t) => t.includes('/') || t.includes('\\')],
  [/\b0x[0-9a-f]+\b/gi, ' ', (t) => t.includes('0x') || t.includes('0X')],
  [/\b(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{8,}\b/gi, ' ', () => true],
];

/** Masks volatile tokens and lowercases; the text keeps its word order (phrases still match). */
export function maskText(text: string): string {
  let out = text;
  for (const [pattern, replacement, mayMatch] of MASKS) if (mayMatch(out)) out = out.replace(pattern, replacement);
  return out;
}

const CAMEL = /[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+/g;

/** Tokens of a masked text: split, camelCase parts, lowercase, stop words and numbers dropped, stemmed. */
export function tokenize(masked: string): string[] {
  // The words are the text split on [^A-Za-z0-9_]+, and their parts the words split on `_`: together,
  // the maximal runs of ASCII letters and digits, in order. One scan of the character codes finds them
  // (no array of every word and no substring of the short ones), the same parts as splitting twice.
  const out: string[] = [];
  const n = masked.length;
  let start = -1;
  for (let i = 0; i <= n; i++) {
    const c = i < n ? masked.charCodeAt(i) : 0;
    if ((c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122)) {
      if (start < 0) start = i;
      continue;
    }
    if (start >= 0 && i - start >= 2 && i - start <= 40) for (const token of partTokens(masked.slice(start, i))) out.push(token);
    start = -1;
  }
  return out;
}

// Words repeat (Zipf): the tokens of a short word are remembered. Only words shorter than 13
// characters, which V8 copies out of the text they were split from, so that no entry keeps a whole
// report alive; cleared when full. A cache hit returns exactly what computing would.
const PART_CACHE_LIMIT = 100_000;
const partCache = new Map<string, readonly string[]>();

function partTokens(part: string): readonly string[] {
  const cached = partCache.get(part);
  if (cached) return cached;
  const out: string[] = [];
  emit(out, part.toLowerCase());
  // DataNode -> data, node (the whole word stays too): prose and identifiers meet.
  if (/[a-z][A-Z]/.test(part)) {
    const pieces = part.match(CAMEL) ?? [];
    if (pieces.length > 1) for (const piece of pieces) emit(out, piece.toLowerCase());
  }
  if (part.length < 13) {
    if (partCache.size >= PART_CACHE_LIMIT) partCache.clear();
    partCache.set(part, out);
  }
  return out;
}

function emit(out: string[], word: string) {
  const first = word.charCodeAt(0);
  if (word.length < 2 || (first >= 48 && first <= 57) || stopWords.has(word)) return; // numbers, and 3rd, 2x, 64bit: volatile
  out.push(stem(word));
}

export interface NormalizedText {
  /** Lowercased masked text, for phrase matching against taxonomy and rubric keywords. */
  text: string;
  tokens: string[];
}

// Every run of white space becomes one space: a run of two or more, or one character that is not a
// space (a single space is left as it is, so most texts build far fewer pieces than with /\s+/g).
const SPACE_RUN = /\s{2,}|[^\S ]/g;

export function normalizeText(text: string): NormalizedText {
  const masked = maskText(text);
  return { text: masked.toLowerCase().replace(SPACE_RUN, ' ').trim(), tokens: tokenize(masked) };
}
