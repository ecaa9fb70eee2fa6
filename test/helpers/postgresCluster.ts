/**
 * PostgreSQL servers of a test's own, from the machine's PostgreSQL binaries (Debian's
 * /usr/lib/postgresql/<version>/bin): a primary that accepts replication, a streaming standby made
 * from it with pg_basebackup, and PgBouncer in front of a database. As root, the servers run as the
 * `postgres` system user (PostgreSQL and PgBouncer refuse root).
 */
import { execFileSync, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync, appendFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

/** The newest PostgreSQL bin directory that has pg_basebackup, or null. */
export function postgresBinDir(): string | null {
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return null;
  const versions = readdirSync(root)
    .filter((v) => existsSync(path.join(root, v, 'bin', 'pg_basebackup')))
    .sort((a, b) => Number(b) - Number(a));
  return versions.length ? path.join(root, versions[0], 'bin') : null;
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

const asRoot = process.getuid?.() === 0;
const postgresIds = (): { uid: number; gid: number } | undefined =>
  asRoot
    ? { uid: Number(execFileSync('id', ['-u', 'postgres']).toString().trim()), gid: Number(execFileSync('id', ['-g', 'postgres']).toString().trim()) }
    : undefined;

function run(command: string, args: string[]) {
  const result = spawnSync(command, args, { ...postgresIds(), encoding: 'utf8', cwd: os.tmpdir() });
  if (result.status !== 0) throw new Error(`${path.basename(command)} ${args.join(' ')} failed: ${result.stderr || result.stdout}`);
}

/** A temporary directory the servers' user owns. */
export function serverDir(prefix: string): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), prefix));
  const ids = postgresIds();
  if (ids) chownSync(dir, ids.uid, ids.gid);
  return dir;
}

export interface Cluster {
  port: number;
  dataDir: string;
  url(database?: string): string;
  stop(mode?: 'fast' | 'immediate'): void;
}

function cluster(bin: string, dataDir: string, port: number): Cluster {
  return {
    port,
    dataDir,
    url: (database = 'postgres') => `postgres://postgres@127.0.0.1:${port}/${database}`,
    stop(mode = 'fast') {
      if (existsSync(path.join(dataDir, 'postmaster.pid'))) run(path.join(bin, 'pg_ctl'), ['-D', dataDir, '-m', mode, '-w', 'stop']);
    },
  };
}

const serverSettings = (port: number, socketDir: string) =>
  [
    `port = ${port}`,
    "listen_addresses = '127.0.0.1'",
    `unix_socket_directories = '${socketDir}'`,
    'fsync = off',
    'synchronous_commit = off',
    'full_page_writes = off',
    'shared_buffers = 32MB',
    'max_connections = 60',
    'wal_level = replica',
    'max_wal_senders = 4',
    'hot_standby = on',
  ].join('\n');

/** A fresh primary that trusts local connections, replication included. */
export async function startPrimary(bin: string, root: string): Promise<Cluster> {
  const dataDir = path.join(root, 'primary');
  const port = await freePort();
  run(path.join(bin, 'initdb'), ['-D', dataDir, '-U', 'postgres', '--auth=trust', '--no-sync']);
  appendFileSync(path.join(dataDir, 'postgresql.conf'), `\n${serverSettings(port, root)}\n`);
  appendFileSync(path.join(dataDir, 'pg_hba.conf'), '\nhost replication all 127.0.0.1/32 trust\n');
  run(path.join(bin, 'pg_ctl'), ['-D', dataDir, '-l', path.join(root, 'primary.log'), '-w', 'start']);
  return cluster(bin, dataDir, port);
}

/** A streaming standby of `primary` (pg_basebackup -R), started on its own port. */
export async function startStandby(bin: string, root: string, primary: Cluster): Promise<Cluster> {
  const dataDir = path.join(root, 'standby');
  const port = await freePort();
  run(path.join(bin, 'pg_basebackup'), ['-h', '127.0.0.1', '-p', String(primary.port), '-U', 'postgres', '-D', dataDir, '-R', '-X', 'stream', '--no-sync']);
  appendFileSync(path.join(dataDir, 'postgresql.conf'), `\nport = ${port}\n`);
  return restartStandby(bin, root, cluster(bin, dataDir, port));
}

/** Starts a stopped standby again. */
export function restartStandby(bin: string, root: string, standby: Cluster): Cluster {
  run(path.join(bin, 'pg_ctl'), ['-D', standby.dataDir, '-l', path.join(root, 'standby.log'), '-w', 'start']);
  return standby;
}

/** PgBouncer's executable (Debian installs it in /usr/sbin, which a non-root PATH may lack), or null. */
export function pgbouncerBinary(): string | null {
  const found = spawnSync('sh', ['-c', 'command -v pgbouncer'], { encoding: 'utf8' });
  if (found.status === 0) return found.stdout.trim();
  return existsSync('/usr/sbin/pgbouncer') ? '/usr/sbin/pgbouncer' : null;
}

export interface Bouncer {
  port: number;
  /** The URL of `database` through the pooler. */
  url: string;
  /** The pooler's admin console (SHOW STATS, SHOW SERVERS). */
  adminUrl: string;
  stop(): Promise<void>;
}

/** PgBouncer in transaction pooling mode in front of `target` (host, port and database of a trust server). */
export async function startPgBouncer(binary: string, root: string, target: { port: number; database: string }, poolSize = 2): Promise<Bouncer> {
  const port = await freePort();
  const ini = path.join(root, 'pgbouncer.ini');
  writeFileSync(
    ini,
    [
      '[databases]',
      `svc = host=127.0.0.1 port=${target.port} dbname=${target.database} user=postgres`,
      '[pgbouncer]',
      'listen_addr = 127.0.0.1',
      `listen_port = ${port}`,
      `unix_socket_dir = ${root}`,
      'auth_type = any',
      'admin_users = postgres',
      'pool_mode = transaction',
      `default_pool_size = ${poolSize}`,
      'max_client_conn = 200',
      `logfile = ${path.join(root, 'pgbouncer.log')}`,
      `pidfile = ${path.join(root, 'pgbouncer.pid')}`,
    ].join('\n'),
  );
  const ids = postgresIds();
  if (ids) chownSync(ini, ids.uid, ids.gid);
  const child: ChildProcess = spawn(binary, [ini], { ...ids, stdio: 'ignore' });
  await waitForPort(port);
  return {
    port,
    url: `postgres://postgres@127.0.0.1:${port}/svc`,
    adminUrl: `postgres://postgres@127.0.0.1:${port}/pgbouncer`,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

async function waitForPort(port: number, timeoutMs = 10_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const open = await new Promise<boolean>((resolve) => {
      const socket = net.connect(port, '127.0.0.1', () => {
        socket.end();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
    if (open) return;
    if (Date.now() > until) throw new Error(`nothing listens on port ${port}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

export const removeDir = (dir: string) => rmSync(dir, { recursive: true, force: true });
