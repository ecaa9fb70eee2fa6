/**
 * Structured features of a report beyond its bag of words (issue 31 §2): what two people describing
 * one failure copy from the same machine output even when their prose differs. Each feature is a
 * string `kind:value`; the kinds and their weight in the embedding (engine/stages/04_vectorize.ts):
 * - `exception`: an exception or error class name (`NullPointerException`, `OutOfMemoryError`), the
 *   simple name without its package;
 * - `frame`: a stack-trace frame `at pkg.Class.method(File.java:12)` as `Class.method` (line numbers
 *   drift between versions); only the first FRAMES_KEPT frames of a report, the ones nearest the
 *   failure;
 * - `component`: the component a report names: a title prefix (`S3A:`, `[ABFS]`), the package of a
 *   qualified class name (`org.apache.hadoop.fs.s3a.S3AFileSystem` → `fs.s3a`), a source file
 *   (`S3AFileSystem.java`);
 * - `code`: an error code (`ERR_42`, `E1234`, `errno 13`, `status 403`, `SQLSTATE 08001`) or an issue key
 *   the report refers to (`HDFS-1234`).
 * Values are kept as written (case kept); nothing is keyed on a project or source.
 */

export type FeatureKind = 'exception' | 'frame' | 'component' | 'code';

export const FEATURE_KINDS: readonly FeatureKind[] = ['exception', 'frame', 'component', 'code'];

const EXCEPTION = /\b(?:[a-z_$][\w$]*\.)*([A-Z][\w$]*(?:Exception|Error|Fault|Failure))\b/g;
const FRAME = /\bat\s+((?:[\w$]+\.)+[\w$<>]+)\s*\(/g;
const QUALIFIED = /\b((?:[a-z_][a-z0-9_]*\.){2,})([A-Z][\w$]*)\b/g;
const SOURCE_FILE = /(?<!\()\b([A-Z][\w$]*\.(?:java|scala|py|go|rs|c|cc|cpp|h|js|ts|rb|cs|kt))\b/g;
const TITLE_PREFIX = /^\s*(?:\[([^\]]{2,30})\]|([A-Za-z][\w.-]{1,30}):)\s/;
const KEYWORD_CODE = /\b(?:errno|status|code|error|sqlstate|exit code|return code|http)[\s:=#]+([A-Z0-9]{2,6})\b/gi;
const NAMED_CODE = /\b([A-Z]{1,5}_?\d{2,5})\b/g;
const ISSUE_KEY = /\b([A-Z][A-Z0-9]{1,15}-\d{1,6})\b/g;
const FRAMES_KEPT = 8;
/** Package segments that say nothing about a component. */
const GENERIC = new Set(['org', 'com', 'net', 'io', 'java', 'javax', 'sun', 'jdk', 'apache', 'google', 'internal', 'impl', 'util', 'lang']);

const hasExceptionEnding = (text: string) => text.includes('Exception') || text.includes('Error') || text.includes('Fault') || text.includes('Failure');

/** The package of a qualified name as a component: its last two specific segments. */
function componentOf(pkg: string): string | null {
  const parts = pkg.split('.').filter((p) => p && !GENERIC.has(p));
  if (!parts.length) return null;
  return parts.slice(-2).join('.');
}

/** The structured features of a report (title and narrative), distinct, in order of first occurrence. */
export function structuredFeatures(title: string, narrative: string): string[] {
  const out = new Set<string>();
  const prefix = TITLE_PREFIX.exec(title);
  if (prefix) {
    for (const c of (prefix[1] ?? prefix[2]).split(/\s*,\s*/)) {
      const value = c.replace(/\s+/g, '').toLowerCase();
      if (value && !/^\d+$/.test(value)) out.add(`component:${value}`);
    }
  }
  for (const text of [title, narrative]) {
    // The expression backtracks through every capitalised word; a text without any of its four
    // endings cannot match it and skips the scan.
    if (hasExceptionEnding(text)) for (const m of text.matchAll(EXCEPTION)) out.add(`exception:${m[1]}`);
    let frames = 0;
    for (const m of text.matchAll(FRAME)) {
      if (frames++ >= FRAMES_KEPT) break;
      const parts = m[1].split('.');
      if (parts.length >= 2) out.add(`frame:${parts.slice(-2).join('.')}`);
    }
    for (const m of text.matchAll(QUALIFIED)) {
      const c = componentOf(m[1]);
      if (c) out.add(`component:${c}`);
    }
    for (const m of text.matchAll(SOURCE_FILE)) out.add(`component:${m[1]}`);
    for (const m of text.matchAll(ISSUE_KEY)) out.add(`code:${m[1]}`);
    for (const m of [...text.matchAll(KEYWORD_CODE), ...text.matchAll(NAMED_CODE)]) {
      const value = m[1].toUpperCase();
      if (/\d/.test(value) && !/^\d{1,2}$/.test(value)) out.add(`code:${value}`);
    }
  }
  return [...out];
}

/** The kind of a feature string. */
export const kindOf = (feature: string): FeatureKind => feature.slice(0, feature.indexOf(':')) as FeatureKind;
