/**
 * The tokens of a narrative as a log template miner sees them (Drain, He et al. 2017; Brain, Yu et al.
 * 2023), case kept. The text is split on white space, then each token is split from its constant frame
 * (issue 31: a variable sits inside a token as often as it fills one):
 * - a `key=value` token becomes `key=` and its value, so the key anchors the template and the value is
 *   judged on its own (`totalCalories=3` → `totalCalories=` `<*>`; `Surface(name=PopupWindow:d76a91d)`
 *   → `Surface(name=` `PopupWindow:<*>)`); a run of two or more `key=value` items joined by commas keeps
 *   its keys and masks each value (`a=1,b=x,c=2` → `a=<*>,b=x,c=<*>`: `from=CREATED,to=SENT` names an
 *   event), a repeated item once (`{k<*>=<*>}` whatever the count); printed with a space after each comma
 *   (`{index=logs-1, size=0}`) the list is the same one token;
 * - a number right-aligned in its brackets (`[    5.642495]`, a kernel ring buffer's time) is one token
 *   with them, as `[12345.678901]` is: the padding is not a token;
 * - inside a token, the pieces between punctuation (`=:,;()[]{}<>"'|`) holding a digit, a path (two
 *   or more slashes, or one leading `/word`) or a hex id that drew no digit (six or more letters a-f of
 *   one case) become `<*>`, except a word with a numeric suffix (`eth0`, `node-D12`, `blk_77`),
 *   which keeps its word (`eth<*>`): `interface ee0` and `interface alt0` are different events;
 *   a word with a bracketed range (`cn[0001-0004,0007]`, a host list) is that word with a number (`cn<*>`);
 *   neighbouring masked pieces joined by `.`, `:`, `-` or `,` are one `<*>` (`10.0.0.1:80`, `1.5`);
 * - optional segments do not change the shape of a line: a bracketed list of items of one shape is one
 *   item (`[orders-<*>, orders-<*>]` → `[orders-<*>]`); a parenthesised or bracketed group of two to
 *   four tokens that holds a variable (`(2.49 KB)`, `[ 3 5 ]`), does not open the line and is shorter
 *   than the rest of it (`halt (command 12)` is the message) is left out; a size or time unit after a
 *   token ending in a variable is part of it (`<*> KB`, `<1 sec`), a rate too (`<*> KiB/s`), a physical
 *   unit or a currency too (`<*> bar`, `<*> USD`), a magnitude written apart from a spelled-out size
 *   unit too (`<*> M Bytes/second`); and a run of one token holding a
 *   variable (`<*> <*> <*>`, a variable-length list) is one token (a repeated word, `user user`, is text);
 *   a comma-separated list of items holding a variable outside brackets (`for web-21, app-04`) is one
 *   `<*>`; a group of three to eight tokens holding a variable and a word, repeated right after itself in
 *   the same shape (`[Partition: <*>, StartingOffset: <*>], [Partition: …]`), is one group.
 * A fill of one repeated mark (`*****…` padding a header to a column) is `****` whatever its length; a
 * digit-free name of several words in square brackets inside the line (`TASK [common : install packages]`)
 * is one token with its words; a key's value in braces or brackets printed with spaces (`item={'name':
 * 'alice', 'groups': 'sudo'}`) is one value; a bracketed group opening with a key (`(item=` `<*>)`) is a
 * field, never left out as an aside.
 * A value with spaces inside a `;`-separated record (`…;reason=Busy Here;src_user=1662;…`) is the last key's
 * value, its words one token with the record before it.
 * JSON fields are keys and values too: a token holding `"key":` fields splits after each `"key":` and
 * before each `"` after a comma (`{"command":` `"git-upload-pack",` `"level":` `"info",`), unless the
 * object is the value of a `key=` (`result={"score":92,…}` stays that key's one value).
 * A record of four or more fields joined by `|` in one word (`R|1|^^^GLU|5.4|mmol/L||N`, an ASTM or HL7
 * segment; `alice|<ip>|<host>|public|openat|ok|<path>`, an audit record) is one token per field (`R|`,
 * `<*>|`, `^^^GLU|`, …): its type or operation names the event, its other fields vary; so is a record
 * joined by commas with an empty field (`056-084,GLDD055,REPORT,INFILE,,,SYS1.MASTER,`), without a key.
 * `name => value` is a key and its value as `name=value` is (`name=>` anchors as `name=` does); a
 * leading `service(name)…` is `service(` and `name)…` (`imap(alice)<…>:`: the name is judged as a value);
 * a leading `[thread name/LEVEL]:` is `[<*>/LEVEL]:` (a thread is a value, the level a severity); a
 * speaker's tag right after the leading label (`<alice> free words…`) is `<<*>>` and the rest one `<*>`.
 * A double-quoted value of a key with spaces (`tag="View Lock",`) is one token; so is a keyless quoted
 * phrase that opens with a variable (`"Mozilla/5.0 (X11; Linux x86_64) …"` → `"<*>"`): a value, not words.
 * A generated id without a digit but without vowels either (`worker-jpfwmslfzj`) is masked as a hex id
 * without a digit is; a leader run between words (`SyncInventory ........ RUNNING`) is one mark (`...`)
 * whatever its length; a key holding a slash is no key (`application/json;charset=utf-8` is one value);
 * bytes right after their count in brackets (`[2] DC CA`) are a dump however few.
 * Variables without digits (user and host names, weekdays) are found by the miner, not here.
 */
export const WILDCARD = '<*>';

export interface TemplateTokens {
  /** The first `limit` tokens; empty when the text has more (a long text is prose, not a template). */
  tokens: string[];
  /** How many white-space separated tokens the whole text has (a record: the words it keeps, see recordTokens). */
  length: number;
}

/**
 * A path: two slashes (`/var/log/`, `x/y/z`, `http://host`) or one leading slash before a name (`/usr`).
 * Two slashes opening a token are a mark (`//action:pause`, a host command in a serial protocol; `//
 * comment`), not a path: a path's slashes hold a name or follow a word.
 */
