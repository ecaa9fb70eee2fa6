/**
 * Modules started by path (worker threads, forked children) in both forms the code runs in: the
 * TypeScript sources under the tsx loader (tests, development) and the compiled build (`npm run build`,
 * dist/). A caller names the module without its extension and gets the one its own file has.
 */

/** URL of the module `relative` (no extension) beside `base` (the caller's `import.meta.url`). */
export function moduleUrl(relative: string, base: string): URL {
  return new URL(`${relative}${runsFromSource(base) ? '.ts' : '.js'}`, base);
}

/** True when `base` (an `import.meta.url`) is a TypeScript source, run through the tsx loader. */
export const runsFromSource = (base: string): boolean => base.endsWith('.ts');

/**
 * The execArgv a forked child needs to load the module beside `base`: the tsx loader when running
 * from source, nothing from the build.
 */
export function loaderArgs(base: string): string[] {
  return runsFromSource(base) ? ['--import', import.meta.resolve('tsx')] : [];
}
