/**
 * External programs some tests drive (promtool, LibreOffice). CI installs them (.ci/run), so there a
 * missing one fails the test; on a developer's machine the test says it skipped and why.
 */
import { spawnSync } from 'node:child_process';

export function toolAvailable(command: string, purpose: string): boolean {
  const found = spawnSync('sh', ['-c', `command -v ${command}`], { encoding: 'utf8' }).status === 0;
  if (found) return true;
  if (process.env.CI) throw new Error(`${command} is required in CI (${purpose}); .ci/run installs it`);
  process.stdout.write(`SKIPPED: ${purpose} needs ${command}, which is not installed here (CI installs it)\n`);
  return false;
}
