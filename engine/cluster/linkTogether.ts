/**
 * Values linked where two or more are seen in one group, union-find: `find` gives a linked value's set
 * (its smallest value, so the result does not depend on the order of linking), `linked` whether a value
 * was linked at all, `sets` every linked set in the order its values were first seen. The template
 * miner links tokens seen in one context, the folds phrases seen in one frame.
 */
export function linkTogether<T extends number | string>(groups: Iterable<readonly T[]>): { find: (x: T) => T; linked: (x: T) => boolean; sets: Map<T, T[]> } {
  const parent = new Map<T, T>();
  const find = (x: T): T => {
    let root = x;
    while (parent.get(root) !== root) root = parent.get(root)!;
    parent.set(x, root);
    return root;
  };
  for (const values of groups) {
    if (values.length < 2) continue;
    for (const v of values) if (!parent.has(v)) parent.set(v, v);
    for (let i = 1; i < values.length; i++) {
      const a = find(values[0]);
      const b = find(values[i]);
      // The larger root hangs under the smaller.
      if (a < b) parent.set(b, a);
      else if (b < a) parent.set(a, b);
    }
  }
  const sets = new Map<T, T[]>();
  for (const v of parent.keys()) {
    const root = find(v);
    const set = sets.get(root);
    if (set) set.push(v);
    else sets.set(root, [v]);
  }
  return { find, linked: (x) => parent.has(x), sets };
}
