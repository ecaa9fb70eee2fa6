/**
 * The template miner's folds across lengths (engine/cluster/templateMiner.ts runs them after its
 * per-position passes): a longer template that is a shorter one with something inserted (an optional
 * flag, field or segment, more items of a list, a tail of measurements, a wider value, a token variant)
 * joins the shorter, each under its own evidence, and a run of variables is one variable. Each works on
 * the distinct templates of the masked lines and rewrites the lines of a folded template to the one it
 * joined.
 */
import { WILDCARD } from '../text/templateTokens.ts';
import { linkTogether } from './linkTogether.ts';
import { delimiterIds, RECORD_MIN_DELIMITERS, type RecordColumns, phraseInColumn } from './recordColumns.ts';

/** Whether a token of `vocabulary` holds a variable (`<*>`, `web-<*>,`). */
export const variableIn =
  (vocabulary: readonly string[]) =>
  (id: number): boolean =>
    vocabulary[id]?.includes(WILDCARD) ?? false;

/**
 * A distinct template with the rows that print it (its tokens are the first row's array, so a pass
 * that masks rows in place keeps it current) and the lines they stand for. A template folded into
 * another stays in its length's list (a longer one may still line up with it) and points at the one it
 * joined.
 */
export interface TemplateEntry {
  tokens: Int32Array;
  rows: number[];
  lines: number;
  into?: TemplateEntry;
}

/** A closed set (no value on one line only) over at least this many lines names events however many contexts it varies in. */
export const CLOSED_SET_LINES = 20;

/**
 * Whether a set whose values (words, phrases, a key's words) print `counts` lines each is closed: every value
 * on two or more lines, CLOSED_SET_LINES in all (issue 31's convention: a closed vocabulary is wording). The
 * one test of the miner's closed-set veto, the cross product's words at a line's ends, a key's words and phrases.
 */
export function closedCounts(counts: Iterable<number>): boolean {
  let total = 0;
  for (const n of counts) {
    if (n < 2) return false;
    total += n;
  }
  return total >= CLOSED_SET_LINES;
}
/**
 * A plain word of a phrase: letters (an inner `-` or `'`), in brackets or quotes or before a separator at
 * most (`(Concurrent`, `Start)`, `creating`). A digit, a variable, a label's colon, an arrow or a path
 * (`Source: clicks -> Timestamps/Watermarks`) make the phrase a name built as values are, not wording,
 * and so does an identifier joined as code joins words (CAMEL: `sudoUser`, `entryUUID`).
 */
