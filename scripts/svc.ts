/**
 * The svc CLI: `serve` (what npm start runs), `api`, `worker`, `migrate`, and the operator and
 * data-engineer commands. `svc <command> --help` describes each.
 */
import { loadConfig, ConfigError, type Config } from '../lib/config.ts';
import { createLogger, stderrSink } from '../lib/logger.ts';
import { createPool, poolTimeouts, withTransaction, type Pool } from '../lib/db.ts';
import type { Logger } from '../lib/logger.ts';
import { rebuildProjections } from '../sql/projections.ts';
import { migrate } from '../sql/migrate.ts';
import { commandHelp, InputError, parseCommandArgs, requireFlag, requireUuid, UsageError, type Command } from './cli.ts';
import { isUuid } from '../lib/ids.ts';
import { checkRecordFile, RecordFileError } from './recordFiles.ts';
import { createAppContext, openDatabase, startConsoleProcess, startProcess, type Roles } from './processes.ts';
import { hashPassword } from '../lib/passwords.ts';
import { upsertEmployee } from '../sql/employees.ts';
import { parseStaffInput, readPassword } from './staffCommand.ts';
import { engineRunCommand, engineStageCommand, parseStageRange } from './engineCommands.ts';
import { ingestFiles } from './ingestCommand.ts';
import { cancelQueuedJob, jobTable, listJobs, parseJobStatus, retryJob, showJob } from './jobsCommand.ts';
import { seedDevelopmentData } from '../sql/seed.ts';
import { findOutboxEmail, listOutboxEmails } from '../sql/outbox.ts';
import { findWorkspace, workspacesOfOrganizationSlug } from '../sql/workspaces.ts';
import { MAX_BATCH } from '../domain/ingestRecord.ts';

function serveCommand(name: string, summary: string, roles: Roles): Command {
  return {
    name,
    summary,
    usage: `svc ${name}`,
    flags: {},
    async run() {
      const config = loadConfig();
      const untilSignal = listenForSignals();
      const running = await startProcess(config, roles);
      await untilSignal(running.app.logger, running.stop, { grace_ms: config.SHUTDOWN_GRACE_MS });
    },
  };
}

/**
 * Listens for SIGTERM and SIGINT from now on, before anything starts (a signal during start-up is held
 * and acted on once it is done), and returns the wait: until a signal, then stop in order. One signal
 * stops everything; under `npm start` a Ctrl-C arrives twice (from the terminal and forwarded by npm),
 * and a repeat is not a new request.
 */
function listenForSignals(): (logger: Logger, stop: () => Promise<void>, fields?: Record<string, unknown>) => Promise<void> {
  let signalled: ((signal: string) => void) | undefined;
  let pending: string | undefined;
  const onSignal = (signal: string) => (signalled ? signalled(signal) : (pending ??= signal));
  process.on('SIGTERM', () => onSignal('SIGTERM'));
  process.on('SIGINT', () => onSignal('SIGINT'));
  return async (logger, stop, fields = {}) => {
    await new Promise<void>((resolve) => {
      let stopping = false;
      signalled = (signal) => {
        if (stopping) return logger.info('already shutting down', { signal });
        stopping = true;
        logger.info('shutting down', { signal, ...fields });
        stop().then(resolve, resolve);
      };
      if (pending) signalled(pending);
    });
    logger.info('stopped');
  };
}

