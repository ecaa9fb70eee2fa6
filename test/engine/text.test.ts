/**
 * The text maths of engine stages 2-4, on small strings and tiny documents with exact expectations:
 * masking of volatile tokens, tokenisation, stop words, the light stemmer, keyword phrase matching
 * and hashed TF-IDF (df filtering, idf, sublinear tf, title weighting, bigrams, L2 rows).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { maskText, normalizeText } from '../../engine/text/normalize.ts';
import { templateTokens } from '../../engine/text/templateTokens.ts';
import { stem } from '../../engine/text/stem.ts';
import { stopWords } from '../../engine/text/stopwords.ts';
import { keywordMatcher } from '../../engine/text/keywords.ts';
import { featureIndex, fnv1a } from '../../engine/text/hashing.ts';
import { tfidf, type TfidfInput, type TfidfResult } from '../../engine/text/tfidf.ts';

const tokens = (text: string) => normalizeText(text).tokens;
const masked = (text: string) => normalizeText(text).text;

test('URLs and e-mail addresses are masked whole, the words around them stay', () => {
  assert.equal(tokens('crash at https://example.com/a/b?x=1 reported'), ['crash', 'report']);
  assert.is(masked('see https://example.com/a/b?x=1 now'), 'see now');
  assert.is(masked('fetch hdfs://nn1:8020/user/x/part-0001 failed'), 'fetch failed');
  assert.is(masked('read s3a://bucket/key/a.parquet slowly'), 'read slowly');
  assert.equal(tokens('mail ops.team+alerts@example.co.uk today'), ['mail', 'today']);
  assert.is(masked('mail ops.team+alerts@example.co.uk today'), 'mail today');
});

test('UUIDs, IP addresses (with ports), ISO timestamps and clock times are masked', () => {
  assert.equal(tokens('container 123e4567-E89B-12d3-a456-426614174000 failed'), ['container', 'fail']);
  assert.is(masked('connect 10.0.0.12:8020 refused'), 'connect refused');
  assert.is(masked('from 192.168.1.1 only'), 'from only');
  assert.is(masked('at 2024-03-05T10:11:12.345Z and 2024-03-05 12:00+02:00 or 2024-03-05'), 'at and or');
  assert.is(masked('between 10:11:12 and 23:59:59.999'), 'between and');
  assert.equal(tokens('lease lost at 2024-03-05T10:11:12Z on 10.1.2.3'), ['lease', 'lost']);
});

test('paths, 0x hex ids, long hex ids and numbers are dropped', () => {
  assert.is(masked('read /var/log/hadoop/app.log failed'), 'read failed');
  assert.is(masked('open C:\\data\\logs\\x.txt denied'), 'open denied');
  assert.is(masked('addr 0xDEADbeef crashed'), 'addr crashed');
  assert.is(masked('block deadbeef12345678 missing'), 'block missing');
  // A hex-looking run needs a digit and a letter and 8 characters: these are words.
  assert.equal(tokens('deadbeef cafe'), ['deadbeef', 'cafe']);
  // Numbers stay in the masked text (phrases such as "500 error" may mention them) but never become tokens.
  assert.is(masked('retry 3 times after 250 ms'), 'retry 3 times after 250 ms');
  assert.equal(tokens('retry 3 times after 250 ms, 2x faster on 64bit'), ['retry', 'ms', 'faster']);
});

test('maskText replaces each volatile token by a space and keeps case and word order', () => {
  assert.is(maskText('Connect 10.0.0.12:8020 REFUSED'), 'Connect   REFUSED');
  assert.is(maskText('id 123e4567-e89b-12d3-a456-426614174000 at 2024-03-05T10:11:12Z'), 'id   at  ');
  // A path takes the whitespace before it along.
  assert.is(maskText('read /var/log/hadoop/app.log failed'), 'read  failed');
  assert.is(maskText('Nothing volatile here'), 'Nothing volatile here');
});

test('lowercasing, punctuation, underscores and camelCase identifiers', () => {
  assert.equal(tokens('DataNode restarts NameNode'), ['datanode', 'data', 'node', 'restart', 'namenode', 'name', 'node']);
  // The parts go through the stop list too ("out", "of").
  assert.equal(tokens('OutOfMemoryError thrown'), ['outofmemoryerror', 'memory', 'error', 'thrown']);
  assert.equal(tokens('parseJSONBody failed'), ['parsejsonbody', 'parse', 'json', 'body', 'fail']);
  assert.equal(tokens('client_timeout, (socket)!'), ['client', 'timeout', 'socket']);
  assert.is(masked('  Disk   FULL\n\ton Node-7 '), 'disk full on node-7');
});

test('stop words are dropped, including the boilerplate of bug reports', () => {
  assert.equal(tokens('The server is down and it was slow'), ['server', 'slow']);
  assert.equal(tokens('Hi, steps to reproduce: the job hangs. Thanks'), ['job', 'hang']);
  for (const word of ['the', 'and', 'issue', 'reproduce', 'thanks']) assert.ok(stopWords.has(word), word);
  assert.not.ok(stopWords.has('timeout'));
});

test('stem: plurals, -ing, -ed, -ied, -ly, -ness, -ment, -ation; short words unchanged', () => {
  const table: Array<[string, string]> = [
    // plurals (-s, -ies, -sses; not -ss, -us, -is)
    ['servers', 'server'],
    ['timeouts', 'timeout'],
    ['queries', 'query'],
    ['classes', 'class'],
    ['process', 'process'],
    ['status', 'status'],
    ['analysis', 'analysis'],
    // -ing, with the doubled consonant undone
    ['failing', 'fail'],
    ['running', 'run'],
    ['string', 'string'], // no vowel before -ing: not a suffix
    ['ring', 'ring'],
    // -ed, -ied, -edly, -ingly
    ['failed', 'fail'],
    ['stopped', 'stop'],
    ['copied', 'copy'],
    ['repeatedly', 'repeat'],
    // -ly, -ness, -ment, -ation, -ational
    ['quickly', 'quick'],
    ['darkness', 'dark'],
    ['deployment', 'deploy'],
    ['allocation', 'allocate'],
    ['relational', 'relate'],
    // a plural and a suffix together
    ['settings', 'set'],
    ['deployments', 'deploy'],
    // three letters or fewer: unchanged
    ['jvm', 'jvm'],
    ['oom', 'oom'],
    ['ies', 'ies'],
    ['bus', 'bus'],
  ];
  for (const [word, expected] of table) assert.is(stem(word), expected, `stem(${word})`);
});

test('keywordMatcher finds phrases at word starts, as prefixes, longer keywords first', () => {
  const m = keywordMatcher(['memory', 'Out  of Memory', 'synchroniz', 'oom', 'timeout']);
  // The longer phrase wins where both start; "memory" alone is found elsewhere.
  assert.equal([...m.find('java out of memory error')], ['out of memory']);
  assert.equal([...m.find('out of memory, then memory pressure')].sort(), ['memory', 'out of memory']);
  // A keyword may be a word prefix...
  assert.equal([...m.find('unsynchronized access; synchronization missing')], ['synchroniz']);
  // ...but must start a word: "room" holds no "oom"; an underscore or hyphen starts a word.
  assert.equal([...m.find('the room is full')], []);
  assert.equal([...m.find('oom-killer hit; client_timeout')].sort(), ['oom', 'timeout']);
  // Distinct keywords: a repeated one counts once.
  assert.equal([...m.find('timeout timeout timeout')], ['timeout']);
  // Regular-expression characters in keywords are literal.
  assert.equal([...keywordMatcher(['c++ build', 'a.b']).find('the c++ build broke; axb is fine')], ['c++ build']);
  assert.equal([...keywordMatcher([]).find('anything')], []);
});

test('feature hashing is 32-bit FNV-1a modulo the dimension', () => {
  // Published FNV-1a 32-bit test vectors (www.isthe.com/chongo/tech/comp/fnv): "" and "a" and "foobar".
  assert.is(fnv1a(''), 0x811c9dc5);
  assert.is(fnv1a('a'), 0xe40c292c);
  assert.is(fnv1a('foobar'), 0xbf9cf968);
  assert.is(featureIndex('foobar', 1000), 0xbf9cf968 % 1000);
});

// Four tiny documents (tokens already normalised). With N = 4, minDf 2 and maxDfShare 0.5 a feature
// is kept when 2 <= df <= max(2, floor(0.5 · 4)) = 2:
//   disk (d0, d1), write (d1, d2), fail (d1, d2), net (d2, d3) and the bigram "write fail" (d1, d2);
//   dropped: full (df 1), slow (df 1), node (df 3 > 2) and every other bigram (df 1).
const docs: TfidfInput[] = [
  { title: ['disk', 'full'], body: ['disk', 'full', 'node'] },
  { title: ['disk'], body: ['write', 'fail'] },
  { title: ['net'], body: ['write', 'fail', 'node'] },
  { title: ['net', 'slow'], body: ['slow', 'node'] },
];
const DIMENSIONS = 1 << 20;
const rowOf = (m: ReturnType<typeof tfidf>['matrix'], i: number) => {
  const row = new Map<string, number>();
  for (let p = m.rowPtr[i]; p < m.rowPtr[i + 1]; p++) row.set(String(m.colIdx[p]), m.values[p]);
  return row;
};
const f = (token: string) => String(featureIndex(token, DIMENSIONS));

/** The features a result keeps (those with an idf), and the features of some terms, both sorted. */
const kept = (result: TfidfResult) => [...result.idf.keys()].filter((k) => result.idf[k] > 0);
const featuresOf = (terms: string[]) => terms.map((t) => featureIndex(t, DIMENSIONS)).sort((a, b) => a - b);