const PATH = /(?!^\/\/)\/[^/]*\/|^["'(]?\/\w/;
/** Whether a token holds a path; the slash check first, as every PATH match holds one (most tokens have none). */
const hasPath = (t: string) => t.includes('/') && PATH.test(t);
const DIGIT = /\d/;
/**
 * A hex id that drew no digit (`effcfd`: one in 350 six-digit ids, one in 900 of seven): six or more
 * letters a-f of one case. A word of only those letters that long is rare (`decade`, `facade`).
 */
const HEX_WORD = /^(?:[a-f]{6,}|[A-F]{6,})$/;
/**
 * A fill: one punctuation character three or more times (`*****…` padding a header to a column, a leader
 * `App\Jobs\Sync ........ RUNNING` between words, `-----`). Its length follows the text before it, not
 * the event, so it keeps FILL_KEPT characters: one token whatever the padding.
 */
const FILL = /^([^\w\s<>])\1{2,}$/;
const FILL_KEPT = 3;
/** The punctuation that frames a variable inside a token. */
const PIECES = /([=:,;()[\]{}<>"'|]+)/;
/** One character of PIECES: a token without one is a single piece (its split is the token alone). */
const PIECE_CHAR = /[=:,;()[\]{}<>"'|]/;
/** A digit-free token with a piece that is a hex id (`lock:ececfcd,`, `Record{fdbbeaf`). */
const HEX_PIECE = /(?:^|[=:,;()[\]{}<>"'|_-])(?:[a-f]{6,}|[A-F]{6,})(?:$|[=:,;()[\]{}<>"'|])/;
/** A hex id that drew no digit after a word and a dash (`C-ecbcdece`, as `C-e3927067` is one value: see suffixedWord). */
const DASHED_HEX = /^[A-Za-z]+(?:[_-][A-Za-z]+)*[_-](?:[a-f]{6,}|[A-F]{6,})$/;
/** A piece that is a hex id without a digit, alone or after a word and a dash. */
const hexId = (piece: string) => HEX_WORD.test(piece) || DASHED_HEX.test(piece);
/**
 * A generated id that drew no digit: seven or more lower-case consonants between non-letters
 * (`worker-jpfwmslfzj`, a Kubernetes name's hash from an alphabet without vowels, one in twenty without a
 * digit). A word has a vowel (or a `y`) within seven letters.
 */
/** An e-mail address (`dope@outlook.com`): a value, with a digit or without. */
const EMAIL = /^[\w.+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+$/;
/** A digit-free token with a piece that is an e-mail address (`'dope@outlook.com'`, `<ann@example.org>`). */
const EMAIL_PIECE = /(?:^|[=:,;()[\]{}<>"'|])[\w.+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+(?:$|[=:,;()[\]{}<>"'|])/;
const VOWELLESS = /(?:^|[^A-Za-z])[b-df-hj-np-tv-xz]{7,}(?:$|[^A-Za-z])/;
/**
 * A message tag with a one-digit severity between upper-case words (`%LINK-3-UPDOWN`,
 * `%SEC-6-IPACCESSLOGP`, `PLATFORM-4-ELEMENT_WARNING`): the digit is part of the tag's name.
 */
const SEVERITY_TAG = /^%?[A-Z][A-Z0-9_]*-\d-[A-Z][A-Z0-9_]*$/;
/** A byte of a hex dump (`2a`, `ed`). */
const HEX_BYTE = /^[0-9a-fA-F]{2}[,;]?$/;
/** A run of this many bytes or more, one with a digit, is a hex dump (a SCSI CDB, a kernel `Code:` line, packet bytes). */
const HEX_DUMP_BYTES = 4;
/** A byte count in brackets before a dump (`[8]`, `(2)`). */
const COUNTED = /^[[(]\d{1,4}[\])]:?$/;
/** A word with a numeric suffix: the word is constant (`eth0`, `node-D12`, `blk_-77`). */
const SUFFIXED = /^([A-Za-z]+(?:[_-][A-Za-z]+)*[_-]?)-?\d+$/;
/** The hex letters closing a suffixed token's word, after its last `-` or `_` (`de` in `de12345`, `e` in `C-e3927067`). */
const HEX_LEAD = /(?<=^|[_-])[a-fA-F]+$/;
/**
 * Whether `word`, the letters before the number of a suffixed `token` (SUFFIXED), is a word (`eth0`,
 * `node-D12`) and not a hex id that happens to start with letters: the word needs two letters and, when
 * its last part is all hex digits (`de12345`, `C-e3927067`: a call id `C-` and eight hex digits, one in
 * three of which opens with a letter), a short number after that part (`ee0`, `D12`).
 */
function suffixedWord(word: string, token: string): boolean {
  if (!/[A-Za-z].*[A-Za-z]/.test(word)) return false;
  const lead = HEX_LEAD.exec(word);
  return !lead || token.length - lead.index < 6;
}
/** A word followed by a bracketed variable, the whole token (`cn[<*>]`, `node-[<*>],`). */
const RANGED = /^([A-Za-z]+(?:[_-][A-Za-z]+)*[_-]?)\[<\*>\]([,;]?)$/;
const KEY_LIST = /^(?:[[({]?[\w.-]+=[^,=]*(?:,[\w.-]+=[^,=]*)+[\])}]?|[[{][\w.-]+=[^,=]*[\]}])$/;
/** Colon-joined hex groups with a digit (MAC and IPv6 addresses): one variable. */
const HEX_GROUPS = /(?<![\w:.])(?=[\w:]*\d)[0-9a-fA-F]{0,4}(?::[0-9a-fA-F]{0,4}){2,}(?![\w:])/g;
const JOINED = /<\*>(?:[.:,-]+<\*>)+/g;
const GROUP_TOKENS = 4;
/** A quoted value spans at most this many more white-space tokens. */
const QUOTED_TOKENS = 6;
/** A keyless quoted value spans at most this many more white-space tokens (a browser's user agent has up to 14 words). */
const QUOTED_PHRASE_TOKENS = 20;
/** The key of a line's message in `key=value` logs (logfmt, logrus: `msg="…"`, `message="…"`). */
const MESSAGE_KEY = /^(?:msg|message)="/i;
/** A `;`-separated record ending in a key and the first word of its value (`…;code=486;reason=Busy`). */
const RECORD_TAIL = /;[\w.-]+=[^=;"'\s]+$/;
/** The last word of that value, its separator, and the record going on (`Here;` `src_user=1662;…`). */
const RECORD_HEAD = /^([^=;"'\s]+;)([\w.-]+=.*)$/;
/** A number closing the bracket it was padded in (`5.642495]`, `7)`, `12]:`). */
const PADDED_NUMBER = /^[+-]?\d[\d.,:]*[\])}][^\w\s]*$/;
/** A leading `service(name)…`: a word, `(`, then a name that opens with a letter and a closing `)`. */
const LEADING_CALL = /^([A-Za-z][\w.-]*\()([A-Za-z][\w.@+-]*\).*)$/;
/** A JSON field inside a token: a quoted key and a colon before a value (`"level":"info"`, `{"gl_key_id":8370`). */
const JSON_FIELD = /"[A-Za-z_][\w.-]*":["{[\d-]/;
/** A word of this many `|`-separated fields or more is a record (`P|1||<id>||^^|||F`): one token per field. */
const RECORD_FIELDS = 4;
/** A line of this many columns or more, split by tabs or by a spaced `|`, is a record (recordColumns). */
const RECORD_COLUMNS = 3;
/** A `|` with white space on at least one side: a column delimiter (`Pre-Init  |0000009837|` too). */
const RECORD_PIPE = /\s+\|\s*|\s*\|\s+/;
/** A record's column of more words than this, in a record over the limit, keeps its first sentence. */
const LONG_COLUMN = 12;
/** A column that is one whole number, kept as printed for the miner to judge (`4624`). */
const WHOLE_NUMBER = /^\d+$/;
/** Where a JSON token splits: after a `"key":`, and before a `"` that follows a comma. */
const JSON_PIECES = /(?<=[A-Za-z_\d]":)|(?<=,)(?=")/;
/** Units of size and time: `<*> KB` and `<*> B` are one quantity. */
const SIZE_TIME_UNITS = ['B', 'KB', 'MB', 'GB', 'TB', 'KiB', 'MiB', 'GiB', 'TiB', 'bytes', 'ms', 'us', 'ns', 's', 'sec', 'secs', 'msec'];
/** Physical units (`12.5 bar`, `80 degC`, `1500 rpm`); single letters (`A`, `V`, `W`) are left out: they are words too. */
const PHYSICAL_UNITS = [
  '%',
  'rpm',
  'Hz',
  'kHz',
  'MHz',
  'GHz',
  'degC',
  'degF',
  '°C',
  '°F',
  'bar',
  'mbar',
  'kPa',
  'Pa',
  'psi',
  'kW',
  'kWh',
  'mV',
  'mA',
  'dB',
  'dBm',
];
/** Currencies after an amount (`120.50 USD`): ISO 4217 codes of the most traded ones. */
const CURRENCIES = ['USD', 'EUR', 'GBP', 'JPY', 'CHF', 'CAD', 'AUD', 'SEK', 'NOK', 'DKK', 'CNY', 'INR', 'BRL'];
/** A decimal or binary magnitude prefix printed as a word of its own (`M` in `45.3 M Bytes/second`). */
const MAGNITUDE = /^[kKMGT]i?$/;
/** A size or bit unit spelled out, per second or not (`Bytes/second`, `bytes`, `bits/s`). */
const SPELLED_SIZE_UNIT = /^(?:[Bb]ytes?|B|[Bb]its?|b)(?:\/(?:s|sec|second))?[,;.)\]}]*$/;
const UNITS = new Set([...SIZE_TIME_UNITS, ...PHYSICAL_UNITS, ...CURRENCIES]);

/** Whether `text` holds `part` twice or more (as `indexOf` ≠ `lastIndexOf`; two `indexOf` calls are cheaper in V8). */
function twice(text: string, part: string): boolean {
  const first = text.indexOf(part);
  return first >= 0 && text.indexOf(part, first + 1) >= 0;
}

/** One white-space token with its variable pieces masked. */
export function maskToken(token: string): string {
  if (FILL.test(token)) return token.slice(0, FILL_KEPT);
  const path = hasPath(token);
  if (!path && !DIGIT.test(token)) {
    // A hex id that drew no digit is a variable alone (`effcfd`) and inside a token (`lock:ececfcd,`), and
    // so is a generated id without vowels (`"ingress/worker-jpfwmslfzj"` as `"default/web-7d4b9c8f6d"`)
    // and an e-mail address; only here can a token be one of them (none has a digit or a path), and none
    // is shorter than five characters (`a@b.c`; a hex word has six letters).
    if (token.length < 5) return token;
    if (HEX_WORD.test(token)) return WILDCARD;
    const vowelless = VOWELLESS.test(token);
    const email = token.includes('@') && EMAIL_PIECE.test(token);
    if (!vowelless && !email && (token.length < 7 || !HEX_PIECE.test(token))) return token;
    const pieces = token.split(PIECES);
    for (let i = 0; i < pieces.length; i += 2)
      if (hexId(pieces[i]) || (vowelless && VOWELLESS.test(pieces[i])) || (email && EMAIL.test(pieces[i]))) pieces[i] = WILDCARD;
    return pieces.join('');
  }
  if (path) return WILDCARD;
  const grouped = twice(token, ':') ? token.replace(HEX_GROUPS, WILDCARD) : token;
  const parts = PIECE_CHAR.test(grouped) ? grouped.split(PIECES) : [grouped];
  if (parts.length === 1) {
    if (SEVERITY_TAG.test(token)) return token;
    const m = SUFFIXED.exec(token);
    return m && suffixedWord(m[1], token) ? `${m[1]}${WILDCARD}` : WILDCARD;
  }
  for (let i = 0; i < parts.length; i += 2) {
    const piece = parts[i];
    if (!piece) continue;
    const digit = DIGIT.test(piece);
    // HEX_WORD has no digit: a piece with one is no hex word to test.
    if ((!digit && hexId(piece)) || (piece.includes('@') && EMAIL.test(piece))) {
      parts[i] = WILDCARD;
      continue;
    }
    if ((!digit && !hasPath(piece)) || SEVERITY_TAG.test(piece)) continue;
    const m = SUFFIXED.exec(piece);
    parts[i] = m && suffixedWord(m[1], piece) ? `${m[1]}${WILDCARD}` : WILDCARD;
  }
  let joined = '';
  for (const part of parts) joined += part; // as parts.join(''), which costs more in V8 for a few parts
  const out = twice(joined, WILDCARD) ? joined.replace(JOINED, WILDCARD) : joined;
  // A word with a bracketed range of numbers (`cn[0001-0004,0007]`, a compressed host list) names as
  // many nodes as the word with one number (`cn0417`): one shape.
  const range = RANGED.exec(out);
  return range && /[A-Za-z].*[A-Za-z]/.test(range[1]) ? `${range[1]}${WILDCARD}${range[2]}` : out;
}

/** Splits `key=value` into `key=` and the masked value; a comma-joined list of them is one `<*>`. */
function pushToken(out: string[], token: string) {
  const eq = token.indexOf('=');
  // A key holding a slash is none: `application/json;charset=utf-8` is a media type with its parameter, one value.
  if (eq > 0 && /\w/.test(token[eq - 1]) && !token.slice(0, eq).includes('/')) {
    // KEY_LIST needs a comma between items, or one item in `[…]` or `{…}`: most `key=value` tokens have neither.
    if ((token.includes(',') || token[0] === '[' || token[0] === '{') && KEY_LIST.test(token)) {
      const open = /^[[({]/.test(token) ? token[0] : '';
      const close = /[\])}]$/.test(token) ? token.at(-1)! : '';
      // Each item keeps its key and masks its value; digit-free values stay words (`from=CREATED,to=SENT`
      // names the event) until the miner sees them vary; a repeated item is one (a variable-length list).
      const items: string[] = [];
      for (const item of token.slice(open.length, token.length - close.length).split(',')) {
        const at = item.indexOf('=');
        const masked = `${maskToken(item.slice(0, at))}=${item.length > at + 1 ? maskToken(item.slice(at + 1)) : ''}`;
        if (items.at(-1) !== masked) items.push(masked);
      }
      out.push(`${open}${items.join(',')}${close}`);
      return;
    }
    out.push(maskToken(token.slice(0, eq + 1)));
    const value = token.slice(eq + 1);
    if (value) out.push(maskToken(value));
    return;
  }
  out.push(maskToken(token));
}

const OPENS = '([{';
const CLOSES = ')]}';

const separatorFree = (t: string) => t.replace(/[,;]+$/, '');

/** A token without its closing marks and a `/s` (`KiB/s,` → `KiB`); a token that ends in neither is itself (no replace to pay). */
const unitOf = (t: string) => (/[,;.)\]}]$|\/s$/.test(t) ? t.replace(/[,;.)\]}]+$/, '').replace(/\/s$/, '') : t);

/**
 * A bracketed list of items of one shape holding a variable (`[orders-<*>, orders-<*>]`) is the token of
 * one item (`[orders-<*>]`), whatever its length: a list of one item and a list of five are one event.
 */
function collapseLists(tokens: string[]): string[] {
  // The tokens themselves until a list collapses (most lines have none): then a copy up to it.
  let out: string[] | undefined;
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i];
    const kind = OPENS.indexOf(t[0]);
    if (kind >= 0 && t.length > 1 && !t.endsWith(CLOSES[kind])) {
      const item = separatorFree(t.slice(1));
      if (item.includes(WILDCARD)) {
        let j = i + 1;
        while (j < tokens.length && !tokens[j].endsWith(CLOSES[kind]) && separatorFree(tokens[j]) === item) j++;
        if (j < tokens.length && tokens[j] === `${item}${CLOSES[kind]}`) {
          out ??= tokens.slice(0, i);
          out.push(`${t[0]}${item}${CLOSES[kind]}`);
          i = j;
          continue;
        }
      }
    }
    out?.push(t);
  }
  return out ?? tokens;
}

