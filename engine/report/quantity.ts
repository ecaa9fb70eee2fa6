/**
 * Quantities of a facts document: a value with its unit, written `{value, unit}` (currency amounts
 * also carry `currency`). A unit says how a number may be narrated: a probability as a percentage,
 * an amount with its currency, a duration in days (or weeks or hours), a ratio as "3.2x". Plain
 * numbers of the facts are quantities of unit `number`; ISO strings of keys ending in `_at` are dates.
 */
export const units = ['count', 'number', 'score', 'probability', 'percent', 'currency', 'days', 'ratio', 'date', 'month'] as const;
export type Unit = (typeof units)[number];

export interface Quantity {
  value: number | string;
  unit: Unit;
  /** ISO 4217 code of a currency amount. */
  currency?: string;
  /**
   * What the value measures, when the facts hold it in more than one place (e.g.
   * `recurrence_probability:30d`, in the prediction and in the forecast table): one quantity, one
   * value. The fact check fails a document whose facts measuring one thing disagree.
   */
  measures?: string;
}

export const quantity = (value: number | string, unit: Unit, currency?: string): Quantity => (currency ? { value, unit, currency } : { value, unit });

/** `q` marked as a measurement of `what` (see Quantity.measures). */
export const measuring = (what: string, q: Quantity): Quantity => ({ ...q, measures: what });

export const isQuantity = (v: unknown): v is Quantity =>
  !!v && typeof v === 'object' && !Array.isArray(v) && 'value' in v && 'unit' in v && (units as readonly string[]).includes((v as Quantity).unit as string);

/** `x` rounded half away from zero to `digits` decimals, with thousands separators. */
export function fixed(x: number, digits: number): string {
  const sign = x < 0 ? '-' : '';
  const abs = Math.abs(x);
  const scaled = Math.round(abs * 10 ** digits + 1e-9) / 10 ** digits;
  const [int, frac] = scaled.toFixed(digits).split('.');
  const grouped = int.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return sign + grouped + (frac ? `.${frac}` : '');
}

const SMALL = [
  'zero',
  'one',
  'two',
  'three',
  'four',
  'five',
  'six',
  'seven',
  'eight',
  'nine',
  'ten',
  'eleven',
  'twelve',
  'thirteen',
  'fourteen',
  'fifteen',
  'sixteen',
  'seventeen',
  'eighteen',
  'nineteen',
];
const TENS = ['', '', 'twenty', 'thirty', 'forty', 'fifty', 'sixty', 'seventy', 'eighty', 'ninety'];

/** An integer 0..999,999 in English words ("twenty-one", "three hundred and five"). */
export function inWords(n: number): string {
  if (!Number.isInteger(n) || n < 0 || n >= 1_000_000) throw new RangeError(`inWords: ${n} is not an integer from 0 to 999999`);
  if (n < 20) return SMALL[n];
  if (n < 100) return TENS[Math.floor(n / 10)] + (n % 10 ? `-${SMALL[n % 10]}` : '');
  if (n < 1000) return `${SMALL[Math.floor(n / 100)]} hundred` + (n % 100 ? ` and ${inWords(n % 100)}` : '');
  return `${inWords(Math.floor(n / 1000))} thousand` + (n % 1000 ? `${n % 1000 < 100 ? ' and' : ''} ${inWords(n % 1000)}` : '');
}

export const WORD_VALUES: ReadonlyMap<string, number> = new Map([
  ...SMALL.map((w, i) => [w, i] as const),
  ...TENS.slice(2).map((w, i) => [w, (i + 2) * 10] as const),
]);

const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];
export const MONTH_NAMES: readonly string[] = MONTHS;

/** Named formats of template placeholders (`{{path|format}}`); each declares the rounding it shows. */
export const formats = [
  'auto',
  'int',
  'fixed1',
  'fixed2',
  'fixed3',
  'pct0',
  'pct1',
  'pct2',
  'money0',
  'money2',
  'days0',
  'days1',
  'weeks1',
  'ratio1',
  'ratio2',
  'words',
  'date',
  'month',
] as const;
export type FormatName = (typeof formats)[number];