test('tfidf: the test tokens do not collide in the hashed space', () => {
  const all = ['disk', 'full', 'node', 'write', 'fail', 'net', 'slow', 'disk full', 'full node', 'write fail', 'fail node', 'net slow', 'slow node'];
  assert.is(new Set(all.map(f)).size, all.length);
});

test('tfidf: df filtering (minDf 2, maxDfShare) and the smoothed idf', () => {
  const result = tfidf(docs, { dimensions: DIMENSIONS, titleWeight: 2, bigramWeight: 0.5, minDf: 2, maxDfShare: 0.5 });
  assert.equal(kept(result), featuresOf(['disk', 'fail', 'net', 'write', 'write fail']));
  // idf = ln((1 + N) / (1 + df)) + 1 = ln(5/3) + 1 for every kept feature (all have df 2), stored as float32.
  const idf = Math.fround(Math.log(5 / 3) + 1);
  for (const token of ['disk', 'fail', 'net', 'write', 'write fail']) assert.is(result.idf[Number(f(token))], idf, token);
  for (const token of ['full', 'slow', 'node', 'disk full', 'net slow']) assert.is(result.idf[Number(f(token))], 0, token);
  assert.is(result.matrix.rows, 4);
  assert.is(result.matrix.cols, DIMENSIONS);
  assert.equal(Array.from(result.matrix.rowPtr), [0, 1, 5, 9, 10]);

  // A larger maxDfShare keeps "node" (df 3 <= floor(0.75 · 4) = 3); minDf 1 keeps everything.
  assert.ok(kept(tfidf(docs, { dimensions: DIMENSIONS, maxDfShare: 0.75 })).includes(featureIndex('node', DIMENSIONS)));
  assert.is(kept(tfidf(docs, { dimensions: DIMENSIONS, minDf: 1, maxDfShare: 1 })).length, 13);
});

