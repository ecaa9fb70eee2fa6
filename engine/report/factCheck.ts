/**
 * The fact check: every numeral of a narrative must resolve to a fact of the facts document by value
 * and unit, at the precision the numeral shows (the rounding its template declared). A percentage
 * resolves to a probability (×100) or a percent fact; an amount to a currency fact of the same
 * currency; a duration to a fact in days; a ratio to a ratio; a date to a date fact of the same day
 * (a month to one of the same month); a number in words to a whole number; a bare number to any
 * numeric fact. A range resolves when both ends do. Chart series (`series`) and lists of plain
 * numbers are not facts a sentence may cite.
 *
 * One fact per quantity: facts that measure the same thing (Quantity.measures, e.g. the probability
 * of a recurrence within 30 days in the prediction and in the forecast table) must hold the same
 * value, or the narrative could cite two numbers for one quantity and both would resolve. Such a
 * document fails the check whatever the narrative says.
 */
import { isQuantity, type Quantity, type Unit } from './quantity.ts';
import { findNumerals, type Numeral, type NumeralValue } from './numerals.ts';

interface NumericFact {
  unit: Unit;
  value: number;
  currency?: string;
}

const ISO_DATE = /^\d{4}-\d{2}-\d{2}(?:T[\d:.]+Z)?$/;
const MONTH_TEXT = /^\d{4}-\d{2}$/;
/** Ids and digests: never numerals (numerals.ts masks them), so never worth quoting. */
const IDENTIFIER = /^[0-9a-f-]{16,}$/i;

/** The citable facts: quantities, plain numbers and ISO dates, outside chart series. */
export function collectFacts(facts: unknown): NumericFact[] {
  const out: NumericFact[] = [];
  const visit = (v: unknown, key: string) => {
    if (key === 'series') return;
    if (typeof v === 'number') out.push({ unit: 'number', value: v });
    else if (typeof v === 'string') {
      if (ISO_DATE.test(v)) out.push({ unit: 'date', value: Date.parse(v.length === 10 ? `${v}T00:00:00Z` : v) });
      else if (MONTH_TEXT.test(v) && /month/.test(key)) out.push({ unit: 'month', value: Date.parse(`${v}-01T00:00:00Z`) });
    } else if (isQuantity(v)) {
      const q = v as Quantity;
      if (typeof q.value === 'number') out.push({ unit: q.unit, value: q.value, ...(q.currency ? { currency: q.currency } : {}) });
      else visit(q.value, q.unit === 'month' ? 'month' : key);
    } else if (Array.isArray(v)) {
      if (v.length && v.every((x) => typeof x === 'number')) return;
      for (const x of v) visit(x, key);
    } else if (v && typeof v === 'object') {
      for (const [k, x] of Object.entries(v)) visit(x, k);
    }
  };
  visit(facts, '');
  return out;
}

const within = (fact: number, claim: NumeralValue) => Math.abs(fact - claim.value) <= claim.tolerance + 1e-9 * Math.max(1, Math.abs(fact));

function monthStart(t: number): number {
  const d = new Date(t);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1);
}
const dayStart = (t: number) => Math.floor(t / 86_400_000) * 86_400_000;

function resolves(numeral: Numeral, claim: NumeralValue, f: NumericFact): boolean {
  switch (numeral.kind) {
    case 'percent':
      if (f.unit === 'probability') return within(f.value * 100, claim);
      return (f.unit === 'percent' || f.unit === 'number') && within(f.value, claim);
    case 'currency':
      return f.unit === 'currency' && (!f.currency || !numeral.currency || f.currency === numeral.currency) && within(f.value, claim);
    case 'days':
      return f.unit === 'days' && within(f.value, claim);
    case 'ratio':
      return (f.unit === 'ratio' || f.unit === 'number') && within(f.value, claim);
    case 'date':
      if (f.unit !== 'date') return false;
      return numeral.granularity === 'instant' ? within(f.value, claim) : dayStart(f.value) === claim.value;
    case 'month':
      return (f.unit === 'date' || f.unit === 'month') && monthStart(f.value) === claim.value;
    case 'word':
      return f.unit !== 'date' && f.unit !== 'month' && Number.isInteger(f.value) && f.value === claim.value;
    case 'number':
      return f.unit !== 'date' && f.unit !== 'month' && within(f.value, claim);
  }
}

export interface FactConflict {
  /** What the facts measure (Quantity.measures). */
  measures: string;
  /** The disagreeing facts: path in the document and value. */
  facts: Array<{ path: string; value: number | string }>;
}

/** Facts measuring one thing with different values (chart series left out), in document order. */
export function conflictingFacts(facts: unknown): FactConflict[] {
  const groups = new Map<string, Array<{ path: string; value: number | string }>>();
  const visit = (v: unknown, path: string) => {
    if (path.endsWith('series')) return;
    if (isQuantity(v)) {
      const q = v as Quantity;
      if (q.measures) groups.set(q.measures, [...(groups.get(q.measures) ?? []), { path, value: q.value }]);
    } else if (Array.isArray(v)) v.forEach((x, i) => visit(x, `${path}.${i}`));
    else if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) visit(x, path ? `${path}.${k}` : k);
  };
  visit(facts, '');
  const same = (a: number | string, b: number | string) =>
    typeof a === 'number' && typeof b === 'number' ? Math.abs(a - b) <= 1e-12 * Math.max(1, Math.abs(a)) : a === b;
  return [...groups.entries()].filter(([, list]) => list.some((f) => !same(f.value, list[0].value))).map(([measures, list]) => ({ measures, facts: list }));
}

export interface FactCheckResult {
  ok: boolean;
  /** Numerals that resolved to nothing, with their offsets in the narrative. */
  unresolved: Array<{ text: string; position: number }>;
  /** Quantities the facts hold with two different values (the narrative could cite either). */
  conflicts: FactConflict[];
  /** Numerals found (resolved or not). */
  checked: number;
}

/** Text facts that contain digits (a pattern named "hadoop 3 upgrade"): quoting them cites no number. */
function textFacts(facts: unknown): string[] {
  const out = new Set<string>();
  const visit = (v: unknown, key: string) => {
    if (key === 'series') return;
    if (typeof v === 'string') {
      if (/\d/.test(v) && v.length >= 3 && !ISO_DATE.test(v) && !MONTH_TEXT.test(v) && !IDENTIFIER.test(v)) out.add(v);
    } else if (Array.isArray(v)) v.forEach((x) => visit(x, key));
    else if (v && typeof v === 'object' && !isQuantity(v)) for (const [k, x] of Object.entries(v)) visit(x, k);
  };
  visit(facts, '');
  return [...out].sort((a, b) => b.length - a.length);
}

export function checkNarrative(narrative: string, facts: unknown): FactCheckResult {
  const pool = collectFacts(facts);
  let text = narrative;
  for (const quoted of textFacts(facts)) text = text.split(quoted).join(' '.repeat(quoted.length));
  const numerals = findNumerals(text).map((n) => ({ ...n, text: narrative.slice(n.position, n.position + n.text.length) }));
  const unresolved = numerals
    .filter((n) => !n.values.every((claim) => pool.some((f) => resolves(n, claim, f))))
    .map((n) => ({ text: n.text, position: n.position }));
  const conflicts = conflictingFacts(facts);
  return { ok: unresolved.length === 0 && conflicts.length === 0, unresolved, conflicts, checked: numerals.length };
}
