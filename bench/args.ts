/**
 * Flags of a benchmark script: node:util parseArgs plus `--help`, which prints the script's own doc
 * comment (the first block comment of the file) and its flags with their defaults. A bad flag is
 * reported in one line with a pointer to --help (exit 2), never as a stack trace.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs, type ParseArgsConfig } from 'node:util';

type Options = NonNullable<ParseArgsConfig['options']>;

export function benchArgs<O extends Options>(scriptUrl: string, config: { options: O; allowNegative?: boolean }) {
  const file = fileURLToPath(scriptUrl);
  const name = path.basename(file, '.ts');
  try {
    const parsed = parseArgs({
      options: { ...config.options, help: { type: 'boolean', short: 'h' } },
      strict: true,
      allowPositionals: false,
      allowNegative: config.allowNegative,
    });
    if ((parsed.values as Record<string, unknown>).help) {
      process.stdout.write(`${benchUsage(file, name, config.options)}\n`);
      process.exit(0);
    }
    return parsed as unknown as ReturnType<typeof parseArgs<{ options: O }>>;
  } catch (err) {
    process.stderr.write(`bench ${name}: ${(err as Error).message.replace(/\. To specify a positional argument.*$/s, '')}\nRun with --help for its options.\n`);
    process.exit(2);
  }
}

export function benchUsage(file: string, name: string, options: Options): string {
  const comment = /\/\*\*([\s\S]*?)\*\//.exec(readFileSync(file, 'utf8'))?.[1] ?? '';
  const text = comment
    .split('\n')
    .map((line) => line.replace(/^\s*\* ?/, ''))
    .join('\n')
    .trim();
  const flags = Object.entries(options).map(([flag, spec]) => {
    const value = spec.type === 'string' ? ` <${flag}>` : '';
    const fallback = spec.default === undefined ? '' : `  (default: ${String(spec.default)})`;
    return `  --${flag}${value}${fallback}`;
  });
  return [`Usage: npm run bench:${name} -- [options]`, '', text, '', 'Options:', ...flags, '  --help, -h'].join('\n');
}
