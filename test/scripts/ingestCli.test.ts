/**
 * `svc ingest` as a real child process: CSV, JSON Lines and XLSX files loaded through the ingest
 * write path (what GET /v1/issues then answers), rejected rows written with their errors, `--json`
 * output, bad arguments, and a load killed part-way and started again (it resumes, nothing twice).
 */
import { mkdtempSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import ExcelJS from 'exceljs';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { demoToken, eventually, startTestApp, type TestApp } from '../helpers/app.ts';
import type { Client } from '../helpers/http.ts';
import { runSvc, spawnSvc, svcEnv } from '../../fixtures/svcProcess.ts';

let t: TestApp;
let api: Client;
let dir: string;
test.before(async () => {
  t = await startTestApp();
  api = t.platform.as(await demoToken(t));
  dir = mkdtempSync(path.join(os.tmpdir(), 'svc-ingest-cli-'));
});
test.after(async () => t.close());

const env = () => svcEnv({ DATABASE_URL: t.db.url, LOG_LEVEL: 'warn', NODE_ENV: 'test' });
const files = (name: string) => ({ state: path.join(dir, `${name}.state.json`), rejected: path.join(dir, `${name}.rejected.jsonl`) });
const ingest = (name: string, ...args: string[]) => runSvc(['ingest', '--state', files(name).state, '--rejected', files(name).rejected, ...args], env());

async function issueBySourceId(source: string, externalId: string) {
  const res = await api.get(`/v1/issues?source=${encodeURIComponent(source)}&limit=100`);
  assert.is(res.status, 200, res.text);
  return res.body.data.find((i: any) => i.external_id === externalId);
}

test('a CSV file: valid rows become issues as the API would make them, bad rows go to the rejected file', async () => {
  const csv = path.join(dir, 'issues.csv');
  writeFileSync(
    csv,
    [
      'external_id,title,narrative,occurred_at,severity,source,extra',
      'c-1,Disk full on node 7,"The disk filled up, ""again"", on node 7",2026-01-02T03:04:05Z,p1,csv-src,ignored',
      'c-2,Timeout talking to the cache,,2026-01-03T00:00:00Z,low,csv-src,',
      'c-3,,no title here,,medium,csv-src,',
      'c-4,Bad severity,text,,urgent,csv-src,',
    ].join('\r\n'),
  );
  const res = await ingest('csv', '--workspace', t.demo.workspaceId, '--json', csv);
  assert.is(res.code, 0, res.stderr);
  const summary = JSON.parse(res.stdout);
  assert.is(summary.workspace_id, t.demo.workspaceId);
  assert.is(summary.accepted, 2);
  assert.is(summary.rejected, 2);
  assert.is(summary.files[0].format, 'csv');
  assert.is(summary.files[0].created, 2);

  const first = await issueBySourceId('csv-src', 'c-1');
  assert.is(first.title, 'Disk full on node 7');
  assert.is(first.narrative, 'The disk filled up, "again", on node 7');
  assert.is(first.severity, 'critical');
  assert.is(new Date(first.occurred_at).toISOString(), '2026-01-02T03:04:05.000Z');
  const second = await issueBySourceId('csv-src', 'c-2');
  assert.is(second.narrative, null);

  const rejected = readFileSync(files('csv').rejected, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));
  assert.equal(
    rejected.map((r) => r.where),
    ['line 4', 'line 5'],
  );
  assert.equal(
    rejected[0].errors.map((e: any) => e.field),
    ['title'],
  );
  assert.equal(
    rejected[1].errors.map((e: any) => e.field),
    ['severity'],
  );
  assert.is(rejected[1].record.external_id, 'c-4');
});

test('JSON Lines and XLSX files, --source as the default source, the plain summary', async () => {
  const jsonl = path.join(dir, 'issues.jsonl');
  writeFileSync(
    jsonl,
    [
      JSON.stringify({ external_id: 'j-1', title: 'From JSONL', narrative: 'n' }),
      '{not json',
      JSON.stringify({ external_id: 'j-2', title: 'Own source', source: 'elsewhere' }),
      '',
    ].join('\n'),
  );
  const xlsx = path.join(dir, 'issues.xlsx');
  const workbook = new ExcelJS.Workbook();
  const sheet = workbook.addWorksheet('records');
  sheet.addRow(['external_id', 'title', 'narrative', 'occurred_at', 'severity']);
  sheet.addRow(['x-1', 'From XLSX', 'a narrative', new Date('2026-02-03T04:05:06Z'), 'high']);
  sheet.addRow(['x-2', 'Second XLSX row', null, null, null]);
  await workbook.xlsx.writeFile(xlsx);

  const res = await ingest('mixed', '--workspace', t.demo.workspaceId, '--source', 'files', jsonl, xlsx);
  assert.is(res.code, 0, res.stderr);
  assert.match(res.stdout, /issues\.jsonl: 3 rows, 2 accepted \(2 new, 0 updated\), 1 rejected/);
  assert.match(res.stdout, /issues\.xlsx: 2 rows, 2 accepted \(2 new, 0 updated\), 0 rejected/);
  assert.match(res.stdout, /total: 4 accepted, 1 rejected \(rows and errors in .*mixed\.rejected\.jsonl\)/);
  assert.is((await issueBySourceId('files', 'j-1')).title, 'From JSONL');
  assert.is((await issueBySourceId('elsewhere', 'j-2')).title, 'Own source');
  const x1 = await issueBySourceId('files', 'x-1');
  assert.is(x1.severity, 'high');
  assert.is(new Date(x1.occurred_at).toISOString(), '2026-02-03T04:05:06.000Z');
  const rejected = JSON.parse(readFileSync(files('mixed').rejected, 'utf8').trim());
  assert.is(rejected.where, 'line 2');
  assert.match(rejected.errors[0].message, /^not valid JSON/);

  // Started again with the same state file: both files are already loaded and nothing is written.
  const again = await ingest('mixed', '--workspace', 'demo', '--source', 'files', jsonl, xlsx);
  assert.is(again.code, 0, again.stderr);
  assert.match(again.stdout, /issues\.jsonl: already loaded \(3 rows\)/);
});

