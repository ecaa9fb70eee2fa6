/**
 * A small command framework for the svc CLI: each command declares its flags (node:util parseArgs,
 * strict) and a help text; unknown commands, unknown flags and missing values are reported clearly
 * with a non-zero exit code.
 */
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { isUuid } from '../lib/ids.ts';

export type FlagSpec = NonNullable<ParseArgsConfig['options']>;

export interface Command {
  name: string;
  summary: string;
  usage: string;
  flags: FlagSpec;
  /** Names of the positional arguments the command takes (none by default); a last name ending in `...` takes any number. */
  positionals?: string[];
  run(flags: Record<string, string | boolean | undefined>, positionals: string[]): Promise<number | void>;
}

/** Bad input that is not about the command line's shape (an unknown job, a wrong state): one line, exit 2. */
export class InputError extends Error {
  override name = 'InputError';
}

/** A malformed command line: the message and the command's usage, exit 2. */
export class UsageError extends InputError {
  override name = 'UsageError';
}

export function parseCommandArgs(command: Command, argv: string[]) {
  try {
    const { values, positionals } = parseArgs({
      args: argv,
      options: { ...command.flags, help: { type: 'boolean', short: 'h' } },
      strict: true,
      allowPositionals: true,
    });
    const names = command.positionals ?? [];
    const allowed = names.at(-1)?.endsWith('...') ? Infinity : names.length;
    if (positionals.length > allowed) throw new UsageError(`unexpected argument '${positionals[allowed]}'`);
    return { values: values as Record<string, string | boolean | undefined>, positionals };
  } catch (err) {
    throw new UsageError((err as Error).message.replace(/\. To specify a positional argument.*$/s, ''));
  }
}

export function commandHelp(command: Command): string {
  const flagLines = Object.entries(command.flags).map(([name, spec]) => {
    const value = spec.type === 'string' ? ` <${name}>` : '';
    return `  --${name}${value}`;
  });
  return [`Usage: ${command.usage}`, '', command.summary, ...(flagLines.length ? ['', 'Options:', ...flagLines] : []), '  --help, -h'].join('\n');
}

export function requireFlag(flags: Record<string, string | boolean | undefined>, name: string): string {
  const value = flags[name];
  if (typeof value !== 'string' || value.trim() === '') throw new UsageError(`--${name} is required`);
  return value;
}

/** `value` of `--flag` when it is a UUID; otherwise a usage error saying `--flag must be <what> (UUID)`. */
export function requireUuid(value: string, flag: string, what = 'an id'): string {
  if (!isUuid(value)) throw new UsageError(`--${flag} must be ${what} (UUID)`);
  return value;
}
