/**
 * Drain (He et al., ICWS 2017) as logparser's Drain.py implements it, untuned: one setting for every
 * system (depth 4, similarity threshold 0.4, at most 100 children, no preprocessing regex), as a tool
 * meets a system it has never seen. The bench's baseline for systems without a published figure.
 *
 * A line is split on white space; the first layer of the parse tree is the token count, the next
 * `depth - 2` layers are the leading tokens (a token with a digit goes to the `<*>` child; a node with
 * `maxChild` children sends new tokens to `<*>`); a leaf holds log groups, and a line joins the group
 * whose template shares the largest share of its tokens position by position (at least `st`; ties to
 * the template with more wildcards), the positions that differ becoming `<*>`. Lines are grouped by
 * their final template text, as logparser's evaluator does.
 */
const WILDCARD = '<*>';

export interface DrainOptions {
  depth: number;
  st: number;
  maxChild: number;
}

export const untunedDrain: DrainOptions = { depth: 4, st: 0.4, maxChild: 100 };

interface Group {
  template: string[];
}

interface TreeNode {
  children: Map<string, TreeNode>;
  groups: Group[];
}

const node = (): TreeNode => ({ children: new Map(), groups: [] });
const hasDigit = (t: string) => /\d/.test(t);

/** The template text of each line. */
export function drainTemplates(lines: string[], options: DrainOptions = untunedDrain): string[] {
  const depth = options.depth - 2;
  const root = new Map<number, TreeNode>();
  const groupOf: Group[] = [];

  const search = (seq: string[]): Group | null => {
    let parent: TreeNode | undefined = root.get(seq.length);
    if (!parent) return null;
    let current = 1;
    for (const token of seq) {
      if (current >= depth || current > seq.length) break;
      const next: TreeNode | undefined = parent.children.get(token) ?? parent.children.get(WILDCARD);
      if (!next) return null;
      parent = next;
      current++;
    }
    let best: Group | null = null;
    let bestSim = -1;
    let bestParams = -1;
    for (const g of parent.groups) {
      let same = 0;
      let params = 0;
      for (let i = 0; i < seq.length; i++) {
        if (g.template[i] === WILDCARD) params++;
        else if (g.template[i] === seq[i]) same++;
      }
      const sim = seq.length ? same / seq.length : 1;
      if (sim > bestSim || (sim === bestSim && params > bestParams)) {
        bestSim = sim;
        bestParams = params;
        best = g;
      }
    }
    return best && bestSim >= options.st ? best : null;
  };

  const add = (g: Group) => {
    const seq = g.template;
    let parent: TreeNode | undefined = root.get(seq.length);
    if (!parent) root.set(seq.length, (parent = node()));
    let current = 1;
    for (const token of seq) {
      if (current >= depth || current > seq.length) break;
      let next: TreeNode | undefined = parent.children.get(token);
      if (!next) {
        if (!hasDigit(token)) {
          if (parent.children.has(WILDCARD)) {
            if (parent.children.size < options.maxChild) parent.children.set(token, (next = node()));
            else next = parent.children.get(WILDCARD)!;
          } else if (parent.children.size + 1 < options.maxChild) parent.children.set(token, (next = node()));
          else if (parent.children.size + 1 === options.maxChild) parent.children.set(WILDCARD, (next = node()));
          else next = parent.children.get(WILDCARD)!;
        } else {
          next = parent.children.get(WILDCARD);
          if (!next) parent.children.set(WILDCARD, (next = node()));
        }
      }
      parent = next!;
      current++;
    }
    parent.groups.push(g);
  };

  for (const line of lines) {
    const seq = line.trim().split(/\s+/).filter(Boolean);
    let g = search(seq);
    if (!g) {
      g = { template: seq };
      add(g);
    } else g.template = g.template.map((t, i) => (t === seq[i] ? t : WILDCARD));
    groupOf.push(g);
  }
  return groupOf.map((g) => g.template.join(' '));
}