test('a load killed part-way resumes from its state file: every row once, none lost', async () => {
  const file = path.join(dir, 'many.jsonl');
  const total = 300;
  writeFileSync(
    file,
    Array.from({ length: total }, (_, i) => JSON.stringify({ external_id: `m-${i}`, title: `Issue ${i}`, narrative: `text ${i}`, source: 'resume-src' })).join(
      '\n',
    ),
  );
  const { state, rejected } = files('resume');
  const child = spawnSvc(['ingest', '--workspace', t.demo.workspaceId, '--batch-size', '1', '--state', state, '--rejected', rejected, file], env());
  const done = await eventually(
    async () => {
      if (!existsSync(state)) return undefined;
      const rows = Object.values(JSON.parse(readFileSync(state, 'utf8')) as Record<string, { rows_done: number }>)[0]?.rows_done ?? 0;
      return rows >= 20 ? rows : undefined;
    },
    40_000,
    'twenty committed rows',
  );
  child.kill('SIGKILL');
  await new Promise((resolve) => child.on('close', resolve));
  const committed = (Object.values(JSON.parse(readFileSync(state, 'utf8'))) as Array<{ rows_done: number; done: boolean }>)[0];
  assert.ok(committed.rows_done >= done && committed.rows_done < total, `killed after ${committed.rows_done} rows`);
  assert.not.ok(committed.done);

  const res = await runSvc(['ingest', '--workspace', t.demo.workspaceId, '--state', state, '--rejected', rejected, '--json', file], env());
  assert.is(res.code, 0, res.stderr);
  const summary = JSON.parse(res.stdout);
  assert.is(summary.files[0].resumed_rows, committed.rows_done);
  assert.is(summary.files[0].accepted, total - committed.rows_done);
  const { rows } = await t.app.pool.query(
    `select count(*)::int as issues, count(distinct external_id)::int as distinct_ids from issues where workspace_id = $1 and source = 'resume-src'`,
    [t.demo.workspaceId],
  );
  assert.equal(rows[0], { issues: total, distinct_ids: total });
});

test('svc ingest refuses bad arguments with exit code 2 and a clear message', async () => {
  const csv = path.join(dir, 'issues.csv');
  const cases: Array<[string[], string]> = [
    [[csv], '--workspace is required'],
    [['--workspace', t.demo.workspaceId], 'at least one FILE is required (.csv, .jsonl or .xlsx)'],
    [
      ['--workspace', t.demo.workspaceId, path.join(dir, 'notes.txt')],
      `${path.join(dir, 'notes.txt')}: unsupported file type '.txt' (use .csv, .jsonl or .xlsx)`,
    ],
    [['--workspace', t.demo.workspaceId, '--batch-size', '501', csv], '--batch-size must be an integer from 1 to 500'],
    [['--workspace', 'Not A Slug!', csv], '--workspace must be a workspace id (UUID) or an organization slug'],
    [['--workspace', 'no-such-org', csv], "no organization 'no-such-org'"],
    [['--workspace', t.demo.workspaceId, path.join(dir, 'missing.csv')], `${path.join(dir, 'missing.csv')}: cannot be read (ENOENT)`],
  ];
  for (const [args, message] of cases) {
    const res = await ingest('bad', ...args);
    assert.is(res.code, 2, `${args.join(' ')}: ${res.stderr}`);
    assert.ok(res.stderr.startsWith(`svc ingest: ${message}`), res.stderr);
  }
  const header = path.join(dir, 'header.csv');
  writeFileSync(header, 'id,name\n1,x\n');
  const res = await ingest('bad', '--workspace', t.demo.workspaceId, header);
  assert.is(res.code, 2);
  assert.match(res.stderr, /the header \(line 1\) lacks 'external_id' and 'title'/);
});

test.run();