function defaultFormat(q: Quantity): FormatName {
  switch (q.unit) {
    case 'count':
      return typeof q.value === 'number' && q.value < 10 && Number.isInteger(q.value) ? 'words' : 'int';
    case 'score':
      return 'int';
    case 'probability':
    case 'percent':
      return 'pct1';
    case 'currency':
      return 'money0';
    case 'days':
      return 'days1';
    case 'ratio':
      return 'ratio1';
    case 'date':
      return 'date';
    case 'month':
      return 'month';
    default:
      return typeof q.value === 'number' && Number.isInteger(q.value) ? 'int' : 'fixed2';
  }
}

const CURRENCY_SYMBOL: Record<string, string> = { USD: '$', EUR: '€', GBP: '£' };

/** A quantity as text under a named format; throws (a template error) when the format does not fit the unit. */
export function formatQuantity(q: Quantity, format: FormatName = 'auto'): string {
  const f = format === 'auto' ? defaultFormat(q) : format;
  if (f === 'date' || f === 'month') {
    if (typeof q.value !== 'string') throw new TypeError(`format ${f} needs a date, the fact is a ${q.unit}`);
    const d = new Date(q.value.length === 7 ? `${q.value}-01T00:00:00Z` : q.value);
    if (Number.isNaN(d.getTime())) throw new TypeError(`format ${f} needs a date, got ${q.value}`);
    return f === 'date' ? d.toISOString().slice(0, 10) : `${MONTHS[d.getUTCMonth()]} ${d.getUTCFullYear()}`;
  }
  if (typeof q.value !== 'number') throw new TypeError(`format ${f} needs a number, the fact is a ${q.unit}`);
  const v = q.value;
  const percentScale = q.unit === 'probability' ? 100 : 1;
  switch (f) {
    case 'int':
      return fixed(v, 0);
    case 'fixed1':
    case 'fixed2':
    case 'fixed3':
      return fixed(v, Number(f.slice(5)));
    case 'pct0':
    case 'pct1':
    case 'pct2':
      if (q.unit !== 'probability' && q.unit !== 'percent') throw new TypeError(`format ${f} needs a probability or percent, the fact is a ${q.unit}`);
      return `${fixed(v * percentScale, Number(f.slice(3)))}%`;
    case 'money0':
    case 'money2': {
      if (q.unit !== 'currency') throw new TypeError(`format ${f} needs a currency amount, the fact is a ${q.unit}`);
      const code = q.currency ?? 'USD';
      const text = fixed(Math.abs(v), Number(f.slice(5)));
      const sign = v < 0 ? '-' : '';
      return CURRENCY_SYMBOL[code] ? `${sign}${CURRENCY_SYMBOL[code]}${text}` : `${sign}${text} ${code}`;
    }
    case 'days0':
    case 'days1': {
      if (q.unit !== 'days') throw new TypeError(`format ${f} needs a duration in days, the fact is a ${q.unit}`);
      const text = fixed(v, Number(f.slice(4)));
      return `${text} ${text === '1' ? 'day' : 'days'}`;
    }
    case 'weeks1':
      if (q.unit !== 'days') throw new TypeError(`format ${f} needs a duration in days, the fact is a ${q.unit}`);
      return `${fixed(v / 7, 1)} weeks`;
    case 'ratio1':
    case 'ratio2':
      return `${fixed(v, Number(f.slice(5)))}x`;
    case 'words':
      if (!Number.isInteger(v) || v < 0 || v >= 1_000_000) throw new TypeError(`format words needs a whole number below one million, got ${v}`);
      return inWords(v);
    default:
      throw new TypeError(`unknown format ${f}`);
  }
}
