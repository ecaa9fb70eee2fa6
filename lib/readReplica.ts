/**
 * The optional streaming read replica (DATABASE_REPLICA_URL) and the rule that decides, per request,
 * whether a lag-tolerant read may use it.
 *
 * Read-your-writes: a write request of a workspace pins that workspace to the primary until the replica
 * has provably replayed it. Every REPLICA_POLL_MS a poller samples the primary's WAL insert position
 * (`pg_current_wal_insert_lsn()`, at a known time) and the replica's replayed position
 * (`pg_last_wal_replay_lsn()`). A commit that has returned has inserted its record below the insert
 * position, even under `synchronous_commit = off`, where the write position (`pg_current_wal_lsn()`)
 * can still be behind a commit already returned to its client. Once the replica has replayed a
 * primary position sampled after the write finished, everything the write committed is on the
 * replica, and the pin is lifted. So a caller never reads older data than its own last write, however
 * far the replica lags; reads just stay on the primary until it catches up. Pins live in this process (see docs/deployment.md for several API processes).
 *
 * A replica that does not answer, or is not a standby, serves nothing until the poller sees it healthy
 * again; a read that fails on it with a connection error is run again on the primary.
 */
import type { Logger } from './logger.ts';
import { isConnectionError, type Pool } from './db.ts';

const REPLICA_POLL_MS = 200;
/** A pin whose write the replica has not replayed within this long is dropped with the replica marked lagging. */
const PIN_MAX_MS = 60_000;

/** Compares two pg_lsn texts (`16/B374D848`) as 64-bit positions. */
export function lsnValue(lsn: string): bigint {
  const [high, low] = lsn.split('/');
  return (BigInt(`0x${high}`) << 32n) + BigInt(`0x${low}`);
}

interface Sample {
  /** When the primary query was sent: every commit that finished before it is at or below `lsn`. */
  at: number;
  lsn: bigint;
}

export class ReadReplica {
  private healthy = false;
  /** Primary positions sampled but not yet replayed by the replica, oldest first. */
  private pending: Sample[] = [];
  /** Every commit on the primary that finished before this time is on the replica. */
  private coveredBefore = 0;
  private readonly pins = new Map<string, number>();
  private timer: NodeJS.Timeout | null = null;
  private polling = false;

  constructor(
    readonly pool: Pool,
    private readonly primary: Pool,
    private readonly logger: Logger,
    private readonly now: () => number = Date.now,
  ) {}

  start(): void {
    this.timer = setInterval(() => void this.poll(), REPLICA_POLL_MS);
    this.timer.unref();
    void this.poll();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.pool.end().catch(() => {});
  }

  /** A write request of `key` (a workspace) finished now: its reads stay on the primary until the replica has it. */
  noteWrite(key: string): void {
    this.pins.set(key, this.now());
  }

  /** The pool a lag-tolerant read of `key` may use now. */
  poolFor(key: string): Pool | null {
    if (!this.healthy) return null;
    const pinnedAt = this.pins.get(key);
    if (pinnedAt === undefined) return this.pool;
    if (pinnedAt < this.coveredBefore) {
      this.pins.delete(key);
      return this.pool;
    }
    return null;
  }

  /** A read on the replica failed to connect: serve from the primary until the poller sees it again. */
  markDown(err: unknown): void {
    if (this.healthy) this.logger.warn('read replica unavailable; reading from the primary', { err });
    this.healthy = false;
  }

  /** One sample of both positions. */
  async poll(): Promise<void> {
    if (this.polling) return;
    this.polling = true;
    try {
      const at = this.now();
      const primary = await this.primary.query<{ lsn: string }>('select pg_current_wal_insert_lsn()::text as lsn');
      this.pending.push({ at, lsn: lsnValue(primary.rows[0].lsn) });
      const replica = await this.pool.query<{ lsn: string | null; standby: boolean }>(
        'select pg_last_wal_replay_lsn()::text as lsn, pg_is_in_recovery() as standby',
      );
      const { lsn, standby } = replica.rows[0];
      if (!standby || lsn === null) throw new Error('DATABASE_REPLICA_URL is not a streaming standby');
      const replayed = lsnValue(lsn);
      while (this.pending.length && this.pending[0].lsn <= replayed) this.coveredBefore = this.pending.shift()!.at;
      if (this.pending.length > 1000) this.pending.splice(0, this.pending.length - 1000);
      if (!this.healthy) this.logger.info('read replica serving lag-tolerant reads');
      this.healthy = true;
      this.dropStalePins();
    } catch (err) {
      if (this.healthy || !isConnectionError(err)) this.markDown(err);
      this.healthy = false;
      this.pending = [];
    } finally {
      this.polling = false;
    }
  }

  private dropStalePins() {
    const now = this.now();
    for (const [key, at] of this.pins) if (at < this.coveredBefore || now - at > PIN_MAX_MS) this.pins.delete(key);
  }
}

/**
 * Runs a lag-tolerant read: on the replica when `replica` may serve `key`, else on the primary; a
 * replica that fails to connect mid-read marks itself down and the read runs again on the primary.
 */
export async function withReadPool<T>(primary: Pool, replica: ReadReplica | undefined, key: string, read: (pool: Pool) => Promise<T>): Promise<T> {
  const pool = replica?.poolFor(key);
  if (!pool) return read(primary);
  try {
    return await read(pool);
  } catch (err) {
    if (!isConnectionError(err)) throw err;
    replica!.markDown(err);
    return read(primary);
  }
}
