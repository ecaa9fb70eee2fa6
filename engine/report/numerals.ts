/**
 * Every numeral of a narrative, found and read: integers and decimals (with thousands separators),
 * percentages, currency amounts (symbol or ISO code, optional k/M/B), dates (ISO, "5 March 2024",
 * "March 5, 2024", "March 2024"), durations (days, weeks, hours), ratios ("3.2x"), numbers written
 * in words ("three", "twenty-one") and ranges of any of these ("12–30%", "3 to 7 days", "between
 * $1,200 and $3,400"). Each numeral carries the precision it shows: "42.5%" claims a value within
 * 0.05 percentage points, "$1.2M" within $50,000. Identifiers are not numerals: digits inside words
 * (v1, p95, sha256), UUIDs, hex digests and URLs are skipped.
 */
import { MONTH_NAMES, WORD_VALUES } from './quantity.ts';

export type NumeralKind = 'number' | 'word' | 'percent' | 'currency' | 'days' | 'ratio' | 'date' | 'month';

/** One value a numeral claims: `value ± tolerance` in the kind's unit (days for durations, the amount for currency). */
export interface NumeralValue {
  value: number;
  tolerance: number;
}

export interface Numeral {
  text: string;
  /** Offset of the first character in the narrative (UTF-16 code units, as JavaScript strings index). */
  position: number;
  kind: NumeralKind;
  /** One value, or two for a range. Dates: epoch ms of the day (or month) start, tolerance to its end. */
  values: NumeralValue[];
  /** Currency code named by a currency numeral. */
  currency?: string;
  /** Dates: 'day', 'month' or 'instant'. */
  granularity?: 'day' | 'month' | 'instant';
  /** Unit factor of the shown digits (7 for weeks, 1e6 for "M"): a bare first value of a range takes it. */
  scale?: number;
}

const NUM = String.raw`\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?`;
const MONTH = `(?:${MONTH_NAMES.join('|')}|Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sept|Sep|Oct|Nov|Dec)`;
const WORDS = [...WORD_VALUES.keys()].sort((a, b) => b.length - a.length).join('|');
const UNIT_WORDS = 'one|two|three|four|five|six|seven|eight|nine';

const SCANNER = new RegExp(
  [
    String.raw`(?<iso>\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?)`,
    String.raw`(?<dmy>\d{1,2} ${MONTH} \d{4})`,
    String.raw`(?<mdy>${MONTH} \d{1,2}, \d{4})`,
    String.raw`(?<my>${MONTH} \d{4})`,
    String.raw`(?<cur>(?<sym>[$€£]|(?:USD|EUR|GBP) ?)(?<cneg>-)?(?<cnum>${NUM})(?<cmag> ?(?:[kMB]|thousand|million|billion)(?![A-Za-z]))?)`,
    String.raw`(?<num>(?<neg>[-−])?(?<n>${NUM})(?:(?<pct> ?(?:%|percent(?![A-Za-z])))|(?<ratio> ?[x×](?![A-Za-z0-9]))|(?<dur> ?(?<durUnit>days?|weeks?|hours?)(?![A-Za-z]))|(?<mag> ?(?:[kMB]|thousand|million|billion)(?![A-Za-z]))?(?<code> (?:USD|EUR|GBP)(?![A-Za-z]))|(?<bmag>(?:k|M|B)(?![A-Za-z])))?)`,
    String.raw`(?<word>(?<![A-Za-z-])(?:${WORDS})(?:-(?:${UNIT_WORDS}))?(?![A-Za-z-]))`,
  ].join('|'),
  'gi',
);

/** What is never a numeral, blanked before the scan (positions are kept). */
const IDENTIFIERS = [
  /https?:\/\/[^\s)>\]]+/g,
  /\]\([^)]*\)/g,
  /\/v\d+\/[^\s)>\]]*/g,
  /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi,
  /\b(?=[0-9a-f]*[a-f])(?=[0-9a-f]*\d)[0-9a-f]{7,}\b/gi,
];

const SYMBOL_CODE: Record<string, string> = { $: 'USD', '€': 'EUR', '£': 'GBP' };
const MAGNITUDE: Record<string, number> = { k: 1e3, thousand: 1e3, m: 1e6, million: 1e6, b: 1e9, billion: 1e9 };
const DURATION_DAYS: Record<string, number> = { day: 1, week: 7, hour: 1 / 24 };
const MONTH_INDEX = (name: string) => {
  const lower = name.toLowerCase();
  return MONTH_NAMES.findIndex((m) => m.toLowerCase().startsWith(lower.slice(0, 3)));
};

/** The number a digit string shows and the half-unit of its last shown digit. */
function readNumber(text: string, scale = 1): NumeralValue {
  const plain = text.replace(/,/g, '');
  const decimals = plain.includes('.') ? plain.length - plain.indexOf('.') - 1 : 0;
  return { value: Number(plain) * scale, tolerance: 0.5 * 10 ** -decimals * scale };
}

const _DAY = 86_400_000;
function dayValue(year: number, month: number, day: number): NumeralValue | null {
  const t = Date.UTC(year, month, day);
  const d = new Date(t);
  if (d.getUTCFullYear() !== year || d.getUTCMonth() !== month || d.getUTCDate() !== day) return null;
  return { value: t, tolerance: 0 };
}