const commands: Command[] = [
  serveCommand(
    'serve',
    'Everything: database (embedded when DATABASE_URL is unset), migrations, both HTTP surfaces, the consoles, /metrics, and a worker in a child process.',
    { api: true, worker: true, console: true },
  ),
  {
    name: 'console',
    summary: 'The staff and tenant web consoles and their /api/backend/* proxy to the product API (PRODUCT_URL), on CONSOLE_PORT. Needs no database.',
    usage: 'svc console',
    flags: {},
    async run() {
      const untilSignal = listenForSignals();
      const running = await startConsoleProcess(loadConfig());
      await untilSignal(running.logger, running.stop);
    },
  },
  serveCommand('api', 'The HTTP surfaces only (platform, product and /metrics). Run any number of these against one database.', { api: true, worker: false }),
  serveCommand('worker', 'A graphile-worker runner only (and /metrics). Run any number of these against one database.', { api: false, worker: true }),
  {
    name: 'migrate',
    summary: 'Apply pending SQL migrations (idempotent; safe while other processes start).',
    usage: 'svc migrate [--json]',
    flags: { json: { type: 'boolean' } },
    async run(flags) {
      await withDatabase('migrate', async ({ logger, applied }) => {
        logger.info(applied.length ? 'migrations applied' : 'database is up to date', { applied });
        if (flags.json) printJson({ applied });
        else process.stdout.write(applied.length ? `applied ${applied.length} migrations: ${applied.join(', ')}\n` : 'database is up to date\n');
      });
    },
  },
  {
    name: 'projections',
    summary: 'Rebuild the issue and pattern projections of a workspace from its event log.',
    usage: 'svc projections rebuild --workspace <workspace> [--json]',
    flags: { workspace: { type: 'string' }, json: { type: 'boolean' } },
    positionals: ['action'],
    async run(flags, positionals) {
      if (positionals[0] !== 'rebuild') throw new UsageError(positionals[0] ? `unknown action '${positionals[0]}'` : 'an action is required (rebuild)');
      const workspace = requireFlag(flags, 'workspace');
      return withDatabase('projections', async ({ pool, logger }) => {
        const workspaceId = await resolveWorkspace(pool, workspace);
        const counts = await withTransaction(pool, (client) => rebuildProjections(client, workspaceId));
        logger.info('projections rebuilt', { workspace_id: workspaceId, ...counts });
        if (flags.json) printJson({ workspace_id: workspaceId, ...counts });
        else process.stdout.write(`rebuilt ${counts.issues} issues and ${counts.patterns} patterns of workspace ${workspaceId}\n`);
      });
    },
  },
  {
    name: 'staff',
    summary: 'Seed an employee of the staff console (re-running with the same e-mail updates password and role).',
    usage:
      'svc staff create --email <email> --role onboarding_admin|support_readonly [--name <full name>] [--json]  (the password is prompted for, or read from the first line of stdin)',
    flags: { email: { type: 'string' }, password: { type: 'string' }, role: { type: 'string' }, name: { type: 'string' }, json: { type: 'boolean' } },
    positionals: ['action'],
    async run(flags, positionals) {
      if (positionals[0] !== 'create') throw new UsageError(positionals[0] ? `unknown action '${positionals[0]}'` : 'an action is required (create)');
      const input = parseStaffInput(flags);
      if (input.password !== undefined)
        process.stderr.write('svc staff: --password is visible to other users (ps) and printed by `npm run`; prefer the prompt or stdin\n');
      const password = input.password ?? (await readPassword());
      return withDatabase('staff', async ({ pool }) => {
        const { employee, created } = await upsertEmployee(pool, { ...input, passwordHash: await hashPassword(password) });
        if (flags.json) printJson({ id: employee.id, email: employee.email, role: employee.control_role, created });
        else process.stdout.write(`employee ${employee.email} ${created ? 'created' : 'updated'} (${employee.control_role}, id ${employee.id})\n`);
      });
    },
  },
  {
    name: 'engine',
    summary: 'Run the engine in the foreground (run), or re-run one stage of a stored run (stage NAME).',
    usage: 'svc engine run --workspace <workspace> [--stages FROM..TO] [--json]  |  svc engine stage <name> --workspace <workspace> --run <run-id> [--json]',
    flags: { workspace: { type: 'string' }, stages: { type: 'string' }, run: { type: 'string' }, json: { type: 'boolean' } },
    positionals: ['action', 'stage'],
    async run(flags, positionals) {
      const [action, stageName] = positionals;
      const workspace = requireFlag(flags, 'workspace');
      const json = Boolean(flags.json);
      if (action === 'run') {
        if (stageName) throw new UsageError(`unexpected argument '${stageName}'`);
        const range = parseStageRange(flags.stages as string | undefined);
        return withDatabase('engine', async ({ pool, logger, config }) => {
          const workspaceId = await resolveWorkspace(pool, workspace);
          // With --json the progress goes to stderr and stdout holds only the result.
          return engineRunCommand(await createAppContext(config, pool, logger), workspaceId, range, json ? process.stderr : process.stdout, {
            json,
            result: process.stdout,
          });
        });
      }
      if (action === 'stage') {
        if (!stageName) throw new UsageError('a stage name is required: svc engine stage <name> --workspace <workspace> --run <run-id>');
        const { from } = parseStageRange(stageName);
        const runId = requireUuid(requireFlag(flags, 'run'), 'run');
        return withDatabase('engine', async ({ pool, logger, config }) => {
          const workspaceId = await resolveWorkspace(pool, workspace);
          return engineStageCommand(await createAppContext(config, pool, logger), workspaceId, runId, from!, process.stdout, { json });
        });
      }
      throw new UsageError(action ? `unknown action '${action}' (run or stage)` : 'an action is required: run or stage');
    },
  },
  {
    name: 'ingest',
    summary: 'Load CSV, JSON Lines or XLSX files of ingest records into a workspace (same validation and write path as POST /v1/ingest/batch; resumable).',
    usage: 'svc ingest --workspace <workspace> [--source <name>] [--batch-size <1-500>] [--rejected <file>] [--state <file>] [--restart] [--json] FILE...',
    flags: {
      workspace: { type: 'string' },
      source: { type: 'string' },
      'batch-size': { type: 'string' },
      rejected: { type: 'string' },
      state: { type: 'string' },
      restart: { type: 'boolean' },
      json: { type: 'boolean' },
    },
    positionals: ['FILE...'],
    async run(flags, files) {
      const workspace = requireFlag(flags, 'workspace');
      if (!files.length) throw new UsageError('at least one FILE is required (.csv, .jsonl or .xlsx)');
      const batchSize = integerFlag(flags, 'batch-size', MAX_BATCH, 1, MAX_BATCH);
      const source = flags.source === undefined ? undefined : requireFlag(flags, 'source');
      const rejectedFile = typeof flags.rejected === 'string' ? flags.rejected : 'svc-ingest-rejected.jsonl';
      for (const file of files) asUsageError(() => checkRecordFile(file));
      return withDatabase('ingest', async ({ pool, logger, config }) => {
        const workspaceId = await resolveWorkspace(pool, workspace);
        const app = await createAppContext(config, pool, logger);
        const options = {
          workspaceId,
          files,
          batchSize,
          defaultSource: source,
          rejectedFile,
          stateFile: typeof flags.state === 'string' ? flags.state : '.svc-ingest-state.json',
          restart: Boolean(flags.restart),
        };
        const summaries = await asUsageError(() => ingestFiles(app, options, flags.json ? process.stderr : process.stdout));
        const accepted = summaries.reduce((n, f) => n + f.accepted, 0);
        const rejected = summaries.reduce((n, f) => n + f.rejected, 0);
        if (flags.json) printJson({ workspace_id: workspaceId, accepted, rejected, rejected_file: rejected ? rejectedFile : null, files: summaries });
        else {
          for (const f of summaries) {
            const rate = f.seconds > 0 ? ` in ${f.seconds.toFixed(1)}s (${Math.round((f.rows - f.resumed_rows) / f.seconds)} rows/s)` : '';
            process.stdout.write(
              `${f.file}: ${f.rows} rows, ${f.accepted} accepted (${f.created} new, ${f.updated} updated), ${f.rejected} rejected${f.resumed_rows ? `, ${f.resumed_rows} rows resumed` : ''}${rate}\n`,
            );
          }
          process.stdout.write(`total: ${accepted} accepted, ${rejected} rejected${rejected ? ` (rows and errors in ${rejectedFile})` : ''}\n`);
        }
      });
    },
  },
  {
    name: 'jobs',
    summary: 'Background jobs for operators: list (newest first), show one, retry a failed or cancelled one, cancel a queued one.',
    usage: 'svc jobs list [--status S] [--kind K] [--workspace W] [--limit N] [--json]  |  svc jobs show|retry|cancel <job-id> [--json]',
    flags: { status: { type: 'string' }, kind: { type: 'string' }, workspace: { type: 'string' }, limit: { type: 'string' }, json: { type: 'boolean' } },
    positionals: ['action', 'job'],
    async run(flags, positionals) {
      const [action, id] = positionals;
      if (action === 'list') {
        if (id) throw new UsageError(`unexpected argument '${id}'`);
        const status = parseJobStatus(flags.status as string | undefined);
        const limit = integerFlag(flags, 'limit', 50, 1, 1000);
        return withDatabase('jobs', async ({ pool, logger, config }) => {
          const workspaceId = typeof flags.workspace === 'string' ? await resolveWorkspace(pool, flags.workspace) : undefined;
          const runs = await listJobs(await createAppContext(config, pool, logger), { status, kind: flags.kind as string | undefined, workspaceId, limit });
          if (flags.json) printJson(runs);
          else process.stdout.write(runs.length ? `${jobTable(runs)}\n` : 'no jobs\n');
        });
      }
      if (action === 'show' || action === 'retry' || action === 'cancel') {
        if (!id) throw new UsageError(`a job id is required: svc jobs ${action} <job-id>`);
        if (!isUuid(id)) throw new UsageError('the job id must be a UUID');
        return withDatabase('jobs', async ({ pool, logger, config }) => {
          const app = await createAppContext(config, pool, logger);
          const result = action === 'show' ? await showJob(app, id) : action === 'retry' ? await retryJob(app, id) : await cancelQueuedJob(app, id);
          if (flags.json || action === 'show') printJson(result, !flags.json);
          else process.stdout.write(`job ${result.id} (${result.kind}) is ${result.status}\n`);
        });
      }
      throw new UsageError(action ? `unknown action '${action}' (list, show, retry or cancel)` : 'an action is required: list, show, retry or cancel');
    },
  },
  {
    name: 'outbox',
    summary:
      'The development mailbox: what the product sent or, without SMTP_URL, would have sent (list newest first, show one with its body). Delivered bodies are erased.',
    usage: 'svc outbox list [--to <address>] [--limit N] [--json]  |  svc outbox show <message-id> [--json]',
    flags: { to: { type: 'string' }, limit: { type: 'string' }, json: { type: 'boolean' } },
    positionals: ['action', 'message'],
    async run(flags, positionals) {
      const [action, id] = positionals;
      if (action === 'list') {
        if (id) throw new UsageError(`unexpected argument '${id}'`);
        const limit = integerFlag(flags, 'limit', 20, 1, 1000);
        return withDatabase('outbox', async ({ pool }) => {
          const messages = await listOutboxEmails(pool, limit, typeof flags.to === 'string' ? flags.to : undefined);
          if (flags.json) return printJson(messages);
          process.stdout.write(
            messages.length
              ? `${messages.map((m) => `${m.id}  ${m.created_at.toISOString()}  ${m.status.padEnd(6)}  ${m.to_address}  ${m.subject}`).join('\n')}\n`
              : 'no messages\n',
          );
        });
      }
      if (action === 'show') {
        if (!id) throw new UsageError('a message id is required: svc outbox show <message-id>');
        if (!isUuid(id)) throw new UsageError('the message id must be a UUID');
        return withDatabase('outbox', async ({ pool }) => {
          const mail = await findOutboxEmail(pool, id);
          if (!mail) throw new InputError(`message ${id} does not exist`);
          if (flags.json) return printJson(mail);
          process.stdout.write(`To: ${mail.to_address}\nSubject: ${mail.subject}\nStatus: ${mail.status}\n\n${mail.text_body}\n`);
        });
      }
      throw new UsageError(action ? `unknown action '${action}' (list or show)` : 'an action is required: list or show');
    },
  },
];

