/**
 * Browser tests: Debian's Chromium driven by playwright-core (never a downloaded browser), axe-core
 * run inside each page, and a screenshot of each page under test-output/<test name>/ to look at.
 * Without /usr/bin/chromium a test says it skipped (CI installs it, so there it must run).
 */
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';

export const CHROMIUM_PATH = '/usr/bin/chromium';
const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

export function chromiumAvailable(purpose: string): boolean {
  if (existsSync(CHROMIUM_PATH)) return true;
  if (process.env.CI) throw new Error(`${CHROMIUM_PATH} is required in CI (${purpose}); .ci/run installs chromium`);
  process.stdout.write(`SKIPPED: ${purpose} needs ${CHROMIUM_PATH}, which is not installed here (CI installs it)\n`);
  return false;
}

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
  });
}

export const DESKTOP = { width: 1280, height: 800 };
export const NARROW = { width: 400, height: 800 };

export function newContext(
  browser: Browser,
  options: { viewport?: { width: number; height: number }; colorScheme?: 'light' | 'dark' } = {},
): Promise<BrowserContext> {
  return browser.newContext({ viewport: options.viewport ?? DESKTOP, colorScheme: options.colorScheme ?? 'light' });
}

const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: Array<{ target: string[]; failureSummary?: string }>;
}

/**
 * axe-core's serious and critical violations of the page as it is now. The script is evaluated
 * through the DevTools protocol, which the page's Content-Security-Policy does not govern; the page
 * itself never loads it.
 */
export async function axeViolations(page: Page): Promise<AxeViolation[]> {
  await page.evaluate(`${axeSource}\n;void 0`);
  const violations = (await page.evaluate(
    `axe.run(document, { resultTypes: ['violations'] }).then((r) => r.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map((n) => ({ target: n.target, failureSummary: n.failureSummary })) })))`,
  )) as AxeViolation[];
  return violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
}

export const describeViolations = (violations: AxeViolation[]) =>
  violations.map((v) => `${v.impact} ${v.id}: ${v.help} at ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`).join('\n');

/** Where a test file keeps what it produced (screenshots): test-output/<file name without .test.ts>/. */
export function outputDir(testFile: string): string {
  const dir = path.join(repoRoot, 'test-output', path.basename(testFile).replace(/\.test\.ts$/, ''));
  mkdirSync(dir, { recursive: true });
  return dir;
}

export async function screenshot(page: Page, dir: string, name: string): Promise<string> {
  const file = path.join(dir, `${name}.png`);
  await page.screenshot({ path: file, fullPage: true });
  return file;
}
