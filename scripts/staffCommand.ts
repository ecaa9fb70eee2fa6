/**
 * `svc staff create`: validation of its flags (a clear usage error for each bad value) and the
 * password, read from a prompt (a terminal) or the first line of stdin (a pipe), never from the
 * command line by default: `npm run svc -- …` prints its arguments, and argv is visible to `ps`.
 */
import { MIN_PASSWORD_LENGTH } from '../lib/passwords.ts';
import { controlRoles, type ControlRole } from '../sql/employees.ts';
import { InputError, requireFlag, UsageError } from './cli.ts';

export interface StaffInput {
  email: string;
  role: ControlRole;
  fullName?: string;
  /** Given with the discouraged `--password` flag; otherwise read by `readPassword`. */
  password?: string;
}

export function parseStaffInput(flags: Record<string, string | boolean | undefined>): StaffInput {
  const email = requireFlag(flags, 'email').trim().toLowerCase();
  if (!/^[^\s@]+@[^\s@]+$/.test(email)) throw new UsageError(`--email must be an e-mail address, got '${email}'`);
  const role = requireFlag(flags, 'role');
  if (!(controlRoles as readonly string[]).includes(role)) throw new UsageError(`--role must be one of ${controlRoles.join(', ')}, got '${role}'`);
  const name = typeof flags.name === 'string' ? flags.name.trim() : undefined;
  if (flags.name !== undefined && !name) throw new UsageError('--name must not be empty');
  const password = flags.password === undefined ? undefined : checkPassword(requireFlag(flags, 'password'), '--password');
  return { email, role: role as ControlRole, fullName: name, password };
}

function checkPassword(password: string, what: string): string {
  if (password.length < MIN_PASSWORD_LENGTH) throw new InputError(`${what} must be at least ${MIN_PASSWORD_LENGTH} characters`);
  return password;
}

/** The password from a terminal prompt (asked twice, not echoed) or the first line of piped stdin. */
export async function readPassword(stdin: NodeJS.ReadStream = process.stdin, prompt: NodeJS.WriteStream = process.stderr): Promise<string> {
  if (!stdin.isTTY) {
    const line = (await firstLine(stdin)).replace(/\r$/, '');
    if (!line) throw new InputError('the password is read from stdin (its first line), which was empty; pipe it in or run in a terminal to be prompted');
    return checkPassword(line, 'the password');
  }
  const first = checkPassword(await promptHidden(stdin, prompt, 'Password: '), 'the password');
  if ((await promptHidden(stdin, prompt, 'Repeat the password: ')) !== first) throw new InputError('the two passwords differ');
  return first;
}

async function firstLine(stdin: NodeJS.ReadStream): Promise<string> {
  let text = '';
  for await (const chunk of stdin) {
    text += chunk.toString();
    const end = text.indexOf('\n');
    if (end >= 0) return text.slice(0, end);
  }
  return text;
}

/** Reads a line in raw mode without echoing it; Ctrl-C aborts (exit 130, as a shell would). */
function promptHidden(stdin: NodeJS.ReadStream, out: NodeJS.WriteStream, question: string): Promise<string> {
  out.write(question);
  stdin.setRawMode(true);
  stdin.resume();
  return new Promise((resolve) => {
    let value = '';
    const onData = (chunk: Buffer) => {
      for (const char of chunk.toString('utf8')) {
        if (char === '\u0003') {
          out.write('\n');
          process.exit(130);
        }
        if (char === '\r' || char === '\n') {
          stdin.off('data', onData);
          stdin.setRawMode(false);
          stdin.pause();
          out.write('\n');
          return resolve(value);
        }
        if (char === '\u007f' || char === '\b') value = value.slice(0, -1);
        else value += char;
      }
    };
    stdin.on('data', onData);
  });
}
