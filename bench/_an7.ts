// temporary analysis (not committed)
import { heldoutSystem } from '../fixtures/heldoutLogs.ts';
import { defaultMinerOptions, mineTemplates } from '../engine/cluster/templateMiner.ts';
import { templateColumn } from '../engine/stages/02_normalize.ts';
const sys = process.argv[2];
const lines = heldoutSystem(sys);
const { column, vocabulary, wildcard } = templateColumn(lines.map((l) => l.line));
const m = mineTemplates(column, lines.map((_, i) => i), wildcard, defaultMinerOptions, vocabulary);
const byTruth = new Map<string, Map<number, number>>();
const byTpl = new Map<number, Map<string, number>>();
lines.forEach((l, i) => {
  const t = m.templates[m.templateOf[i]].size >= 2 ? m.templateOf[i] : -1 - i;
  if (!byTruth.has(l.truth)) byTruth.set(l.truth, new Map());
  byTruth.get(l.truth)!.set(t, (byTruth.get(l.truth)!.get(t) ?? 0) + 1);
  if (!byTpl.has(t)) byTpl.set(t, new Map());
  byTpl.get(t)!.set(l.truth, (byTpl.get(t)!.get(l.truth) ?? 0) + 1);
});
const text = (t: number) => (t < 0 ? `(single) ${lines[-1 - t].line}` : Array.from(m.templates[t].tokens, (x) => (x === wildcard ? '<*>' : vocabulary[x])).join(' '));
const sorted = [...byTruth.keys()].sort((a, b) => +a.split(':')[1] - +b.split(':')[1]);
for (const truth of sorted) {
  const ts = byTruth.get(truth)!;
  const n = [...ts.values()].reduce((a, b) => a + b, 0);
  const ok = ts.size === 1 && byTpl.get([...ts.keys()][0])!.size === 1;
  if (ok) continue;
  console.log(`${truth} (${n} lines) ${ts.size} patterns${ts.size === 1 ? ' MERGED with ' + [...byTpl.get([...ts.keys()][0])!.keys()].join(',') : ''}`);
  for (const [t, c] of [...ts.entries()].sort((a, b) => b[1] - a[1]).slice(0, 6)) console.log(`    ${c}  ${text(t)}  ${byTpl.get(t)!.size > 1 ? '[with ' + [...byTpl.get(t)!.keys()].join(',') + ']' : ''}`);
}
