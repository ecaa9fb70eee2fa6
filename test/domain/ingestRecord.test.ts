/**
 * `validateIngestRecord` decides the records zod's `ingestRecordSchema` accepts without zod (issue 32,
 * session 13): it must accept exactly what the schema accepts, give the same issue input, and answer
 * everything else with the schema's own errors. Compared here with the schema on hand-made edge cases
 * and on a seeded stream of random records built from valid and invalid field values.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ingestRecordSchema, toIssueInput, validateIngestRecord } from '../../domain/ingestRecord.ts';

/** What the endpoint answered before: zod's parse, then `toIssueInput`, errors by field. */
function bySchema(value: unknown, defaultSource?: string) {
  const record = defaultSource !== undefined && value && typeof value === 'object' && !Array.isArray(value) ? { source: defaultSource, ...value } : value;
  const parsed = ingestRecordSchema.safeParse(record);
  if (parsed.success) return { ok: true as const, input: toIssueInput(parsed.data) };
  return { ok: false as const, errors: parsed.error.issues.map((i) => ({ field: i.path.map(String).join('.') || 'record', message: i.message })) };
}

function same(value: unknown, defaultSource?: string) {
  const expected = bySchema(value, defaultSource);
  const actual = validateIngestRecord(value, defaultSource);
  assert.equal(actual, expected, `record ${JSON.stringify(value)} (default source ${defaultSource})`);
  return actual;
}

const valid = { external_id: 'A-1', title: 'Disk full', source: 'ops' };

test('valid records give the schema output: trimmed keys, narrative or its alias, severity aliases, timestamps', () => {
  const checked = same({ ...valid, external_id: '  A-1 ', title: '\tDisk full\n', source: ' ops ', narrative: '  kept as sent  ', severity: ' SEV1 ' });
  assert.ok(checked.ok);
  for (const extra of [
    {},
    { narrative: null, body: 'from body' },
    { narrative: '', body: 'not used: narrative is a string' },
    { narrative: '   ' },
    { body: null },
    { occurred_at: '2026-03-01T12:00:00Z' },
    { occurred_at: '2026-03-01T12:00:00.123456+02:00' },
    { occurred_at: '0001-01-01T00:00:00Z' },
    { occurred_at: '0999-12-31T23:59:59-05:30' },
    { occurred_at: null, severity: null },
    { severity: 'p4' },
    { severity: 'Medium' },
    { unknown_field: { nested: [1, 2] } },
    { narrative: 'x'.repeat(100_000) },
  ])
    same({ ...valid, ...extra });
  same({ external_id: 'e'.repeat(256), title: 't'.repeat(1000), source: 's'.repeat(100) });
  same({ external_id: 'e', title: 't' }, 'connector');
  same({ ...valid, source: 'own' }, 'connector');
});

test('invalid records get the schema errors, field by field and in its order', () => {
  for (const value of [
    null,
    undefined,
    'a string',
    42,
    [],
    [valid],
    {},
    { ...valid, external_id: '' },
    { ...valid, external_id: '   ' },
    { ...valid, external_id: 7 },
    { ...valid, external_id: null },
    { ...valid, external_id: 'e'.repeat(257) },
    { ...valid, title: 't'.repeat(1001) },
    { ...valid, source: 's'.repeat(101) },
    { ...valid, source: undefined },
    { ...valid, narrative: 'x'.repeat(100_001) },
    { ...valid, narrative: 5 },
    { ...valid, body: false },
    { ...valid, body: 'x'.repeat(100_001) },
    { ...valid, occurred_at: '0000-01-01T00:00:00Z' },
    { ...valid, occurred_at: '2026-03-01' },
    { ...valid, occurred_at: '2026-03-01T12:00:00' },
    { ...valid, occurred_at: '2026-02-30T12:00:00Z' },
    { ...valid, occurred_at: '2026-13-01T12:00:00Z' },
    { ...valid, occurred_at: 1700000000000 },
    { ...valid, occurred_at: '' },
    { ...valid, severity: 'urgent' },
    { ...valid, severity: 1 },
    { ...valid, severity: '' },
    { external_id: 1, title: 2, source: 3, narrative: 4, body: 5, occurred_at: 6, severity: 7 },
  ]) {
    const checked = same(value);
    assert.not.ok(checked.ok, JSON.stringify(value));
  }
  same({ ...valid, source: '' }, 'connector');
  same({ title: 't' }, 'connector');
});

test('a seeded stream of random records: the same verdict, input and errors as the schema', () => {
  let seed = 32;
  const random = () => {
    seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
    return seed / 2 ** 31;
  };
  const pick = <T>(values: T[]): T => values[Math.floor(random() * values.length)];
  const text = ['', ' ', ' x ', 'ok', 'é😀', '\u00a0a\u2028', 'a'.repeat(100), 'a'.repeat(101), 'a'.repeat(256), 'a'.repeat(257), 'a'.repeat(1001)];
  const anyValue = [undefined, null, 0, 1.5, true, [], {}, ...text];
  const fields: Record<string, unknown[]> = {
    external_id: [...anyValue, 'A-1', ' B-2 '],
    title: [...anyValue, 'Disk full'],
    source: [...anyValue, 'ops', ' jira '],
    narrative: [...anyValue, 'disk full on node 7', 'x'.repeat(100_000), 'x'.repeat(100_001)],
    body: [...anyValue, 'from body'],
    occurred_at: [
      ...anyValue,
      '2026-03-01T12:00:00Z',
      '2026-03-01T12:00:00.5+01:00',
      '2026-03-01T12:00:00+0100',
      '2026-03-01T12:00Z',
      '2026-03-01 12:00:00Z',
      '0000-06-01T00:00:00Z',
      '9999-12-31T23:59:59.999Z',
      '2026-03-01T24:00:00Z',
    ],
    severity: [...anyValue, 'critical', 'P1', ' sev3 ', 'LOW', 'none'],
  };
  let accepted = 0;
  for (let i = 0; i < 20_000; i++) {
    const record: Record<string, unknown> = {};
    for (const [field, values] of Object.entries(fields)) {
      if (random() < 0.1) continue; // absent
      // Mostly one of the field's own last values (usually valid), else any value of the list.
      record[field] = random() < 0.8 ? values[values.length - 1 - Math.floor(random() * 3)] : pick(values);
    }
    const checked = same(record, random() < 0.1 ? 'connector' : undefined);
    if (checked.ok) accepted++;
  }
  // Both verdicts occur often enough for the comparison to mean something.
  assert.ok(accepted > 200 && accepted < 19_800, `accepted ${accepted}`);
});

test.run();