test('tfidf: sublinear tf with title weighting and half-weight bigrams, rows L2-normalised', () => {
  const { matrix } = tfidf(docs, { dimensions: DIMENSIONS, titleWeight: 2, bigramWeight: 0.5, minDf: 2, maxDfShare: 0.5 });
  // All kept features share one idf, so it cancels in the normalised row: w ∝ 1 + ln(count).
  // d0: disk counted 2 (title) + 1 (body) = 3 -> the only kept feature -> [1].
  const d0 = rowOf(matrix, 0);
  assert.equal([...d0.keys()], [f('disk')]);
  assert.ok(Math.abs(d0.get(f('disk'))! - 1) < 1e-6);
  // d1: disk 2 (title), write 1, fail 1, "write fail" 0.5 (a body bigram at half weight).
  const raw = { disk: 1 + Math.log(2), write: 1, fail: 1, 'write fail': 1 + Math.log(0.5) };
  const norm = Math.hypot(...Object.values(raw));
  const d1 = rowOf(matrix, 1);
  assert.is(d1.size, 4);
  for (const [token, w] of Object.entries(raw)) assert.ok(Math.abs(d1.get(f(token))! - w / norm) < 1e-6, `${token}: ${d1.get(f(token))} vs ${w / norm}`);
  // d2 mirrors d1 with "net" in the title; d3 keeps only "net" (title) -> [1].
  const d2 = rowOf(matrix, 2);
  assert.ok(Math.abs(d2.get(f('net'))! - raw.disk / norm) < 1e-6);
  const d3 = rowOf(matrix, 3);
  assert.equal([...d3.keys()], [f('net')]);
  assert.ok(Math.abs(d3.get(f('net'))! - 1) < 1e-6);
  // Every row has unit length; columns are sorted within a row.
  for (let i = 0; i < 4; i++) {
    let s = 0;
    for (let p = matrix.rowPtr[i]; p < matrix.rowPtr[i + 1]; p++) {
      s += matrix.values[p] ** 2;
      if (p > matrix.rowPtr[i]) assert.ok(matrix.colIdx[p] > matrix.colIdx[p - 1]);
    }
    assert.ok(Math.abs(Math.sqrt(s) - 1) < 1e-6, `row ${i} norm ${Math.sqrt(s)}`);
  }
});

