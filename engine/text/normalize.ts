/**
 * Text normalisation of engine stage 2, in the manner of log template miners (Drain, He et al. 2017):
 * volatile tokens (URLs, e-mail addresses, UUIDs, IP addresses, timestamps, file paths, hex ids,
 * numbers) are masked and dropped, the rest is lowercased, split (camelCase identifiers also yield
 * their parts), stop words removed and lightly stemmed.
 */
import { stem } from './stem.ts';
import { stopWords } from './stopwords.ts';

const MASKS: Array<[RegExp, string]> = [
  [/\b(?:https?|ftp|file|hdfs|s3a?|wasbs?|abfss?):\/\/\S+/gi, ' '],
  [/\b[\w.+-]+@[\w-]+\.[\w.-]+\b/g, ' '],
  [/\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/gi, ' '],
  [/\b\d{1,3}(?:\.\d{1,3}){3}(?::\d+)?\b/g, ' '],
  [/\b\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:[.,]\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?\b/g, ' '],
  [/\b\d{1,2}:\d{2}(?::\d{2})(?:[.,]\d+)?\b/g, ' '],
  [/(?:^|\s)(?:[A-Za-z]:)?(?:[\\/][\w.$-]+){2,}[\\/]?/g, ' '],
  [/\b0x[0-9a-f]+\b/gi, ' '],
  [/\b(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{8,}\b/gi, ' '],
];

/** Masks volatile tokens and lowercases; the text keeps its word order (phrases still match). */
export function maskText(text: string): string {
  let out = text;
  for (const [pattern, replacement] of MASKS) out = out.replace(pattern, replacement);
  return out;
}

const CAMEL = /[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+/g;

/** Tokens of a masked text: split, camelCase parts, lowercase, stop words and numbers dropped, stemmed. */
export function tokenize(masked: string): string[] {
  const out: string[] = [];
  for (const raw of masked.split(/[^A-Za-z0-9_]+/)) {
    if (raw.length < 2) continue;
    const parts = raw.includes('_') ? raw.split('_') : [raw];
    for (const part of parts) {
      if (part.length < 2 || part.length > 40) continue;
      const lower = part.toLowerCase();
      emit(out, lower);
      // DataNode -> data, node (the whole word stays too): prose and identifiers meet.
      if (/[a-z][A-Z]/.test(part)) {
        const pieces = part.match(CAMEL) ?? [];
        if (pieces.length > 1) for (const piece of pieces) emit(out, piece.toLowerCase());
      }
    }
  }
  return out;
}

function emit(out: string[], word: string) {
  if (word.length < 2 || /^\d+$/.test(word) || stopWords.has(word)) return;
  if (/^\d/.test(word)) return; // 3rd, 2x, 64bit: volatile
  out.push(stem(word));
}

export interface NormalizedText {
  /** Lowercased masked text, for phrase matching against taxonomy and rubric keywords. */
  text: string;
  tokens: string[];
}

export function normalizeText(text: string): NormalizedText {
  const masked = maskText(text);
  return { text: masked.toLowerCase().replace(/\s+/g, ' ').trim(), tokens: tokenize(masked) };
}
