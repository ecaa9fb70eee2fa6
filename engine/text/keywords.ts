/**
 * Phrase matching for extraction: each taxonomy entry (or rubric signal) finds its keywords at word
 * starts of normalised text (a keyword may be a word prefix, e.g. `synchroniz`), longer keywords
 * first. All entries of a config are matched in one pass (`keywordScanner`).
 */
const normalizeKeywords = (keywords: string[]) => [...new Set(keywords.map((k) => k.toLowerCase().replace(/\s+/g, ' ').trim()).filter(Boolean))];

export interface KeywordMatcher {
  /** Distinct keywords found in `text`. */
  find(text: string): Set<string>;
}

export interface KeywordScanner {
  /** For each group, the distinct keywords of that group found in `text`, in order of first occurrence. */
  scan(text: string): Array<ReadonlySet<string>>;
}

/**
 * Several keyword lists matched in one pass over the text: a trie of all keywords is walked from every
 * word start. Each group keeps exactly the semantics of its own regular expression
 * `(?<![a-z0-9])(?:k1|k2|…)` (longest keyword first) scanned with the `g` flag: at the leftmost word
 * start where one of its keywords begins it takes the longest such keyword and resumes after it, so a
 * group's matches never overlap while different groups see the same text independently.
 */
export function keywordScanner(groups: string[][]): KeywordScanner {
  const keywords: string[] = [];
  const keywordIndex = new Map<string, number>();
  const groupsOf: number[][] = [];
  groups.forEach((list, g) => {
    for (const k of normalizeKeywords(list)) {
      let id = keywordIndex.get(k);
      if (id === undefined) {
        id = keywords.length;
        keywords.push(k);
        keywordIndex.set(k, id);
        groupsOf.push([]);
      }
      groupsOf[id].push(g);
    }
  });
  // Trie over UTF-16 code units: node 0 is the root; terminal[node] is the keyword ending there or -1.
  const children: Array<Map<number, number>> = [new Map()];
  const terminal: number[] = [-1];
  keywords.forEach((k, id) => {
    let node = 0;
    for (let i = 0; i < k.length; i++) {
      const c = k.charCodeAt(i);
      let next = children[node].get(c);
      if (next === undefined) {
        next = children.length;
        children.push(new Map());
        terminal.push(-1);
        children[node].set(c, next);
      }
      node = next;
    }
    terminal[node] = id;
  });
  // The trie's ASCII edges as a table (node × 128, -1 where none), the others in a map per node: one
  // typed-array read per character of the text instead of a map lookup.
  const ascii = new Int32Array(children.length * 128).fill(-1);
  const wide: Array<Map<number, number> | undefined> = children.map((edges, node) => {
    let rest: Map<number, number> | undefined;
    for (const [c, next] of edges) {
      if (c < 128) ascii[node * 128 + c] = next;
      else (rest ??= new Map()).set(c, next);
    }
    return rest;
  });
  const step = (node: number, c: number): number => (c < 128 ? ascii[node * 128 + c] : (wide[node]?.get(c) ?? -1));
  const groupCount = groups.length;
  const hits: number[] = [];
  return {
    scan(text) {
      // Most groups find nothing in a text: they all hold one empty set (read only, as the stages use
      // the result), and a group gets a set of its own at its first keyword. Dozens of sets fewer per text.
      const found = new Array<ReadonlySet<string>>(groupCount).fill(NONE);
      if (!keywords.length) return found;
      const resumeAt = new Array<number>(groupCount).fill(0);
      const takenAt = new Array<number>(groupCount).fill(-1);
      for (let p = 0; p < text.length; p++) {
        if (p > 0) {
          const before = text.charCodeAt(p - 1);
          if ((before >= 97 && before <= 122) || (before >= 48 && before <= 57)) continue;
        }
        let node = step(0, text.charCodeAt(p));
        if (node < 0) continue;
        hits.length = 0;
        for (let q = p + 1; ; q++) {
          if (terminal[node] >= 0) hits.push(terminal[node]);
          if (q >= text.length) break;
          const next = step(node, text.charCodeAt(q));
          if (next < 0) break;
          node = next;
        }
        // Longest first: a group takes its longest keyword starting here, if it is not inside its previous match.
        for (let h = hits.length - 1; h >= 0; h--) {
          const id = hits[h];
          for (const g of groupsOf[id]) {
            if (takenAt[g] === p || resumeAt[g] > p) continue;
            takenAt[g] = p;
            resumeAt[g] = p + keywords[id].length;
            let set = found[g];
            if (set === NONE) found[g] = set = new Set<string>();
            (set as Set<string>).add(keywords[id]);
          }
        }
      }
      return found;
    },
  };
}

/** The set every group without a keyword in the text shares (`scan`): never added to. */
const NONE: ReadonlySet<string> = new Set<string>();

/** One keyword list (a taxonomy entry or a rubric signal): `keywordScanner` with a single group. */
export function keywordMatcher(keywords: string[]): KeywordMatcher {
  const scanner = keywordScanner([keywords]);
  // A set of the caller's own, also when nothing was found.
  return { find: (text) => new Set(scanner.scan(text)[0]) };
}