test('tfidf: the title weight is what makes a title token outweigh the same token in the body', () => {
  const twoDocs: TfidfInput[] = [
    { title: ['alpha'], body: ['beta'] },
    { title: ['gamma'], body: ['alpha', 'beta'] },
  ];
  const options = { dimensions: DIMENSIONS, bigramWeight: 0, minDf: 2, maxDfShare: 1 };
  const weighted = rowOf(tfidf(twoDocs, { ...options, titleWeight: 2 }).matrix, 0);
  const flat = rowOf(tfidf(twoDocs, { ...options, titleWeight: 1 }).matrix, 0);
  // Weighted: alpha 1 + ln 2 against beta 1; flat: 1 against 1.
  const expected = (1 + Math.log(2)) / Math.hypot(1 + Math.log(2), 1);
  assert.ok(Math.abs(weighted.get(f('alpha'))! - expected) < 1e-6);
  assert.ok(Math.abs(flat.get(f('alpha'))! - Math.SQRT1_2) < 1e-6);
  // A repeated token makes no bigram with itself.
  assert.equal(
    kept(
      tfidf(
        [
          { title: [], body: ['x', 'x'] },
          { title: [], body: ['x', 'x'] },
        ],
        { dimensions: DIMENSIONS, maxDfShare: 1 },
      ),
    ),
    featuresOf(['x']),
  );
});

test('tfidf: a document with no kept feature is an empty row, not NaN', () => {
  const { matrix } = tfidf([...docs, { title: ['unique'], body: [] }], { dimensions: DIMENSIONS, minDf: 2, maxDfShare: 0.5 });
  assert.is(matrix.rowPtr[5] - matrix.rowPtr[4], 0);
  assert.ok(Array.from(matrix.values).every(Number.isFinite));
});

// The speed paths of normalizeText (Session 21): the definitions they replace, on texts made to catch
// a difference (underscores, digits, non-ASCII letters, every kind of white space, dashes in every
// place a UUID or date guard looks, words at the 2 and 40 character limits).
const referenceMask = (text: string) => {
  const masks: Array<[RegExp, string]> = [
    [/\b(?:https?|ftp|file|hdfs|s3a?|wasbs?|abfss?):\/\/\S+/gi, ' '],
    [/\b[\w.+-]+@[\w-]+\.[\w.-]+\b/g, ' '],
    [/\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/gi, ' '],
    [/\b\d{1,3}(?:\.\d{1,3}){3}(?::\d+)?\b/g, ' '],
    [/\b\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:[.,]\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?\b/g, ' '],
    [/\b\d{1,2}:\d{2}(?::\d{2})(?:[.,]\d+)?\b/g, ' '],
    [/(?:^|\s)(?:[A-Za-z]:)?(?:[\\/][\w.$-]+){2,}[\\/]?/g, ' '],
    [/\b0x[0-9a-f]+\b/gi, ' '],
    [/\b(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{8,}\b/gi, ' '],
  ];
  return masks.reduce((out, [pattern, replacement]) => out.replace(pattern, replacement), text);
};
const referenceParts = (text: string) =>
  text
    .split(/[^A-Za-z0-9_]+/)
    .filter((raw) => raw.length >= 2)
    .flatMap((raw) => raw.split('_'))
    .filter((part) => part.length >= 2 && part.length <= 40);

test('normalizeText: masks, white space and word parts as the plain definitions give them', () => {
  const texts = [
    'id 123e4567-e89b-12d3-a456-426614174000, not 123e4567-e89b-12d3-a456 nor -a-b-c-d- or a--b----c',
    '--2024-03-05-- 2024-3-05 12-34-56 x-y-z-w 2024-03-05T10:11:12Z-x 99-99-99-99',
    'snake_case_word _lead trail_ a__b __ x_y DataNodeManager__Impl HTTP2Server é_word naïveCase',
    'tabs\tand\n\nnewlines \r\n  runs\u00a0nbsp\u2003em\u3000ideo \f\v end ',
    `${'a'.repeat(40)} ${'b'.repeat(41)} ab a 1 12 x9 9x`,
    '  leading and trailing  ',
    '',
  ];
  for (const text of texts) {
    const masked = referenceMask(text);
    const { text: out, tokens: toks } = normalizeText(text);
    assert.is(maskText(text), masked);
    assert.is(out, masked.toLowerCase().replace(/\s+/g, ' ').trim());
    // The tokens of each part, in order: the same parts give the same tokens.
    assert.equal(
      toks,
      referenceParts(masked).flatMap((part) => normalizeText(part).tokens),
    );
  }
});

test('templateTokens: a long text counts its words as the split does, at and around the limit', () => {
  for (const words of [1, 5, 63, 64, 65, 200]) {
    for (const space of [' ', '  ', '\t', '\n', '\u00a0', ' \u3000 ']) {
      const text = `${space}${Array.from({ length: words }, (_, i) => `w${i}`).join(space)}${space}`;
      const split = text.split(/\s+/).filter(Boolean).length;
      const got = templateTokens(text, 64);
      assert.is(got.length, split);
      if (split > 64) assert.equal(got.tokens, []);
      else assert.is(got.tokens.length > 0, true);
    }
  }
});

test.run();