function readMatch(m: RegExpExecArray): Omit<Numeral, 'text' | 'position'> | null {
  const g = m.groups!;
  if (g.iso) {
    const [y, mo, d] = g.iso.slice(0, 10).split('-').map(Number);
    if (g.iso.length > 10) {
      const t = Date.parse(g.iso.replace(' ', 'T') + (/[Z+-]\d*:?\d*$/.test(g.iso.slice(10)) ? '' : 'Z'));
      return Number.isFinite(t) ? { kind: 'date', granularity: 'instant', values: [{ value: t, tolerance: 999 }] } : null;
    }
    const v = dayValue(y, mo - 1, d);
    return v && { kind: 'date', granularity: 'day', values: [v] };
  }
  if (g.dmy || g.mdy) {
    const parts = (g.dmy ?? g.mdy).replace(',', '').split(' ');
    const [day, month, year] = g.dmy ? [Number(parts[0]), parts[1], Number(parts[2])] : [Number(parts[1]), parts[0], Number(parts[2])];
    const v = dayValue(year, MONTH_INDEX(month), day);
    return v && { kind: 'date', granularity: 'day', values: [v] };
  }
  if (g.my) {
    const [month, year] = g.my.split(' ');
    return { kind: 'month', granularity: 'month', values: [{ value: Date.UTC(Number(year), MONTH_INDEX(month), 1), tolerance: 0 }] };
  }
  if (g.cur) {
    const scale = g.cmag ? MAGNITUDE[g.cmag.trim().toLowerCase()] : 1;
    const v = readNumber(g.cnum, scale);
    if (g.cneg) v.value = -v.value;
    return { kind: 'currency', scale, currency: SYMBOL_CODE[g.sym] ?? g.sym.trim().toUpperCase(), values: [v] };
  }
  if (g.num) {
    const sign = g.neg ? -1 : 1;
    if (g.pct) return { kind: 'percent', values: [signed(readNumber(g.n), sign)] };
    if (g.ratio) return { kind: 'ratio', values: [signed(readNumber(g.n), sign)] };
    if (g.dur) {
      const scale = DURATION_DAYS[g.durUnit.toLowerCase().replace(/s$/, '')];
      return { kind: 'days', scale, values: [signed(readNumber(g.n, scale), sign)] };
    }
    if (g.code) {
      const scale = g.mag ? MAGNITUDE[g.mag.trim().toLowerCase()] : 1;
      return { kind: 'currency', scale, currency: g.code.trim().toUpperCase(), values: [signed(readNumber(g.n, scale), sign)] };
    }
    if (g.mag || g.bmag) return { kind: 'number', values: [signed(readNumber(g.n, MAGNITUDE[(g.mag ?? g.bmag).trim().toLowerCase()]), sign)] };
    return { kind: 'number', values: [signed(readNumber(g.n), sign)] };
  }
  if (g.word) {
    const [tens, unit] = g.word.toLowerCase().split('-');
    return { kind: 'word', values: [{ value: WORD_VALUES.get(tens)! + (unit ? WORD_VALUES.get(unit)! : 0), tolerance: 0 }] };
  }
  return null;
}

const signed = (v: NumeralValue, sign: number): NumeralValue => ({ value: sign * v.value, tolerance: v.tolerance });

const RANGE_GLUE = /^\s*(?:–|—|-|to|and)\s*$/i;
const BETWEEN = /between\s*$/i;

/** The numerals of `text`, in order; a range is one numeral with two values. */
export function findNumerals(text: string): Numeral[] {
  let masked = text;
  for (const pattern of IDENTIFIERS) masked = masked.replace(pattern, (s) => ' '.repeat(s.length));
  const found: Numeral[] = [];
  SCANNER.lastIndex = 0;
  for (let m = SCANNER.exec(masked); m; m = SCANNER.exec(masked)) {
    const start = m.index;
    const matched = m[0];
    const isWord = !!m.groups!.word;
    const before = masked[start - 1] ?? ' ';
    // A minus after a digit or letter is a range dash or part of a word, not a sign.
    if (/^[-−]/.test(matched) && /[A-Za-z0-9]/.test(before)) {
      SCANNER.lastIndex = start + 1;
      continue;
    }
    const after = masked[start + matched.length] ?? ' ';
    // Digits glued to letters, underscores or further digits are identifiers (v1, p95, x86_64, 3f2a).
    const glued = !isWord && (/[A-Za-z0-9_]/.test(before) || /[A-Za-z0-9_]/.test(after));
    if (glued) {
      let end = start + matched.length;
      while (end < masked.length && /[A-Za-z0-9_.]/.test(masked[end])) end++;
      SCANNER.lastIndex = Math.max(end, start + 1);
      continue;
    }
    const read = readMatch(m);
    if (!read) continue;
    found.push({ text: text.slice(start, start + matched.length), position: start, ...read });
  }
  return joinRanges(text, found);
}

function joinRanges(text: string, numerals: Numeral[]): Numeral[] {
  const out: Numeral[] = [];
  for (let i = 0; i < numerals.length; i++) {
    const a = numerals[i];
    const b = numerals[i + 1];
    if (b) {
      const glue = text.slice(a.position + a.text.length, b.position);
      const isAnd = /and/i.test(glue);
      if (RANGE_GLUE.test(glue) && (!isAnd || BETWEEN.test(text.slice(0, a.position)))) {
        const kind = a.kind === 'number' || a.kind === 'word' ? b.kind : a.kind;
        if (kind === b.kind || b.kind === 'number') {
          const currency = a.currency ?? b.currency;
          // "12–30%", "2–3 weeks": a bare first value is in the second's unit.
          const scale = a.kind === 'number' || a.kind === 'word' ? (b.scale ?? 1) : 1;
          const first = { value: a.values[0].value * scale, tolerance: a.values[0].tolerance * scale };
          out.push({
            text: text.slice(a.position, b.position + b.text.length),
            position: a.position,
            kind,
            values: [first, b.values[0]],
            ...(currency ? { currency } : {}),
            ...(a.granularity ? { granularity: a.granularity } : {}),
          });
          i++;
          continue;
        }
      }
    }
    out.push(a);
  }
  return out;
}
