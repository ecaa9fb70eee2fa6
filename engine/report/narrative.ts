/**
 * Narratives are produced behind one interface, so that any generator (the built-in templates, a
 * caller's template, a language model later) is fact-checked the same way: the generator writes
 * Markdown from the facts, then every numeral of it must resolve to a fact (factCheck.ts) or the
 * report fails with `report_facts_mismatch`.
 */
import type { Facts } from './facts.ts';
import { checkNarrative, type FactConflict } from './factCheck.ts';
import { builtInTemplate, renderTemplate } from './templates.ts';

export interface NarrativeGenerator {
  /** Recorded with the report (`templates`, `custom_template`, a model's name). */
  readonly name: string;
  /** Markdown over the facts. May be asynchronous (a model call); must not read anything but the facts. */
  generate(facts: Facts): string | Promise<string>;
}

export const builtInGenerator: NarrativeGenerator = {
  name: 'templates',
  generate: (facts) => renderTemplate(builtInTemplate(facts), facts),
};

export function templateGenerator(template: string): NarrativeGenerator {
  return { name: 'custom_template', generate: (facts) => renderTemplate(template, facts) };
}

export class FactsMismatch extends Error {
  override name = 'FactsMismatch';
  constructor(
    readonly numerals: Array<{ text: string; position: number }>,
    readonly conflicts: FactConflict[] = [],
  ) {
    super(
      [
        numerals.length ? `${numerals.length} narrated numeral(s) resolve to no fact: ${numerals.map((n) => `"${n.text}" at ${n.position}`).join(', ')}` : '',
        ...conflicts.map((c) => `two values for one quantity (${c.measures}): ${c.facts.map((f) => `${f.path} = ${f.value}`).join(', ')}`),
      ]
        .filter(Boolean)
        .join('; '),
    );
  }
}

/** The generator's Markdown once every numeral of it resolved; a FactsMismatch otherwise. */
export async function checkedNarrative(
  generator: NarrativeGenerator,
  facts: Facts,
): Promise<{ markdown: string; numerals_checked: number; generator: string }> {
  const markdown = await generator.generate(facts);
  const result = checkNarrative(markdown, facts);
  if (!result.ok) throw new FactsMismatch(result.unresolved, result.conflicts);
  return { markdown, numerals_checked: result.checked, generator: generator.name };
}
