/**
 * The svc CLI: `serve` (what npm start runs), `api`, `worker`, `migrate`, and the operator and
 * data-engineer commands. `svc <command> --help` describes each.
 */
import { loadConfig, ConfigError, type Config } from '../lib/config.ts';
import { createLogger } from '../lib/logger.ts';
import { createPool, withTransaction, type Pool } from '../lib/db.ts';
import type { Logger } from '../lib/logger.ts';
import { rebuildProjections } from '../sql/projections.ts';
import { migrate } from '../sql/migrate.ts';
import { commandHelp, parseCommandArgs, requireFlag, requireUuid, UsageError, type Command } from './cli.ts';
import { createAppContext, openDatabase, startProcess, type Roles } from './processes.ts';
import { hashPassword } from '../lib/passwords.ts';
import { upsertEmployee } from '../sql/employees.ts';
import { parseStaffInput } from './staffCommand.ts';
import { engineRunCommand, engineStageCommand, parseStageRange } from './engineCommands.ts';

function serveCommand(name: string, summary: string, roles: Roles): Command {
  return {
    name,
    summary,
    usage: `svc ${name}`,
    flags: {},
    async run() {
      const config = loadConfig();
      const running = await startProcess(config, roles);
      await new Promise<void>((resolve) => {
        let stopping = false;
        const shutdown = (signal: string) => {
          if (stopping) return;
          stopping = true;
          running.app.logger.info('shutting down', { signal });
          running.stop().then(resolve, resolve);
        };
        process.once('SIGTERM', () => shutdown('SIGTERM'));
        process.once('SIGINT', () => shutdown('SIGINT'));
      });
      running.app.logger.info('stopped');
    },
  };
}

const commands: Command[] = [
  serveCommand('serve', 'Everything in one process: database (embedded when DATABASE_URL is unset), migrations, both HTTP surfaces, /metrics and a worker.', { api: true, worker: true }),
  serveCommand('api', 'The HTTP surfaces only (platform, product and /metrics). Run any number of these against one database.', { api: true, worker: false }),
  serveCommand('worker', 'A graphile-worker runner only (and /metrics). Run any number of these against one database.', { api: false, worker: true }),
  {
    name: 'migrate',
    summary: 'Apply pending SQL migrations (idempotent; safe while other processes start).',
    usage: 'svc migrate',
    flags: {},
    async run() {
      await withDatabase('migrate', async ({ logger, applied }) => logger.info(applied.length ? 'migrations applied' : 'database is up to date', { applied }));
    },
  },
  {
    name: 'projections',
    summary: 'Rebuild the issue and pattern projections of a workspace from its event log.',
    usage: 'svc projections rebuild --workspace <workspace-id>',
    flags: { workspace: { type: 'string' } },
    positionals: ['action'],
    async run(flags, positionals) {
      if (positionals[0] !== 'rebuild') throw new UsageError(positionals[0] ? `unknown action '${positionals[0]}'` : 'an action is required (rebuild)');
      const workspaceId = requireUuid(requireFlag(flags, 'workspace'), 'workspace', 'a workspace id');
      return withDatabase('projections', async ({ pool, logger }) => {
        const exists = await pool.query('select 1 from workspaces where id = $1', [workspaceId]);
        if (!exists.rowCount) throw new UsageError(`workspace ${workspaceId} does not exist`);
        const counts = await withTransaction(pool, (client) => rebuildProjections(client, workspaceId));
        logger.info('projections rebuilt', { workspace_id: workspaceId, ...counts });
        process.stdout.write(`rebuilt ${counts.issues} issues and ${counts.patterns} patterns of workspace ${workspaceId}\n`);
      });
    },
  },
  {
    name: 'staff',
    summary: 'Seed an employee of the staff console (re-running with the same e-mail updates password and role).',
    usage: 'svc staff create --email <email> --password <password> --role onboarding_admin|support_readonly [--name <full name>]',
    flags: { email: { type: 'string' }, password: { type: 'string' }, role: { type: 'string' }, name: { type: 'string' } },
    positionals: ['action'],
    async run(flags, positionals) {
      if (positionals[0] !== 'create') throw new UsageError(positionals[0] ? `unknown action '${positionals[0]}'` : 'an action is required (create)');
      const input = parseStaffInput(flags);
      return withDatabase('staff', async ({ pool }) => {
        const { employee, created } = await upsertEmployee(pool, { ...input, passwordHash: await hashPassword(input.password) });
        process.stdout.write(`employee ${employee.email} ${created ? 'created' : 'updated'} (${employee.control_role}, id ${employee.id})\n`);
      });
    },
  },
  {
    name: 'engine',
    summary: 'Run the engine in the foreground (run), or re-run one stage of a stored run (stage NAME).',
    usage: 'svc engine run --workspace <id> [--stages FROM..TO]  |  svc engine stage <name> --workspace <id> --run <run-id>',
    flags: { workspace: { type: 'string' }, stages: { type: 'string' }, run: { type: 'string' } },
    positionals: ['action', 'stage'],
    async run(flags, positionals) {
      const [action, stageName] = positionals;
      const workspaceId = requireUuid(requireFlag(flags, 'workspace'), 'workspace');
      if (action === 'run') {
        if (stageName) throw new UsageError(`unexpected argument '${stageName}'`);
        const range = parseStageRange(flags.stages as string | undefined);
        return withDatabase('engine', async ({ pool, logger, config }) => engineRunCommand(await createAppContext(config, pool, logger), workspaceId, range, process.stdout));
      }
      if (action === 'stage') {
        if (!stageName) throw new UsageError('a stage name is required: svc engine stage <name> --workspace <id> --run <run-id>');
        const { from } = parseStageRange(stageName);
        const runId = requireUuid(requireFlag(flags, 'run'), 'run');
        return withDatabase('engine', async ({ pool, logger, config }) => engineStageCommand(await createAppContext(config, pool, logger), workspaceId, runId, from!, process.stdout));
      }
      throw new UsageError(action ? `unknown action '${action}' (run or stage)` : 'an action is required: run or stage');
    },
  },
];

/** Opens the configured database, migrates it, runs `fn` (told which migrations it applied), and closes everything. */
async function withDatabase<T>(role: string, fn: (db: { pool: Pool; logger: Logger; config: Config; applied: string[] }) => Promise<T>): Promise<T> {
  const config = loadConfig();
  const logger = createLogger(config.LOG_LEVEL, { service: 'svc', role });
  const database = await openDatabase(config, logger);
  const pool = createPool(database.url, { max: 4 });
  try {
    const { applied } = await migrate(pool, logger);
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
