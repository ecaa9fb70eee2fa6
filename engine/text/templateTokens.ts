/**
 * The tokens of a narrative as a log template miner sees them (Drain, He et al. 2017; Brain, Yu et al.
 * 2023): split on white space only (punctuation stays inside its token, so `status:` and `(uid=0)` keep
 * their shape), case kept, and every token holding a digit or a path (two or more slashes) replaced by
 * the wildcard `<*>`: numbers, ids, addresses, times and paths are the variables of machine text.
 * Variables without digits (user and host names, weekdays) are found by the miner, not here.
 */
export const WILDCARD = '<*>';

export interface TemplateTokens {
  /** The first `limit` tokens; empty when the text has more (a long text is prose, not a template). */
  tokens: string[];
  /** How many tokens the whole text has. */
  length: number;
}

const PATH = /\/[^/]*\//;

export function templateTokens(text: string, limit: number): TemplateTokens {
  const raw = text.split(/\s+/);
  let length = 0;
  for (const t of raw) if (t) length++;
  if (length > limit) return { tokens: [], length };
  const tokens: string[] = [];
  for (const t of raw) if (t) tokens.push(/\d/.test(t) || PATH.test(t) ? WILDCARD : t);
  return { tokens, length };
}