/** A file that cannot be read is the caller's mistake: reported like bad arguments (exit 2). */
function asUsageError<T>(fn: () => T): T {
  const fail = (err: unknown): never => {
    throw err instanceof RecordFileError ? new UsageError(err.message) : err;
  };
  try {
    const result = fn();
    return (result instanceof Promise ? result.catch(fail) : result) as T;
  } catch (err) {
    return fail(err);
  }
}

function printJson(value: unknown, pretty = false): void {
  process.stdout.write(`${JSON.stringify(value, null, pretty ? 2 : undefined)}\n`);
}

function integerFlag(flags: Record<string, string | boolean | undefined>, name: string, fallback: number, min: number, max: number): number {
  const value = flags[name];
  if (value === undefined) return fallback;
  if (typeof value !== 'string' || !/^\d+$/.test(value) || Number(value) < min || Number(value) > max)
    throw new UsageError(`--${name} must be an integer from ${min} to ${max}`);
  return Number(value);
}

/**
 * A workspace named by its id, or by the slug of an organization that has exactly one workspace
 * (`--workspace demo` in development).
 */
async function resolveWorkspace(pool: Pool, value: string): Promise<string> {
  if (isUuid(value)) {
    if (!(await findWorkspace(pool, value))) throw new InputError(`workspace ${value} does not exist`);
    return value;
  }
  if (!/^[a-z0-9][a-z0-9-]*$/.test(value)) throw new UsageError('--workspace must be a workspace id (UUID) or an organization slug');
  const workspaces = await workspacesOfOrganizationSlug(pool, value);
  if (!workspaces.length) throw new InputError(`no organization '${value}'`);
  if (workspaces.length > 1)
    throw new UsageError(`organization '${value}' has ${workspaces.length} workspaces; name one by id: ${workspaces.map((w) => w.id).join(', ')}`);
  return workspaces[0].id;
}

