/**
 * The template path's fixture tests (test/engine/templateFixtures*.test.ts): hand-made lines mined as stage 5
 * mines them, and a seeded generator for the lines.
 */
import * as assert from 'uvu/assert';
import { groupingAccuracy } from '../../engine/cluster/agreement.ts';
import { defaultMinerOptions, mineTemplates } from '../../engine/cluster/templateMiner.ts';
import { templateColumn } from '../../engine/stages/02_normalize.ts';

/** Mines `lines` as stage 5 does; the template text of every line. */
export function mine(lines: string[]): string[] {
  const { column, vocabulary, wildcard } = templateColumn(lines);
  const mined = mineTemplates(
    column,
    lines.map((_, i) => i),
    wildcard,
    defaultMinerOptions,
    vocabulary,
  );
  return Array.from(mined.templateOf, (t) => Array.from(mined.templates[t].tokens, (id) => vocabulary[id]).join(' '));
}

/** Lines labelled with their event; asserts the miner groups them exactly (GA 1). */
export function exact(labelled: Array<[string, string]>) {
  const templates = mine(labelled.map(([, line]) => line));
  const keys = [...new Set(templates)];
  const ga = groupingAccuracy(
    labelled.map(([event]) => event),
    Int32Array.from(templates, (t) => keys.indexOf(t)),
  );
  if (ga !== 1) {
    const byEvent = new Map<string, Set<string>>();
    labelled.forEach(([e], i) => byEvent.set(e, (byEvent.get(e) ?? new Set()).add(templates[i])));
    assert.unreachable(`GA ${ga}: ${JSON.stringify([...byEvent].map(([e, t]) => [e, [...t]]))}`);
  }
  return templates;
}

/** A seeded generator in [0, 1) (a linear congruential one: the fixtures need repeatable, not good, numbers). */
export const rng = (seed: number) => () => {
  seed = (Math.imul(seed, 1_103_515_245) + 12_345) >>> 0;
  return seed / 2 ** 32;
};
export const pick = <T>(r: () => number, xs: readonly T[]) => xs[Math.floor(r() * xs.length)];