/** An item of a comma-separated list outside brackets, holding a variable (`web-<*>,`, `<*>,`). */
const LIST_ITEM = /^[^\s([{)\]}'"=]*<\*>[^\s([{)\]}'"=]*,$/;
/** A labelled field (`uid:<*>,`, `pid:<*>`): a record's fields, not a list's items. */
const LABELLED = /[A-Za-z_]:/;
/** The last item of such a list (`db-<*>`, `<*>.prod.example.com`), with at most a closing mark after it. */
const LAST_ITEM = /^[^\s([{)\]}'"=,]*<\*>[^\s([{)\]}'"=,]*([.;:]?)$/;

/**
 * A comma-separated list of items that each hold a variable, outside brackets (`for web-21, app-04,
 * cache-32.prod.example.com`: hosts of several shapes), is one variable whatever its length: a list of
 * two items and a list of eight are one event, as a run of one repeated variable token is. A single item
 * stays as it is (the miner judges it among the other values there). Labelled fields (`uid:1013,
 * pid:786`) are a record, not a list: each keeps its label.
 */
function collapseCommaLists(tokens: string[]): string[] {
  if (!tokens.some((t) => t.endsWith(',') && t.includes(WILDCARD))) return tokens;
  const out: string[] = [];
  for (let i = 0; i < tokens.length; i++) {
    let j = i;
    while (j < tokens.length && tokens[j].endsWith(',') && LIST_ITEM.test(tokens[j]) && !LABELLED.test(tokens[j])) j++;
    const last = j > i && j < tokens.length && !LABELLED.test(tokens[j]) ? LAST_ITEM.exec(tokens[j]) : null;
    if (last) {
      out.push(`${WILDCARD}${last[1]}`);
      i = j;
      continue;
    }
    out.push(tokens[i]);
  }
  return out;
}

/** A repeated group is at most this many tokens (`[Partition: <*>, StartingOffset: <*>, StoppingOffset: <*>],`). */
const REPEATED_GROUP_TOKENS = 8;
/** …and at least this many: a record of fields, not a number and its unit (`12 MiB (40 MiB stored)`). */
const REPEATED_GROUP_MIN = 3;
/** A token's place in a group's shape: a variable of any frame, or the word without the brackets and separators around it. */
const groupShape = (t: string) =>
  t.includes(WILDCARD) ? WILDCARD : OPENS.includes(t[0]) || ',;])}'.includes(t.at(-1) ?? '') ? t.replace(/^[[({]+/, '').replace(/[,;\])}]+$/, '') : t;

/**
 * Whether a word's shape (a token without a variable) comes back REPEATED_GROUP_MIN to REPEATED_GROUP_TOKENS
 * tokens later: every repeated group holds one (its word, one group's length further on).
 */
function repeatsAWord(shapes: string[]): boolean {
  for (let i = 0; i < shapes.length; i++) {
    if (shapes[i] === WILDCARD) continue;
    for (let g = REPEATED_GROUP_MIN; g <= REPEATED_GROUP_TOKENS && i + g < shapes.length; g++) if (shapes[i + g] === shapes[i]) return true;
  }
  return false;
}

/**
 * A group of three or more tokens holding a variable and a word, repeated right after itself in the same shape
 * (`[[Partition: orders-<*>, StartingOffset: <*>], [Partition: clicks-<*>, StartingOffset: <*>]]`:
 * the same words, variables where variables are, brackets and separators aside), is one group whatever
 * the count, as a run of one repeated variable token is one token: a list of one split and a list of
 * three are one event. The first copy stays, closed as the last one is. A group of variables only
 * (`"<*>" "<*>"`, a referrer and a user agent) is no list: fields side by side look the same.
 */
function collapseGroups(tokens: string[]): string[] {
  if (tokens.length < 2 * REPEATED_GROUP_MIN) return tokens;
  let out = tokens;
  let shapes = out.map(groupShape);
  if (!repeatsAWord(shapes)) return tokens;
  for (let changed = true; changed; ) {
    changed = false;
    for (let i = 0; i < out.length && !changed; i++)
      for (let g = REPEATED_GROUP_MIN; g <= REPEATED_GROUP_TOKENS && i + 2 * g <= out.length && !changed; g++) {
        let same = true;
        let variable = false;
        let word = false;
        for (let k = 0; k < g && same; k++) {
          if (shapes[i + k] !== shapes[i + g + k]) {
            same = false; // no group at (i, g) whatever the rest holds: the checks below need not run
            break;
          }
          if (out[i + k].includes(WILDCARD)) variable = true;
          else if (/[A-Za-z]/.test(out[i + k])) word = true;
        }
        if (!same || !variable || !word) continue;
        out = [...out.slice(0, i + g - 1), out[i + 2 * g - 1], ...out.slice(i + 2 * g)];
        shapes = out.map(groupShape);
        changed = true;
      }
  }
  return out;
}

/** Leaves out short bracketed groups that hold a variable, and collapses runs of one repeated token. */
function dropOptional(tokens: string[], lead = true): string[] {
  tokens = collapseLists(tokens);
  tokens = collapseCommaLists(tokens);
  tokens = collapseGroups(tokens);
  const runs: string[] = [];
  // Only a run of a token holding a variable is a list (`blk_<*> blk_<*>`); a repeated word is text (`user user`).
  for (const t of tokens) if (runs.at(-1) !== t || !t.includes(WILDCARD)) runs.push(t);
  tokens = runs;
  const out: string[] = [];
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i];
    const kind = OPENS.indexOf(t[0]);
    if (kind >= 0 && (i > 0 || !lead)) {
      // The group ends at the first token (within GROUP_TOKENS) that ends with the matching bracket.
      let end = -1;
      for (let j = i; j < Math.min(tokens.length, i + GROUP_TOKENS); j++) {
        const last = tokens[j].at(-1)!;
        if (last === CLOSES[kind] && (j > i || tokens[j].length > 1)) {
          end = j;
          break;
        }
        if (j > i && OPENS.includes(tokens[j][0])) break;
      }
      if (end >= 0) {
        let variable = false;
        for (let j = i; j <= end; j++) if (tokens[j].includes(WILDCARD)) variable = true;
        // The group is an aside only when the rest of the line says more than it (`halt (command 12)` is
        // the message `halt` with its content, not `halt` with an aside).
        // A group opening with a key (`(item=` `<*>)`) is that key's field, printed whatever its value.
        if (variable && end > i && tokens.length - (end - i + 1) > end - i + 1 && !KEYED_OPEN.test(t)) {
          i = end;
          continue;
        }
      }
    }
    const previous = out.length ? out[out.length - 1] : undefined;
    if (previous === t && t.includes(WILDCARD)) continue;
    if (previous?.endsWith(WILDCARD)) {
      if (UNITS.has(unitOf(t))) continue;
      // A magnitude written apart from its unit (`45.3 M Bytes/second`, `12 K bytes`) is part of the number.
      if (MAGNITUDE.test(t) && i + 1 < tokens.length && SPELLED_SIZE_UNIT.test(tokens[i + 1])) {
        i++;
        continue;
      }
    }
    out.push(t);
  }
  return out;
}

