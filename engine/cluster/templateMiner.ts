/**
 * A deterministic log template miner for engine stage 5: groups lines (token sequences from
 * engine/text/templateTokens.ts) by the template that printed them.
 *
 * Lines of one template have the same number of tokens (Drain's first layer, He et al. 2017), and a
 * position whose token changes while the rest of the line stays the same is a variable (Brain, Yu et
 * al. 2023: the common pattern of a group is what stays). Per token count, starting from the distinct
 * lines, for every position p in turn:
 *   1. the lines equal everywhere but at p form a "context"; the tokens seen together at p in one
 *      context are linked (union-find), so `Mon` and `Sat` are linked through any context that holds
 *      both; a context whose rest of the line is variables only (`JOB<*> <*>` before `KEPT` / `DELETED` /
 *      a masked record) is no event's wording and never links a word with a value;
 *   2. a linked set of tokens is a variable, and each of its tokens becomes the wildcard at p, when it
 *      holds the wildcard already, bare or inside its punctuation (`"<*>"`: a masked value sits where a
 *      word sits elsewhere), or when it has
 *      many distinct values, each rare (at least `minDistinct` tokens, the most frequent printing at
 *      most `rareShare` of their lines: user names, not `begin`/`end`), or three or more tokens, at least half
 *      of their lines printing a token seen on no other line (an open pool, Good-Turing's n1/N: `"orra"` /
 *      `"zeal"` / `"lina"`, one line each; not at the anchored leading token); inside the line (not at its
 *      first or last position) also on weaker evidence: three or more tokens, two of them also seen
 *      at another (length, position) slot (two words seen elsewhere, `Local`/`Remote IP`, name the
 *      event), three or more tokens whose every line holds variables at two or more other
 *      positions (a few-valued parameter among parameters: `save failed to INBOX:` / `Drafts:` / `Junk:`
 *      between a user and a message id; a lower-case word before every variable of its line is wording:
 *      `Print job started - origin: <*>` / `done` / `cancelled`), or tokens varying in at least `minContexts` contexts of the original
 *      lines (two months, varying under every weekday and host), or three or more names equal but for
 *      one piece between constant pieces (`relay-eu` / `relay-us` / `relay-ap` `.hubcloud.example.net`), unless two plain words between a
 *      value and the message's wording vary in fewer than half the contexts they appear in (a state:
 *      `<player> joined the game` / `left the game`, the same players coming and going);
 *      A bare word linked with values enclosed in brackets or quotes (`PLAY RECAP` beside `PLAY [all]`,
 *      `PLAY [<*>]`) stays a constant unless a value printed bare stands beside it;
 *   3. otherwise the tokens are constants and the lines stay apart: `VM Started` and `VM Paused` vary in
 *      one context only, with four values. The leading token anchors the template (issue 31: a set at
 *      position 0 needs `anchorDistinct` distinct rare values; by default never; after a leading
 *      severity such as `info:` or a value in punctuation such as a Unix time `1732780000:` the word
 *      after it anchors too), the first word of a
 *      quoted phrase (`"GET <*> <*>"`, a message of its own) and a word between two equal marks
 *      (`** START **`, a banner's label) need the strong evidence, a word printed before different keys
 *      is a verb anchored as a leading word (`MOD dn=` / `MOD attr=`), a constant last word
 *      names the event (`layout begin` / `layout end`) unless three or more values of a key close a
 *      bracketed record there (`preset=medium)` / `fast)` / `slow)`), and a `key=` token (engine/text/templateTokens.ts
 *      splits `key=value`) is never a variable. Before the passes, the value after a key is judged
 *      across every line printing the key (maskKeyValues): many distinct values, each rare, make it a
 *      variable everywhere (two digit-free values in one line never vary alone); a list of such values
 *      after the key is one value (collapseKeyLists), and a JSON field's `"key":` is a key (addJsonKeys), as
 *      is a label in a record of fields (`owner: root, user: guest`: recordLabels); a key whose values hold a
 *      variable and differ in shape (`[id=<*>]` / `[id=sgrule-<*>]` / `[id=none]`, a key inside a token too)
 *      has a variable value everywhere unless its words are a closed set (maskMixedKeyValues).
 * Three or more words wholly in quotes (`'settings:get'`, SQL's back quotes too) varying in one context
 * inside the line are a variable, as three values after a key are; so are names in square brackets
 * (`[App\Models\Order]`) and identifiers joined as code joins words (`basic_ncsa_auth`,
 * `extendedDiagnosticSession`). Two forms of one verb (`Executing` /
 * `Executed`) are two events however many contexts they vary in.
 * Passes repeat until nothing changes (a wildcard at one position can make other lines equal
 * elsewhere). Once they have settled, the cross product judges both ends of the line and the positions
 * next to them across lengths (crossProduct): tokens there that each print the same several different
 * events with most of their lines (a channel `[CHA]`…`[CHD]` or a job's kind `JOB<*>` / `STC<*>` opening
 * every event, a component closing it, a daemon after a host, a component after a thread) are a source,
 * a variable, though the leading token otherwise anchors, the last word names the event and the passes
 * see one length at a time; the passes run again on the lengths it touched. Then the folds across lengths (engine/cluster/templateFolds.ts: a longer template that is a
 * shorter one with something optional or repeated inserted joins it) and the field-line (a tag before many
 * rare field labels, one field a line: maskFieldLines), free-text, code-text and singleton passes here. After the folds, templates equal once their runs of `<*>` are one `<*>` print one event,
 * as the tokeniser reads a run of one variable token; then templates of different lengths whose alignment (longest
 * common subsequence) differs only by values, a quoted phrase or phrases seen in several frames join
 * (foldAlignedGaps: the token count does not separate an event alone); then templates sharing a frame about a value
 * whose tails after a separator are an open set of phrases, or are predicted by the value before them, join
 * (foldPhraseTails: an error text or a name the program inserts). The result does not depend on the order of the
 * lines except through the template numbering (first occurrence). Lines hash as the sum of
 * per-position 32-bit mixes, twice (53 bits): the key of "the line without position p" is the line's
 * hash minus that position's mix.
 */
import type { TokenIdColumn } from '../text/tfidf.ts';
import { SEVERITY_WORDS, WILDCARD } from '../text/templateTokens.ts';
import { linkTogether } from './linkTogether.ts';
import { delimiterIds, maskRecordColumns, restoreIdentityWords } from './recordColumns.ts';
import {
  closedCounts,
  closedPhrases,
  distinctTemplates,
  foldAlignedGaps,
  foldCountNouns,
  foldListItems,
  foldMeasureTails,
  foldOptionalFlags,
  foldOptionalItems,
  foldOptionalSegments,
  foldPhraseTails,
  foldValueLists,
  foldVariableRuns,
  foldWideValues,
  rootOf,
  type TemplateEntry,
  variableIn,
} from './templateFolds.ts';

export interface MinerOptions {
  /** Many distinct values: a linked set of at least this many tokens is a variable when each is rare. */
  minDistinct: number;
  /** Each rare: the most frequent token of such a set prints at most this share of its lines. */
  rareShare: number;
  /** A linked set varying in at least this many contexts of the original lines is a variable (inside the line). */
  minContexts: number;
  /** The leading token anchors the template: a set at position 0 is a variable only with this many distinct tokens. */
  anchorDistinct: number;
}

export const defaultMinerOptions: MinerOptions = { minDistinct: 6, rareShare: 0.5, minContexts: 3, anchorDistinct: Number.POSITIVE_INFINITY };

export interface MinedTemplates {
  /** templateOf[j]: the template of the j-th mined document. */
  templateOf: Int32Array;
  /** Token ids per template, `wildcard` at the variable positions; size = lines printed by it. */
  templates: Array<{ tokens: Int32Array; size: number }>;
}

