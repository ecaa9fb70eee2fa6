/**
 * Both `/openapi.json` documents, as served, pass `redocly lint` (its recommended rules) with no
 * errors: what client generators and API portals will read is a valid OpenAPI 3.1 description.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestApp, type TestApp } from '../../helpers/app.ts';
import { projectRoot } from '../../../fixtures/svcProcess.ts';

let t: TestApp;
let dir: string;
test.before(async () => {
  t = await startTestApp();
  dir = mkdtempSync(path.join(os.tmpdir(), 'svc-openapi-'));
});
test.after(async () => t.close());

interface LintProblem {
  ruleId: string;
  severity: 'error' | 'warn';
  message: string;
  location: Array<{ pointer: string }>;
}

function lint(file: string): LintProblem[] {
  const run = spawnSync(path.join(projectRoot, 'node_modules/.bin/redocly'), ['lint', '--format=json', file], {
    encoding: 'utf8',
    env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
  });
  const json = run.stdout.slice(run.stdout.indexOf('{'));
  assert.ok(json, `redocly printed no report: ${run.stderr}`);
  return (JSON.parse(json) as { problems: LintProblem[] }).problems;
}

for (const surface of ['platform', 'product'] as const) {
  test(`the ${surface} surface's /openapi.json has no redocly lint errors`, async () => {
    const res = await t[surface].get('/openapi.json');
    assert.is(res.status, 200);
    const file = path.join(dir, `${surface}.json`);
    writeFileSync(file, res.text);
    const errors = lint(file).filter((p) => p.severity === 'error');
    assert.equal(
      errors.map((e) => `${e.ruleId}: ${e.message} at ${e.location[0]?.pointer}`),
      [],
    );
  });
}

test.run();