/** A speaker's tag: a nick in angle brackets (`<alice>`, `<Zeuljo_>`, `<ubuntu2410>`). */
const SPEAKER = /^<[\w-]+>$/;
/** The severity words of log levels, as a regular-expression alternation (the miner's levels use it too). */
export const SEVERITY_WORDS = 'trace|debug|info|notice|warn|warning|error|err|crit|critical|alert|emerg|fatal';
/** A severity word (`<info>` is a level, not a speaker). */
const LEVEL_WORD = new RegExp(`^(?:${SEVERITY_WORDS})$`, 'i');
/** A thread name before a level in one bracket is at most this many white-space tokens. */
const THREAD_TOKENS = 6;
/** The token closing a `[thread/LEVEL]:` prefix: a slash, a severity word, the bracket. */
const THREAD_LEVEL_END = new RegExp(`/(?:${SEVERITY_WORDS})\\]:?$`, 'i');

/** The last white-space token of a leading `[thread name/LEVEL]:` prefix, or -1. */
function threadLevel(words: string[]): number {
  if (!words[0]?.startsWith('[')) return -1;
  for (let j = 0; j < Math.min(words.length, THREAD_TOKENS); j++) {
    if (THREAD_LEVEL_END.test(words[j])) return words[j].lastIndexOf('/') > (j === 0 ? 1 : -1) ? j : -1;
    if (words[j].includes(']')) return -1;
  }
  return -1;
}