const PHRASE_WORD = /^[(["']?[A-Za-z]+(?:['-][A-Za-z]+)*[)\]"']?[,;.]?$/;
const CAMEL = /[a-z][A-Z]/;
/** A word in lower case after a phrase's first: the phrase is a sentence, not a name (`Concurrent Start`). */
const PROSE_WORD = /^[(["']?[a-z]/;

/**
 * Whether the phrases printed in one context in place of one another (each a whole segment: `(Normal)` /
 * `(Concurrent Start)` / `(Mixed)` after `Pause Young`), with the lines printing each, are a closed set:
 * the segment's wording, issue 31's convention for a token without digits carried to a run of tokens
 * (docs/decisions.md, Session 21 (phrases)). Closed: CLOSED_SET_LINES lines or more, no phrase printed on
 * one line only, every token a plain word (PHRASE_WORD: no digit, no variable), no phrase a sentence (a
 * word in lower case after its first: `comm failure`, `connection reset by peer`: free text the program
 * inserts, as an error's text is, where an event's kind is named in capitals, `Concurrent Start`), and not
 * the strong evidence of a variable (`minDistinct` phrases or more, none on more than `rareShare` of the
 * lines). An open set (a phrase seen once, a sentence, a list of ids) is a value's and may fold. The
 * sentence test holds for a text in a reason's place (brackets, quotes, after a label: foldCodeTexts);
 * `sentencesOpen` false for phrases in the line's own wording (foldAlignedGaps: `Finished creating` /
 * `Stopping connector <name>`), which its author wrote, in whatever case.
 */
export function closedPhrases(
  lines: ReadonlyMap<string, number>,
  vocabulary: readonly string[],
  minDistinct: number,
  rareShare: number,
  sentencesOpen = true,
): boolean {
  if (!closedCounts(lines.values())) return false;
  let total = 0;
  let most = 0;
  for (const [phrase, n] of lines) {
    const words = phrase.split(',').map((id) => vocabulary[Number(id)] ?? '');
    for (const word of words) if (!PHRASE_WORD.test(word) || CAMEL.test(word)) return false;
    // A sentence (`comm failure`, `token expired`, `connection reset by peer`): a text the program inserts.
    if (sentencesOpen && words.slice(1).some((word) => PROSE_WORD.test(word))) return false;
    total += n;
    most = Math.max(most, n);
  }
  return !(lines.size >= minDistinct && most <= rareShare * total);
}

/** The distinct templates of `rows` (all rows by default), in order of first row. */
export function distinctTemplates(current: Int32Array[], printed?: Float64Array, rows?: number[]): TemplateEntry[] {
  const byKey = new Map<string, TemplateEntry>();
  const add = (r: number) => {
    const k = current[r].join(',');
    const lines = printed ? printed[r] : 1;
    const entry = byKey.get(k);
    if (entry) {
      entry.rows.push(r);
      entry.lines += lines;
    } else byKey.set(k, { tokens: current[r], rows: [r], lines });
  };
  if (rows) for (const r of rows) add(r);
  else for (let r = 0; r < current.length; r++) add(r);
  return [...byKey.values()];
}

/** The distinct templates of `current` by length, each list in order of first row. */
function templatesByLength(current: Int32Array[]): Map<number, TemplateEntry[]> {
  const byLength = new Map<number, TemplateEntry[]>();
  for (const entry of distinctTemplates(current)) {
    const list = byLength.get(entry.tokens.length);
    if (list) list.push(entry);
    else byLength.set(entry.tokens.length, [entry]);
  }
  return byLength;
}

/** The template a folded one joined, at the end of its chain. */
export const rootOf = (e: TemplateEntry): TemplateEntry => (e.into ? rootOf(e.into) : e);

/** Every row of a folded template prints the template it was folded into, at the end of the chain. */
function printFolded(current: Int32Array[], byLength: Map<number, TemplateEntry[]>) {
  for (const list of byLength.values()) for (const e of list) for (const r of e.rows) current[r] = rootOf(e).tokens;
}

/** `tokens` with each run of `<*>` one `<*>`: the tokeniser reads a run of one variable token as one. */
export function oneWildcardPerRun(tokens: Iterable<number>, wildcard: number): Int32Array {
  const out: number[] = [];
  for (const id of tokens) if (id !== wildcard || out.at(-1) !== wildcard) out.push(id);
  return Int32Array.from(out);
}

/**
 * A run of variables in a mined template is one variable, as a run of one variable token is one token
 * when a line is tokenised (engine/text/templateTokens.ts): `EntryPoint= <*> <*>` (an address, then a
 * driver's name the passes found variable) and `EntryPoint= <*>` (an address and a name with a digit,
 * joined into one token as they were read) print one event. Templates equal once their runs of `<*>`
 * are one fold together; a template that lines up with no other keeps its tokens.
 */
export function foldVariableRuns(current: Int32Array[], wildcard: number) {
  const collapsed = new Map<string, Int32Array>();
  const shapes = new Map<string, Set<string>>();
  const shapeOf = new Map<string, string>();
  for (const row of current) {
    const k = row.join(',');
    if (shapeOf.has(k)) continue;
    const runs = oneWildcardPerRun(row, wildcard);
    const shape = runs.join(',');
    shapeOf.set(k, shape);
    if (!collapsed.has(shape)) collapsed.set(shape, runs);
    const set = shapes.get(shape);
    if (set) set.add(k);
    else shapes.set(shape, new Set([k]));
  }
  for (let r = 0; r < current.length; r++) {
    const shape = shapeOf.get(current[r].join(','))!;
    if (shapes.get(shape)!.size > 1) current[r] = collapsed.get(shape)!;
  }
}

/** A record this long (tokens without the flag) is a structured line whose bare flags are optional. */
const OPTIONAL_FLAG_MIN_LENGTH = 8;
/** A bare word, or one item of a comma-separated list (`TLS,` in `lip=<*>, TLS, session=<*>`). */
const BARE_WORD = /^[([]?[A-Za-z]+[)\]]?,?$/;
/** A value wholly in brackets (`[<*>]`, `(<*>)`, a request id or thread before the message). */
const TAG = /^[[(]<\*>[\])]:?$/;
/** A variable token after a variable (`to <*> (<*>) via`) is optional in a line of this many other tokens. */
const OPTIONAL_VARIABLE_MIN_LENGTH = 4;

/**
 * A bare word inside a long record whose other tokens line up with a shorter template (`… ID=<*> DF
 * PROTO=TCP …` against `… ID=<*> PROTO=TCP …`; `RES=<*> ACK PSH URGP=<*>` against `RES=<*> <*> URGP=<*>`)
 * is an optional flag of the same event: the longer template folds into the shorter, position by
 * position equal or a variable on either side (the variable wins). Only a digit-free word without `=`
 * strictly inside the line and with at least OPTIONAL_FLAG_MIN_LENGTH other tokens: a short message
 * that differs by one word (`layout begin` / `layout begin again`) keeps it, as does a last word.
 * The two must share a frame of OPTIONAL_SEGMENT_FRAME equal constants, as optional segments must: a
 * template of variables only (a record of values, `<pid> <user> <host> <user>`) lines up with anything
 * and would take every shorter message after the same values (`<pid> <user> disk quota exceeded`).
 */
export function foldOptionalFlags(current: Int32Array[], wildcard: number, keys: Set<number>, levels: Set<number>, vocabulary: readonly string[]) {
  if (!vocabulary.length) return;
  const byLength = templatesByLength(current);
  const isFlag = (id: number) => id !== wildcard && !keys.has(id) && BARE_WORD.test(vocabulary[id] ?? '');
  let changed = false;
  for (const length of [...byLength.keys()].sort((a, b) => a - b)) {
    const shorter = byLength.get(length - 1);
    if (!shorter || length - 1 < OPTIONAL_VARIABLE_MIN_LENGTH) continue;
    for (const long of byLength.get(length)!) {
      for (let i = 1; i < length - 1 && !long.into; i++) {
        // A flag among fields: after a variable (`ID=<*> DF`), not inside the constant frame (`[UFW LIMIT BLOCK]`).
        if (!vocabulary[long.tokens[i - 1]]?.includes(WILDCARD)) continue;
        const optionalVariable = vocabulary[long.tokens[i]]?.includes(WILDCARD);
        // A plain word right after a tag (a value wholly in brackets before the message: `[<*>] CACHE User Load …`
        // beside `[<*>] <*> Load …`) opens the event's wording, not a flag; a bracketed word (`(F)`) is one anywhere.
        const afterTag = TAG.test(vocabulary[long.tokens[i - 1]] ?? '') && !/^[([]/.test(vocabulary[long.tokens[i]] ?? '');
        if (!(optionalVariable || (isFlag(long.tokens[i]) && !afterTag && length - 1 >= OPTIONAL_FLAG_MIN_LENGTH))) continue;
        const match = shorter.find((s) => {
          let frame = 0;
          for (let q = 0; q < length - 1; q++) {
            const a = s.tokens[q];
            const b = long.tokens[q < i ? q : q + 1];
            // The anchor (the leading word, or the word after a leading severity or value) never gives way to a
            // variable: a plain word there stays (`wlan<*>:` beside `<*>:` are both values).
            const anchor = q === 0 || (q === 1 && levels.has(s.tokens[0]));
            if (a !== b && anchor && !(vocabulary[a]?.includes(WILDCARD) && vocabulary[b]?.includes(WILDCARD))) return false;
            if (a !== b && a !== wildcard && b !== wildcard) return false;
            if (a === b && !vocabulary[a]?.includes(WILDCARD)) frame++;
          }
          // The two share a frame of constants: a template of variables lines up with anything.
          return frame >= OPTIONAL_SEGMENT_FRAME;
        });
        if (!match) continue;
        const target = rootOf(match);
        if (target === match) for (let q = 0; q < length - 1; q++) if (long.tokens[q < i ? q : q + 1] === wildcard) target.tokens[q] = wildcard;
        long.into = target;
        changed = true;
      }
    }
  }
  if (changed) printFolded(current, byLength);
}

/** An optional segment inside a line is two or three tokens (`vpn vrf <*>`, `Resource_List.mem= <*>`). */
const OPTIONAL_SEGMENT_TOKENS = [2, 3];
/** A field's label: `referrer:`, `user=`. */
const FIELD_LABEL = /^[A-Za-z][\w.-]*[:=]$/;
/** The shorter template keeps at least this many constant tokens: a frame of variables says nothing. */
const OPTIONAL_SEGMENT_FRAME = 2;

/**
 * A segment of two or three tokens holding a variable, inserted after a variable and followed by the
 * rest of a shorter template (`neighbor <*> vpn vrf <*> Up` against `neighbor <*> Up`; `ncpus= <*>
 * mem= <*> nodect= <*>` against `ncpus= <*> nodect= <*>`), is an optional field of the same event: the
 * longer template folds into the shorter when every other token is equal and the shorter has a frame
 * of at least OPTIONAL_SEGMENT_FRAME constant tokens (a template of variables lines up with anything).
 * At the end of a line only a labelled field (`referrer: "<*>"`) after a token that ends with a comma
 * in every line folds: the comma says the list of fields goes on, so the last field is one more
 * attribute. A trailing field after a space (`rhost=<*>` / `rhost=<*> user=<*>`) can be another event,
 * as constants at the end name one, and stays, unless it is a `key=` whose value held a digit in every
 * line after another key's value (`limit=<*> burst=<*>`: numericKeyField).
 */
export function foldOptionalSegments(current: Int32Array[], original: Int32Array[], vocabulary: readonly string[]) {
  if (!vocabulary.length) return;
  const byLength = templatesByLength(current);
  const holdsVariable = variableIn(vocabulary);
  let changed = false;
  for (const length of [...byLength.keys()].sort((a, b) => a - b)) {
    for (const seg of OPTIONAL_SEGMENT_TOKENS) {
      const shorter = byLength.get(length - seg);
      if (!shorter || length - seg < OPTIONAL_VARIABLE_MIN_LENGTH) continue;
      for (const long of byLength.get(length)!) {
        // The segment [i, i + seg) follows a variable and leaves at least one token after it, or ends a
        // list of fields that goes on after a comma in every line (`host: "<*>", referrer: "<*>"`).
        for (let i = 1; i + seg <= length && !long.into; i++) {
          if (!holdsVariable(long.tokens[i - 1])) continue;
          if (i + seg === length) {
            if (!FIELD_LABEL.test(vocabulary[long.tokens[i]] ?? '')) continue;
            if (
              !long.rows.every((r) => original[r].length === length && (vocabulary[original[r][i - 1]] ?? '').endsWith(',')) &&
              !numericKeyField(long, original, i, vocabulary)
            )
              continue;
          } else {
            let variable = false;
            for (let q = i; q < i + seg; q++) if (holdsVariable(long.tokens[q])) variable = true;
            if (!variable) continue;
          }
          const match = shorter.find((s) => {
            if (s.into) return false;
            let words = 0;
            for (let q = 0; q < length - seg; q++) {
              if (s.tokens[q] !== long.tokens[q < i ? q : q + seg]) return false;
              if (!holdsVariable(s.tokens[q])) words++;
            }
            return words >= OPTIONAL_SEGMENT_FRAME;
          });
          if (!match) continue;
          long.into = match;
          changed = true;
        }
      }
    }
  }
  if (changed) printFolded(current, byLength);
}

/** An item of a comma list is one to three tokens (`884 active+clean`, `26 pgs inactive`). */
const LIST_ITEM_TOKENS = [1, 2, 3];
/** A list prints at most this many items more than the shortest line of its event. */
const LIST_EXTRA_ITEMS = 3;
/** The separator a token ends with: `,` of `active+clean,`, `;` of `inactive;`, or none. */
const separatorOf = (token: string) => /[,;]?$/.exec(token)![0];
const withoutSeparator = (token: string) => token.replace(/[,;]$/, '');

/**
 * A comma list of items of one shape printed with more items (`<n> active+clean; <size> data` /
 * `<n> active+clean, <n> peering; <size> data`; `<n> pgs inactive (…)` / `<n> pgs inactive, <n> pgs
 * peering (…)`): the longer template is the shorter with one to LIST_EXTRA_ITEMS items of one to three
 * tokens inserted after an item of the same width; the item before them ends with `,` where the
 * shorter's ends with its own separator, every inserted item but the last ends with `,` and the last
 * with that separator (in every line printed), and each inserted item holds a variable wherever the
 * item before it does (the count). The item must hold a variable: a list of counts is one value of the
 * event whatever its length. A run of words without a count (`mounted, readonly, on <*>`) is no such
 * list and stays (foldOptionalFlags judges bare words).
 */
export function foldListItems(current: Int32Array[], original: Int32Array[], vocabulary: readonly string[]) {
  if (!vocabulary.length) return;
  const byLength = templatesByLength(current);
  const text = (id: number) => vocabulary[id] ?? '';
  const holdsVariable = variableIn(vocabulary);
  // The separator each template's token at q ends with in every line it prints (undefined when the lines differ).
  const separatorAt = (e: TemplateEntry, q: number) => {
    let sep: string | undefined;
    for (const r of e.rows) {
      if (original[r].length !== e.tokens.length) continue;
      const s = separatorOf(text(original[r][q]));
      if (sep === undefined) sep = s;
      else if (sep !== s) return undefined;
    }
    return sep;
  };
  let changed = false;
  for (const length of [...byLength.keys()].sort((a, b) => a - b)) {
    for (const long of byLength.get(length)!) {
      for (const width of LIST_ITEM_TOKENS) {
        for (let items = 1; items <= LIST_EXTRA_ITEMS && !long.into; items++) {
          const extra = width * items;
          const shorter = byLength.get(length - extra);
          if (!shorter) continue;
          for (const s of shorter) {
            if (s.into || long.into || s === long) continue;
            const t = s.tokens;
            const l = long.tokens;
            // The insertion point j: t[0, j) and l[0, j) equal but for the separator of the item's last token.
            for (let j = width; j <= t.length && !long.into; j++) {
              let equal = true;
              for (let q = 0; q < j - 1 && equal; q++) if (t[q] !== l[q]) equal = false;
              for (let q = j; q < t.length && equal; q++) if (t[q] !== l[q + extra]) equal = false;
              if (!equal) continue;
              if (t[j - 1] !== l[j - 1] && withoutSeparator(text(t[j - 1])) !== withoutSeparator(text(l[j - 1]))) continue;
              // The item before the inserted ones holds a count.
              let count = false;
              for (let o = 0; o < width; o++) if (holdsVariable(t[j - width + o])) count = true;
              if (!count) continue;
              let shape = true;
              for (let k = 0; k < items && shape; k++)
                for (let o = 0; o < width; o++) if (holdsVariable(t[j - width + o]) && !holdsVariable(l[j + k * width + o])) shape = false;
              if (!shape) continue;
              const last = separatorAt(s, j - 1);
              if (last === undefined || separatorAt(long, j - 1) !== ',') continue;
              let separators = true;
              for (let k = 0; k < items && separators; k++) separators = separatorAt(long, j - 1 + (k + 1) * width) === (k + 1 < items ? ',' : last);
              if (!separators) continue;
              long.into = rootOf(s);
              changed = true;
            }
          }
        }
      }
    }
  }
  if (changed) printFolded(current, byLength);
}

/** An optional tail of measurements is at least this many comma-separated items (`<*> rd, <*> wr, <*> op/s`). */
const MEASURE_TAIL_ITEMS = 2;

/**
 * An optional tail of measurements after a `;` or `,` that ends a line (`… <*> avail` / `… <*> avail;
 * <*> rd, <*> wr, <*> op/s`, a summary that prints its I/O rates only when there are some): the longer
 * template is the shorter with a separator added to its last token and a list of at least
 * MEASURE_TAIL_ITEMS items after it, separated by commas, each of one to three tokens holding a
 * variable (a quantity and its name). It folds into the shorter. A tail of words (`…; degraded`) or of
 * one field (`…; retry in <*>`) can name another event, as constants at the end do, and stays.
 */
export function foldMeasureTails(current: Int32Array[], original: Int32Array[], vocabulary: readonly string[]) {
  if (!vocabulary.length) return;
  const byLength = templatesByLength(current);
  const text = (id: number) => vocabulary[id] ?? '';
  const holdsVariable = variableIn(vocabulary);
  const originals = (e: TemplateEntry) => e.rows.filter((r) => original[r].length === e.tokens.length).map((r) => original[r]);
  const shortest = Math.min(...LIST_ITEM_TOKENS) * MEASURE_TAIL_ITEMS;
  // Shorter templates by their tokens but the last, and the last without its separator.
  const byHead = new Map<string, TemplateEntry[]>();
  for (const list of byLength.values())
    for (const s of list) {
      const k = `${s.tokens.subarray(0, -1).join(',')}|${withoutSeparator(text(s.tokens[s.tokens.length - 1]))}`;
      byHead.set(k, [...(byHead.get(k) ?? []), s]);
    }
  let changed = false;
  for (const list of byLength.values()) {
    for (const long of list) {
      const l = long.tokens;
      const lines = originals(long);
      if (!lines.length) continue;
      for (let n = OPTIONAL_VARIABLE_MIN_LENGTH; n + shortest <= l.length && !long.into; n++) {
        // The shorter's last token is l[n - 1] with a separator in every line.
        if (!lines.every((o) => /[;,]$/.test(text(o[n - 1])))) continue;
        // The tail l[n, end): items ending with `,`, the last ending the line.
        let items = 0;
        let start = n;
        let measures = true;
        for (let q = n; q < l.length && measures; q++) {
          const last = q === l.length - 1;
          const ends = last || lines.every((o) => text(o[q]).endsWith(','));
          if (!ends) continue;
          let variable = false;
          for (let o = start; o <= q; o++) if (holdsVariable(l[o])) variable = true;
          if (!variable || q - start + 1 > Math.max(...LIST_ITEM_TOKENS)) measures = false;
          items++;
          start = q + 1;
        }
        if (!measures || items < MEASURE_TAIL_ITEMS) continue;
        const k = `${l.subarray(0, n - 1).join(',')}|${withoutSeparator(text(l[n - 1]))}`;
        const match = (byHead.get(k) ?? []).find(
          (s) => s.tokens.length === n && !s.into && s !== long && originals(s).every((o) => separatorOf(text(o[n - 1])) === ''),
        );
        if (!match) continue;
        long.into = rootOf(match);
        changed = true;
      }
    }
  }
  if (changed) printFolded(current, byLength);
}

/**
 * A last `key=<n>` field after another `key=` field's value, whose value held a digit in every line
 * (`limit=<*> burst=27`, `reason=4 locally_generated=1`): a counter some lines add, the value masked by
 * the tokeniser, not a word the miner judged. A last field with a word value (`rhost=<*> user=root`,
 * two events in loghub's Linux) is not one.
 */
function numericKeyField(e: TemplateEntry, original: Int32Array[], i: number, vocabulary: readonly string[]): boolean {
  const length = e.tokens.length;
  if (i !== length - 2 || i < 2 || !(vocabulary[e.tokens[i]] ?? '').endsWith('=') || !(vocabulary[e.tokens[i - 2]] ?? '').endsWith('=')) return false;
  return e.rows.every((r) => original[r].length === length && (vocabulary[original[r][length - 1]] ?? '') === WILDCARD);
}

/** An item of a list of values: a word of letters, `-` and `_`, no digit, no variable. */
const LIST_WORD = /^[A-Za-z][\w-]*$/;

/**
 * A comma list of the values a variable takes is that variable (`Printer-state-reasons: paused` /
 * `paused, offline-report` / `media-empty-warning, toner-low-report, paused`): where a template holds a
 * variable whose one-word values are at least WIDE_VALUE_MIN_VALUES, a template equal to it but for one
 * to LIST_EXTRA_ITEMS more tokens there folds into it when, in every line it prints, those tokens are a
 * comma list (each but the last ending with `,`) of plain words, one at least a value the variable took
 * alone. A list of words none of which the variable took (`up, degraded` beside a constant `up`) stays.
 */
export function foldValueLists(current: Int32Array[], original: Int32Array[], wildcard: number, vocabulary: readonly string[]) {
  if (!vocabulary.length) return;
  const byLength = templatesByLength(current);
  const holdsVariable = variableIn(vocabulary);
  let changed = false;
  for (const length of [...byLength.keys()].sort((a, b) => a - b)) {
    for (const s of byLength.get(length)!) {
      if (s.into) continue;
      for (let i = 1; i < length; i++) {
        if (s.tokens[i] !== wildcard) continue;
        const values = new Set<string>();
        for (const r of s.rows) if (original[r].length === length) values.add(vocabulary[original[r][i]] ?? '');
        if (values.size < WIDE_VALUE_MIN_VALUES) continue;
        for (let extra = 1; extra <= LIST_EXTRA_ITEMS; extra++) {
          for (const l of byLength.get(length + extra) ?? []) {
            if (l.into) continue;
            let equal = true;
            for (let q = 0; q < length && equal; q++) {
              const [a, b] = [s.tokens[q], l.tokens[q < i ? q : q + extra]];
              // Equal, or a variable on both sides (`<*>]` beside `<*>`, masked by another pass).
              if (q !== i && a !== b && !(holdsVariable(a) && holdsVariable(b))) equal = false;
            }
            if (!equal) continue;
            const list = l.rows.every((r) => {
              const o = original[r];
              if (o.length !== length + extra) return false;
              let seen = false;
              for (let q = i; q <= i + extra; q++) {
                const word = vocabulary[o[q]] ?? '';
                const item = q < i + extra ? word.slice(0, -1) : word;
                if ((q < i + extra && !word.endsWith(',')) || !LIST_WORD.test(item)) return false;
                if (values.has(item)) seen = true;
              }
              return seen;
            });
            if (!list) continue;
            l.into = rootOf(s);
            changed = true;
          }
        }
      }
    }
  }
  if (changed) printFolded(current, byLength);
}

/** A value of one word may also be printed as this many more words (`(UID FETCH` beside `(IDLE`). */
const WIDE_VALUE_EXTRA = [1, 2];
/** The one-word values seen must be at least this many: the position is a variable, not a word. */
const WIDE_VALUE_MIN_VALUES = 3;
/**
 * A last value of plain words folds its longer forms only after this many one-word values: as many as
 * make a position a variable on the strong evidence (the miner's default `minDistinct`); fewer are
 * words naming the event (`begin` / `begin again`).
 */
const WIDE_END_MIN_VALUES = 6;
/** A word of letters, digits, `_` and `-`, nothing around it (`daemon`, `endpoint_slice`). */
const PLAIN_WORD = /^[A-Za-z][\w-]*$/;
/** The leading punctuation of a token (`(` of `(IDLE`, `[` of `[auto(bulk`). */
const LEAD = /^[^\w<>*]+/;

/**
 * A variable of one word that some lines print as two or three words (an IMAP command `(IDLE finished
 * …)` / `(UID FETCH finished …)`, a cause `[api]` / `[auto(bulk api)]`): the longer template, equal to
 * the shorter everywhere but where the shorter has the variable, folds into it when the words there
 * hold no variable, open with the same punctuation every one-word value opened with (the `(` of a
 * parenthesised group), and the one-word values were at least WIDE_VALUE_MIN_VALUES: the position is
 * already a variable and the longer lines print one more value of it; or, when the longer's first word
 * is itself a variable of two or more words each opening with that punctuation (`[auto(bulk api)]` /
 * `[auto(index api)]` beside `[api]` / `[rollover_index]`), when all together are at least three. A
 * quoted name closed by its last word is one value with a number inside it too (`'Wired connection 1'`
 * beside `'HomeNet'` / `'eduroam'` / `'CORP-WLAN'`). Strictly inside the line, with
 * a frame of OPTIONAL_SEGMENT_FRAME constant tokens as the optional segments need; a word printed
 * without the punctuation (`begin` / `begin again`) is no such value, except at the end of a line after
 * WIDE_END_MIN_VALUES one-word values (`Waiting for caches to sync for <*>` / `… for daemon sets`).
 */
export function foldWideValues(current: Int32Array[], original: Int32Array[], wildcard: number, vocabulary: readonly string[]) {
  if (!vocabulary.length) return;
  const byLength = templatesByLength(current);
  const holdsVariable = variableIn(vocabulary);
  let changed = false;
  for (const length of [...byLength.keys()].sort((a, b) => a - b)) {
    const shorter = byLength.get(length);
    if (!shorter || length < OPTIONAL_VARIABLE_MIN_LENGTH) continue;
    for (const extra of WIDE_VALUE_EXTRA) {
      const longer = byLength.get(length + extra);
      if (!longer) continue;
      for (const s of shorter) {
        if (s.into) continue;
        let frame = 0;
        for (const t of s.tokens) if (!holdsVariable(t)) frame++;
        if (frame < OPTIONAL_SEGMENT_FRAME) continue;
        for (let i = 1; i < length; i++) {
          if (s.tokens[i] !== wildcard) continue;
          const atEnd = i === length - 1;
          // The one-word values the variable took, and the punctuation each opened with.
          const values = new Set<number>();
          const leads = new Set<string>();
          for (const r of s.rows) {
            if (original[r].length !== length) continue;
            values.add(original[r][i]);
            leads.add(LEAD.exec(vocabulary[original[r][i]] ?? '')?.[0] ?? '');
          }
          if (leads.size !== 1) continue;
          const lead = [...leads][0];
          // Plain words (no punctuation to open them) only at the end of a line, and only after many
          // one-word values: `… sync for <*>` (job, cronjob, taint, …) and `… sync for daemon sets`.
          if (atEnd ? lead || values.size < WIDE_END_MIN_VALUES : !lead) continue;
          for (const l of longer) {
            if (l.into) continue;
            let equal = true;
            for (let q = 0; q < length && equal; q++) if (q !== i && s.tokens[q] !== l.tokens[q < i ? q : q + extra]) equal = false;
            if (!equal) continue;
            // A quoted name closed by its last word (`'Wired connection <*>'`) is one value, a number in it too.
            const quoted = closesQuote(vocabulary[l.tokens[i + extra]] ?? '', lead);
            let words = true;
            for (let q = i + 1; q <= i + extra; q++) if (holdsVariable(l.tokens[q]) && !quoted) words = false;
            // At the end, a name of plain words (`daemon sets`), not a list (`maintenance, locked`).
            if (atEnd) for (let q = i; q <= i + extra; q++) if (!PLAIN_WORD.test(vocabulary[l.tokens[q]] ?? '')) words = false;
            if (!words) continue;
            // The longer value's first word: one word with the lead beside at least three one-word values, or
            // itself a variable of two or more words each with the lead (`[auto(bulk` / `[auto(index` beside
            // `[api]` / `[rollover_index]`) beside as many one-word values as make three in all.
            const firstWords = l.tokens[i] === wildcard ? leadingWords(l, original, i) : undefined;
            if (firstWords) {
              if (firstWords.size < 2 || values.size + firstWords.size < WIDE_VALUE_MIN_VALUES) continue;
              if ([...firstWords].some((w) => LEAD.exec(vocabulary[w] ?? '')?.[0] !== lead)) continue;
            } else if (values.size < WIDE_VALUE_MIN_VALUES || holdsVariable(l.tokens[i]) || (LEAD.exec(vocabulary[l.tokens[i]] ?? '')?.[0] ?? '') !== lead)
              continue;
            l.into = rootOf(s);
            changed = true;
          }
        }
      }
    }
  }
  if (changed) printFolded(current, byLength);
}

/** A token that closes the quoted phrase `lead` opened (`5G'`, `<*>',`): it ends with that quote, then punctuation. */
function closesQuote(token: string, lead: string): boolean {
  return (lead === "'" || lead === '"') && token.replace(/[,;.:)\]}]+$/, '').endsWith(lead) && !token.startsWith(lead);
}

/** The words a template's lines printed at position i (of lines printed with the template's length). */
function leadingWords(e: TemplateEntry, original: Int32Array[], i: number): Set<number> {
  const words = new Set<number>();
  for (const r of e.rows) if (original[r].length === e.tokens.length) words.add(original[r][i]);
  return words;
}

/**
 * Folds each template into another that differs from it at one position only, where `variantOf` names
 * the token the other template would print instead (or nothing): the first such position found in a
 * template decides, and a row follows the folds to their end.
 */
function foldTokenVariants(
  current: Int32Array[],
  vocabulary: readonly string[],
  variantOf: (tokens: Int32Array, position: number, idOf: Map<string, number>) => number | undefined,
) {
  if (!vocabulary.length) return;
  const idOf = new Map<string, number>();
  vocabulary.forEach((t, id) => idOf.set(t, id));
  const distinct = new Map<string, Int32Array>();
  for (const t of current) distinct.set(t.join(','), t);
  const replace = new Map<string, Int32Array>();
  for (const [k, t] of distinct) {
    for (let p = 0; p < t.length && !replace.has(k); p++) {
      const variant = variantOf(t, p, idOf);
      if (variant === undefined) continue;
      const other = Int32Array.from(t);
      other[p] = variant;
      const target = distinct.get(other.join(','));
      if (target) replace.set(k, target);
    }
  }
  if (!replace.size) return;
  current.forEach((t, r) => {
    let target = replace.get(t.join(','));
    for (let hops = 0; target && hops < 8; hops++) {
      current[r] = target;
      target = replace.get(target.join(','));
    }
  });
}

/** An optional last item of a joined list inside a token: `:ngpus=<*>`, `,mem=<*>`. */
const OPTIONAL_ITEM = /^[:,;][\w.-]+=[^=]*<\*>[^=]*$/;

/**
 * A token and the same token with one more `key=value` item joined to its end (`<*>:ncpus=<*>` and
 * `<*>:ncpus=<*>:ngpus=<*>`, a resource request with or without GPUs), at the same position of
 * templates equal everywhere else, are one token (the shorter): the item is an optional part of one
 * value, as foldOptionalSegments folds an optional field between tokens. The item must carry a key and
 * a variable value; a different word (`state=up` / `state=down`) is no item and stays.
 */
export function foldOptionalItems(current: Int32Array[], vocabulary: readonly string[]) {
  foldTokenVariants(current, vocabulary, (t, p, idOf) => {
    const token = vocabulary[t[p]] ?? '';
    // The item starts at the last `:`, `,` or `;` before the last `=`.
    const eq = token.lastIndexOf('=');
    if (eq < 0) return undefined;
    const cut = Math.max(token.lastIndexOf(':', eq), token.lastIndexOf(',', eq), token.lastIndexOf(';', eq));
    return cut > 0 && OPTIONAL_ITEM.test(token.slice(cut)) ? idOf.get(token.slice(0, cut)) : undefined;
  });
}

/** A word after a count, and its punctuation: `packet`, `packets,`. */
const COUNT_NOUN = /^([A-Za-z]+?)(s?)([,.;:)]?)$/;

/**
 * A count's noun in the singular and the plural is one word (`1 packet` / `12 packets`, `1 file` / `3
 * files`): templates equal but at one position, where one prints a word and the other the same word with
 * an `s`, right after a variable, are one template (the singular's). Two different words after a count
 * (`3 retries` / `3 errors`) stay apart.
 */
export function foldCountNouns(current: Int32Array[], wildcard: number, vocabulary: readonly string[]) {
  foldTokenVariants(current, vocabulary, (t, p, idOf) => {
    if (p === 0 || !vocabulary[t[p - 1]]?.includes(WILDCARD) || t[p] === wildcard) return undefined;
    const m = COUNT_NOUN.exec(vocabulary[t[p]] ?? '');
    return m?.[2] ? idOf.get(`${m[1]}${m[3]}`) : undefined;
  });
}

/** A length-free join needs both templates this long: a line of one to three tokens is its words. */
const ALIGNED_MIN_LENGTH = 4;
/** A name printed where a variable is: two or three tokens (`AirPods Pro`, `Jabra Elite <*>`). */
const NAME_TOKENS = 3;
/** A token of punctuation only (`->`, `@`, `|`, `-`): it separates values, and goes with them. */
const PUNCTUATION = /^[^\w\s]+$/;

/**
 * The longest common subsequence of two templates (a wildcard matches a wildcard, any token only
 * itself): the pairs of matched positions, in order. On ties the earlier position of `a` is matched.
 */
function alignTokens(a: Int32Array, b: Int32Array): Array<[number, number]> {
  const n = a.length;
  const m = b.length;
  const w = m + 1;
  const table = new Uint16Array((n + 1) * w);
  for (let i = n - 1; i >= 0; i--)
    for (let j = m - 1; j >= 0; j--) table[i * w + j] = a[i] === b[j] ? table[(i + 1) * w + j + 1] + 1 : Math.max(table[(i + 1) * w + j], table[i * w + j + 1]);
  const pairs: Array<[number, number]> = [];
  for (let i = 0, j = 0; i < n && j < m; ) {
    if (a[i] === b[j]) pairs.push([i++, j++]);
    else if (table[(i + 1) * w + j] >= table[i * w + j + 1]) i++;
    else j++;
  }
  return pairs;
}

/**
 * Lines of one template need not have one number of tokens (Spell's longest common subsequence, Du and
 * Li 2016; Brain's longest common pattern, Yu et al. 2023; Drain's successors): two templates of
 * different lengths whose alignment (the longest common subsequence of their tokens, a wildcard
 * matching a wildcard) differs only where values are printed are one event. Every gap of the alignment
 * (the tokens of each template between two matched tokens) must be values on both sides: tokens
 * holding a variable, with punctuation-only tokens between them, or nothing (`<*> -> <*> done` /
 * `<*> done`, `(<*>)<*> (<*>)` / `<*>`); or a phrase wholly in quotes against values (`user-agent <*>` /
 * `user-agent "PortSIP VoIP SDK <*>"`; values with one, `NoOp("<*>", "Inbound call from <*>")`),
 * unless the gap follows a `key=` (the tokeniser masks a key's short quoted value whole, `message="<*>"`,
 * when one word holds a digit: no sign that a longer quoted message there is a value); or the same text
 * with and without a space (`size:<*>` / `size: <*>`). A gap holding a plain word (`closed after` / `closed by peer after`) or a `key=` is
 * another event. The anchors hold: templates join only with equal tokens up to the first constant
 * word (and the word after it when that is a severity), and the last constant words (a field's label
 * not counted) are matched to each other, or sit in a quoted phrase or a gap of equal text.
 * Multi-word values: the one gap between the common prefix and the common suffix of two templates of
 * equal anchors is a pair of phrases (two or more tokens on a side, no `key=`); phrases are linked
 * when seen in one frame (that prefix and suffix), and a linked set seen in at least `minContexts`
 * frames is one variable (`Source: orders -> Map` / `Sink: alerts` before `switched from …`, `lags …`,
 * `resources freed …`), as a token varying in that many contexts is one, unless the set is closed
 * (closedPhrases: `Blue Green` / `Rolling`, each on many lines, names events in every frame); phrases seen in one or two
 * frames name events (`backup of home directory finished` / `of mail spool finished`). A variable
 * printed in one frame as WIDE_VALUE_MIN_VALUES or more phrases of two to NAME_TOKENS tokens (a plain
 * word among them; a longer run of words is a sentence, not a name) takes them as values (`input: <*> (AVRCP)` / `input: AirPods Pro (AVRCP)` / `Pixel Buds` /
 * `Jabra Elite <*>`); one or two such phrases name events (`user <*> logged in` / `user root from console
 * logged in`). Both templates
 * have at least ALIGNED_MIN_LENGTH tokens (a short line is its words) and the matched tokens at least
 * OPTIONAL_SEGMENT_FRAME constants. Joined templates print the alignment with each gap one `<*>`;
 * templates are taken in order of first row and compared with the joined ones (values, quotes) and
 * with each member (phrases).
 */
export function foldAlignedGaps(
  current: Int32Array[],
  wildcard: number,
  keys: Set<number>,
  levels: Set<number>,
  vocabulary: readonly string[],
  options: { minContexts: number; minDistinct: number; rareShare: number },
  identities: RecordColumns = new Set(),
  printed?: Float64Array,
) {
  if (!vocabulary.length) return;
  const { minContexts } = options;
  const holdsVariable = variableIn(vocabulary);
  // A record's column delimiters (engine/cluster/recordColumns.ts): a gap holding one spans two columns.
  const delimiters = delimiterIds(vocabulary);
  const records = new Map<Int32Array, boolean>();
  const isRecord = (t: Int32Array) => {
    let known = records.get(t);
    if (known === undefined) {
      let count = 0;
      for (const id of t) if (delimiters.has(id)) count++;
      records.set(t, (known = count >= RECORD_MIN_DELIMITERS));
    }
    return known;
  };
  const crossesColumns = (t: Int32Array, from: number, to: number) => {
    if (!delimiters.size || !isRecord(t)) return false;
    for (let q = from; q < to; q++) if (delimiters.has(t[q])) return true;
    return false;
  };
  const valueToken = (id: number) => holdsVariable(id) || PUNCTUATION.test(vocabulary[id] ?? '');
  const text = (t: Int32Array, from: number, to: number) => {
    let s = '';
    for (let q = from; q < to; q++) s += vocabulary[t[q]] ?? '';
    return s;
  };
  // A gap's side is values: tokens holding a variable or punctuation, at least one a variable; or nothing.
  const values = (t: Int32Array, from: number, to: number) => {
    let variable = false;
    for (let q = from; q < to; q++) {
      if (!valueToken(t[q])) return false;
      if (holdsVariable(t[q])) variable = true;
    }
    return variable || from === to;
  };
  // The leading anchor: the tokens through the first constant word (and the word after it when that is a severity).
  const leadOf = (t: Int32Array): number | undefined => {
    let first = 0;
    while (first < t.length && holdsVariable(t[first])) first++;
    if (first < t.length - 1 && levels.has(t[first])) first++;
    return first < t.length ? first + 1 : undefined;
  };
  // A phrase wholly in quotes (`"PortSIP VoIP SDK <*>"`, `"Windows Boot Manager"`): one value, whatever its words.
  const quoted = (t: Int32Array, from: number, to: number) => {
    if (to <= from) return false;
    const first = vocabulary[t[from]] ?? '';
    const last = (vocabulary[t[to - 1]] ?? '').replace(/[,;.:)\]}]+$/, '');
    const mark = first[0];
    if ((mark !== '"' && mark !== "'") || !last.endsWith(mark) || (to - from === 1 && first.length < 3)) return false;
    for (let q = from; q < to; q++) {
      const token = vocabulary[t[q]] ?? '';
      const inner = token.slice(q === from ? 1 : 0, q === to - 1 ? token.lastIndexOf(mark) : token.length);
      if (inner.includes(mark)) return false;
    }
    return true;
  };
  // Values and quoted phrases, one phrase at least (`NoOp("<*>", "Inbound call from <*>")`: a call's
  // arguments, a value and a quoted text): one value as a quoted phrase alone is.
  const quotedValues = (t: Int32Array, from: number, to: number) => {
    let phrase = false;
    for (let q = from; q < to; q++) {
      if (valueToken(t[q]) && !/^["']/.test(vocabulary[t[q]] ?? '')) continue;
      let end = q + 1;
      while (end <= to && !quoted(t, q, end)) end++;
      if (end > to) return false;
      phrase = true;
      q = end - 1;
    }
    return phrase;
  };
  // The last constant word, a field's label not counted as one (`size: <*>`): it names the event.
  const lastConstant = (t: Int32Array): number => {
    let last = t.length - 1;
    while (last >= 0 && (holdsVariable(t[last]) || FIELD_LABEL.test(vocabulary[t[last]] ?? ''))) last--;
    return last;
  };
  // Templates by their leading anchor: only templates of one anchor can join.
  const buckets = new Map<string, Array<{ tokens: Int32Array; rows: number[] }>>();
  const seen = new Map<string, { tokens: Int32Array; rows: number[] }>();
  current.forEach((t, r) => {
    const k = t.join(',');
    const entry = seen.get(k);
    if (entry) {
      entry.rows.push(r);
      return;
    }
    if (t.length < ALIGNED_MIN_LENGTH) return;
    const lead = leadOf(t);
    if (lead === undefined) return;
    const bucket = t.subarray(0, lead).join(',');
    const created = { tokens: t, rows: [r] };
    seen.set(k, created);
    const list = buckets.get(bucket);
    if (list) list.push(created);
    else buckets.set(bucket, [created]);
  });
  // Phrases that stand for one another: the one gap between the common prefix and suffix of two
  // templates with equal anchors, two or more tokens on a side, linked when seen in one frame (the
  // prefix and suffix around them), counted per linked set in distinct frames.
  const phrasePairs: Array<[string, string]> = [];
  const framesOf = new Map<string, Set<string>>();
  const phraseFrames: Array<[string, string, string]> = [];
  // The lines printing each phrase, per template printing it (a template counted once however many pairs it is in).
  const phraseLines = new Map<string, Map<Int32Array, number>>();
  const linesOf = (e: { rows: number[] }) => {
    let n = 0;
    for (const r of e.rows) n += printed ? printed[r] : 1;
    return n;
  };
  const countPhrase = (phrase: string, e: { tokens: Int32Array; rows: number[] }) => {
    const byTemplate = phraseLines.get(phrase) ?? phraseLines.set(phrase, new Map()).get(phrase)!;
    if (!byTemplate.has(e.tokens)) byTemplate.set(e.tokens, linesOf(e));
  };
  const namesOf = new Map<string, Set<string>>();
  // `v` prints one variable where `w` prints a phrase of two or more tokens, one a plain word, no `key=`
  // (`input: <*> (AVRCP)` / `input: Jabra Elite <*> (AVRCP)`): the frame (`v` without the variable) and the phrase.
  function nameGap(v: Int32Array, w: Int32Array): [string, string] | undefined {
    const gap = middleGap(v, w);
    if (!gap) return undefined;
    let [from, toV, toW] = gap;
    // An empty side beside a variable: the variable is the side (`<*> (AVRCP)` / `Jabra Elite <*> (AVRCP)`).
    if (toV === from && v[from] === wildcard) {
      toV++;
      toW++;
    } else if (toV === from && from > 0 && v[from - 1] === wildcard) from--;
    if (toV - from !== 1 || v[from] !== wildcard || toW - from < 2 || toW - from > NAME_TOKENS || !phraseLike(w, from, toW)) return undefined;
    let word = false;
    for (let q = from; q < toW; q++) if (!holdsVariable(w[q])) word = true;
    if (!word) return undefined;
    const frame = `${v.subarray(0, from).join(',')}#${v.subarray(toV).join(',')}`;
    return [frame, w.subarray(from, toW).join(',')];
  }
  for (const [bucket, list] of buckets)
    for (let x = 0; x < list.length; x++)
      for (let y = x + 1; y < list.length; y++) {
        const gap = middleGap(list[x].tokens, list[y].tokens);
        if (!gap || !phraseLike(list[x].tokens, gap[0], gap[1]) || !phraseLike(list[y].tokens, gap[0], gap[2])) continue;
        if (Math.max(gap[1] - gap[0], gap[2] - gap[0]) < 2) continue;
        const a = list[x].tokens.subarray(gap[0], gap[1]).join(',');
        const b = list[y].tokens.subarray(gap[0], gap[2]).join(',');
        phrasePairs.push([a, b]);
        countPhrase(a, list[x]);
        countPhrase(b, list[y]);
        phraseFrames.push([a, `${bucket}#${list[x].tokens.subarray(0, gap[0]).join(',')}#${list[x].tokens.subarray(gap[1]).join(',')}`, b]);
      }
  // A variable against phrases of words: the phrases it was printed as, per frame.
  for (const list of buckets.values())
    for (let x = 0; x < list.length; x++)
      for (let y = x + 1; y < list.length; y++) {
        const named = nameGap(list[x].tokens, list[y].tokens) ?? nameGap(list[y].tokens, list[x].tokens);
        if (!named) continue;
        const names = namesOf.get(named[0]);
        if (names) names.add(named[1]);
        else namesOf.set(named[0], new Set([named[1]]));
      }
  const { find, linked } = linkTogether(phrasePairs);
  for (const [a, frame] of phraseFrames) {
    const root = find(a);
    const frames = framesOf.get(root);
    if (frames) frames.add(frame);
    else framesOf.set(root, new Set([frame]));
  }
  // Two phrases of a set varying in at least `minContexts` frames are values of one variable.
  // A variable printed as WIDE_VALUE_MIN_VALUES or more phrases of several tokens in one frame takes them as values
  // (`input: <*> (AVRCP)` / `input: AirPods Pro (AVRCP)` / `Pixel Buds` / `Jabra Elite <*>`).
  const namedValue = (m: Int32Array, e: Int32Array) => {
    const named = nameGap(m, e) ?? nameGap(e, m);
    return named !== undefined && (namesOf.get(named[0])?.size ?? 0) >= WIDE_VALUE_MIN_VALUES;
  };
  // A closed set of phrases (closedPhrases: each on several lines, none once, plain words; `strategy Blue Green` /
  // `Rolling` / `Canary With Analysis chosen`, `Finished creating` / `Stopping connector`) is the event's wording
  // however many frames it varies in, as a closed set of words is (templateMiner's `closedSet`); a sentence
  // here is the line's own wording, not a reason's text.
  const setLines = new Map<string, Map<string, number>>();
  for (const [phrase, byTemplate] of phraseLines) {
    const root = find(phrase);
    const lines = setLines.get(root) ?? setLines.set(root, new Map()).get(root)!;
    let n = 0;
    for (const c of byTemplate.values()) n += c;
    lines.set(phrase, n);
  }
  const closedSets = new Map<string, boolean>();
  const closedSet = (root: string) => {
    let known = closedSets.get(root);
    if (known === undefined)
      closedSets.set(root, (known = closedPhrases(setLines.get(root) ?? new Map(), vocabulary, options.minDistinct, options.rareShare, false)));
    return known;
  };
  const phrasesVary = (a: string, b: string) =>
    linked(a) && linked(b) && find(a) === find(b) && (framesOf.get(find(a))?.size ?? 0) >= minContexts && !closedSet(find(a));
  for (const list of buckets.values()) {
    if (list.length < 2) continue;
    // Groups of joined templates, each printing its joined tokens.
    const groups: Array<{ tokens: Int32Array; rows: number[]; members: Int32Array[] }> = [];
    for (const entry of list) {
      let joined = false;
      for (const g of groups) {
        let merged = alignedJoin(g.tokens, entry.tokens);
        if (
          !merged &&
          g.members.some((m) => {
            const gap = middleGap(m, entry.tokens);
            return (
              gap !== undefined &&
              (phrasesVary(m.subarray(gap[0], gap[1]).join(','), entry.tokens.subarray(gap[0], gap[2]).join(',')) || namedValue(m, entry.tokens))
            );
          })
        )
          merged = middleJoin(g.tokens, entry.tokens);
        if (!merged) continue;
        g.tokens = merged;
        g.rows.push(...entry.rows);
        g.members.push(entry.tokens);
        joined = true;
        break;
      }
      if (!joined) groups.push({ tokens: entry.tokens, rows: [...entry.rows], members: [entry.tokens] });
    }
    for (const g of groups) for (const r of g.rows) current[r] = g.tokens;
  }

  /** A phrase side: plain tokens, none a `key=`, inside one column of a record. */
  function phraseLike(t: Int32Array, from: number, to: number): boolean {
    if (to <= from || !phraseInColumn(t, from, to, identities, delimiters)) return false;
    for (let q = from; q < to; q++) if (keys.has(t[q])) return false;
    return true;
  }

  /** The gap between the common prefix and the common suffix of `a` and `b`: [start, end in a, end in b]. */
  function middleGap(a: Int32Array, b: Int32Array): [number, number, number] | undefined {
    const shortest = Math.min(a.length, b.length);
    let prefix = 0;
    while (prefix < shortest && a[prefix] === b[prefix]) prefix++;
    let suffix = 0;
    while (suffix < shortest - prefix && a[a.length - 1 - suffix] === b[b.length - 1 - suffix]) suffix++;
    if (prefix === 0 || suffix === 0) return undefined;
    return [prefix, a.length - suffix, b.length - suffix];
  }

  /** `a` and `b` with their middle gap one `<*>`. */
  function middleJoin(a: Int32Array, b: Int32Array): Int32Array | undefined {
    const gap = middleGap(a, b);
    if (!gap || crossesColumns(a, gap[0], gap[1]) || crossesColumns(b, gap[0], gap[2])) return undefined;
    return oneWildcardPerRun([...a.subarray(0, gap[0]), wildcard, ...a.subarray(gap[1])], wildcard);
  }

  /** The joined template of `a` and `b`, or undefined when they are not one event. */
  function alignedJoin(a: Int32Array, b: Int32Array): Int32Array | undefined {
    if (a.length === b.length) return a.join(',') === b.join(',') ? a : undefined;
    const la = lastConstant(a);
    const lb = lastConstant(b);
    if (la < 0 || lb < 0) return undefined;
    const pairs = alignTokens(a, b);
    // The last constant words are matched to each other, or both inside one gap printed with and without a space or in quotes.
    let lastMatched = false;
    let frame = 0;
    for (const [i] of pairs) if (!holdsVariable(a[i])) frame++;
    if (frame < OPTIONAL_SEGMENT_FRAME) return undefined;
    const out: number[] = [];
    let i0 = 0;
    let j0 = 0;
    for (let k = 0; k <= pairs.length; k++) {
      const [i1, j1] = k < pairs.length ? pairs[k] : [a.length, b.length];
      if (i1 > i0 || j1 > j0) {
        if (crossesColumns(a, i0, i1) || crossesColumns(b, j0, j1)) return undefined;
        for (let q = i0; q < i1; q++) if (keys.has(a[q])) return undefined;
        for (let q = j0; q < j1; q++) if (keys.has(b[q])) return undefined;
        const sameText = text(a, i0, i1) === text(b, j0, j1);
        // After a `key=` a value masked whole is the tokeniser's join of a short quoted value (`message="<*>"`),
        // no evidence that a longer quoted text there (`message="Scaled down replica set …"`) is a value.
        const afterKey = i0 > 0 && keys.has(a[i0 - 1]);
        const valueGap =
          (values(a, i0, i1) && values(b, j0, j1)) ||
          (!afterKey && i1 > i0 && values(a, i0, i1) && quotedValues(b, j0, j1)) ||
          (!afterKey && j1 > j0 && values(b, j0, j1) && quotedValues(a, i0, i1));
        if (!sameText && !valueGap) return undefined;
        const holdsA = la >= i0 && la < i1;
        const holdsB = lb >= j0 && lb < j1;
        if (holdsA || holdsB) {
          // A quoted phrase is one value: its words name nothing (`user-agent <*>` / `user-agent "PortSIP VoIP SDK <*>"`).
          const quotedA = quoted(a, i0, i1) && values(b, j0, j1);
          const quotedB = quoted(b, j0, j1) && values(a, i0, i1);
          if (!((holdsA && holdsB && sameText) || ((!holdsA || quotedA) && (!holdsB || quotedB) && (quotedA || quotedB)))) return undefined;
          lastMatched = true;
        }
        out.push(wildcard);
      }
      if (k < pairs.length && i1 === la && j1 === lb) lastMatched = true;
      if (k < pairs.length) out.push(a[i1]);
      i0 = i1 + 1;
      j0 = j1 + 1;
    }
    if (!lastMatched) return undefined;
    // Runs of variables are one variable (foldVariableRuns).
    return oneWildcardPerRun(out, wildcard);
  }
}

/** A phrase-variable's frame: at least this many constant tokens before the phrase (the event's wording). */
const PHRASE_FRAME_MIN = 2;
/** An open set of phrases: at least this many distinct phrases under one frame… */
const PHRASE_OPEN_MIN = 3;
/** …of at least this many different token counts (a looked-up text, not a closed pair of words). */
const PHRASE_LENGTHS_MIN = 2;
/** A value predicts the phrase (functional dependency) over at least this many lines per distinct value. */
const PHRASE_REPEAT = 2;
/** A tail printed on more than this share of its frame's lines is that frame's own event, not one of many phrases. */
const PHRASE_RARE_SHARE = 0.5;
/** A token ending a frame before an inserted text: a label's colon (`failed:`) or a dash alone (`-`). */
const PHRASE_SEPARATOR = /^(?:[A-Za-z][\w.-]*:|[-–—]+)$/;

/**
 * A phrase the program inserts from elsewhere (issue 31): one event prints, at the end of its line,
 * many different phrases of different lengths, a text looked up or passed on rather than the event's
 * own wording: an error text after a fixed frame (`item <*> became not supported: Unsupported item
 * key.` / `: Timeout while executing a shell script.`), a unit's description (`Starting <*> - GNOME
 * Shell on Wayland...` / `- Tracker file system data miner...`), a UID's name (`cuid=<*> - CT Image
 * Storage`). Templates of one leading anchor that share a frame (equal tokens through the anchor and
 * beyond) and differ in their tails after it join as `frame <*>` (the most specific frame first) when
 *   (a) the frame is about a value (a variable after its anchor and any severity), has PHRASE_FRAME_MIN
 *       or more words and ends in a separator (a label's colon `not supported:`, a lone dash `failed -`),
 *       or it ends in a value and a lone dash (a value and its name, one word before them at least), and
 *       its tails are an open set: PHRASE_OPEN_MIN or more distinct tails of two or more tokens, of
 *       PHRASE_LENGTHS_MIN or more token counts; a tail on more than PHRASE_RARE_SHARE of the frame's
 *       lines is the frame's own event and stays (`Started <*> - Application launched by shell.`); or
 *   (b) a value the miner masked just before the tail (at most punctuation between) predicts it, a
 *       functional dependency as one record column predicts another (engine/cluster/recordColumns.ts):
 *       every value prints one tail, the values repeat (PHRASE_REPEAT lines per value), PHRASE_OPEN_MIN
 *       or more tails, each printed after one value only, join (a value opening a quote the tail
 *       closes is the first word of a message, not a name).
 * Tails stay apart after a plain word (`closed by peer` / `by idle timeout`), when few after a colon
 * (`done: ok` / `done: with warnings`), of one word each (`Status: active` / `inactive`), under a label
 * about no value (`scheduler notice: …`, `[notice] Heartbeat: …`) or across a record's delimiters.
 */
export function foldPhraseTails(
  current: Int32Array[],
  original: Int32Array[],
  wildcard: number,
  keys: Set<number>,
  levels: Set<number>,
  vocabulary: readonly string[],
  printed?: Float64Array,
) {
  if (!vocabulary.length) return;
  const holdsVariable = variableIn(vocabulary);
  const entries = distinctTemplates(current, printed);
  const delimiters = delimiterIds(vocabulary);
  const leadOf = (t: Int32Array): number | undefined => {
    let first = 0;
    while (first < t.length && holdsVariable(t[first])) first++;
    if (first < t.length - 1 && levels.has(t[first])) first++;
    return first < t.length ? first + 1 : undefined;
  };
  const buckets = new Map<string, TemplateEntry[]>();
  for (const e of entries) {
    const lead = leadOf(e.tokens);
    if (lead === undefined || lead >= e.tokens.length) continue;
    const k = e.tokens.subarray(0, lead).join(',');
    const list = buckets.get(k);
    if (list) list.push(e);
    else buckets.set(k, [e]);
  }
  // Frames (a prefix of equal tokens) and the templates whose tail after it differs from another's.
  const frames = new Map<string, { prefix: Int32Array; constants: number; members: Set<TemplateEntry> }>();
  for (const [bucket, list] of buckets) {
    const lead = bucket.split(',').length;
    for (let x = 0; x < list.length; x++)
      for (let y = x + 1; y < list.length; y++) {
        const a = list[x].tokens;
        const b = list[y].tokens;
        const shortest = Math.min(a.length, b.length);
        let prefix = 0;
        while (prefix < shortest && a[prefix] === b[prefix]) prefix++;
        if (prefix < lead || prefix >= shortest) continue;
        // A tail holds no `key=` and stays in one column of a record (no delimiter after the frame).
        let plain = true;
        for (const t of [a, b]) for (let q = prefix; q < t.length; q++) if (keys.has(t[q]) || delimiters.has(t[q])) plain = false;
        if (!plain) continue;
        const k = a.subarray(0, prefix).join(',');
        let frame = frames.get(k);
        if (!frame) {
          // The frame's words (constant tokens holding a letter): a property of the prefix, counted once.
          let constants = 0;
          for (let q = 0; q < prefix; q++) if (!holdsVariable(a[q]) && /[A-Za-z]/.test(vocabulary[a[q]] ?? '')) constants++;
          frames.set(k, (frame = { prefix: a.subarray(0, prefix), constants, members: new Set() }));
        }
        frame.members.add(list[x]);
        frame.members.add(list[y]);
      }
  }
  const tailOf = (row: Int32Array, from: number) => row.subarray(from).join(',');
  const open = (prefix: Int32Array, constants: number, members: Set<TemplateEntry>): Set<TemplateEntry> | undefined => {
    const p = prefix.length;
    const tails = new Set<string>();
    const lengths = new Set<number>();
    for (const e of members) {
      tails.add(tailOf(e.tokens, p));
      lengths.add(e.tokens.length - p);
    }
    if (tails.size < PHRASE_OPEN_MIN) return undefined;
    // The frame is about a value (a variable after its leading anchor): the tail is what befell it.
    // The message starts after its leading anchor and any severity (`Nov <*> <*> [notice] Heartbeat:` is about no value).
    let start = leadOf(prefix) ?? p;
    for (let q = 0; q < p; q++) if (levels.has(prefix[q])) start = Math.max(start, q + 1);
    let about = false;
    for (let q = start; q < p; q++) if (prefix[q] === wildcard) about = true;
    const last = vocabulary[prefix[p - 1]] ?? '';
    // A value and its name: the frame ends in a value and a lone dash (`cuid=<*> - Digital X-Ray Image Storage`).
    const valueName = constants >= 1 && p >= 2 && prefix[p - 2] === wildcard && /^[-–—]$/.test(last);
    // (a) an open set of tails after a separator, each rare: a tail on most of the frame's lines is its own event.
    if (lengths.size >= PHRASE_LENGTHS_MIN && ((about && constants >= PHRASE_FRAME_MIN && PHRASE_SEPARATOR.test(last)) || valueName)) {
      let total = 0;
      for (const e of members) total += e.lines;
      const rare = new Set([...members].filter((e) => e.lines <= PHRASE_RARE_SHARE * total));
      // Phrases: tails of two or more tokens (one word each, `active` / `starting up`, is a state's name).
      const rareTails = new Set([...rare].filter((e) => e.tokens.length - p >= 2).map((e) => tailOf(e.tokens, p)));
      if (rare.size >= 2 && rareTails.size >= PHRASE_OPEN_MIN) {
        return rare;
      }
    }
    // (b) the value before the tail (at most a separator between) names it: each value repeated prints one
    // tail, and each tail joined is printed after one value only (a name looked up, not the event's own wording).
    const q = prefix[p - 1] === wildcard ? p - 1 : p >= 2 && prefix[p - 2] === wildcard && PUNCTUATION.test(vocabulary[prefix[p - 1]] ?? '') ? p - 2 : -1;
    if (q < 0) return undefined;
    // A value opening a quote the tail closes is the first word of a quoted message, not a name.
    const opensQuote = (id: number) => /^[^"']*["'][^"']*$/.test(vocabulary[id] ?? '');
    const tailsOf = new Map<number, Set<string>>();
    const valuesOf = new Map<string, Set<number>>();
    let lines = 0;
    for (const e of members)
      for (const r of e.rows) {
        const row = original[r];
        if (row.length !== e.tokens.length) continue;
        if (opensQuote(row[q])) return undefined;
        const tail = tailOf(row, p);
        (tailsOf.get(row[q]) ?? tailsOf.set(row[q], new Set()).get(row[q])!).add(tail);
        (valuesOf.get(tail) ?? valuesOf.set(tail, new Set()).get(tail)!).add(row[q]);
        lines += printed ? printed[r] : 1;
      }
    if (tailsOf.size < 2 || lines < PHRASE_REPEAT * tailsOf.size) return undefined;
    for (const seen of tailsOf.values()) if (seen.size > 1) return undefined;
    const named = new Set<TemplateEntry>();
    const namedTails = new Set<string>();
    for (const e of members) {
      let ok = true;
      const own: string[] = [];
      for (const r of e.rows) {
        const row = original[r];
        if (row.length !== e.tokens.length) continue;
        const tail = tailOf(row, p);
        if ((valuesOf.get(tail)?.size ?? 0) > 1) ok = false;
        own.push(tail);
      }
      if (ok && own.length) {
        named.add(e);
        for (const t of own) namedTails.add(t);
      }
    }
    return named.size >= 2 && namedTails.size >= PHRASE_OPEN_MIN ? named : undefined;
  };
  // The most specific frames first: a template joins the longest frame that holds it.
  const joinedTo = new Map<TemplateEntry, Int32Array>();
  for (const { prefix, constants, members } of [...frames.values()].sort((a, b) => b.prefix.length - a.prefix.length)) {
    const free = new Set([...members].filter((e) => !joinedTo.has(e)));
    if (free.size < 2) continue;
    const joining = open(prefix, constants, free);
    if (!joining) continue;
    const joined = Int32Array.from([...prefix, wildcard]);
    for (const e of joining) joinedTo.set(e, joined);
  }
  const keyed = new Map<string, Int32Array>();
  for (const [e, t] of joinedTo) {
    const c = oneWildcardPerRun(t, wildcard);
    const k = c.join(',');
    const shared = keyed.get(k) ?? c;
    keyed.set(k, shared);
    for (const r of e.rows) current[r] = shared;
  }
}
