/**
 * `npm run check` runs this: the import rules of docs/architecture.md, with no exception. Every
 * relative import (static, `export … from`, dynamic `import()`, and `new URL('./x.ts', import.meta.url)`
 * or `moduleUrl('./x', import.meta.url)` of a module started as a thread or child process) of every source file is checked against
 * the floor table below, and the module graph must have no loop. Prints each violation and exits 1.
 *
 * `node --import tsx scripts/checkImports.ts [root]` (root defaults to the repository).
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The floors, top to bottom, and what each may import besides itself. Files are matched by the first
 * prefix that fits (longest prefixes first). Tests, benchmarks and fixtures sit outside the floors:
 * they may import anything, and nothing of the floors may import them.
 */
export const floors: Record<string, { what: string; mayImport: string[] }> = {
  scripts: {
    what: 'the svc CLI, process composition and child-process entries',
    mayImport: ['console', 'api', 'jobs/tasks', 'usecases', 'jobs', 'sql', 'domain', 'engine', 'lib'],
  },
  console: { what: 'the consoles: reach the product API over HTTP only', mayImport: ['lib'] },
  api: { what: 'HTTP entry points: parse, authorize, call one use case, shape the answer', mayImport: ['usecases', 'jobs', 'sql', 'domain', 'engine', 'lib'] },
  'jobs/tasks': {
    what: 'task entry points: parse the payload, call one use case, record the status',
    mayImport: ['usecases', 'jobs', 'sql', 'domain', 'engine', 'lib'],
  },
  usecases: {
    what: 'one module per use case: calls domain for the rules, sql to read and write, enqueues jobs',
    mayImport: ['jobs', 'sql', 'domain', 'engine', 'lib'],
  },
  jobs: { what: 'the job runtime and the job declarations (what can be enqueued)', mayImport: ['sql', 'domain', 'engine', 'lib'] },
  sql: { what: 'stores and reads, decides nothing', mayImport: ['domain', 'engine', 'lib'] },
  domain: { what: 'pure rules', mayImport: ['engine', 'lib/errors.ts'] },
  lib: { what: 'plumbing: config, pool, logger, metrics, mail, crypto, threads', mayImport: ['engine'] },
  engine: { what: 'pure computation', mayImport: [] },
};

/** Same-floor imports that are still forbidden: the two HTTP surfaces share only api/http. */
const forbiddenWithinFloor: Array<[from: string, to: string]> = [
  ['api/platform', 'api/product'],
  ['api/product', 'api/platform'],
  ['api/http', 'api/platform'],
  ['api/http', 'api/product'],
];

const outsideFloors = ['test', 'bench', 'fixtures'];
const skipDirs = new Set(['node_modules', '.git', '.data', 'data', 'migrations', 'docs']);

function sourceFiles(root: string, dir = root): string[] {
  return readdirSync(dir).flatMap((entry) => {
    const full = path.join(dir, entry);
    if (statSync(full).isDirectory()) return skipDirs.has(entry) ? [] : sourceFiles(root, full);
    return /\.(ts|mts|mjs|js)$/.test(entry) && !entry.endsWith('.d.ts') ? [path.relative(root, full).split(path.sep).join('/')] : [];
  });
}

const importPattern =
  /(?:^|[\s;])(?:import|export)\s[^'"`;]*?from\s*['"](\.{1,2}\/[^'"]+)['"]|(?:^|[\s;])import\s*['"](\.{1,2}\/[^'"]+)['"]|import\(\s*['"](\.{1,2}\/[^'"]+)['"]\s*\)|new URL\(\s*['"](\.{1,2}\/[^'"]+)['"]\s*,\s*import\.meta\.url|moduleUrl\(\s*['"](\.{1,2}\/[^'"]+)['"]\s*,\s*import\.meta\.url/gm;

export interface ModuleImport {
  target: string;
  /** `start`: the module is started as a thread or child process (`new URL(…, import.meta.url)`), not loaded. */
  kind: 'load' | 'start';
}

/** Relative imports of one file's source text, resolved against the file's folder; comments ignored. */
export function importsOf(file: string, text: string): ModuleImport[] {
  const code = text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`])\/\/.*$/gm, '$1');
  const found: ModuleImport[] = [];
  for (const m of code.matchAll(importPattern)) {
    // lib/modulePath.ts `moduleUrl` names a started module without its extension: the source is `.ts`.
    const spec = m[1] ?? m[2] ?? m[3] ?? m[4] ?? `${m[5]}.ts`;
    found.push({ target: path.posix.normalize(path.posix.join(path.posix.dirname(file), spec)), kind: m[4] || m[5] ? 'start' : 'load' });
  }
  return found;
}

/** The floor a repository-relative path belongs to, or null (outside the floors, or a root file). */
export function floorOf(file: string): string | null {
  const names = [...Object.keys(floors), ...outsideFloors].sort((a, b) => b.length - a.length);
  return names.find((name) => file === name || file.startsWith(name + '/')) ?? null;
}

function allowed(from: string, to: string): boolean {
  const a = floorOf(from);
  const b = floorOf(to);
  if (a === null || b === null) return true;
  if (outsideFloors.includes(b)) return outsideFloors.includes(a);
  if (outsideFloors.includes(a)) return true;
  if (forbiddenWithinFloor.some(([x, y]) => from.startsWith(x + '/') && to.startsWith(y + '/'))) return false;
  if (a === b) return true;
  return floors[a].mayImport.some((target) => (target.endsWith('.ts') ? to === target : b === target));
}

/**
 * Import loops: the strongly connected components (Tarjan) with more than one module, or a module
 * importing itself. A module started as a thread or child process is not loaded by its starter, so
 * that edge makes no loop (a thread's entry imports its parent's message types).
 */
export function loops(graph: Map<string, string[]>): string[][] {
  let index = 0;
  const indexOf = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string) => {
    indexOf.set(v, index);
    low.set(v, index++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!graph.has(w)) continue;
      if (!indexOf.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, indexOf.get(w)!));
    }
    if (low.get(v) === indexOf.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1 || (graph.get(v) ?? []).includes(v)) found.push(component.sort());
    }
  };
  for (const v of graph.keys()) if (!indexOf.has(v)) visit(v);
  return found;
}

export function checkImports(root: string): string[] {
  const problems: string[] = [];
  const graph = new Map<string, string[]>();
  for (const file of sourceFiles(root)) {
    const imports = importsOf(file, readFileSync(path.join(root, file), 'utf8'));
    graph.set(
      file,
      imports.filter((i) => i.kind === 'load').map((i) => i.target),
    );
    for (const { target } of imports) {
      if (!allowed(file, target)) problems.push(`${file} imports ${target}: ${floorOf(file)}/ may not import ${floorOf(target)}/`);
    }
  }
  for (const component of loops(graph)) problems.push(`import loop: ${component.join(' <-> ')}`);
  return problems;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const root = path.resolve(process.argv[2] ?? path.join(path.dirname(fileURLToPath(import.meta.url)), '..'));
  const problems = checkImports(root);
  for (const p of problems) console.error(p);
  if (problems.length) {
    console.error(`${problems.length} import rule violation(s); the rules are in docs/architecture.md`);
    process.exit(1);
  }
  console.log('imports: ok');
}