/** A spaced list spans at most this many more white-space tokens. */
const SPACED_LIST_TOKENS = 12;
/** One `key=value,` item of a spaced list, or the first with its opening bracket. */
const SPACED_ITEM = /^[\w.-]+=[^\s,=()[\]{}]*,$/;

/**
 * The last white-space token of a bracketed list of `key=value` items with a space after each comma
 * that opens at `words[i]` (`{index=logs-1,` `size=0,` `from=5}`), or -1: every item a key and a value
 * without brackets, the list closed by the bracket it opened with within SPACED_LIST_TOKENS tokens.
 */
function spacedKeyList(words: string[], i: number): number {
  const kind = OPENS.indexOf(words[i][0]);
  if (kind < 0 || !SPACED_ITEM.test(words[i].slice(1))) return -1;
  for (let j = i + 1; j < words.length && j <= i + SPACED_LIST_TOKENS; j++) {
    const close = words[j];
    if (close.endsWith(CLOSES[kind])) return SPACED_ITEM.test(`${close.slice(0, -1)},`) ? j : -1;
    if (!SPACED_ITEM.test(words[j])) return -1;
  }
  return -1;
}

/** A bracket opening a key (`(item=`, `[tag=`). */
const KEYED_OPEN = /^[([{][A-Za-z_][\w.-]*=$/;
/** A key's braced value spans at most this many more white-space tokens. */
const BRACED_TOKENS = 12;
/** A key, then a brace or bracket opening its value (`item={'name':`, `tags=[`). */
const KEY_BRACE = /^[^=\s]*\w=[{[]/;

/** The last word of a key's value in braces or brackets opening at `i` and closing later, or -1. */
function bracedValue(words: string[], i: number): number {
  if (!KEY_BRACE.test(words[i])) return -1;
  let depth = 0;
  const count = (w: string) => {
    for (const c of w)
      if (c === '{' || c === '[') depth++;
      else if (c === '}' || c === ']') depth--;
  };
  count(words[i].slice(words[i].indexOf('=') + 1));
  if (depth <= 0) return -1;
  for (let end = i + 1; end < words.length && end <= i + BRACED_TOKENS; end++) {
    count(words[end]);
    if (depth <= 0) return end;
  }
  return -1;
}

/** A bracketed name spans at most this many more white-space tokens. */
const BRACKET_PHRASE_TOKENS = 7;
const PHRASE_OPEN = /^\[[A-Za-z][^[\]=\d"']*$/;
const PHRASE_WORD = /^[^[\]=\d"']+$/;
const PHRASE_CLOSE = /^[^[\]=\d"']*\][:,;.]?$/;

/** The last word of a digit-free name in square brackets opening at `i`, or -1. */
function bracketPhrase(words: string[], i: number): number {
  if (!PHRASE_OPEN.test(words[i])) return -1;
  for (let end = i + 1; end < words.length && end <= i + BRACKET_PHRASE_TOKENS; end++) {
    if (PHRASE_CLOSE.test(words[end])) return end;
    if (!PHRASE_WORD.test(words[end])) return -1;
  }
  return -1;
}

export function templateTokens(text: string, limit: number): TemplateTokens {
  const json = jsonLineTokens(text);
  if (json) return { tokens: json, length: 1 };
  const prefixed = prefixedJsonTokens(text);
  if (prefixed) return prefixed;
  const columns = recordColumns(text);
  if (columns) return recordTokens(columns, limit);
  // Most narratives are prose, far over the limit: their words are counted (the non-space runs, as
  // many as the split keeps) without building them. A text shorter than 2 × limit - 1 characters cannot
  // hold more than `limit` words (a log line): split at once.
  if (text.length >= 2 * limit - 1) {
    const length = wordCount(text);
    if (length > limit) return { tokens: [], length };
  }
  const words = text.split(/\s+/).filter(Boolean);
  const length = words.length;
  if (length > limit) return { tokens: [], length };
  return { tokens: wordTokens(words, true), length };
}

const NON_SPACE_RUN = /\S+/g;

/** `text.split(/\s+/).filter(Boolean).length`: a global test steps over each run without a match object. */
function wordCount(text: string): number {
  NON_SPACE_RUN.lastIndex = 0;
  let count = 0;
  while (NON_SPACE_RUN.test(text)) count++;
  return count;
}

/**
 * A line of RECORD_COLUMNS or more columns split by tabs, or by `|` with white space beside it (`ipmitool
 * sel`'s ` 891 | 11/26/2024 | 06:24:15 | Memory #0xc1 | Correctable ECC | Asserted`, a Windows event
 * forwarded as tab-separated columns, a CSV-like export): its columns, white space around each trimmed
 * (an empty column stays, so columns keep their places); undefined for any other line. A `|` between
 * words without white space (`alice|10.0.0.1|share`, an ASTM or HL7 segment) is a record inside one
 * word (see the word rule below), and leading or trailing tabs (`\tat Foo.bar(Foo.java:12)`, a stack
 * frame's indent) split no column. A text of several lines is no record.
 */
function recordColumns(text: string): { columns: string[]; delimiter: string } | undefined {
  // A record is one line: a text of several lines (a report with an indented stack trace, a table) is none.
  const line = text.trim();
  if (line.includes('\n')) return undefined;
  let columns: string[];
  let delimiter = '\t';
  if (line.includes('\t')) columns = line.split(/ *\t */);
  else if (twice(line, ' | ')) {
    columns = line.split(RECORD_PIPE);
    delimiter = '|';
  } else return undefined;
  return columns.length >= RECORD_COLUMNS ? { columns, delimiter } : undefined;
}

/**
 * The tokens of a record (recordColumns): each column's tokens as a line's are (the rules for a line's
 * first word only in the first column), the delimiter between columns one token (`|`, or the tab itself),
 * so the miner sees which column a token is in. A column that is one whole number (`4624`, a Windows
 * Event ID; `68586962`, a record number) is kept as printed, not masked: whether it names the event or is
 * a value is told by the numbers the column holds over all lines (engine/cluster/recordColumns.ts), as a
 * word column's is. A column of more than LONG_COLUMN words that ends a sentence within them (a Windows
 * event's message: `An account was successfully logged on.` and then its `Label: value` fields) keeps
 * that first sentence, the description of the event: the rest is its values, and a record is machine
 * text however long its message (stage 5 mines lines of at most `limit` words and reads longer ones as
 * prose). A record still longer than `limit` keeps the first LONG_COLUMN words of each longer column.
 * The length is the words kept.
 */
function recordTokens(record: { columns: string[]; delimiter: string }, limit: number): TemplateTokens {
  let words = record.columns.map((c) => {
    const w = c.split(/\s+/).filter(Boolean);
    return w.length > LONG_COLUMN ? firstSentence(w) : w;
  });
  let length = 0;
  for (const w of words) length += w.length;
  if (length > limit) {
    words = words.map((w) => (w.length > LONG_COLUMN ? w.slice(0, LONG_COLUMN) : w));
    length = 0;
    for (const w of words) length += w.length;
    if (length > limit) return { tokens: [], length };
  }
  const tokens: string[] = [];
  words.forEach((w, k) => {
    if (k > 0) tokens.push(record.delimiter);
    if (w.length === 1 && WHOLE_NUMBER.test(w[0])) tokens.push(w[0]);
    else for (const t of wordTokens(w, k === 0)) tokens.push(t);
  });
  return { tokens, length };
}

/** The words of a column through its first sentence (to a word ending in `.`, `!` or `?` within LONG_COLUMN words), or all of them. */
function firstSentence(words: string[]): string[] {
  const end = words.findIndex((w, k) => k < LONG_COLUMN && /[.!?]$/.test(w));
  return end >= 0 ? words.slice(0, end + 1) : words;
}

/** The tokens of a line's (or a record column's) white-space words; `lead`: they open the line. */
function wordTokens(words: string[], lead: boolean): string[] {
  const tokens: string[] = [];
  for (let i = 0; i < words.length; i++) {
    // Both `="` and `":` below hold a double quote, which most words have not: one search for those.
    const quoted = words[i].includes('"');
    // A quoted value of a key with spaces (`tag="View Lock",`) is one token: its words are one value.
    const open = quoted && words[i].includes('="') ? words[i].search(/\w="/) : -1;
    // A message key's value (logfmt's `msg="No status changes. Skipping patch"`) is the line's message, not one
    // value: its words stay words, as a line's words do.
    if (open >= 0 && !/"[^"]*"/.test(words[i]) && !MESSAGE_KEY.test(words[i])) {
      let end = i + 1;
      while (end < words.length && end <= i + QUOTED_TOKENS && !words[end].includes('"')) end++;
      if (end < words.length && end <= i + QUOTED_TOKENS) {
        pushToken(tokens, words.slice(i, end + 1).join(' '));
        i = end;
        continue;
      }
    }
    // A key's value in braces or brackets printed with spaces (`item={'name': 'alice', 'groups': 'sudo'}`,
    // a dumped dict or list) is one value, as a quoted value with spaces is.
    const braced = bracedValue(words, i);
    if (braced > i) {
      pushToken(tokens, words.slice(i, braced + 1).join(' '));
      i = braced;
      continue;
    }
    // A map printed with a space after each comma (`{index=logs-1, size=0}`, Java's `Map.toString()`) is
    // the same joined list without them (`{index=logs-1,size=0}`): one token, each item keeping its key.
    const map = spacedKeyList(words, i);
    if (map > i) {
      pushToken(tokens, words.slice(i, map + 1).join(''));
      i = map;
      continue;
    }
    // A value with spaces inside a `;`-separated record (`…;code=486;reason=Busy Here;src_user=1662;…`):
    // the words up to the next separator are the last key's value, as a quoted value's words are.
    if (words[i].includes(';') && RECORD_TAIL.test(words[i])) {
      let end = i + 1;
      while (end < words.length && end <= i + QUOTED_TOKENS && /^[^=;"'\s]+$/.test(words[end])) end++;
      const rest = end < words.length && end <= i + QUOTED_TOKENS ? RECORD_HEAD.exec(words[end]) : null;
      if (rest) {
        pushToken(tokens, `${words.slice(i, end).join(' ')} ${rest[1]}`);
        words[end] = rest[2];
        i = end - 1;
        continue;
      }
    }
    // A quoted phrase without a key that opens with a variable (`"Mozilla/5.0 (X11; Linux x86_64) …"`,
    // a user agent of one to fourteen words) is one value: `"<*>"`. One that opens with a word
    // (`"GET /a HTTP/1.1"`) is a message of its own and keeps its words.
    // Single quotes the same (`'10.0.0.1 10.0.0.2'`, a list of name servers, is `'<*>'`).
    const quote = words[i][0];
    if ((quote === '"' || quote === "'") && words[i].indexOf(quote, 1) < 0 && maskToken(words[i].slice(1)).includes(WILDCARD)) {
      let end = i + 1;
      while (end < words.length && end <= i + QUOTED_PHRASE_TOKENS && !words[end].includes(quote)) end++;
      if (end < words.length && end <= i + QUOTED_PHRASE_TOKENS) {
        tokens.push(`${quote}${WILDCARD}${words[end].slice(words[end].indexOf(quote))}`);
        i = end;
        continue;
      }
    }
    // A number right-aligned in its brackets (`[    5.642495]` beside `[12345.678901]`, a kernel ring
    // buffer's time; `(  7)`): the padding is not a token, the number and its brackets are one.
    if (
      words[i].length === 1 &&
      OPENS.includes(words[i]) &&
      i + 1 < words.length &&
      PADDED_NUMBER.test(words[i + 1]) &&
      words[i + 1].includes(CLOSES[OPENS.indexOf(words[i])])
    ) {
      pushToken(tokens, `${words[i]}${words[i + 1]}`);
      i++;
      continue;
    }
    // A hex dump (`CDB: 28 02 ed e3 d6 6d 1c 14 89 0c`): every byte is a variable, those without a
    // digit too (`ed`), so a dump of any length is one `<*>` once the run is collapsed.
    if (words[i].length <= 3 && HEX_BYTE.test(words[i])) {
      let end = i;
      let digits = 0;
      while (end < words.length && HEX_BYTE.test(words[end])) if (DIGIT.test(words[end++])) digits++;
      // After its byte count (`[2] DC CA`, a bus frame's length then its data) a dump of any length is one.
      if ((end - i >= HEX_DUMP_BYTES && digits > 0) || (i > 0 && COUNTED.test(words[i - 1]))) {
        for (let j = i; j < end; j++) tokens.push(`${WILDCARD}${words[j].slice(2)}`);
        i = end - 1;
        continue;
      }
    }
    // A leading `[thread name/LEVEL]:` (log4j's `[%t/%level]`: `[Server thread/INFO]:`, `[Worker-Main-3/WARN]:`)
    // is a thread and a level: the thread is a value of one to THREAD_TOKENS words, the level is kept.
    const thread = lead && i === 0 ? threadLevel(words) : -1;
    if (thread >= 0) {
      tokens.push(`[${WILDCARD}${words[thread].slice(words[thread].lastIndexOf('/'))}`);
      i = thread;
      continue;
    }
    // A speaker's tag after the leading label (`[<*>/INFO]: <alice> free words…`, IRC's `<nick> text`) opens
    // what the speaker said: free text to the end of the line, one value whatever its words.
    if (
      lead &&
      i > 0 &&
      i + 1 < words.length &&
      tokens.length === 1 &&
      tokens[0].endsWith(':') &&
      SPEAKER.test(words[i]) &&
      !LEVEL_WORD.test(words[i].slice(1, -1))
    ) {
      tokens.push(`<${WILDCARD}>`, WILDCARD);
      break;
    }
    // A leading `service(name)…:` (`imap(alice)<pid><session>:`, `doveadm(bob):`) names a service and the
    // account it serves: the service anchors the line and the name is judged as a value of its own.
    const call = lead && i === 0 ? LEADING_CALL.exec(words[0]) : null;
    if (call) {
      tokens.push(maskToken(call[1]));
      pushToken(tokens, call[2]);
      continue;
    }
    // `name => value` (a DHCP client's `option routers => '10.0.0.1'`, a dumped hash) is a key and its
    // value, as `name=value` is: the name is the key's label and anchors the template.
    if (words[i + 1] === '=>' && i + 2 < words.length && /^[A-Za-z][\w.-]*$/.test(words[i])) {
      tokens.push(`${maskToken(words[i])}=>`);
      i++;
      continue;
    }
    // A record of RECORD_FIELDS or more fields joined by `|` in one word (an ASTM or HL7 segment
    // `R|1|^^^GLU|5.4|mmol/L||N`, an audit record `alice|<ip>|<host>|share|openat|ok|<path>`) is read field
    // by field, as words are: its type or its operation names the event, its ids and names vary. So is
    // one joined by commas with an empty field (`056-084,GLDD055,REPORT,INFILE,,,SYS1.MASTER,`, a
    // positional record); a comma list without one (`web-21,app-04`, `a=1,b=2`) stays one token. A word
    // in quotes is one quoted name, not a record (a cluster `'outbound|9090||svc.local'`).
    const sep = words[i].includes('|') ? '|' : words[i].includes(',,') && !words[i].includes('=') ? ',' : '';
    if (!quoted && !words[i].startsWith("'") && sep && words[i].split(sep, RECORD_FIELDS).length === RECORD_FIELDS) {
      const fields = words[i].split(sep);
      fields.forEach((f, k) => {
        if (k < fields.length - 1) pushToken(tokens, `${f}${sep}`);
        else if (f) pushToken(tokens, f);
      });
      continue;
    }
    // JSON fields (`{"command":"git-upload-pack","level":"info",…`) are keys and values as `key=value`
    // is: the token splits after each `"key":` and before each `"` that follows a comma. A JSON object
    // that is the value of a key (`result={"score":92,…}`) stays that key's one value.
    if (quoted && words[i].includes('":') && JSON_FIELD.test(words[i]) && !/^[^"]*=/.test(words[i])) {
      for (const piece of words[i].split(JSON_PIECES)) if (piece) pushToken(tokens, piece);
      continue;
    }
    // A name of several words in square brackets inside the line (`TASK [common : install packages]`,
    // `[Gathering Facts]`, a task's or a section's title) is one token, its words kept: the miner judges it
    // as one word. One opening the line (`[UFW BLOCK]`, `[Printer Office_Color]`) is the line's source.
    const phrase = i > 0 || !lead ? bracketPhrase(words, i) : -1;
    if (phrase > i) {
      tokens.push(words.slice(i, phrase + 1).join(' '));
      i = phrase;
      continue;
    }
    pushToken(tokens, words[i]);
  }
  return dropOptional(tokens, lead);
}

/**
 * A JSON line's key paths go this deep (`attr.command`); an object deeper is one value (`{<*>}`): the top
 * level holds the record's fields (time, level, message, a section), the second a section's fields, and
 * what lies below is a payload (a query document, a client's metadata, a request's data) whose keys are
 * data, not the event's shape.
 */
const JSON_DEPTH = 2;
/** A JSON line's message key (as logfmt's MESSAGE_KEY): its words stay words; another key's words are one value, as `key="a b"` is. */
const JSON_MESSAGE_KEY = /^(?:msg|message|@m|@message|short_message|event|log)$/i;
/** A JSON object closing a line after a prefix (`2024-11-28T10:00:00Z stdout F {"level":…}`): ` {"` opens it. */
const JSON_TAIL = / \{"/;

/**
 * A line that is one JSON object (`{"time":…,"type":"request","auth":{…},"request":{…}}`, a structured
 * log: Go, Node, Java services, audit logs, MongoDB) read as its key paths (issue 31, session 20): each
 * leaf is its path as a key (`"request.operation":`) and its value, in the object's order; an array is one
 * value (`[<*>]`, `[]` when empty) however many items it holds (a list of policies or attributes of
 * variable length shifts no field after it), a number `<*>`, a string its words as a line's words are
 * (masked as they are: a message keeps its words, an id is `<*>`), a boolean `<*>`, `null` itself; an object
 * below JSON_DEPTH one value.
 * Its length is 1: it is one record whatever its size (a long object is no prose), so stage 5 mines it.
 * The miner then judges each value as a key's value (addJsonKeys, maskKeyValues): the shape (the
 * keys present) and the values of closed vocabulary name the event. Undefined for any other text.
 */
export function jsonLineTokens(text: string): string[] | undefined {
  const t = text.trim();
  if (t.length < 2 || t[0] !== '{' || t[t.length - 1] !== '}' || !t.includes('":')) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(t);
  } catch {
    return undefined;
  }
  if (!value || typeof value !== 'object' || Array.isArray(value)) return undefined;
  const tokens: string[] = [];
  const walk = (object: Record<string, unknown>, prefix: string, depth: number) => {
    for (const [k, v] of Object.entries(object)) {
      const path = prefix ? `${prefix}.${k}` : k;
      const nested = v && typeof v === 'object' && !Array.isArray(v) && Object.keys(v).length > 0;
      if (nested && depth < JSON_DEPTH) {
        walk(v as Record<string, unknown>, path, depth + 1);
        continue;
      }
      tokens.push(`"${path}":`);
      if (nested) tokens.push(`{${WILDCARD}}`);
      else if (Array.isArray(v)) tokens.push(v.length ? `[${WILDCARD}]` : '[]');
      else if (v && typeof v === 'object') tokens.push('{}');
      else if (typeof v === 'number' || typeof v === 'boolean') tokens.push(WILDCARD);
      else if (typeof v === 'string') {
        // A message's words are a line's words, unquoted: the key before them is no key of a value (addJsonKeys).
        if (JSON_MESSAGE_KEY.test(k)) for (const w of wordTokens(v.split(/\s+/).filter(Boolean), false)) tokens.push(w);
        else {
          const words = `"${v}"`.split(/\s+/).filter(Boolean);
          if (words.length === 1) for (const w of wordTokens(words, false)) tokens.push(w);
          else tokens.push(maskToken(words.join(' ')));
        }
      } else tokens.push(String(v));
    }
  };
  walk(value as Record<string, unknown>, '', 1);
  return tokens.length ? tokens : undefined;
}

/**
 * A line of a few words (a time, a stream, a level: a collector's or a syslog's prefix) and then one JSON
 * object to its end: the prefix's words as a line's words, the object as jsonLineTokens reads it; the
 * length is the prefix's words and one. Undefined for any other text (the object must parse).
 */
function prefixedJsonTokens(text: string): TemplateTokens | undefined {
  const t = text.trimEnd();
  if (t[t.length - 1] !== '}') return undefined;
  const at = t.search(JSON_TAIL);
  if (at < 0) return undefined;
  const object = jsonLineTokens(t.slice(at + 1));
  if (!object) return undefined;
  const words = t.slice(0, at).split(/\s+/).filter(Boolean);
  return { tokens: [...wordTokens(words, true), ...object], length: words.length + 1 };
}
