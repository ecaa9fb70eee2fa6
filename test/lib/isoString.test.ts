/** `isoString` writes exactly what Date#toISOString writes, and defers to it outside years 0000-9999. */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { isoString } from '../../lib/isoString.ts';

test('the same text as toISOString at the edges of the range, of months, leap days and days', () => {
  for (const text of [
    '0000-01-01T00:00:00.000Z',
    '0000-02-29T23:59:59.999Z',
    '0001-01-01T00:00:00.000Z',
    '1899-12-31T23:59:59.999Z',
    '1969-12-31T23:59:59.999Z',
    '1970-01-01T00:00:00.000Z',
    '1970-01-01T00:00:00.001Z',
    '2000-02-29T12:00:00.500Z',
    '2024-02-29T00:00:00.000Z',
    '2100-03-01T00:00:00.000Z',
    '2026-11-28T04:05:06.007Z',
    '9999-12-31T23:59:59.999Z',
  ]) {
    const d = new Date(text);
    assert.is(isoString(d), d.toISOString());
    assert.is(isoString(d), text);
  }
});

test('outside years 0000-9999 it is toISOString (extended years), and an invalid date throws as it does', () => {
  for (const ms of [-62_167_219_200_001, 253_402_300_800_000, 8.64e15, -8.64e15]) assert.is(isoString(new Date(ms)), new Date(ms).toISOString());
  assert.throws(() => isoString(new Date(Number.NaN)), RangeError);
});

test('a seeded sample of 200,000 instants over the whole range', () => {
  let seed = 7;
  const random = () => {
    seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
    return seed / 2 ** 31;
  };
  const min = -62_167_219_200_000;
  const span = 253_402_300_799_999 - min;
  for (let i = 0; i < 200_000; i++) {
    const d = new Date(min + Math.floor((random() * 2 ** 31 + random()) * (span / 2 ** 31)));
    assert.is(isoString(d), d.toISOString());
  }
});

test.run();
