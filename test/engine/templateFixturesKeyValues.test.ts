/**
 * Issue 31, "a `key=` prefix anchors the template" and "variables inside tokens": after a key (`id=`,
 * `ref=`, `"key":`), the value is a parameter slot of the event. Lines of one event whose value at that key
 * has different shapes (a hex id, a prefixed number, `none`, a name, a path) are one event; a key whose
 * values are a closed set of plain words, each printed by many lines, keeps them (session 20's closed-set
 * veto: they name events). Hand-made lines of no real system; tokenisation and the miner only.
 */
import { test } from 'uvu';
import { exact, pick, rng } from '../helpers/minedLines.ts';

const int = (r: () => number, lo: number, hi: number) => lo + Math.floor(r() * (hi - lo + 1));
const hex = (r: () => number, n: number) => Array.from({ length: n }, () => '0123456789abcdef'[Math.floor(r() * 16)]).join('');
const WORDS = ['cobalt', 'lichen', 'marram', 'tansy', 'sorrel', 'vetch', 'yarrow', 'bracken', 'hazel', 'rowan'];
const VOLUMES = ['data', 'logs', 'home', 'scratch', 'media', 'mail'];

/** A reference of one of several shapes, as a tool prints what the backend answered. */
function reference(r: () => number): string {
  switch (int(r, 0, 9)) {
    case 0:
    case 1:
    case 2:
      return `snap${hex(r, 12)}`;
    case 3:
    case 4:
      return `lease-${int(r, 100_000, 9_999_999)}`;
    case 5:
      return 'none';
    case 6:
      return `${pick(r, WORDS)}-archive-${int(r, 1000, 9999)}`;
    case 7:
      return `${pick(r, WORDS)}-${pick(r, ['cold', 'warm', 'tier'])}`;
    case 8:
      return `/pools/tank${int(r, 1, 4)}/${pick(r, WORDS)}/${pick(r, VOLUMES)}`;
    default:
      return `${hex(r, 8)}-${hex(r, 4)}-${hex(r, 4)}-${hex(r, 12)}`;
  }
}

test('a key in brackets (`[ref=…]`): one event whatever shape the reference has (hex id, prefixed number, none, a name, a path)', () => {
  const r = rng(3101);
  const lines: Array<[string, string]> = [];
  for (let i = 0; i < 240; i++) {
    const vol = `${pick(r, VOLUMES)}${pick(r, ['', '-b', '-c'])}`;
    switch (i % 4) {
      case 0:
        lines.push(['checked', `volume ${vol}: checking snapshot... [ref=${reference(r)}]`]);
        break;
      case 1:
        lines.push(['saved', `volume ${vol}: snapshot saved after ${int(r, 1, 59)}s [ref=${reference(r)}]`]);
        break;
      case 2:
        lines.push(['pruned', `volume ${vol}: pruning old snapshot... [ref=${reference(r)}]`]);
        break;
      default:
        lines.push(['queued', `volume ${vol}: queued for the next window`]);
    }
  }
  exact(lines);
});

test('a key and its value as tokens (`ref=` then the value): one event whatever shape the value has', () => {
  const r = rng(3102);
  const lines: Array<[string, string]> = [];
  for (let i = 0; i < 200; i++) {
    if (i % 2) lines.push(['renewed', `lease renewed holder=${pick(r, WORDS)} ref=${reference(r)} ttl=${int(r, 10, 90)}s`]);
    else lines.push(['expired', `lease expired holder=${pick(r, WORDS)} ref=${reference(r)} after ${int(r, 1, 9)} retries`]);
  }
  exact(lines);
});

test('a key whose values are a closed set of words (opposite): `state=STARTED` / `STOPPED`, each on many lines, name two events', () => {
  const r = rng(3103);
  const lines: Array<[string, string]> = [];
  for (let i = 0; i < 120; i++) {
    const state = ['STARTED', 'STOPPED'][i % 2];
    lines.push([state, `cluster state=${state} epoch=${int(r, 1000, 99_999)}`]);
  }
  exact(lines);
});

test('a key whose values are a closed set of words beside codes (opposite): `state=STARTED` / `STOPPED` on many lines stay two events, the codes of three shapes at that key (in the lines of another event) are one event', () => {
  const r = rng(3104);
  const lines: Array<[string, string]> = [];
  for (let i = 0; i < 150; i++) {
    const k = i % 3;
    const epoch = int(r, 1000, 99_999);
    if (k < 2) lines.push([k ? 'STOPPED' : 'STARTED', `cluster epoch=${epoch} state=${k ? 'STOPPED' : 'STARTED'}`]);
    else
      lines.push([
        'failed',
        `cluster epoch=${epoch} state=${pick(r, [`E${int(r, 100, 999)}`, `ERR-${int(r, 10, 99)}`, `fault-${int(r, 1, 9)}`])} reason=${pick(r, WORDS)}`,
      ]);
  }
  exact(lines);
});

// The cross product at the leading position counts the events a source prints: an event printed with and
// without an optional token is one, so leading words printing one event each are no source.

test('leading words printing one event each (opposite of a source): three front ends, one `accepted` event with an optional flag and a key of mixed values, stay three events', () => {
  const r = rng(3105);
  const lines: Array<[string, string]> = [];
  for (let i = 0; i < 600; i++) {
    const front = pick(r, ['web-gate:', 'web-gate:', 'web-gate:', 'api-gate:', 'edge2-gate:']);
    const flag = pick(r, ['TLS, ', 'mTLS, ', '']);
    const user = pick(r, [`<${pick(r, WORDS)}>`, `<${pick(r, WORDS)}${int(r, 1, 99)}@example.org>`, '<>', `<u${int(r, 100, 999)}>`]);
    lines.push([
      front,
      `${front} accepted: user=${user}, proto=${pick(r, ['h2', 'http/1.1'])}, peer=10.${int(r, 0, 9)}.${int(r, 0, 99)}.${int(r, 1, 254)}, ${flag}conn=<${hex(r, 10)}>`,
    ]);
  }
  for (let i = 0; i < 60; i++) lines.push(['closed', `web-gate: closed: conn=<${hex(r, 10)}> after ${int(r, 1, 900)} s`]);
  exact(lines);
});

test.run();