/** Opens the configured database, migrates it, runs `fn` (told which migrations it applied), and closes everything. */
async function withDatabase<T>(role: string, fn: (db: { pool: Pool; logger: Logger; config: Config; applied: string[] }) => Promise<T>): Promise<T> {
  const config = loadConfig();
  // Logs go to stderr: stdout carries only the command's result.
  const logger = createLogger(config.LOG_LEVEL, { service: 'svc', role }, stderrSink);
  const database = await openDatabase(config, logger);
  // CLI commands hold sessions (migrations' and engine runs' advisory locks): never through a transaction pooler.
  const pool = createPool(config.DATABASE_DIRECT_URL ?? database.url, { max: 4, timeouts: poolTimeouts(config) });
  try {
    const { applied } = await migrate(pool, logger);
    // The same development seed as `svc serve`, so that `--workspace demo` works on a fresh database.
    if (config.AUTH_PROVIDER === 'none' && config.NODE_ENV === 'development') await seedDevelopmentData(pool, logger);
    return await fn({ pool, logger, config, applied });
  } finally {
    await pool.end();
    await database.embedded?.stop();
  }
}

function mainHelp(): string {
  const width = Math.max(...commands.map((c) => c.name.length));
  return [
    'Usage: svc <command> [options]',
    '',
    'Commands:',
    ...commands.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`),
    '',
    'Run `svc <command> --help` for the options of a command. Settings come from environment variables (see README).',
  ].join('\n');
}

async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (!name || name === '--help' || name === '-h' || name === 'help') {
    process.stdout.write(mainHelp() + '\n');
    return name ? 0 : 1;
  }
  const command = commands.find((c) => c.name === name);
  if (!command) {
    process.stderr.write(`svc: unknown command '${name}'\n\n${mainHelp()}\n`);
    return 2;
  }
  try {
    const { values, positionals } = parseCommandArgs(command, rest);
    if (values.help) {
      process.stdout.write(commandHelp(command) + '\n');
      return 0;
    }
    return (await command.run(values, positionals)) ?? 0;
  } catch (err) {
    if (err instanceof UsageError) {
      process.stderr.write(`svc ${command.name}: ${err.message}\n\n${commandHelp(command)}\n`);
      return 2;
    }
    if (err instanceof InputError) {
      process.stderr.write(`svc ${command.name}: ${err.message}\n`);
      return 2;
    }
    if (err instanceof ConfigError) {
      process.stderr.write(`svc ${command.name}: ${err.message}\n`);
      return 78; // EX_CONFIG
    }
    process.stderr.write(`svc ${command.name}: ${(err as Error).stack ?? String(err)}\n`);
    return 1;
  }
}

const code = await main(process.argv.slice(2));
// Exit explicitly: a stopped runner or pool must not keep the process alive on a stray timer.
process.exit(code);