/** Variables in punctuation only: `"<*>"`, `(<*>)`, and several (`[<*>][<*>]`, an index and its shard). */
const FRAMED_WILDCARD = /^[^\w<>*]*<\*>(?:[^\w<>*]+<\*>)*[^\w<>*]*$/;
/** A value and the punctuation around it (`'iris.example.net',` → `'` … `',`). */
const VALUE_IN_FRAME = /^([^\w<>*]*).*?([^\w<>*]*)$/s;
/** The first word of a quoted phrase of several words: an opening quote, a digit-free word, no closing quote. */
const QUOTE_LEAD = /^"[A-Za-z][A-Za-z_-]*$/;
/** One word wholly in single, double or back quotes, at most a separator after it (`'settings:get'`, `"eu-west",`, SQL's `` `users` ``). */
const QUOTED_WORD = /^(['"`])[^\s'"`]+\1[,;:.]?$/;
/**
 * One name wholly in square brackets inside a line (`[App\\Models\\Order]`, `[orders.show]`, `[queue]`):
 * bracketed as a quoted name is (a model, a route, a connection the message is about).
 */
const BRACKETED_WORD = /^\[[A-Za-z][\w.\\:-]*\][,;:.]?$/;
/** A host name: three or more dot-separated lower-case labels, the last of letters only (`proxy-up.example.net`). */
const HOST_NAME = /^[a-z][a-z0-9-]*(?:\.[a-z][a-z0-9-]*)+\.[a-z]{2,}$/;
/**
 * A key whose value names the event by the conventions of structured logs (`type=SYSCALL`, `class=scrub_finish`,
 * `event_type=`, `action=`, `operation=`): its values are words as the line's own are, not a key's values that
 * many rare ones make a variable. (A bare `event=` is not one: a webhook's `event=push` is the delivery's parameter.)
 */
const EVENT_KEY = /^"?(?:type|class|event_?type|kind|action|op|operation)"?[=:]$/i;
/** A host name with its port masked (`gw.example.net:<*>`): an address, whatever few values a sample shows. */
const HOST_PORT = /^[a-z][a-z0-9-]*(?:\.[a-z][a-z0-9-]*)+\.[a-z]{2,}:<\*>[,;.]?$/;
/** A single letter, at most a separator after it (`D`, `R,`). */
const LETTER = /^[A-Za-z][,;.]?$/;
/** Single letters at one position are values from this many on. */
const LETTERS_MIN = 3;
/**
 * An identifier of several words joined as code joins them (`basic_ncsa_auth`, `extendedDiagnosticSession`):
 * a name the line prints, as a quoted one is.
 */
const IDENTIFIER = /^(?:[a-z]+(?:_[a-z0-9]+)+|[a-z]+(?:[A-Z][a-z0-9]+)+)[,;:.]?$/;
/** A mark of two or more punctuation characters (`**`, `--`, `##`, `===`). */
const MARK = /^[^\w\s<>]{2,}$/;
/** An open pool of values: at least this many distinct tokens… */
const OPEN_POOL_MIN = 3;
/** …with at least this share of their lines printing a token seen on that line only (Good-Turing's n1/N). */
const OPEN_POOL_SHARE = 0.5;
/** A closed set (closedCounts, engine/cluster/templateFolds.ts) names events however many contexts it varies in, unless its words are calendar parts (`Jun` / `Jul`, `Mon` / `Sat`): a date is a value whatever its vocabulary. */
const CALENDAR_WORD = /^(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec|mon|tue|wed|thu|fri|sat|sun)[a-z]*[,.]?$/i;
/** Two plain words varying in fewer than this share of the contexts they appear in are a state (`joined` / `left`). */
const STATE_SHARE = 0.5;
/** A word closing a bracketed record: a value, then `}`, `)` or `]` (`"allow"}`, `go-service)`). */
const CLOSER = /^"?[A-Za-z][\w.-]*"?[}\])]+$/;
/** A JSON field's key (`"command":`, `{"level":`), as the tokeniser splits it off its value. */
const JSON_KEY = /^[[{]*"[A-Za-z_][\w.-]*":$/;
/** A severity leading a line (`info:`, `<warn>`, `[ERROR]`, `notice:`, a thread's `[<*>/INFO]:`): a level, not the event's name. */
const LEVEL = new RegExp(`^(?:[<[]?|\\[<\\*>/)(?:${SEVERITY_WORDS})[>\\]]?:?$`, 'i');
/** Tokens holding a variable in different frames at one position are a variable from this many frames on (the weak evidence's smallest set). */
const MASKED_FRAMES_MIN = 3;
/** A slot among values: the fewest other positions holding a variable in every line of three or more varying tokens. */
const VALUE_NEIGHBOURS = 2;
/** A plain lower-case word (`started`, `done`): wording, where it stands before a line's values. */
const LOWER_WORD = /^[a-z]+$/;
/** A name in square brackets (`[ADT_Inbound]`, `[main]`): before a severity, the source of the line (a channel, a thread). */
const BRACKETED_NAME = /^\[[A-Za-z][\w.-]*\]$/;

function mix1(p: number, id: number): number {
  let h = Math.imul(id + 1, 0x9e3779b1) ^ Math.imul(p + 1, 0x85ebca77);
  h ^= h >>> 15;
  h = Math.imul(h, 0x2c1b3c6d);
  return (h ^ (h >>> 12)) >>> 0;
}

function mix2(p: number, id: number): number {
  let h = Math.imul(id + 0x51ed27, 0xcc9e2d51) ^ Math.imul(p + 7, 0x1b873593);
  h ^= h >>> 13;
  h = Math.imul(h, 0x5bd1e995);
  return (h ^ (h >>> 15)) & 0x1fffff;
}

const key = (h1: number, h2: number) => h1 * 0x200000 + h2;

/** Mines the templates of documents `docs` of `column`; `wildcard` is the id of `<*>`. */
export function mineTemplates(
  column: TokenIdColumn,
  docs: ArrayLike<number>,
  wildcard: number,
  options: MinerOptions = defaultMinerOptions,
  vocabulary: readonly string[] = [],
): MinedTemplates {
  // Distinct lines.
  const distinct = new Map<string, number>();
  const rows: Int32Array[] = [];
  const rowOfDoc = new Int32Array(docs.length);
  for (let j = 0; j < docs.length; j++) {
    const d = docs[j];
    const seq = column.ids.subarray(column.offsets[d], column.offsets[d + 1]);
    const k = seq.join(',');
    let r = distinct.get(k);
    if (r === undefined) {
      r = rows.length;
      rows.push(Int32Array.from(seq));
      distinct.set(k, r);
    }
    rowOfDoc[j] = r;
  }
  distinct.clear();
  let printed = new Float64Array(rows.length);
  for (let j = 0; j < docs.length; j++) printed[rowOfDoc[j]]++;
  // Records' columns judged by their vocabulary (engine/cluster/recordColumns.ts); lines made equal by it are one line.
  const records = maskRecordColumns(rows, printed, vocabulary, wildcard);
  if (records.changed) {
    const merged: Int32Array[] = [];
    const rowOf = new Int32Array(rows.length);
    rows.forEach((row, r) => {
      const k = row.join(',');
      let m = distinct.get(k);
      if (m === undefined) {
        m = merged.length;
        merged.push(row);
        distinct.set(k, m);
      }
      rowOf[r] = m;
    });
    distinct.clear();
    for (let j = 0; j < docs.length; j++) rowOfDoc[j] = rowOf[rowOfDoc[j]];
    rows.length = 0;
    rows.push(...merged);
    printed = new Float64Array(rows.length);
    for (let j = 0; j < docs.length; j++) printed[rowOfDoc[j]]++;
  }
  // A `key=` token is the constant frame of the value after it: never a variable.
  const keys = new Set<number>();
  // A value masked whole inside its punctuation (`"<*>"`, `(<*>)`) is the wildcard in a frame.
  const framedWildcards = new Set<number>();
  // The first word of a quoted phrase (`"GET <*> <*>"`) leads a message of its own: only many rare values make it a variable.
  const quoteLeads = new Set<number>();
  // A word wholly in quotes (`'settings:get'`, `"eu-west"`): a name the line prints, quoted as a value is.
  const quotedWords = new Set<number>();
  // Marks of punctuation only (`**`, `--`, `##`): a word between two equal marks is a banner's label.
  const marks = new Set<number>();
  // Tokens holding a variable in a frame of words (`wlan<*>:`, `cedar.example.net:<*>`).
  const masked = new Set<number>();
  // Severities (`info:`, `<warn>`) and values in punctuation only (`1732780000:`, `[4711]`): a line led
  // by one is anchored on the word after it too, where the message starts.
  const levels = new Set<number>();
  // Words that close a bracketed record (`"allow"}`, `go-service)`): the last field of a record, not the line's last word.
  const closers = new Set<number>();
  // Names in square brackets: a line led by one and then a severity names its source first (`[channel] INFO …`).
  const bracketed = new Set<number>();
  vocabulary.forEach((t, id) => {
    if (t !== WILDCARD && t.includes(WILDCARD)) masked.add(id);
    if ((t.length > 1 && t.endsWith('=')) || (t.length > 2 && t.endsWith('=>'))) keys.add(id);
    if (t !== WILDCARD && FRAMED_WILDCARD.test(t)) framedWildcards.add(id);
    if (QUOTE_LEAD.test(t)) quoteLeads.add(id);
    if (QUOTED_WORD.test(t) || BRACKETED_WORD.test(t) || IDENTIFIER.test(t)) quotedWords.add(id);
    if (MARK.test(t)) marks.add(id);
    if (LEVEL.test(t) || (t !== WILDCARD && FRAMED_WILDCARD.test(t))) levels.add(id);
    if (CLOSER.test(t)) closers.add(id);
    if (BRACKETED_NAME.test(t)) bracketed.add(id);
  });

  addJsonKeys(rows, keys, vocabulary);
  collapseKeyLists(rows, keys, printed, options);

  // Tokens seen at two or more (length, position) slots.
  const firstSlot = new Map<number, number>();
  const multiSlot = new Set<number>();
  for (const row of rows) {
    for (let p = 0; p < row.length; p++) {
      const slot = row.length * 4096 + p;
      const seen = firstSlot.get(row[p]);
      if (seen === undefined) firstSlot.set(row[p], slot);
      else if (seen !== slot) multiSlot.add(row[p]);
    }
  }

  const byLength = new Map<number, number[]>();
  rows.forEach((row, r) => {
    const list = byLength.get(row.length);
    if (list) list.push(r);
    else byLength.set(row.length, [r]);
  });
  const current = rows.map((row) => Int32Array.from(row));
  maskKeyValues(current, keys, wildcard, printed, options, vocabulary);
  const labels = recordLabels(rows, vocabulary);
  maskKeyValues(current, labels, wildcard, printed, options, vocabulary);
  maskMixedKeyValues(current, [keys, labels], wildcard, printed, vocabulary);
  // Words filling the frame of a masked token (`chrX` beside `chr<*>`).
  const fills = fillsFrame(vocabulary);
  const frameOf = (id: number) => (id < vocabulary.length ? punctuationFrame(vocabulary[id]) : '');
  // The passes over the lines of one token count.
  const generalizeLength = (length: number) => {
    const members = byLength.get(length)!;
    if (members.length > 1)
      generalize(
        current,
        rows,
        members,
        length,
        wildcard,
        multiSlot,
        keys,
        framedWildcards,
        quoteLeads,
        quotedWords,
        marks,
        masked,
        levels,
        closers,
        bracketed,
        fills,
        printed,
        options,
        vocabulary,
        frameOf,
      );
  };
  for (const length of [...byLength.keys()].sort((a, b) => a - b)) generalizeLength(length);
  // The cross product at the lines' ends and next to them, then the passes again over the lengths it changed, until it
  // changes nothing (a masked source can make other lines equal) or CROSS_PRODUCT_ROUNDS have run.
  for (let round = 0; round < CROSS_PRODUCT_ROUNDS; round++) {
    const touched = new Set<number>();
    for (const slot of SOURCE_SLOTS)
      for (const l of crossProduct(current, rows, wildcard, keys, levels, masked, marks, printed, vocabulary, slot)) touched.add(l);
    if (!touched.size) break;
    for (const length of [...touched].sort((a, b) => a - b)) generalizeLength(length);
  }
  for (const members of byLength.values())
    if (members.length >= options.minDistinct) maskVaryingPairs(current, members, wildcard, keys, masked, printed, options);
  const holdsVariable = (t: number) => t === wildcard || masked.has(t) || framedWildcards.has(t);
  for (const members of byLength.values()) if (members.length > 1) joinKeyedWords(current, members, keys, holdsVariable, printed);
  // The words of a record's identity columns that name the event: the passes' wildcards there are undone before the folds.
  restoreIdentityWords(current, rows, records.identityWords, delimiterIds(vocabulary));
  foldOptionalFlags(current, wildcard, keys, levels, vocabulary);
  foldOptionalSegments(current, rows, vocabulary);
  foldListItems(current, rows, vocabulary);
  foldMeasureTails(current, rows, vocabulary);
  foldWideValues(current, rows, wildcard, vocabulary);
  foldValueLists(current, rows, wildcard, vocabulary);
  foldOptionalItems(current, vocabulary);
  foldCountNouns(current, wildcard, vocabulary);
  maskFieldLines(current, wildcard, vocabulary, printed, options);
  maskFreeTails(current, wildcard, vocabulary, printed, options);
  foldCodeTexts(current, wildcard, keys, levels, printed, vocabulary, options);
  foldVariableRuns(current, wildcard);
  foldAlignedGaps(current, wildcard, keys, levels, vocabulary, options, records.identities, printed);
  absorbSingletons(current, wildcard, levels, bracketed, framedWildcards, printed, vocabulary);
  foldPhraseTails(current, rows, wildcard, keys, levels, vocabulary, printed);

  // Templates in order of first occurrence.
  const keyOfRow = current.map((t) => t.join(','));
  const templateIndex = new Map<string, number>();
  const templates: MinedTemplates['templates'] = [];
  const templateOf = new Int32Array(docs.length);
  for (let j = 0; j < docs.length; j++) {
    const k = keyOfRow[rowOfDoc[j]];
    let index = templateIndex.get(k);
    if (index === undefined) {
      index = templates.length;
      templates.push({ tokens: current[rowOfDoc[j]], size: 0 });
      templateIndex.set(k, index);
    }
    templates[index].size++;
    templateOf[j] = index;
  }
  return { templateOf, templates };
}

/** The passes of the miner over the distinct lines `members` (all of `length` tokens), in place. */
function generalize(
  current: Int32Array[],
  original: Int32Array[],
  members: number[],
  length: number,
  wildcard: number,
  multiSlot: Set<number>,
  keys: Set<number>,
  framedWildcards: Set<number>,
  quoteLeads: Set<number>,
  quotedWords: Set<number>,
  marks: Set<number>,
  masked: Set<number>,
  levels: Set<number>,
  closers: Set<number>,
  bracketed: Set<number>,
  fills: Map<number, number[]>,
  printed: Float64Array,
  options: MinerOptions,
  vocabulary: readonly string[],
  frameOf: (id: number) => string,
) {
  const h1 = new Uint32Array(members.length);
  const h2 = new Uint32Array(members.length);
  const hash = (lines: Int32Array[]) =>
    members.forEach((r, m) => {
      let a = 0;
      let b = 0;
      for (let p = 0; p < length; p++) {
        a = (a + mix1(p, lines[r][p])) >>> 0;
        b = (b + mix2(p, lines[r][p])) & 0x1fffff;
      }
      h1[m] = a;
      h2[m] = b;
    });
  // Per position: in how many contexts of the original lines (before any value was masked) each token varies.
  hash(original);
  const originalContexts: Array<Map<number, number>> = [];
  const originalAppearances: Array<Map<number, number>> = [];
  for (let p = 0; p < length; p++) {
    const { varies, appears } = contextCounts(original, members, p, h1, h2);
    originalContexts.push(varies);
    originalAppearances.push(appears);
  }
  hash(current);

  const holdsVariable = (t: number) => t === wildcard || masked.has(t) || framedWildcards.has(t);
  // Per line: how many of its positions hold a variable now (kept as positions are masked).
  const variablesOf = Int32Array.from(members, (r) => {
    let n = 0;
    for (let q = 0; q < length; q++) if (holdsVariable(current[r][q])) n++;
    return n;
  });
  for (let changed = true; changed; ) {
    changed = false;
    for (let p = 0; p < length; p++) {
      // Distinct current lines, grouped by everything but position p.
      const seen = new Set<number>();
      const contexts = new Map<number, number[]>();
      members.forEach((r, m) => {
        const full = key(h1[m], h2[m]);
        if (seen.has(full)) return;
        seen.add(full);
        const t = current[r][p];
        const k0 = key((h1[m] - mix1(p, t)) >>> 0, (h2[m] - mix2(p, t)) & 0x1fffff);
        // A rest of the line of variables only (`JOB<*> <*>` before `KEPT` / `DELETED` / a masked record) is
        // no event's wording: the words there are linked among themselves, the values among themselves, a
        // word never with a value.
        const k = variablesOf[m] - (holdsVariable(t) ? 1 : 0) === length - 1 && !holdsVariable(t) ? -k0 - 1 : k0;
        const values = contexts.get(k);
        if (!values) contexts.set(k, [t]);
        else if (!values.includes(t)) values.push(t);
      });
      const { find, sets } = linkTogether(contexts.values());
      if (!sets.size) continue;
      const varied = new Map<number, number>();
      for (const values of contexts.values()) if (values.length >= 2) varied.set(find(values[0]), (varied.get(find(values[0])) ?? 0) + 1);
      // Lines printed per token at p (for "each value rare").
      const lines = new Map<number, number>();
      for (const r of members) lines.set(current[r][p], (lines.get(current[r][p]) ?? 0) + printed[r]);
      // Words between two equal marks (`** START **`, `-- END --`) label a banner: the event, never a variable on the weak evidence.
      const unframed = new Set<number>();
      const framedAt = marks.size > 0 && p > 0 && p < length - 1;
      if (framedAt) for (const r of members) if (current[r][p - 1] !== current[r][p + 1] || !marks.has(current[r][p - 1])) unframed.add(current[r][p]);
      const variable = new Set<number>();
      const contextsAt = originalContexts[p];
      const appearances = originalAppearances[p];
      // Tokens at p between a value and a word of the message's wording in every line that prints them.
      const wordingAfter =
        p > 0 && p + 1 < length ? onlyWhere(current, members, p, (t) => !holdsVariable(t[p + 1]) && holdsVariable(t[p - 1]) && !keys.has(t[p])) : NO_TOKENS;
      // Words wholly in quotes (`'settings:get'`) are names the line prints, quoted as values are: three
      // or more varying in one context inside the line are a variable, as three values after a key are.
      // Tokens at p printed only right after a `key=` token: a key says a value follows, so three or more
      // of them varying in one context inside the line are a variable (`event=push` / `pull_request` /
      // `issues` among masked ids); two (`state=up` / `down`) or a last value (`user=root` / `guest`, as
      // loghub's Linux labels them) keep their words, as any word at the end does.
      const keyValues = p > 0 ? onlyWhere(current, members, p, (t) => keys.has(t[p - 1]) && !EVENT_KEY.test(vocabulary[t[p - 1]] ?? '')) : NO_TOKENS;
      // The word after a leading severity leads the message (`info: resolving …` / `info: <ip> …`):
      // tokens at position 1 printed only after a severity are anchored as a leading token is.
      const afterLevel = p === 1 && levels.size ? onlyWhere(current, members, 1, (t) => levels.has(t[0])) : NO_TOKENS;
      // A word printed before different keys (`MOD dn=<*>` / `MOD attr=<*>`) says which fields follow: a verb.
      const verbs = p > 0 && p + 1 < length ? verbsBeforeKeys(current, members, p, keys) : NO_TOKENS;
      // A bracketed name before a severity (`[ADT_Inbound] INFO Received …`) is the line's source, a channel
      // or thread: the message starts after the severity, so the name is judged as a word inside the line.
      const sources = p === 0 && length > 2 ? onlyWhere(current, members, 0, (t) => bracketed.has(t[0]) && levels.has(t[1])) : NO_TOKENS;
      // The punctuation of the original tokens where a value stands now in the contexts of some words
      // (`[ ]` for `[<*>]` and for a masked `[all]` beside `RECAP`).
      const framesBeside = (words: number[]) => {
        const contextOf = (m: number) => {
          const t = current[members[m]][p];
          return key((h1[m] - mix1(p, t)) >>> 0, (h2[m] - mix2(p, t)) & 0x1fffff);
        };
        const near = new Set<number>();
        members.forEach((r, m) => {
          if (words.includes(current[r][p])) near.add(contextOf(m));
        });
        const out = new Set<string>();
        members.forEach((r, m) => {
          if (holdsVariable(current[r][p]) && near.has(contextOf(m))) out.add(frameOf(original[r][p]));
        });
        return [...out];
      };
      // Words at the ends of a line need strong evidence: the leading token anchors the template, and a
      // constant last word (`layout begin` / `layout end`) names the event.
      const inside = p > 0 && p < length - 1;
      // Per token at p: the fewest variables at the other positions of a line printing it. A lower-case
      // word before every variable of its line is the message's wording, not a slot among values
      // (`Print job started - origin: <*>, path: <*>` / `done` / `cancelled`): none.
      const neighbours = new Map<number, number>();
      if (inside)
        members.forEach((r, m) => {
          const row = current[r];
          const t = row[p];
          let before = !LOWER_WORD.test(vocabulary[t] ?? '');
          for (let q = 0; q < p && !before; q++) before = holdsVariable(row[q]);
          const n = before ? variablesOf[m] - (holdsVariable(t) ? 1 : 0) : 0;
          neighbours.set(t, Math.min(n, neighbours.get(t) ?? n));
        });
      for (const [root, set] of sets) {
        const source = p === 0 && set.every((v) => sources.has(v));
        if (set.some((v) => keys.has(v))) continue;
        let shared = 0;
        let contextsOfSet = varied.get(root) ?? 0;
        let total = 0;
        let most = 0;
        for (const v of set) {
          if (multiSlot.has(v)) shared++;
          contextsOfSet = Math.max(contextsOfSet, contextsAt.get(v) ?? 0);
          const c = lines.get(v) ?? 0;
          total += c;
          most = Math.max(most, c);
        }
        const many = set.length >= (p === 0 ? options.anchorDistinct : options.minDistinct) && most <= options.rareShare * total;
        // A variable beside the leading words says the position holds a value when the words hold one
        // too (`wlan<*>:` beside `<*>:`, `cedar.example.net:<*>` beside `<*>`) or are many and each rare
        // (six job names beside a path); a few leading words without a variable name the event
        // (`imap-login:` / `managesieve-login:` beside `pop3-login:`, masked whole for its digit) and the
        // template stays anchored on them.
        // Three or more tokens inside the line that each hold a variable in a frame of their own (`PROMO-<*>`
        // / `LOYALTY-<*>` / `STAFF-<*>`) are values of one position: prefixed ids. Two (`alt<*>` / `ee<*>`)
        // name the event, and so does the last word (`reason = AuthFail:sts:<*>` / `AssocFail:sts:<*>`).
        // A word that fills the frame of a masked token beside it (`chrX` beside `chr<*>`, `node-B` beside
        // `node-<*>`) is one more value of that token: the digits it stands for were letters this time.
        // A host name beside a masked token (`proxy-up.example.net` beside `parent<*>`) is one more value of it.
        // Host names with their ports masked (`gw.example.net:<*>` / `proxy.example.edu:<*>`) are addresses: values, even two.
        const filled =
          set.some((v) => masked.has(v)) &&
          set.some((v) => !masked.has(v)) &&
          set.every((v) => masked.has(v) || (fills.get(v) ?? []).some((f) => set.includes(f)) || HOST_NAME.test(vocabulary[v] ?? ''));
        const holdsWildcard =
          set.some((v) => v === wildcard || framedWildcards.has(v)) ||
          (inside && set.length >= MASKED_FRAMES_MIN && set.every((v) => masked.has(v))) ||
          (inside && set.every((v) => masked.has(v) && HOST_PORT.test(vocabulary[v] ?? ''))) ||
          filled;
        const words = set.filter((v) => v !== wildcard && !framedWildcards.has(v));
        const leading = (p === 0 && !source) || (words.length > 0 && (words.every((v) => afterLevel.has(v)) || words.some((v) => verbs.has(v))));
        // An open pool (Good-Turing): the share of the set's lines printing a value seen on no other line
        // estimates the chance that the next line brings a value never seen; at least half, over three or more
        // values, is a pool of names (`"orra"` / `"zeal"` / `"lina"`, one line each), a variable though fewer than
        // `minDistinct`. A closed set (each value on many lines, `blocking` / `disabled` / `forwarding`) never
        // qualifies, and the leading token keeps its anchor. (docs/decisions.md, session 20 (vocab): the measure
        // does not tell a closed set naming events from a closed parameter such as `GET` / `POST`.)
        let singletons = 0;
        for (const v of set) if ((lines.get(v) ?? 0) === 1) singletons++;
        const openPool = !leading && set.length >= OPEN_POOL_MIN && singletons >= OPEN_POOL_SHARE * total;
        const valueLike = !leading || words.some((v) => masked.has(v)) || (words.length >= options.minDistinct && most <= options.rareShare * total);
        // A quoted phrase's first word needs the strong evidence (`"alice smith"` among many names), never the weak.
        const banner = framedAt && inside && set.every((v) => !unframed.has(v));
        // Two plain words right after a value and before the rest of the message's wording (`<player>
        // joined the game` / `left the game`: a subject and its verb) are a state, not a variable, when
        // they vary in few of the contexts they appear in (most players print one of them only). Two
        // values among values (`Jun` / `Jul` before a day), after a word (`timeout after DATA` / `after
        // END-OF-MESSAGE from …`), two that vary in most of their contexts, or a set holding a variable
        // (`gw.example.net:<*>`) stay a variable.
        const state =
          set.length === 2 &&
          set.every((v) => wordingAfter.has(v)) &&
          !set.some((v) => masked.has(v) || framedWildcards.has(v)) &&
          set.every((v) => (contextsAt.get(v) ?? 0) < STATE_SHARE * (appearances.get(v) ?? 0));
        // A slot among values: three or more tokens inside the line, every line printing them holding
        // variables at two or more other positions (`save failed to INBOX: / Drafts: / Junk: …` between a
        // user and a message id, `net::ERR_TIMED_OUT` / `net::ERR_CONNECTION_RESET` / … before a method
        // and a URL), are values of one parameter even seen in one context: a few-valued parameter
        // (mailboxes, codes, speeds) among other parameters. Three beside one value only (`[instance: <*>]
        // VM Started` / `Paused` / `Stopped`) name the event, and two keep their words whatever stands
        // beside them (`Scaled up` / `down replica set <*> to <*>`, `method= GET` / `POST path= <*>`: a
        // pair of words is an event's name as often as a parameter's values).
        const amongValues = set.length >= MASKED_FRAMES_MIN && set.every((v) => (neighbours.get(v) ?? 0) >= VALUE_NEIGHBOURS);
        // Two forms of one verb (`Executing` / `Executed endpoint …`, `Starting` / `Started`) say where an
        // action is, begin or end: two events however many contexts they vary in, as `begin` / `end` are.
        const tenses = set.length === 2 && inflections(vocabulary[set[0]], vocabulary[set[1]]);
        // A closed set of plain words (every value on several lines, none seen once: `blocking` /
        // `disabled` / `forwarding` on hundreds of lines) is the event's wording however many contexts it
        // varies in: issue 31's convention (a word without digits is a constant unless many distinct
        // values, each rare, say otherwise). A key's values (`success= yes` / `no`: the key names the field),
        // calendar words and a set holding a variable stay values. (docs/decisions.md, Session 20 (lead).)
        const closedSet =
          closedCounts(set.map((v) => lines.get(v) ?? 0)) &&
          !set.some((v) => masked.has(v) || framedWildcards.has(v)) &&
          !set.every((v) => keyValues.has(v) || CALENDAR_WORD.test(vocabulary[v] ?? ''));
        const weak =
          (inside || source) &&
          !leading &&
          !set.some((v) => quoteLeads.has(v)) &&
          !banner &&
          ((shared >= 2 && set.length >= 3) ||
            (inside && amongValues) ||
            (contextsOfSet >= options.minContexts && !state && !tenses && !closedSet) ||
            (set.length >= 3 && set.every((v) => keyValues.has(v) || quotedWords.has(v))) ||
            (inside && framedPiece(set.map((v) => vocabulary[v] ?? ''))));
        // A key's values that close a bracketed record (`"action":"allow"}`) end a field, not the line's
        // wording: three or more of them are a variable at the last position too.
        const closingValues = p === length - 1 && length > 2 && set.length >= 3 && set.every((v) => keyValues.has(v) && closers.has(v));
        // Three or more single letters at one position (`gear D` / `N` / `P`, a process state `R` / `S` / `D`)
        // are values: one letter names no event. The leading token keeps its anchor.
        const letters = p > 0 && !leading && set.length >= LETTERS_MIN && set.every((v) => LETTER.test(vocabulary[v] ?? ''));
        // Three or more identifiers ending a line after a variable (`NRC <*> requestOutOfRange` /
        // `securityAccessDenied` / `responsePending`, a code's name) are values there too.
        const namesAtEnd =
          p === length - 1 &&
          p > 1 &&
          !leading &&
          set.length >= 3 &&
          set.every((v) => IDENTIFIER.test(vocabulary[v] ?? '')) &&
          members.every((r) => !set.includes(current[r][p]) || holdsVariable(current[r][p - 1]));
        // Values in punctuation (`[<*>]`, `[web-<*>]`, or masked already from `[all]`) say the words in
        // punctuation linked with them are values (`[webservers]`, `[all]`); a bare word among them (`PLAY
        // RECAP` beside `PLAY [<*>]`) names the event, unless a value printed bare stands there too.
        const bareWords = set.filter((v) => !holdsVariable(v) && BARE.test(frameOf(v)));
        const keptWords = bareWords.length > 0 && bareWords.length < set.length ? bareWords : [];
        if (keptWords.length) {
          const beside = framesBeside(keptWords);
          if (!beside.length || beside.some((f) => !ENCLOSED.test(f))) keptWords.length = 0;
        }
        if ((holdsWildcard && valueLike) || many || openPool || weak || closingValues || letters || namesAtEnd)
          for (const v of set) if (!keptWords.includes(v)) variable.add(v);
      }
      variable.delete(wildcard);
      if (!variable.size) continue;
      members.forEach((r, m) => {
        const t = current[r][p];
        if (!variable.has(t)) return;
        current[r][p] = wildcard;
        if (!holdsVariable(t)) variablesOf[m]++;
        h1[m] = (h1[m] - mix1(p, t) + mix1(p, wildcard)) >>> 0;
        h2[m] = (h2[m] - mix2(p, t) + mix2(p, wildcard)) & 0x1fffff;
        changed = true;
      });
    }
  }
}

const NO_TOKENS: ReadonlySet<number> = new Set();

/** Two tokens at an end of the line are a source when both print this many shared events (`up` / `down` share two). */
const SOURCE_EVENTS_PAIR = 3;
/** Three or more tokens at an end of the line are a source when all print this many shared events. */
const SOURCE_EVENTS = 2;
/** The shared events hold at least this share of each source's lines (a source prints every event). */
const SOURCE_COVER = 0.8;
/** Lines of fewer tokens are short messages: their ends are never judged as a source. */
const SOURCE_LENGTH = 3;
/**
 * A word that may name an event at either end of a line: letters, `_`, `-` and arrows (`OnlinePending-->Online.`),
 * one closing punctuation; not a file or host name (`chrome.exe`), a rate's unit (`KiB/sec.`), a field's value
 * closing a bracket (`WindowsDefender]`), anything with a digit.
 */
const EVENT_WORD = /^[A-Za-z](?:[A-Za-z_-]|->)*[.,:;!]?$/;
/** The cross product and the passes after it repeat at most this many times (a bound on the loop). */
const CROSS_PRODUCT_ROUNDS = 4;

/**
 * Where the cross product looks: a position counted from the start of the line or (`last`) from its end,
 * `offset` tokens in (0: the line's leading or last token).
 */
interface SourceSlot {
  last: boolean;
  offset: number;
}

/** The slots judged, in order: both ends, then the middle. */
const SOURCE_SLOTS: readonly SourceSlot[] = [
  { last: false, offset: 0 },
  { last: true, offset: 0 },
  { last: false, offset: 1 },
  { last: false, offset: 2 },
  { last: true, offset: 1 },
];

/** The position of `slot` in a line of `length` tokens, or -1 where the line is too short for it (a middle slot never at an end). */
function slotAt(slot: SourceSlot, length: number): number {
  if (length < SOURCE_LENGTH || (slot.offset > 0 && length < slot.offset + 2)) return -1;
  return slot.last ? length - 1 - slot.offset : slot.offset;
}

/**
 * The cross product at one slot of the line (the leading token, the last one, or one `offset` tokens in
 * from either end), once the passes have settled: a linked set of tokens there (linked where they print
 * the same rest of the line, any length; a token the passes masked counts as the one the line printed) is
 * a source (a channel `[CHA]` / `[CHB]`, a job's kind `JOB<*>` / `STC<*>`, a component closing the line,
 * a daemon after a host, a component after a thread), not the word naming the event, when every one of them prints the same different
 * events (rest-of-line contexts still different once a position where two of them differ alone is erased
 * as a parameter): two or more shared events for three or more tokens, three or more for two (`up` /
 * `down` after the same two events keep their words), covering `SOURCE_COVER` of each token's lines (a
 * source prints every event; a word naming an event only its own). Masks them in place; the lengths touched.
 */
function crossProduct(
  current: Int32Array[],
  original: Int32Array[],
  wildcard: number,
  keys: Set<number>,
  levels: Set<number>,
  masked: Set<number>,
  marks: Set<number>,
  printed: Float64Array,
  vocabulary: readonly string[],
  slot: SourceSlot,
): Set<number> {
  const touched = new Set<number>();
  const contextOf: string[] = [];
  const contexts = new Map<string, Set<number>>();
  // The token a line prints at the slot: the original one where the passes masked it, so a source's
  // events masked already by a pass (within one length) still count as its events.
  const tokenAt = (r: number, at: number) => (current[r][at] === wildcard ? original[r][at] : current[r][at]);
  // A line's context: its length and the rest of the line around the slot. A token right beside the slot
  // (inward) that some source prints both with and without (`chrome.exe *64 - <*> open …` and `chrome.exe -
  // <*> open …`) is an optional flag of the source, not another event: lines with it are in the context
  // without it, where other lines print that context (`QQ.exe *64 - …` beside `firefox.exe - …`).
  const contextKey = (row: Int32Array, at: number) => `${row.length}|${row.subarray(0, at).join(',')}|${row.subarray(at + 1).join(',')}`;
  const inwardOf = (at: number) => (slot.last ? at - 1 : at + 1);
  const own = new Map<string, Set<number>>();
  const ownKey: string[] = [];
  const slots = current.map((row, r) => {
    const at = slotAt(slot, row.length);
    // A word between two equal marks (`** START **`) is a banner's label: never judged as a source.
    if (at < 0 || (at > 0 && at < row.length - 1 && row[at - 1] === row[at + 1] && marks.has(row[at - 1]))) return -1;
    const k = contextKey(row, at);
    ownKey[r] = k;
    const values = own.get(k);
    if (!values) own.set(k, new Set([tokenAt(r, at)]));
    else values.add(tokenAt(r, at));
    return at;
  });
  const besideOf = current.map((row, r) => {
    const at = slots[r];
    const inward = inwardOf(at);
    if (at < 0 || row.length - 1 < SOURCE_LENGTH || inward <= 0 || inward >= row.length - 1) return '';
    const without = new Int32Array(row.length - 1);
    without.set(row.subarray(0, inward));
    without.set(row.subarray(inward + 1), inward);
    return contextKey(without, inward < at ? at - 1 : at);
  });
  const optional = new Set<number>();
  current.forEach((row, r) => {
    if (own.get(besideOf[r])?.has(tokenAt(r, slots[r]))) optional.add(row[inwardOf(slots[r])]);
  });
  current.forEach((row, r) => {
    const at = slots[r];
    if (at < 0) {
      contextOf.push('');
      return;
    }
    const k = own.has(besideOf[r]) && optional.has(row[inwardOf(at)]) ? besideOf[r] : ownKey[r];
    contextOf.push(k);
    const values = contexts.get(k);
    if (!values) contexts.set(k, new Set([tokenAt(r, at)]));
    else values.add(tokenAt(r, at));
  });
  const { sets } = linkTogether([...contexts.values()].map((values) => [...values]));
  const variable = new Set<number>();
  for (const set of sets.values()) {
    if (set.length < 2 || set.some((v) => v === wildcard || keys.has(v) || (levels.has(v) && !masked.has(v)))) continue;
    const inSet = new Set(set);
    const shared = new Set<string>();
    for (const [k, values] of contexts) if (values.size >= set.length && set.every((v) => values.has(v))) shared.add(k);
    const fewest = set.length >= 3 ? SOURCE_EVENTS : SOURCE_EVENTS_PAIR;
    if (shared.size < fewest || events(current, contextOf, shared, slot) < fewest) continue;
    // Coverage counts the contexts two or more of them print: a rare event that one source did not
    // happen to print in this sample does not make the others' lines of it another event.
    const sharedBySome = new Set<string>();
    for (const [k, values] of contexts) {
      let n = 0;
      for (const v of values) if (inSet.has(v)) n++;
      if (n >= 2) sharedBySome.add(k);
    }
    const all = new Map<number, number>();
    const covered = new Map<number, number>();
    current.forEach((row, r) => {
      if (!contextOf[r]) return;
      const t = tokenAt(r, slotAt(slot, row.length));
      if (!inSet.has(t)) return;
      all.set(t, (all.get(t) ?? 0) + printed[r]);
      if (sharedBySome.has(contextOf[r])) covered.set(t, (covered.get(t) ?? 0) + printed[r]);
    });
    // Words at either end of the line (issue 31: the leading token anchors the template, constants at the end
    // of a line matter) that are a closed set (every one on two or more lines, CLOSED_SET_LINES in all:
    // `SUCCESS` / `FAILURE`, `OnlinePending-->Online.` / `Online-->Offline.`) name the event, however many events they print.
    const closedWords =
      (slot.last || slot.offset === 0) &&
      closedCounts(set.map((v) => all.get(v) ?? 0)) &&
      set.every((v) => !masked.has(v) && EVENT_WORD.test(vocabulary[v] ?? ''));
    if (!closedWords && set.every((v) => (covered.get(v) ?? 0) >= SOURCE_COVER * (all.get(v) ?? 0))) for (const v of set) variable.add(v);
  }
  current.forEach((row, r) => {
    const at = slotAt(slot, row.length);
    if (!contextOf[r] || !variable.has(row[at])) return;
    row[at] = wildcard;
    touched.add(row.length);
  });
  return touched;
}

/**
 * The events among the contexts `shared` (one line each): a position where two of them (of one length)
 * differ alone is a parameter of one event (`job backup` / `job nightly` after `start` and `stop`),
 * erased until none is left; the distinct lines that remain are different events. Their words are compared
 * across lengths: an event printed with and without an optional token is one (a flag `TLS` / `secured` /
 * none, three daemons' one `Login` event is no two events).
 */
function events(current: Int32Array[], contextOf: string[], shared: Set<string>, slot: SourceSlot): number {
  const reps: Int32Array[] = [];
  const seen = new Set<string>();
  current.forEach((row, r) => {
    if (!shared.has(contextOf[r]) || seen.has(contextOf[r])) return;
    seen.add(contextOf[r]);
    reps.push(row);
  });
  // The events' words once the erased positions are left out, across lengths: a line printed with and
  // without an optional token (`…, mpid=<*>, TLS, session=<*>` / `…, mpid=<*>, session=<*>`, the flag
  // erased where `TLS` and `secured` differ alone) leaves the same words, one event.
  const words = new Set<string>();
  const byLength = new Map<number, Int32Array[]>();
  for (const row of reps) {
    const list = byLength.get(row.length);
    if (list) list.push(row);
    else byLength.set(row.length, [row]);
  }
  for (const [length, list] of byLength) {
    const erased = new Set<number>([slotAt(slot, length)]);
    const skeleton = (row: Int32Array, skip: number) => {
      const out: number[] = [];
      for (let q = 0; q < length; q++) if (q !== skip && !erased.has(q)) out.push(row[q]);
      return out.join(',');
    };
    for (let changed = true; changed; ) {
      changed = false;
      for (let q = 0; q < length; q++) {
        if (erased.has(q)) continue;
        const at = new Map<string, number>();
        for (const row of list) {
          const k = skeleton(row, q);
          const t = at.get(k);
          if (t === undefined) at.set(k, row[q]);
          else if (t !== row[q]) {
            erased.add(q);
            changed = true;
            break;
          }
        }
      }
    }
    for (const row of list) words.add(skeleton(row, -1));
  }
  return words.size;
}

/** Where a name splits into pieces (`relay-eu.hubcloud.example.net`). */
const NAME_PIECES = /([.\-_:/@]+)/;

/**
 * Three or more names equal but for one piece with constant pieces on both sides (`relay-eu` /
 * `relay-us` / `relay-ap` `.hubcloud.example.net`): the piece is a value inside its constant frame.
 */
function framedPiece(texts: string[]): boolean {
  if (texts.length < MASKED_FRAMES_MIN) return false;
  const split = texts.map((t) => t.split(NAME_PIECES));
  const n = split[0].length;
  if (n < 5 || split.some((s) => s.length !== n)) return false;
  let varying = -1;
  for (let k = 0; k < n; k++) {
    if (split.every((s) => s[k] === split[0][k])) continue;
    if (varying >= 0 || k % 2 === 1) return false;
    varying = k;
  }
  return varying > 0 && varying < n - 1 && split.every((s) => s[varying].length > 0);
}

/** A frame without punctuation: a bare word or value. */
const BARE = /^ ?$/;
/** A frame enclosing its value in brackets or quotes (`[ ]`, `( ):`, `" ",`). */
const ENCLOSED = /^[[({"'] (?:[^ ]+ )*[\])}"'][:,;]?$/;

/** A token's punctuation around its words and values (`[<*>]` and `[all]` → `[]`, `RECAP` → ``). */
function punctuationFrame(t: string): string {
  return t
    .replaceAll(WILDCARD, ' ')
    .replace(/[\w.@+-]+/g, ' ')
    .replace(/ +/g, ' ');
}

/** The endings of a verb's forms (`execut`+`ing` / `ed` / `e`, `start` / `started`, `connects`). */
const INFLECTIONS = new Set(['', 'e', 's', 'es', 'd', 'ed', 'ing']);
/** A verb's stem is at least this many letters (`Start`): shorter words share a prefix by chance. */
const STEM_LETTERS = 5;

/** Whether two words are two forms of one verb: letters only, a common stem of STEM_LETTERS or more, endings of INFLECTIONS. */
function inflections(a: string | undefined, b: string | undefined): boolean {
  if (!a || !b || a === b || !/^[A-Za-z]+$/.test(a) || !/^[A-Za-z]+$/.test(b)) return false;
  let n = 0;
  while (n < a.length && n < b.length && a[n] === b[n]) n++;
  for (let stem = n; stem >= STEM_LETTERS; stem--) if (INFLECTIONS.has(a.slice(stem)) && INFLECTIONS.has(b.slice(stem))) return true;
  return false;
}

/** A frame's filler: the one or two letters or digits a word prints where a masked token holds its variable. */
const FRAME_FILLER = /^[A-Za-z0-9]{1,2}$/;

/**
 * Words filling the frame of a masked token (`chrX` fills `chr<*>`, `chrY:` fills `chr<*>:`): word id →
 * the ids of the masked tokens (one variable in a frame of at least one letter) whose frame it fills.
 */
function fillsFrame(vocabulary: readonly string[]): Map<number, number[]> {
  const frames = new Map<string, number[]>();
  vocabulary.forEach((t, id) => {
    const at = t.indexOf(WILDCARD);
    if (at < 0 || t.indexOf(WILDCARD, at + 1) >= 0 || !/[A-Za-z]/.test(t.slice(0, at))) return;
    const k = `${t.slice(0, at)}\u0000${t.slice(at + WILDCARD.length)}`;
    frames.set(k, [...(frames.get(k) ?? []), id]);
  });
  const fills = new Map<number, number[]>();
  if (!frames.size) return fills;
  vocabulary.forEach((t, id) => {
    if (t.includes(WILDCARD)) return;
    for (let i = 1; i < t.length; i++)
      for (let n = 1; n <= 2 && i + n <= t.length; n++) {
        if (!FRAME_FILLER.test(t.slice(i, i + n))) continue;
        const ids = frames.get(`${t.slice(0, i)}\u0000${t.slice(i + n)}`);
        if (ids) fills.set(id, [...(fills.get(id) ?? []), ...ids]);
      }
  });
  return fills;
}

/** The tokens at position p of the lines (`members`) whose every line satisfies `where`. */
function onlyWhere(current: Int32Array[], members: number[], p: number, where: (t: Int32Array) => boolean): ReadonlySet<number> {
  const yes = new Set<number>();
  const no = new Set<number>();
  for (const r of members) (where(current[r]) ? yes : no).add(current[r][p]);
  for (const v of no) yes.delete(v);
  return yes;
}

/**
 * The words at position p (not after a key) printed only right before a key, and before two or more
 * different keys (`MOD dn=<*>` / `MOD attr=<*>`): a word that chooses which fields follow is a verb of
 * the message, not the value of a field (a value is printed at one place of one record: `SYN URGP=` /
 * `ACK URGP=`, flags before the same key, stay values).
 */
function verbsBeforeKeys(current: Int32Array[], members: number[], p: number, keys: Set<number>): ReadonlySet<number> {
  const next = new Map<number, Set<number>>();
  const no = new Set<number>();
  for (const r of members) {
    const t = current[r];
    if (!keys.has(t[p + 1]) || keys.has(t[p - 1])) no.add(t[p]);
    else {
      const seen = next.get(t[p]);
      if (seen) seen.add(t[p + 1]);
      else next.set(t[p], new Set([t[p + 1]]));
    }
  }
  const verbs = new Set<number>();
  for (const [v, following] of next) if (following.size >= 2 && !no.has(v)) verbs.add(v);
  return verbs;
}

/** For position p: token → the number of contexts (lines equal but at p) in which it varies, and in which it appears. */
function contextCounts(
  current: Int32Array[],
  members: number[],
  p: number,
  h1: Uint32Array,
  h2: Uint32Array,
): { varies: Map<number, number>; appears: Map<number, number> } {
  const contexts = new Map<number, number[]>();
  members.forEach((r, m) => {
    const t = current[r][p];
    const k = key((h1[m] - mix1(p, t)) >>> 0, (h2[m] - mix2(p, t)) & 0x1fffff);
    const values = contexts.get(k);
    if (!values) contexts.set(k, [t]);
    else if (!values.includes(t)) values.push(t);
  });
  const varies = new Map<number, number>();
  const appears = new Map<number, number>();
  for (const values of contexts.values())
    for (const v of values) {
      appears.set(v, (appears.get(v) ?? 0) + 1);
      if (values.length >= 2) varies.set(v, (varies.get(v) ?? 0) + 1);
    }
  return { varies, appears };
}

/** Many distinct values, each rare: at least `minDistinct` values, none printed in more than `rareShare` of the lines (value → lines). */
function manyRare(lines: Map<number, number>, options: MinerOptions): boolean {
  if (lines.size < options.minDistinct) return false;
  let total = 0;
  let most = 0;
  for (const c of lines.values()) {
    total += c;
    most = Math.max(most, c);
  }
  return most <= options.rareShare * total;
}

/** Each key's values (the token right after it, not itself a key) with the lines printing each. */
function keyValueCounts(rows: Int32Array[], keys: Set<number>, printed: Float64Array): Map<number, Map<number, number>> {
  const values = new Map<number, Map<number, number>>();
  rows.forEach((row, r) => {
    for (let p = 0; p + 1 < row.length; p++) {
      if (!keys.has(row[p]) || keys.has(row[p + 1])) continue;
      let counts = values.get(row[p]);
      if (!counts) values.set(row[p], (counts = new Map()));
      counts.set(row[p + 1], (counts.get(row[p + 1]) ?? 0) + printed[r]);
    }
  });
  return values;
}

/**
 * The value of a key is judged across every line that prints the key, not only among lines equal
 * elsewhere: a key whose values are many and each rare (`rhost=` host names, `user=` user names, the
 * same `minDistinct` / `rareShare` evidence as inside a line) has a variable value wherever it appears.
 * Two lines with two such digit-free values (`rhost=cedar.example.net user=alice`) share no context
 * position by position, so the per-position passes alone would never see them vary. A key with few or
 * frequent values (`mDrawState=HAS_DRAWN` / `NO_SURFACE`) keeps them: they name the event. (A message
 * key's quoted text, logfmt's `msg="device-session saved"`, reaches here as words: the tokeniser's
 * MESSAGE_KEY.)
 */
function maskKeyValues(
  current: Int32Array[],
  keys: Set<number>,
  wildcard: number,
  printed: Float64Array,
  options: MinerOptions,
  vocabulary: readonly string[],
) {
  if (!keys.size) return;
  const variableKeys = new Set<number>();
  for (const [k, counts] of keyValueCounts(current, keys, printed)) if (manyRare(counts, options) && !EVENT_KEY.test(vocabulary[k] ?? '')) variableKeys.add(k);
  if (!variableKeys.size) return;
  for (const row of current) for (let p = 0; p + 1 < row.length; p++) if (variableKeys.has(row[p]) && !keys.has(row[p + 1])) row[p + 1] = wildcard;
}

/** A token the tokeniser kept as `key=value` items (`[id=sgrule-<*>]`, `{from=CREATED,to=<*>}`): its opening, items and closing. */
const KEYED_TOKEN = /^([[({]?)([\w.-]+=[^,=]*(?:,[\w.-]+=[^,=]*)*)([\])}]?[,;:.]?)$/;
/** A value opening a quoted phrase (logfmt's `msg="device-session saved"` read as words): a message's first word, no value. */
const PHRASE_VALUE = /^["'][^"']*$/;
/** A value holding fields of its own (`{"ID":"<*>","Type":"ContainerDied"}`, `{a=1}`): a record whose keys say what it is, judged by them. */
const RECORD_VALUE = /=|":/;
/** A JSON message key (the tokeniser's JSON_MESSAGE_KEY): the words after it are the message's. */
const MESSAGE_JSON_KEY = /^[[{]*"(?:msg|message|@m|@message|short_message|event|log)":$/i;

/**
 * After a key the value is a parameter slot of the event (issue 31: a `key=` prefix anchors the template;
 * the variable part of a token is separated from its constant frame): lines whose value at one key has
 * different shapes (`[id=<*>]`, `[id=sgrule-<*>]`, `[id=none]`, `[id=amber-logs-<*>]`, a path) print one
 * event. A key is judged across every line printing it, as maskKeyValues does, on different evidence:
 * one of its values holds a variable (a number or an id was masked in it) and its values are of two or
 * more shapes. Then every value of the key is the variable, its plain words too, unless those are a closed
 * set (session 20's veto: at least CLOSED_SET_LINES lines, no word on one line only): then the key is left
 * as it was and the passes judge it as before (`state=STARTED` / `STOPPED` beside `state=E<*>`;
 * `method=PLAIN` / `LOGIN` beside `XOAUTH<*>`: a wildcard put among the words would link them with it). A
 * value holding fields of its own (`event={"ID":…,"Type":"ContainerDied",…}`) is a record, not one value.
 * A key is a `key=` token, a record's label or a JSON key followed by its value, or a key inside a token
 * the tokeniser kept whole (`[id=value]`, a list of `key=value` items): there the value is replaced in its
 * frame (`[id=<*>]`), or the token is the bare wildcard when that frame was never printed. The first word
 * of a message after its key (logfmt's `msg="…`, a JSON `"msg":`) is wording, not a value.
 */
function maskMixedKeyValues(current: Int32Array[], keySets: Set<number>[], wildcard: number, printed: Float64Array, vocabulary: readonly string[]) {
  if (!vocabulary.length) return;
  // A key whose name holds a variable (`<*>=`, `arg<*>=`) names no one field: its values are not one slot.
  const isKey = (id: number) => keySets.some((k) => k.has(id)) && !(vocabulary[id] ?? WILDCARD).includes(WILDCARD);
  // Keys inside tokens: token id → its opening, items (key, value) and closing.
  const parsed = new Map<number, { open: string; items: Array<[string, string]>; close: string } | null>();
  const parse = (id: number) => {
    let out = parsed.get(id);
    if (out !== undefined) return out;
    const m = KEYED_TOKEN.exec(vocabulary[id] ?? '');
    out =
      m && (m[1] || m[2].includes(',')) && !m[2].endsWith('=')
        ? {
            open: m[1],
            items: m[2].split(',').map((item) => [item.slice(0, item.indexOf('=')), item.slice(item.indexOf('=') + 1)] as [string, string]),
            close: m[3],
          }
        : null;
    parsed.set(id, out);
    return out;
  };
  const skeleton = (t: { open: string; items: Array<[string, string]>; close: string }, i: number) =>
    `${t.open}${t.items.map(([k]) => k).join(',')}${t.close}#${i}`;
  // Per key (a key token's id, or an in-token key's skeleton and item): value → lines.
  const slots = new Map<string, Map<string, number>>();
  const count = (slot: string, value: string, n: number) => {
    let values = slots.get(slot);
    if (!values) slots.set(slot, (values = new Map()));
    values.set(value, (values.get(value) ?? 0) + n);
  };
  const separateValue = (row: Int32Array, p: number) =>
    p + 1 < row.length &&
    isKey(row[p]) &&
    !isKey(row[p + 1]) &&
    !MESSAGE_JSON_KEY.test(vocabulary[row[p]] ?? '') &&
    !PHRASE_VALUE.test(vocabulary[row[p + 1]] ?? '') &&
    !RECORD_VALUE.test(vocabulary[row[p + 1]] ?? '');
  current.forEach((row, r) => {
    for (let p = 0; p < row.length; p++) {
      if (separateValue(row, p)) count(`k${row[p]}`, vocabulary[row[p + 1]] ?? WILDCARD, printed[r]);
      const t = parse(row[p]);
      if (t) t.items.forEach(([k, v], i) => k.includes(WILDCARD) || count(`t${skeleton(t, i)}`, v, printed[r]));
    }
  });
  // Per key: which of its values are the variable.
  const variableValues = new Map<string, Set<string>>();
  for (const [slot, values] of slots) {
    if (values.size < 2 || ![...values.keys()].some((v) => v.includes(WILDCARD))) continue;
    if (closedCounts([...values].filter(([v]) => !v.includes(WILDCARD)).map(([, n]) => n))) continue;
    variableValues.set(slot, new Set(values.keys()));
  }
  if (!variableValues.size) return;
  // The id of a keyed token's text, built at the first token rewritten (most vocabularies hold none).
  let idOf: Map<string, number> | undefined;
  const idOfText = (text: string) => {
    if (!idOf) {
      idOf = new Map();
      for (let id = 0; id < vocabulary.length; id++) if (parse(id)) idOf.set(vocabulary[id], id);
    }
    return idOf.get(text);
  };
  for (const row of current)
    for (let p = 0; p < row.length; p++) {
      if (separateValue(row, p) && row[p + 1] !== wildcard && variableValues.get(`k${row[p]}`)?.has(vocabulary[row[p + 1]] ?? WILDCARD)) row[p + 1] = wildcard;
      const t = parse(row[p]);
      if (!t) continue;
      let changed = false;
      const items = t.items.map(([k, v], i) => {
        if (v === WILDCARD || !variableValues.get(`t${skeleton(t, i)}`)?.has(v)) return `${k}=${v}`;
        changed = true;
        return `${k}=${WILDCARD}`;
      });
      if (changed) row[p] = idOfText(`${t.open}${items.join(',')}${t.close}`) ?? wildcard;
    }
}

/** A field's label printed apart from its value (`owner:`, `check duration:`'s `duration:`). */
const RECORD_LABEL = /^[A-Za-z_][\w.-]*:$/;
/** A value closing its field with a comma (`root,`, `<*>,`). */
const FIELD_VALUE = /^[^\s:=]+,$/;

/**
 * Labels of a record of fields (`origin: local, path: x.gcode, owner: root, user: guest`; nginx's
 * `client: <ip>, server: www.example.com, request: …`): a label, one value closed by a comma, and
 * another label. Such a label is a key as `key=` is: its value is judged across every line printing it
 * (maskKeyValues), so user and host names without a digit are values where many rare ones follow it.
 * A label before words (`Recv: ok`, `kernel: usb …`) opens a message, not a field, and is none.
 */
function recordLabels(rows: Int32Array[], vocabulary: readonly string[]): Set<number> {
  const labels = new Set<number>();
  if (!vocabulary.length) return labels;
  const label = (id: number) => RECORD_LABEL.test(vocabulary[id] ?? '');
  for (const row of rows)
    for (let p = 0; p + 2 < row.length; p++)
      if (label(row[p]) && FIELD_VALUE.test(vocabulary[row[p + 1]] ?? '') && label(row[p + 2])) {
        labels.add(row[p]);
        labels.add(row[p + 2]);
      }
  return labels;
}

/** What a JSON field's value opens with, as the tokeniser leaves it: a string, an object, an array, a number or a masked value. */
const JSON_VALUE = /^(?:["{[\d-]|<\*>)/;

/**
 * JSON fields are keys and values as `key=value` is (`{"command":"git-upload-pack","level":"info",…`,
 * split by the tokeniser after each `"key":`): a token shaped as a quoted key and a colon is a key when
 * every line prints a value after it. A quoted name closing a label (`table "fjord.public.falcon": index
 * scans: 3`) is followed by words and stays a word.
 */
function addJsonKeys(rows: Int32Array[], keys: Set<number>, vocabulary: readonly string[]) {
  const candidates = new Set<number>();
  vocabulary.forEach((t, id) => {
    if (JSON_KEY.test(t)) candidates.add(id);
  });
  if (!candidates.size) return;
  for (const row of rows)
    for (let p = 0; p < row.length; p++)
      if (candidates.has(row[p]) && (p + 1 === row.length || !JSON_VALUE.test(vocabulary[row[p + 1]] ?? ''))) candidates.delete(row[p]);
  for (const id of candidates) keys.add(id);
}

/**
 * A list of values after a key (`attr=uid cn mail`, `groups=wheel adm staff`) is one value however long:
 * for a key whose values are many and each rare (the evidence maskKeyValues uses), a run of tokens right
 * after the key's value that are each also seen as a value of that key (right after it, in some line)
 * are more items of the list, and are left out of the line, as the tokeniser collapses a run of one
 * masked token. The lists' lengths vary and lists of five or six are printed once each, so no pass
 * would see them vary position by position. A word after the value that never follows the key (`user=alice
 * logged in`), another key, or the value of a key with few or frequent values stays.
 */
function collapseKeyLists(rows: Int32Array[], keys: Set<number>, printed: Float64Array, options: MinerOptions) {
  if (!keys.size) return;
  const listKeys = new Map<number, Map<number, number>>();
  for (const [k, counts] of keyValueCounts(rows, keys, printed)) if (manyRare(counts, options)) listKeys.set(k, counts);
  if (!listKeys.size) return;
  rows.forEach((row, r) => {
    const out: number[] = [];
    for (let p = 0; p < row.length; p++) {
      out.push(row[p]);
      const items = listKeys.get(row[p]);
      if (!items || p + 1 >= row.length || keys.has(row[p + 1])) continue;
      // The key's value, then the further items of its list (left out).
      out.push(row[++p]);
      while (p + 1 < row.length && items.has(row[p + 1]) && !keys.has(row[p + 1])) p++;
    }
    if (out.length < row.length) rows[r] = Int32Array.from(out);
  });
}

/** A free-text tail follows a labelled prefix of at least this many tokens, the last ending with `:`. */
const FREE_TAIL_PREFIX = 3;
/** A free-text tail is at most this many tokens. */
const FREE_TAIL_TOKENS = 5;
/** A word of a text after a key: letters first, no digit, no `=` (`No`, `such`, `directory`, `denied.`). */
const KEY_TEXT_WORD = /^[A-Za-z][\w'-]*[.,]?$/;

/**
 * Free text after a label at the end of a line (`reason set to: memory errors` / `… to: gpu fell off
 * the bus`): an operator's words, one to FREE_TAIL_TOKENS of them, that no position by position pass can
 * see vary because their count varies. Templates equal in a prefix of at least FREE_TAIL_PREFIX tokens
 * ending in a label (`to:`) and different after it form a group; when the tails are many and each rare
 * (the per-position `minDistinct` / `rareShare` evidence) and of at least two lengths, the tail is one
 * variable. A short prefix (`SQM: …`, `kernel: …`) or a few tails (`Status: active` / `inactive`) keep
 * theirs. After a key (`ERR=No such file or directory` / `ERR=Permission denied`) the key already says
 * a value follows: texts of plain words of at least two lengths are its value however few they are,
 * unless one is another with words added at its end (`PROTO=TCP` / `PROTO=TCP FINAL`: a last word
 * naming the event). One-word values (`user=root` / `user=guest`) are no text and keep their words.
 * After a label in a line about a value (the prefix holds a variable), reasons are one value however
 * few (reasonTexts): `door reopened: hall button pressed` / `obstruction detected (photo eye)`.
 */
function maskFreeTails(current: Int32Array[], wildcard: number, vocabulary: readonly string[], printed: Float64Array, options: MinerOptions) {
  if (!vocabulary.length) return;
  // Groups by labelled prefix: prefix → the templates after it.
  const groups = new Map<string, TemplateEntry[]>();
  for (const entry of distinctTemplates(current, printed)) {
    const t = entry.tokens;
    for (let k = Math.max(FREE_TAIL_PREFIX, t.length - FREE_TAIL_TOKENS); k < t.length; k++) {
      const label = vocabulary[t[k - 1]] ?? '';
      // After a key, only a text of plain words (`ERR=No such file or directory`), never more fields.
      const text = () => t.subarray(k).every((id) => KEY_TEXT_WORD.test(vocabulary[id] ?? ''));
      if (!(label.endsWith(':') || (label.length > 1 && label.endsWith('=') && text()))) continue;
      const key = t.subarray(0, k).join(',');
      const group = groups.get(key);
      if (group) group.push(entry);
      else groups.set(key, [entry]);
    }
  }
  // The longest label first (a template is masked once): the result does not depend on the order of the lines.
  const done = new Set<object>();
  const byPrefix = [...groups.entries()].map(([key, group]) => ({ k: key.split(',').length, group }));
  byPrefix.sort((a, b) => b.k - a.k);
  for (const { k, group: all } of byPrefix) {
    const group = all.filter((e) => !done.has(e));
    if (new Set(group.map((e) => e.tokens.length)).size < 2) continue;
    const lines = new Map<number, number>();
    group.forEach((e, i) => lines.set(i, e.lines));
    const keyText = (vocabulary[group[0].tokens[k - 1]] ?? '').endsWith('=');
    const reasons = !keyText && reasonTexts(group, k, vocabulary);
    if (!keyText && !reasons && (group.length < options.minDistinct || !manyRare(lines, options))) continue;
    // A text that another prints with more words at its end (`PROTO=TCP` / `PROTO=TCP FINAL`) is a word
    // naming the event, as a constant last word is: the group stays.
    const tails = group.map((e) => e.tokens.subarray(k).join(','));
    if ((keyText || reasons) && tails.some((a) => tails.some((b) => a !== b && b.startsWith(`${a},`)))) continue;
    const masked = Int32Array.from([...group[0].tokens.subarray(0, k), wildcard]);
    for (const e of group) {
      done.add(e);
      for (const r of e.rows) current[r] = masked;
    }
  }
}

/** A tag before fields printed one per line is at most this many tokens (`-   ReqHeader`). */
const FIELD_TAG_TOKENS = 3;

/**
 * A record's fields printed one per line after a tag (a request's headers: `- ReqHeader Host: <*>` /
 * `User-Agent: <*>` / `Accept: <*>` / `Cookie: …`): templates opening with the same constant tokens
 * (at most FIELD_TAG_TOKENS) each continue with a field's label and its value, and the labels are many
 * and each rare (the per-position `minDistinct` / `rareShare` evidence). The label is then a value of
 * the line as its value is: the tag is the event. A tag before few labels (`Timestamp Start:` / `Resp:`
 * / `Fetch:`) keeps them as events' names, and a tag before anything but labels (`kernel: ACPI: …` /
 * `kernel: usb 1-1: …`) opens messages, not fields.
 */
function maskFieldLines(current: Int32Array[], wildcard: number, vocabulary: readonly string[], printed: Float64Array, options: MinerOptions) {
  if (!vocabulary.length) return;
  const holdsVariable = variableIn(vocabulary);
  const groups = new Map<string, { k: number; labels: Map<number, number>; entries: TemplateEntry[]; labelled: boolean }>();
  for (const entry of distinctTemplates(current, printed)) {
    const t = entry.tokens;
    for (let k = 1; k <= FIELD_TAG_TOKENS && k + 1 < t.length && !holdsVariable(t[k - 1]); k++) {
      const key = t.subarray(0, k).join(',');
      let group = groups.get(key);
      if (!group) groups.set(key, (group = { k, labels: new Map(), entries: [], labelled: true }));
      group.entries.push(entry);
      if (RECORD_LABEL.test(vocabulary[t[k]] ?? '')) group.labels.set(t[k], (group.labels.get(t[k]) ?? 0) + entry.lines);
      else group.labelled = false;
    }
  }
  const done = new Set<TemplateEntry>();
  for (const group of [...groups.values()].sort((a, b) => b.k - a.k)) {
    if (!group.labelled || !manyRare(group.labels, options) || group.entries.some((e) => done.has(e))) continue;
    const masked = Int32Array.from([...group.entries[0].tokens.subarray(0, group.k), wildcard]);
    for (const e of group.entries) {
      done.add(e);
      for (const r of e.rows) current[r] = masked;
    }
  }
}

/** A word of a reason: letters first or a parenthesis, no digit, no `=`, no variable (`obstruction`, `(photo`, `eye)`). */
const REASON_WORD = /^\(?[A-Za-z][\w'-]*\)?[.,]?$/;
/** Reasons after a label must be at least this many texts: the smallest set the weak evidence works with. */
const REASON_MIN_TEXTS = 3;
/**
 * At least REASON_MIN_SENTENCES of the texts are of REASON_MIN_WORDS words or more: states after a label
 * are single words with perhaps one of two (`Status: active` / `inactive` / `starting up`).
 */
const REASON_MIN_WORDS = 2;
const REASON_MIN_SENTENCES = 2;

/**
 * Reasons after a label (`door reopened: hall button pressed` / `obstruction detected (photo eye)` / …):
 * at least REASON_MIN_TEXTS texts of plain words after a `…:` label whose prefix holds a variable (the
 * line is about one thing, the label says what happened to it, the words say why).
 */
function reasonTexts(group: TemplateEntry[], k: number, vocabulary: readonly string[]): boolean {
  if (group.length < REASON_MIN_TEXTS) return false;
  const prefix = group[0].tokens.subarray(0, k);
  if (!prefix.some((id) => vocabulary[id]?.includes(WILDCARD))) return false;
  // A code in its brackets before the words (`failure: (32) Broken pipe` / `(104) Connection reset by peer`,
  // an errno and its text) is part of the reason when every text opens with it.
  const code = group.every((e) => e.tokens.length > k + 1 && e.tokens[k] === group[0].tokens[k]) && CODE.test(vocabulary[group[0].tokens[k]] ?? '') ? 1 : 0;
  if (group.filter((e) => e.tokens.length - k - code >= REASON_MIN_WORDS).length < REASON_MIN_SENTENCES) return false;
  return group.every((e) => e.tokens.subarray(k + code).every((id) => REASON_WORD.test(vocabulary[id] ?? '')));
}

/** A masked code in brackets (`(<*>)`, `[<*>]`): an errno before its text. */
const CODE = /^[([]<\*>[)\]]:?$/;

/**
 * Two variables in one line without a key (`ANR in com.cedar.maple (com.basil.iris/.MainActivity)`):
 * when both are digit-free no two lines are equal but at one position, so the per-position passes never
 * see either vary, and every line is its own template. Among the distinct templates of one length, those
 * equal everywhere but at two positions p and q (neither the leading token) form a group; if the group
 * shows the per-position evidence at both positions at once (at least `minDistinct` distinct values at
 * p and at q, none printed in more than `rareShare` of the group's lines), both are variables there.
 * Two or three words naming the event (`Local IP` / `Remote IP`) are too few values to count. Beside a
 * template of the context already holding the variable at both positions, a template holding a value in
 * a frame at both (`Set("<*>",` `"CDR(userfield)=<*>")` beside `<*>` `<*>`: an application and its
 * arguments, each application with arguments of its own shape) is one more value of the pair, however
 * few: a masked value where the variable sits, as at one position.
 */
function maskVaryingPairs(
  current: Int32Array[],
  members: number[],
  wildcard: number,
  keys: Set<number>,
  masked: ReadonlySet<number>,
  printed: Float64Array,
  options: MinerOptions,
) {
  const length = current[members[0]].length;
  if (length < 3) return;
  // Distinct current templates of this length, with the lines they print.
  const templates = distinctTemplates(current, printed, members);
  // Fewer than `minDistinct` templates can still hold a framed pair beside the variable (below).
  if (templates.length < 2) return;
  const h1 = new Uint32Array(templates.length);
  const h2 = new Uint32Array(templates.length);
  templates.forEach((t, m) => {
    const row = current[t.rows[0]];
    for (let p = 0; p < length; p++) {
      h1[m] = (h1[m] + mix1(p, row[p])) >>> 0;
      h2[m] = (h2[m] + mix2(p, row[p])) & 0x1fffff;
    }
  });
  const open = (row: Int32Array, p: number) => row[p] !== wildcard && !keys.has(row[p]) && !keys.has(row[p - 1]);
  const evidence = (group: number[], p: number) => {
    const lines = new Map<number, number>();
    for (const m of group) {
      const v = current[templates[m].rows[0]][p];
      lines.set(v, (lines.get(v) ?? 0) + templates[m].lines);
    }
    return manyRare(lines, options);
  };
  const done = new Uint8Array(templates.length);
  for (let p = 1; p < length; p++) {
    for (let q = p + 1; q < length; q++) {
      const groups = new Map<number, number[]>();
      // Templates of the same context already holding the variable at one of the two positions (a pass
      // before saw that one vary alone) print the same event: their other value is one more of the pair's.
      const halfOpen = new Map<number, number[]>();
      // Contexts where a template holds the variable at both positions already (the pair varies there).
      const bothWild = new Set<number>();
      templates.forEach((t, m) => {
        if (done[m]) return;
        const row = current[t.rows[0]];
        const openP = open(row, p);
        const openQ = open(row, q);
        const half = (openP && row[q] === wildcard) || (openQ && row[p] === wildcard);
        const both = row[p] === wildcard && row[q] === wildcard;
        if (!(openP && openQ) && !half && !both) return;
        const a = (h1[m] - mix1(p, row[p]) - mix1(q, row[q])) >>> 0;
        const b = (h2[m] - mix2(p, row[p]) - mix2(q, row[q])) & 0x1fffff;
        const k = key(a, b);
        if (both) {
          bothWild.add(k);
          return;
        }
        const into = half ? halfOpen : groups;
        const group = into.get(k);
        if (group) group.push(m);
        else into.set(k, [m]);
      });
      for (const [k, group] of groups) {
        // Beside a template holding the variable at both positions, a template holding a value in a frame
        // at both (`Set("<*>",` `"CDR(userfield)=<*>")` beside `<*>` `<*>`: an application and its
        // arguments) prints more values of the pair, as a masked token beside the wildcard does at one position.
        const framed = bothWild.has(k) ? group.filter((m) => masked.has(current[templates[m].rows[0]][p]) && masked.has(current[templates[m].rows[0]][q])) : [];
        const varies = group.length >= options.minDistinct && evidence(group, p) && evidence(group, q);
        if (!varies && !framed.length) continue;
        for (const m of varies ? [...group, ...(halfOpen.get(k) ?? [])] : framed) {
          done[m] = 1;
          for (const r of templates[m].rows) {
            current[r][p] = wildcard;
            current[r][q] = wildcard;
          }
        }
      }
    }
  }
  // Three to TOGETHER_MAX positions changing together (a model and its table printed in four fields: `Product
  // Load … SELECT "products".* FROM "products" WHERE "products"."id"` / `User Load … "users".* …`): no two
  // templates are equal but at one or two positions, so neither the passes nor the pairs above see them vary.
  // Templates with one leading token, each two differing at the same open positions and nowhere else, are
  // linked; a linked group showing the evidence at every one of those positions holds variables at all.
  const byLead = new Map<number, number[]>();
  templates.forEach((t, m) => {
    if (done[m]) return;
    const lead = current[t.rows[0]][0];
    const list = byLead.get(lead);
    if (list) list.push(m);
    else byLead.set(lead, [m]);
  });
  const linked = new Map<string, number[][]>();
  for (const list of byLead.values())
    for (let i = 0; i < list.length; i++) {
      const a = current[templates[list[i]].rows[0]];
      for (let j = i + 1; j < list.length; j++) {
        const b = current[templates[list[j]].rows[0]];
        const diff: number[] = [];
        let apart = false;
        for (let p = 1; p < length && !apart; p++) {
          if (a[p] === b[p]) continue;
          if (diff.length === TOGETHER_MAX || !open(a, p) || !open(b, p)) apart = true;
          else diff.push(p);
        }
        if (apart || diff.length < 3) continue;
        const k = diff.join(',');
        const pairs = linked.get(k);
        if (pairs) pairs.push([list[i], list[j]]);
        else linked.set(k, [[list[i], list[j]]]);
      }
    }
  for (const [k, pairs] of linked) {
    const slots = k.split(',').map(Number);
    for (const group of linkTogether(pairs).sets.values()) {
      if (group.length < options.minDistinct || group.some((m) => done[m]) || !slots.every((p) => evidence(group, p))) continue;
      for (const m of group) {
        done[m] = 1;
        for (const r of templates[m].rows) for (const p of slots) current[r][p] = wildcard;
      }
    }
  }
}

/** Positions changing together are at most this many (a name and the three fields that print it again, then its key). */
const TOGETHER_MAX = 5;

/**
 * A template equal to another everywhere but at positions right after a `key=` where the other holds a
 * variable and it holds a word (`realmId="master", realmName="master"` beside `realmId="<*>", realmName=<*>`:
 * the one realm whose id is a word, printed in two fields at once) prints the same event: a key says a
 * value follows, and the other template's lines say that value varies. Seen at one position the passes
 * link the word with the values already; at two that change together no two lines are equal but at one
 * position, so neither varies alone. Bare words where the other holds a variable (`task reaper started on
 * master` beside `task <*> started on <*>`) keep their template: without a key they may name the event.
 */
function joinKeyedWords(current: Int32Array[], members: number[], keys: Set<number>, holdsVariable: (t: number) => boolean, printed: Float64Array) {
  const templates = distinctTemplates(current, printed, members);
  if (templates.length < 2) return;
  const length = templates[0].tokens.length;
  const slotsOf = (t: Int32Array) => {
    const slots: number[] = [];
    for (let p = 1; p < length; p++) if (holdsVariable(t[p]) && keys.has(t[p - 1])) slots.push(p);
    return slots;
  };
  const rest = (t: Int32Array, slots: number[]) => {
    const copy = Array.from(t);
    for (const p of slots) copy[p] = -1;
    return copy.join(',');
  };
  // The templates holding a variable after a key, by those positions and their tokens elsewhere (the one printing most lines).
  const general = new Map<string, { slots: number[]; byRest: Map<string, TemplateEntry> }>();
  for (const e of templates) {
    const slots = slotsOf(e.tokens);
    if (!slots.length) continue;
    const k = slots.join(',');
    let g = general.get(k);
    if (!g) general.set(k, (g = { slots, byRest: new Map() }));
    const r = rest(e.tokens, slots);
    const seen = g.byRest.get(r);
    if (!seen || seen.lines < e.lines) g.byRest.set(r, e);
  }
  if (!general.size) return;
  // Each template joins the one it specialises (words where the other holds variables; the most lines), at the end of the chain.
  for (const e of templates) {
    let best: TemplateEntry | undefined;
    for (const { slots, byRest } of general.values()) {
      const a = byRest.get(rest(e.tokens, slots));
      if (!a || a === e || (best && best.lines >= a.lines)) continue;
      if (slots.every((p) => e.tokens[p] === a.tokens[p] || !holdsVariable(e.tokens[p]))) best = a;
    }
    if (best) e.into = best;
  }
  for (const e of templates) if (e.into) for (const r of e.rows) current[r] = Int32Array.from(rootOf(e).tokens);
}

/** A code's text is at most this many words (`GATEWAY TARGET DEVICE FAILED TO RESPOND`, a Modbus exception). */
const CODE_TEXT_WORDS = 6;
/** Texts seen beside the code must be at least this many: the smallest set the weak evidence works with. */
const CODE_TEXT_MIN_VALUES = 3;
/** A code in parentheses closing a line: `(<*>)`, `(<*>).`. */
const CODE_AFTER = /^\(<\*>\)[.,;:]?$/;
/**
 * A text closing a line in parentheses (`(comm failure)`) or in double quotes (`reason="wrong item"`,
 * `to destination "EHR Inbound"`): its closing character → the character that opens it.
 */
const TEXT_OPENER: Readonly<Record<string, string>> = { ')': '(', '"': '"' };
/** A quoted text ending a line is at most this many words (`"insufficient funds for gas * price + value"`). */
const QUOTED_TEXT_WORDS = 10;
/** A sign between the words of a quoted text (`*`, `+`, `-`, `/`, `&`). */
const SIGN = /^[*+\-/&]$/;
/** A word of a code's text: letters and punctuation, no digit, no variable, no `=`. */
const TEXT_WORD = /^[^\d<>=]*[A-Za-z][^\d<>=]*$/;

/**
 * A code and its text vary together (`connect to <addr>: Connection refused (111)` / `…: Host is down
 * (112)`, `Failed (0x03)` / `Not Supported (0x0c)`, `code=2 (ILLEGAL DATA ADDRESS)`): the text is the
 * code's description, one value with it, of one to CODE_TEXT_WORDS words. Two shapes, both at the end
 * of a line: words before a parenthesised code that ends it, after a variable or a label (`…:`) that
 * bounds them; and a parenthesised text that ends the line (after the code, or after the words of a
 * change: `GOOD -> BAD (comm failure)` / `(sensor failure)`). Templates equal but in those words form
 * a group; with at least CODE_TEXT_MIN_VALUES different texts the words are one variable. The
 * position-by-position passes cannot see it: the texts differ in length, and the code beside them is
 * masked already. Two texts (`(read)` / `(write)`, `(carrier lost)` / `(admin)`) and one constant
 * parenthetical (`VM Started (Lifecycle Event)` beside `VM Started`) keep their words. Once a
 * parenthesised text ending the line is a variable, the lines of the same prefix that print no text
 * (`fd=<*> closed` beside `closed (idletimeout)`) join it: the reason is optional. A text in double
 * quotes is one value the same way, ending the line (`reason="wrong item"`) or inside it (a name of one
 * to CODE_TEXT_WORDS words, `[automation] "Garage door left open" triggered by …`), from three texts on,
 * and a parenthesised text inside the line too (`failed (certificate expired), <*> pending`), and a
 * clause between a `…:` label and a comma (`connection lost: token expired, reconnecting in <*>`);
 * a quoted message leading the line (`"SyncLoop (PLEG): event for pod" pod=…`) is no such value. A closed
 * set of texts (closedPhrases in engine/cluster/templateFolds.ts: `Pause Young (Normal)` / `(Concurrent
 * Start)` / `(Mixed)`, each on many lines, none a sentence) names events, unless a code, a value or a
 * `key=` before it or its quotes mark it a value.
 */
function foldCodeTexts(
  current: Int32Array[],
  wildcard: number,
  keys: Set<number>,
  levels: Set<number>,
  printed: Float64Array,
  vocabulary: readonly string[],
  options: MinerOptions,
) {
  if (!vocabulary.length) return;
  const text = (id: number) => !keys.has(id) && TEXT_WORD.test(vocabulary[id] ?? '') && !(vocabulary[id] ?? '').endsWith(':');
  const holdsVariable = variableIn(vocabulary);
  /** The span [start, end) of a code's text in `t`, or undefined. */
  const before = (t: Int32Array): [number, number] | undefined => {
    const last = t.length - 1;
    if (last < 2 || !CODE_AFTER.test(vocabulary[t[last]] ?? '')) return undefined;
    let start = last;
    while (start > 0 && last - start < CODE_TEXT_WORDS && text(t[start - 1])) start--;
    if (start === last || start === 0) return undefined;
    const bound = vocabulary[t[start - 1]] ?? '';
    return holdsVariable(t[start - 1]) || bound.endsWith(':') ? [start, last] : undefined;
  };
  const after = (t: Int32Array): [number, number] | undefined => {
    const end = t.length;
    const open = TEXT_OPENER[(vocabulary[t[end - 1]] ?? '').replace(/[.,;]$/, '').slice(-1)];
    if (!open) return undefined;
    // Quotes bound their text on both sides: a longer text, and signs between its words (`gas * price`).
    const words = open === '"' ? QUOTED_TEXT_WORDS : CODE_TEXT_WORDS;
    const word = (id: number) => text(id) || (open === '"' && SIGN.test(vocabulary[id] ?? ''));
    let start = end - 1;
    while (start > 0 && end - start < words && !(vocabulary[t[start]] ?? '').startsWith(open)) start--;
    if (!(vocabulary[t[start]] ?? '').startsWith(open) || start === 0) return undefined;
    for (let q = start; q < end; q++) if (!word(t[q])) return undefined;
    return [start, end];
  };
  // A quoted name or a parenthesised text of plain words inside the line (`[automation] "Garage door left
  // open" triggered by …`, `sync: failed (certificate expired), <*> pending`).
  const quoted = (t: Int32Array): [number, number] | undefined => {
    for (let start = 1; start < t.length - 1; start++) {
      const first = vocabulary[t[start]] ?? '';
      const close = first.startsWith('"') ? '"' : first.startsWith('(') ? ')' : '';
      if (!close || first.includes('":')) continue;
      for (let end = start; end < t.length - 1 && end - start < CODE_TEXT_WORDS; end++) {
        if (!text(t[end])) return undefined;
        if ((end > start || first.length > 1) && (vocabulary[t[end]] ?? '').replace(/[.,;:]$/, '').endsWith(close)) return [start, end + 1];
      }
      return undefined;
    }
    return undefined;
  };
  // A clause of plain words between a label and a comma inside the line (`connection lost: token expired,
  // reconnecting in <*>`): what the label announces, closed where the line goes on.
  const clause = (t: Int32Array): [number, number] | undefined => {
    for (let start = 1; start < t.length - 1; start++) {
      if (!(vocabulary[t[start - 1]] ?? '').endsWith(':')) continue;
      for (let end = start; end < t.length - 1 && end - start < CODE_TEXT_WORDS; end++) {
        if (!text(t[end])) return undefined;
        if ((vocabulary[t[end]] ?? '').endsWith(',')) return [start, end + 1];
      }
      return undefined;
    }
    return undefined;
  };
  for (const span of [before, after, quoted, clause]) {
    const groups = new Map<string, { texts: Set<string>; entries: Array<{ entry: TemplateEntry; at: [number, number] }> }>();
    for (const entry of distinctTemplates(current, printed)) {
      const at = span(entry.tokens);
      if (!at) continue;
      const t = entry.tokens;
      const k = `${t.subarray(0, at[0]).join(',')}|${t.subarray(at[1]).join(',')}`;
      const group = groups.get(k) ?? { texts: new Set<string>(), entries: [] };
      group.texts.add(t.subarray(at[0], at[1]).join(','));
      group.entries.push({ entry, at });
      groups.set(k, group);
    }
    joinSingletonTexts(groups, wildcard, levels);
    const bare = span === after ? new Map(distinctTemplates(current).map((e) => [e.tokens.join(','), e])) : undefined;
    for (const { texts, entries } of groups.values()) {
      if (texts.size < CODE_TEXT_MIN_VALUES) continue;
      // A closed set of phrases (closedPhrases: each on several lines, none once, plain words, no sentence) is
      // the event's wording (`Pause Young (Normal)` / `(Mixed)`), unless something marks it a value: a code
      // beside it (the text describes the code), a value or a `key=` just before it (`code=<*> (ILLEGAL DATA
      // ADDRESS)`), quotes around it (`reason="wrong item"`). The texts of a group share what precedes them.
      const tokens = entries[0].entry.tokens;
      const from = entries[0].at[0];
      const marked = span === before || holdsVariable(tokens[from - 1]) || keys.has(tokens[from - 1]) || /^(?:[\w.-]+=)?"/.test(vocabulary[tokens[from]] ?? '');
      if (!marked) {
        const lines = new Map<string, number>();
        for (const { entry, at } of entries) {
          const k = entry.tokens.subarray(at[0], at[1]).join(',');
          lines.set(k, (lines.get(k) ?? 0) + entry.lines);
        }
        if (closedPhrases(lines, vocabulary, options.minDistinct, options.rareShare)) continue;
      }
      const { entry, at } = entries[0];
      const folded = Int32Array.from([...entry.tokens.subarray(0, at[0]), wildcard, ...entry.tokens.subarray(at[1])]);
      for (const e of entries) for (const r of e.entry.rows) current[r] = folded;
      // The lines that leave the reason out (`fd=<*> closed` beside `fd=<*> closed (idletimeout)`) print the
      // same event: once the texts are a variable, the reason is optional.
      const without = bare?.get(entry.tokens.subarray(0, at[0]).join(','));
      if (without) for (const r of without.rows) current[r] = folded;
    }
  }
}

type TextGroups = Map<string, { texts: Set<string>; entries: Array<{ entry: TemplateEntry; at: [number, number] }> }>;

/**
 * A line printed once gives the passes no evidence of its own (absorbSingletons), so its values stay
 * words where the other lines of its event print variables (`… by www (rebase)` beside `… by <*>
 * (merge)` / `(squash)`), and its text is missing from the group that would show the text varying.
 * A group of such lines joins the group of lines printed more often whose prefix and suffix cover it:
 * equal everywhere but where that group holds a variable, the anchor equal (as absorbSingletons).
 */
function joinSingletonTexts(groups: TextGroups, wildcard: number, levels: Set<number>) {
  const keyed = [...groups.entries()];
  for (const [k, group] of keyed) {
    if (group.entries.some(({ entry }) => entry.lines !== 1)) continue;
    let best: { key: string; lines: number } | undefined;
    for (const [k2, target] of keyed) {
      if (k2 === k || !groups.has(k2) || target.entries.every(({ entry }) => entry.lines === 1)) continue;
      const covers = group.entries.every(({ entry, at }) => {
        const { entry: t, at: tat } = target.entries[0];
        const a = entry.tokens;
        const b = t.tokens;
        if (at[0] !== tat[0] || a.length - at[1] !== b.length - tat[1]) return false;
        const anchor = a.length > 1 && levels.has(a[0]) ? 2 : 1;
        const same = (q: number, r: number, first: boolean) => a[q] === b[r] || (b[r] === wildcard && !first);
        for (let q = 0; q < at[0]; q++) if (!same(q, q, q < anchor)) return false;
        for (let q = at[1]; q < a.length; q++) if (!same(q, q - at[1] + tat[1], false)) return false;
        return true;
      });
      if (!covers) continue;
      const lines = target.entries.reduce((n, { entry }) => n + entry.lines, 0);
      if (!best || lines > best.lines || (lines === best.lines && k2 < best.key)) best = { key: k2, lines };
    }
    if (!best) continue;
    const target = groups.get(best.key)!;
    for (const text of group.texts) target.texts.add(text);
    target.entries.push(...group.entries);
    groups.delete(k);
  }
}

/**
 * A line printed once (its template prints that line only) gives the passes no evidence of its own:
 * two or more of its values are ones no other line printed (`currency=cad` with a merchant id without a
 * digit), so no position varies in a context. When it equals a template of several lines everywhere
 * but where that template holds a variable, the template's variables take its values, as a parse tree
 * places a new line (Drain): it joins that template (the one printing most lines; ties to the smaller
 * token key). A variable in its punctuation (`'<*>'`) takes a value in the same punctuation
 * (`'iris.example.net'`). The anchor (the leading token, or the one after a leading severity or value) must be equal.
 */
function absorbSingletons(
  current: Int32Array[],
  wildcard: number,
  levels: Set<number>,
  bracketed: Set<number>,
  framedWildcards: Set<number>,
  printed: Float64Array,
  vocabulary: readonly string[],
) {
  const entries = distinctTemplates(current, printed);
  // Targets (templates of several lines) by length, grouped by the positions of their variables: the
  // template's key → the target. The entries are distinct templates, so a key is met once.
  type Targets = Map<string, { mask: number[]; byKey: Map<string, TemplateEntry> }>;
  const targets = new Map<number, Targets>();
  for (const e of entries) {
    if (e.lines < 2) continue;
    const t = e.tokens;
    const mask: number[] = [];
    for (let q = 0; q < t.length; q++) if (t[q] === wildcard || framedWildcards.has(t[q])) mask.push(q);
    if (!mask.length) continue;
    const byMask: Targets = targets.get(t.length) ?? new Map();
    targets.set(t.length, byMask);
    const maskKey = mask.join(',');
    let group = byMask.get(maskKey);
    if (!group) byMask.set(maskKey, (group = { mask, byKey: new Map() }));
    const key = Int32Array.from(t);
    for (const q of mask) key[q] = wildcard;
    group.byKey.set(key.join(','), e);
  }
  // A value fits a framed variable when it stands in the same punctuation (`'iris.example.net'` in `'<*>'`).
  const fits = (value: number, slot: number) => slot === wildcard || (vocabulary[value] ?? '').replace(VALUE_IN_FRAME, '$1<*>$2') === vocabulary[slot];
  const better = (a: TemplateEntry, b: TemplateEntry) => (a.lines !== b.lines ? a.lines > b.lines : a.tokens.join(',') < b.tokens.join(','));
  for (const e of entries) {
    if (e.lines !== 1) continue;
    const t = e.tokens;
    // The anchor: the leading word, or the word after a leading severity or value; after a bracketed source
    // and its severity (`[RAD_Orders] INFO Channel …`) the severity and the word after it, the source a value.
    const source = t.length > 2 && bracketed.has(t[0]) && levels.has(t[1]);
    const anchor = t.length > 1 && (levels.has(t[0]) || t[0] === wildcard) ? 2 : 1;
    const held = (q: number) => (source ? q === 1 || q === 2 : q < anchor);
    let best: TemplateEntry | undefined;
    for (const { mask, byKey } of targets.get(t.length)?.values() ?? []) {
      // The anchor never takes a value from the template's variable (a leading value is a variable already).
      if (mask.some((q) => held(q) && t[q] !== wildcard)) continue;
      const projected = Int32Array.from(t);
      for (const q of mask) projected[q] = wildcard;
      const target = byKey.get(projected.join(','));
      if (target && mask.every((q) => fits(t[q], target.tokens[q])) && (!best || better(target, best))) best = target;
    }
    if (best) for (const r of e.rows) current[r] = best.tokens;
  }
}
