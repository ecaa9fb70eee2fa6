/**
 * Where the benchmarks' labelled data lives (bench/data/README.md): not in the repository, in
 * `shared/data/` beside the checkout. A missing file is reported with
 * a pointer to that README rather than a bare ENOENT.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
export const EXTERNAL_DATA_DIR = path.resolve(repoRoot, '..', 'shared', 'data');

/** `file` (under EXTERNAL_DATA_DIR) when it exists, else an error saying what is missing and where to read why. */
export function externalDataFile(file: string): string {
  if (!existsSync(file)) throw new Error(`${file} not found: the benchmarks' labelled data is not part of the repository (bench/data/README.md)`);
  return file;
}
