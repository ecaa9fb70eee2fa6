import { heldoutSystem } from '../fixtures/heldoutLogs.ts';
import { templateColumn } from '../engine/stages/02_normalize.ts';
import { mineTemplates, defaultMinerOptions } from '../engine/cluster/templateMiner.ts';
const sys = process.argv[2];
const lines = heldoutSystem(sys);
const { column, vocabulary, wildcard } = templateColumn(lines.map((l) => l.line));
const m = mineTemplates(column, lines.map((_, i) => i), wildcard, defaultMinerOptions, vocabulary);
const byTruth = new Map<string, Map<number, number>>();
lines.forEach((l, i) => { const t = m.templateOf[i]; const mm = byTruth.get(l.truth) ?? new Map(); mm.set(t, (mm.get(t) ?? 0) + 1); byTruth.set(l.truth, mm); });
const ofTpl = new Map<number, Set<string>>();
lines.forEach((l, i) => { const t = m.templateOf[i]; const s = ofTpl.get(t) ?? new Set(); s.add(l.truth); ofTpl.set(t, s); });
const voc = (vocabulary as any);
const txt = (t: number) => Array.from(m.templates[t].tokens, (id) => (Array.isArray(voc) ? voc[id] : voc.token ? voc.token(id) : voc.get?.(id) ?? id)).join(' ');
for (const [truth, mm] of byTruth) {
  const bad = mm.size > 1 || [...mm.keys()].some((t) => ofTpl.get(t)!.size > 1);
  if (!bad) continue;
  console.log(`== ${truth}`);
  for (const [t, n] of mm) {
    console.log(`  ${n} -> T${t} [${[...ofTpl.get(t)!].join(',')}] ${txt(t).slice(0, 300)}`);
    const ex = lines.find((l, i) => l.truth === truth && m.templateOf[i] === t)!;
    console.log(`       e.g. ${ex.line.slice(0, 250)}`);
  }
}
