/**
 * Phrase matching for extraction: each taxonomy entry (or rubric signal) compiles to one regular
 * expression over normalised text that finds its keywords at word starts (a keyword may be a word
 * prefix, e.g. `synchroniz`). Longer keywords are tried first.
 */
const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

export interface KeywordMatcher {
  /** Distinct keywords found in `text`. */
  find(text: string): Set<string>;
}

export function keywordMatcher(keywords: string[]): KeywordMatcher {
  const normalized = [...new Set(keywords.map((k) => k.toLowerCase().replace(/\s+/g, ' ').trim()).filter(Boolean))].sort((a, b) => b.length - a.length || (a < b ? -1 : 1));
  const pattern = new RegExp(`(?<![a-z0-9])(?:${normalized.map(escape).join('|')})`, 'g');
  return {
    find(text) {
      const found = new Set<string>();
      if (!normalized.length) return found;
      pattern.lastIndex = 0;
      for (const match of text.matchAll(pattern)) found.add(match[0]);
      return found;
    },
  };
}
