#!/usr/bin/env node
// The production build (`npm run build`): every TypeScript module of the server's folders compiled
// file by file to JavaScript in dist/ by esbuild (imports of `./x.ts` rewritten to `./x.js`, nothing
// bundled, so each module, worker thread and child keeps its own file and its `import.meta.url`), and
// every other file of those folders (SQL migrations, the worker threads' boot file) copied beside them;
// the console's browser app is copied whole (the console bundles it with esbuild when it starts).
// Plain JavaScript, so it runs before anything is built. Why esbuild and not tsc: docs/decisions.md.
//
//   node scripts/build.mjs [--if-stale] [--outdir DIR]
//
// --if-stale builds only when dist/ is missing or older than the sources (`npm start`); --outdir
// builds elsewhere (tests). dist/ is replaced whole, so a deleted source leaves no module behind.
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

export const projectRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const defaultOutdir = path.join(projectRoot, 'dist');
const STAMP = '.build-stamp';

/** Folders type-checked with the server that never run in it (tsconfig.json includes them too). */
const DEV_ONLY = new Set(['test', 'bench', 'fixtures']);

/**
 * Folders a built module reads at run time as they are, copied whole: the console's browser app, which
 * console/server/assets.ts bundles with esbuild when the console starts (its TypeScript is esbuild's
 * to compile, not the build's).
 */
const COPIED_WHOLE = ['console/web'];

/** The server's source folders: tsconfig.json's `include` but the development-only ones. */
function sourceFolders() {
  const { include } = JSON.parse(readFileSync(path.join(projectRoot, 'tsconfig.json'), 'utf8'));
  return include.filter((folder) => !DEV_ONLY.has(folder) && existsSync(path.join(projectRoot, folder)));
}

const copiedFolders = () => COPIED_WHOLE.filter((folder) => existsSync(path.join(projectRoot, folder)));

function filesUnder(folder) {
  // tsconfig.json's `include` also names single files (console/publicPaths.ts).
  if (statSync(path.join(projectRoot, folder)).isFile()) return [folder];
  const out = [];
  for (const entry of readdirSync(path.join(projectRoot, folder), { withFileTypes: true })) {
    const relative = path.join(folder, entry.name);
    if (entry.isDirectory()) out.push(...filesUnder(relative));
    else if (entry.isFile()) out.push(relative);
  }
  return out;
}

const isModule = (file) => file.endsWith('.ts') && !file.endsWith('.d.ts');
const compiledName = (file) => file.replace(/\.ts$/, '.js');

/**
 * What the build is made from: each source file's path, size and modification time, the package
 * manifest and this script. A build is current when its stamp holds the same fingerprint.
 */
export function sourceFingerprint() {
  const files = [...[...sourceFolders(), ...copiedFolders()].flatMap(filesUnder), 'package.json', 'package-lock.json', 'tsconfig.json', path.join('scripts', 'build.mjs')].sort();
  const hash = createHash('sha256');
  for (const file of files) {
    const stat = statSync(path.join(projectRoot, file), { throwIfNoEntry: false });
    hash.update(`${file}\0${stat ? `${stat.size}:${stat.mtimeMs}` : '-'}\n`);
  }
  return hash.digest('hex');
}

export function buildIsCurrent(outdir = defaultOutdir) {
  const stamp = path.join(outdir, STAMP);
  return existsSync(stamp) && readFileSync(stamp, 'utf8') === sourceFingerprint();
}

/** esbuild resolves every import of a module as external, a relative `.ts` one renamed to its `.js`. */
const keepImports = {
  name: 'keep-imports',
  setup(build) {
    build.onResolve({ filter: /.*/ }, (args) => {
      if (args.kind === 'entry-point') return undefined;
      const relative = args.path.startsWith('./') || args.path.startsWith('../');
      return { path: relative ? args.path.replace(/\.ts$/, '.js') : args.path, external: true };
    });
  },
};

/** Builds into a fresh folder beside `outdir` and swaps it in. Returns the number of modules compiled. */
export async function build(outdir = defaultOutdir) {
  const { build: esbuild } = await import('esbuild');
  const fingerprint = sourceFingerprint();
  const files = sourceFolders().flatMap(filesUnder);
  const modules = files.filter(isModule);
  const compiled = new Set(modules.map(compiledName));
  const staging = `${outdir}.staging-${process.pid}`;
  rmSync(staging, { recursive: true, force: true });
  await esbuild({
    absWorkingDir: projectRoot,
    entryPoints: modules,
    outdir: staging,
    outbase: '.',
    bundle: true, // only so that the plugin sees every import; it keeps them all external
    plugins: [keepImports],
    format: 'esm',
    platform: 'node',
    target: 'node20',
    logLevel: 'warning',
  });
  for (const file of files) {
    if (isModule(file) || file.endsWith('.d.ts') || compiled.has(file)) continue; // scripts/svc.js is the bin, not a module of the build
    mkdirSync(path.join(staging, path.dirname(file)), { recursive: true });
    cpSync(path.join(projectRoot, file), path.join(staging, file));
  }
  for (const folder of copiedFolders()) cpSync(path.join(projectRoot, folder), path.join(staging, folder), { recursive: true });
  // ES modules like the sources, also when built outside the project (its package.json is not above them then).
  writeFileSync(path.join(staging, 'package.json'), `${JSON.stringify({ type: 'module', private: true })}\n`);
  writeFileSync(path.join(staging, STAMP), fingerprint);
  const previous = `${outdir}.previous-${process.pid}`;
  if (existsSync(outdir)) renameSync(outdir, previous);
  renameSync(staging, outdir);
  rmSync(previous, { recursive: true, force: true });
  return modules.length;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const { values } = parseArgs({ options: { 'if-stale': { type: 'boolean', default: false }, outdir: { type: 'string' } } });
  const outdir = values.outdir ? path.resolve(values.outdir) : defaultOutdir;
  if (values['if-stale'] && buildIsCurrent(outdir)) process.exit(0);
  const started = performance.now();
  const count = await build(outdir);
  process.stderr.write(`build: ${count} modules compiled to ${path.relative(process.cwd(), outdir) || '.'} in ${Math.round(performance.now() - started)} ms\n`);
}
