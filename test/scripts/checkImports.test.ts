/**
 * scripts/checkImports.ts (part of `npm run check`): the tree as it is passes, and each kind of
 * violation is caught when put back in a copy of the files it reads.
 */
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { checkImports } from '../../scripts/checkImports.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const floorsOfTheTree = ['api', 'console', 'domain', 'engine', 'jobs', 'lib', 'scripts', 'sql', 'usecases'];

function copyOfTheTree(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'svc-imports-'));
  for (const floor of floorsOfTheTree) {
    try {
      cpSync(path.join(root, floor), path.join(dir, floor), { recursive: true, filter: (src) => !src.includes('node_modules') && !src.endsWith('migrations') });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
  }
  return dir;
}

test('the tree keeps the import rules', () => {
  assert.equal(checkImports(root), []);
});

test('a lower floor importing a higher one is reported (lib/ importing sql/, as lib/context.ts once did)', () => {
  const dir = copyOfTheTree();
  try {
    writeFileSync(path.join(dir, 'lib/upward.ts'), "import { ensureGeneratedSecret } from '../sql/appSettings.ts';\nexport const x = ensureGeneratedSecret;\n");
    writeFileSync(path.join(dir, 'jobs/tasks/upward.ts'), "export { x } from '../../api/platform/ingest/routes.ts';\n");
    writeFileSync(path.join(dir, 'usecases/upward.ts'), "import type { x } from '../jobs/tasks/index.ts';\n");
    writeFileSync(path.join(dir, 'domain/upward.ts'), "const m = await import('../lib/db.ts');\nexport default m;\n");
    writeFileSync(path.join(dir, 'api/product/sideways.ts'), "import '../platform/route.ts';\n");
    const problems = checkImports(dir);
    assert.equal(problems.filter((p) => p.startsWith('lib/upward.ts imports sql/appSettings.ts')).length, 1, problems.join('\n'));
    assert.equal(problems.filter((p) => p.startsWith('jobs/tasks/upward.ts imports api/platform/ingest/routes.ts')).length, 1);
    assert.equal(problems.filter((p) => p.startsWith('usecases/upward.ts imports jobs/tasks/index.ts')).length, 1);
    assert.equal(problems.filter((p) => p.startsWith('domain/upward.ts imports lib/db.ts')).length, 1);
    assert.equal(problems.filter((p) => p.startsWith('api/product/sideways.ts imports api/platform/route.ts')).length, 1);
    assert.is(problems.length, 5);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('an import loop is reported, type-only or not (sql/caps.ts <-> sql/reviews.ts once)', () => {
  const dir = copyOfTheTree();
  try {
    writeFileSync(path.join(dir, 'sql/loopA.ts'), "import type { B } from './loopB.ts';\nexport type A = B | 1;\n");
    writeFileSync(path.join(dir, 'sql/loopB.ts'), "import { a } from './loopA.ts';\nexport type B = 2;\nexport const b = a;\n");
    assert.equal(checkImports(dir), ['import loop: sql/loopA.ts <-> sql/loopB.ts']);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
