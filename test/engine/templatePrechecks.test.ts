/**
 * The template tokeniser's cheap prechecks (engine/text/templateTokens.ts: a slash before PATH, a piece
 * character before the split, hex words only without a digit, KEY_LIST only with a comma or a leading
 * bracket, a repeated group's word 3-8 tokens later, units without a replace) change no token: each case
 * pins the output the tokeniser gave before them (session 18, tokenspeed). Pure and fast.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { maskToken, templateTokens } from '../../engine/text/templateTokens.ts';

const MASKED: Array<[string, string]> = [
  ['effcfd', '<*>'],
  ['facade', '<*>'],
  ['decade,', '<*>,'],
  ['lock:ececfcd,', 'lock:<*>,'],
  ['Record{fdbbeaf', 'Record{<*>'],
  ['ab12/cd', '<*>'],
  ['/var/log', '<*>'],
  ['x/y/z', '<*>'],
  ['"/usr', '<*>'],
  ['fe80::1:2', '<*>'],
  ['a:b', 'a:b'],
  ['10.0.0.1:80', '<*>'],
  ['eth0', 'eth<*>'],
  ['de12345', '<*>'],
  ['ee0', 'ee<*>'],
  ['%LINK-3-UPDOWN', '%LINK-3-UPDOWN'],
  ['cn[0001-0004,0007]', 'cn<*>'],
  ['node-[12],', 'node-<*>,'],
  ['abc:12', 'abc:<*>'],
  ['size=12', 'size=<*>'],
  ['KiB/s,', 'KiB/s,'],
];

const LINES: Array<[string, string]> = [
  ['state a=1,b=x,c=2 done', 'state a=<*>,b=x,c=<*> done'],
  ['map [k=1] set', 'map [k=<*>] set'],
  ['value key=12 at /tmp/x', 'value key= <*> at <*>'],
  // A key holding a slash is no key (session 18): the token is one value.
  ['path/to=3 ok', 'path/to=<*> ok'],
  ['{index=logs-1, size=0, from=5} ok', '{index=logs-<*>,size=<*>,from=<*>} ok'],
  ['took 12 KiB/s, then 5 ms. done', 'took <*> then <*> done'],
  ['sent 45.3 M Bytes/second now', 'sent <*> now'],
  ['cpu 80 % and 12 USD)', 'cpu <*> and <*>'],
  ['hosts [orders-1, orders-2, orders-3] up', 'hosts [orders-<*>] up'],
  ['sent [Partition: a-1, Offset: 2], [Partition: b-3, Offset: 4], [Partition: c-5, Offset: 6]', 'sent [Partition: <*>, Offset: <*>]'],
  ['x w1 y z w2 y z w3 y z end', 'x <*> y z end'],
  ['user user logged in 5 times', 'user user logged in <*> times'],
  ['got {"level":"info","n":3} ok', 'got {"level": "info", "n": <*>} ok'],
  ['set result={"score":92,"x":1} ok', 'set result= {"score":<*>,"x":<*>} ok'],
  ['tag="View Lock", n=1 done', 'tag= "View Lock", n= <*> done'],
  ['ua "Mozilla/5.0 (X11; Linux x86_64) Gecko" ok', 'ua "<*>" ok'],
  ['a b c d e f g h', 'a b c d e f g h'],
  // A word back two tokens later, or nine: no repeated group (three to eight tokens).
  ['id 1 id 2 id 3 done', 'id <*> id <*> id <*> done'],
  ['job a1 runs on b c d e f g h i job a2 runs on', 'job <*> runs on b c d e f g h i job <*> runs on'],
];

test('maskToken: hex words, paths, colon groups, suffixed words and ranges as before the prechecks', () => {
  for (const [token, masked] of MASKED) assert.is(maskToken(token), masked, token);
});

test('templateTokens: key lists, units, lists, repeated groups, JSON and quoted values as before the prechecks', () => {
  for (const [line, tokens] of LINES) assert.is(templateTokens(line, 64).tokens.join(' '), tokens, line);
});

test.run();
