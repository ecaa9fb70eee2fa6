/**
 * The job runtime: every background task is declared with `defineTask`, enqueued with `enqueueJob`
 * (on the caller's transaction, together with its `job_runs` row) and executed through
 * `wrapTask`, which parses the payload, moves the `job_runs` row through its states, records
 * progress and metrics, and decides between retry (rethrow: graphile-worker's exponential backoff)
 * and a terminal failure (recorded, not rethrown).
 */
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import pg from 'pg';
import type { Task, JobHelpers } from 'graphile-worker';
import type { AppContext } from '../lib/context.ts';
import type { Queryable } from '../lib/db.ts';
import { withTransaction } from '../lib/db.ts';
import { AppError } from '../lib/errors.ts';
import { withTrace } from '../lib/logger.ts';
import { jobDuration, jobQueueLatency, jobsCompleted } from '../lib/metrics.ts';
import * as jobRuns from '../sql/jobRuns.ts';
import { releaseWorkerJobs } from '../sql/workerHeartbeats.ts';
import type { JobRun } from '../sql/jobRuns.ts';

export interface JobContext {
  app: AppContext;
  /** The job_runs id (what clients poll). */
  runId: string;
  attempt: number;
  maxAttempts: number;
  workspaceId: string | null;
  tenantId: string | null;
  /** Records progress (0..100) and, optionally, the name of a step just completed. */
  progress(percent: number, step?: string): Promise<void>;
  /** Aborted when the worker shuts down; long work should check it between chunks. */
  signal: AbortSignal;
}

/**
 * What can be enqueued: a job's name, payload and options, declared in jobs/queue/<name>.ts apart
 * from its handler (jobs/tasks/<name>.ts), so that use cases and routes enqueue a job without
 * importing the task that runs it (which imports use cases).
 */
export interface JobDefinition<S extends z.ZodType = z.ZodType> {
  /** graphile-worker task identifier, `<aggregate>__<verb>`. */
  name: string;
  payload: S;
  /** Attempts before the run is marked failed (graphile-worker backs off exponentially between them). */
  maxAttempts?: number;
  /**
   * Its durable job key coalesces queued runs only: the key is released when a run starts, so a burst
   * of enqueues while one run waits gives that one run, and work arriving while it runs queues another.
   */
  coalescing?: boolean;
  /**
   * No job_runs row: the graphile-worker payload is the task's input itself and the task keeps its own
   * durable record (webhook deliveries). Enqueued with graphile_worker.add_jobs directly.
   */
  untracked?: boolean;
  /**
   * The input is stored once, in the job_runs row, and graphile-worker's job carries only the run's
   * reference: for inputs the size of a batch (an ingest request's issue ids), which would otherwise be
   * serialised, sent and stored twice per enqueue. The attempt reads the input as it claims the run.
   */
  inputByReference?: boolean;
  /**
   * The task returns a result (run often and briefly: waiting for the result's own statement would
   * hold the worker's slot for a round trip per job). Its success and result are recorded together by
   * the worker's batched finishing statement, which the task does not wait for; graphile-worker's
   * completion of the job leaves such a run alone, and the heartbeat's sweep puts back in the queue a
   * run whose job completed but whose result was never written (a worker dying in between; migration
   * 000270). Not for tasks run in a named queue whose next job must see this run finished (engine work):
   * the queue moves on before the record lands. A task without this flag that returns a result still
   * has it written before its job completes.
   */
  returnsResult?: boolean;
}

/** A job's declaration with its handler: what the worker runs. */
export interface TaskDefinition<S extends z.ZodType = z.ZodType> extends JobDefinition<S> {
  run(payload: z.output<S>, job: JobContext): Promise<unknown>;
}

export function defineJob<S extends z.ZodType>(def: JobDefinition<S>): JobDefinition<S> {
  return def;
}

export function defineTask<S extends z.ZodType>(def: TaskDefinition<S>): TaskDefinition<S> {
  return def;
}

/**
 * Thrown by the wrapper when an orderly shutdown interrupted an attempt: the job has already been
 * released for retry (its attempt given back), so graphile-worker's own failure handling finds
 * nothing to do, and its log line for this error is not a failure (jobs/worker.ts).
 */
export class JobInterrupted extends Error {
  override name = 'JobInterrupted';
}

/** A failure that no retry can fix (bad input, a violated precondition): recorded, never retried. */
export class PermanentJobError extends Error {
  override name = 'PermanentJobError';
}

const DEFAULT_MAX_ATTEMPTS = 5;

export interface EnqueueOptions {
  workspaceId?: string | null;
  tenantId?: string | null;
  /** Durable key (`provision:{tenant_id}`): an existing run with this key is returned instead. */
  jobKey?: string;
  /** With a durable key whose run failed or was cancelled: put that run back in the queue. */
  retryTerminal?: boolean;
  runAt?: Date;
  maxAttempts?: number;
  /** graphile-worker queue: jobs of one queue run one at a time, in order. */
  queueName?: string;
}

export interface EnqueueResult {
  job: JobRun;
  /** false when a durable key returned an existing run untouched. */
  created: boolean;
}

/**
 * Adds a job and its job_runs row using `db` (pass the client of an open transaction so that the
 * domain write and the job commit together).
 */
export async function enqueueJob<S extends z.ZodType>(
  db: Queryable,
  task: JobDefinition<S>,
  payload: z.input<S>,
  options: EnqueueOptions = {},
): Promise<EnqueueResult> {
  task.payload.parse(payload); // fail fast; the task parses the stored input again when it runs
  const data = payload as unknown;
  const maxAttempts = options.maxAttempts ?? task.maxAttempts ?? DEFAULT_MAX_ATTEMPTS;
  if (!options.jobKey) {
    // Without a durable key nothing can collide: the run and its job go in one statement.
    const id = randomUUID();
    const payloadJson = JSON.stringify(data ?? {});
    const job = await jobRuns.insertQueuedJobRunWithJob(
      db,
      { id, kind: task.name, payload: data, payloadJson, maxAttempts, workspaceId: options.workspaceId, tenantId: options.tenantId },
      {
        payloadJson: envelopeJson(id, task.inputByReference ? undefined : payloadJson, options.workspaceId, options.tenantId, task.returnsResult),
        runAt: options.runAt ?? null,
        queueName: options.queueName ?? null,
      },
    );
    return { job, created: true };
  }
  let run = await jobRuns.insertJobRun(db, {
    kind: task.name,
    payload: data,
    maxAttempts,
    workspaceId: options.workspaceId,
    tenantId: options.tenantId,
    jobKey: options.jobKey,
  });
  if (!run) {
    const existing = await jobRuns.lockJobRunByKey(db, options.jobKey!);
    if (!existing) throw new Error(`job key ${options.jobKey} vanished while enqueueing`);
    const terminal = existing.status === 'failed' || existing.status === 'cancelled';
    if (!(terminal && options.retryTerminal)) return { job: existing, created: false };
    run = await jobRuns.requeueJobRun(db, existing.id, data);
  }
  const workerJobId = await jobRuns.addWorkerJob(db, {
    task: task.name,
    payloadJson: envelopeJson(run.id, task.inputByReference ? undefined : JSON.stringify(data ?? {}), run.workspace_id, run.tenant_id, task.returnsResult),
    runAt: options.runAt,
    maxAttempts: run.max_attempts,
    queueName: options.queueName,
  });
  await jobRuns.setWorkerJobId(db, run.id, workerJobId);
  return { job: { ...run, worker_job_id: workerJobId }, created: true };
}

/**
 * Cancels a queued job: its graphile-worker row is removed unless a worker has already locked it,
 * in which case the job is running and cannot be cancelled (409 conflict).
 */
export async function cancelJob(app: AppContext, runId: string, scope: jobRuns.JobScope): Promise<JobRun> {
  return withTransaction(app.pool, async (client) => {
    const visible = await jobRuns.findJobRun(client, runId, scope);
    if (!visible) throw new AppError('not_found', 'Job not found');
    const run = (await jobRuns.lockJobRun(client, runId))!;
    if (run.status === 'cancelled') return run;
    if (run.status !== 'queued') throw new AppError('conflict', `Job is ${run.status}; only queued jobs can be cancelled`);
    // Marked first: removing the job would otherwise record the run as succeeded (migration 000189).
    const cancelled = await jobRuns.markJobRunCancelled(client, runId);
    const { removed, stillQueued } =
      run.worker_job_id === null ? { removed: false, stillQueued: false } : await jobRuns.removeQueuedWorkerJob(client, run.worker_job_id);
    if (!removed && stillQueued) throw new AppError('conflict', 'Job is already running; only queued jobs can be cancelled');
    return cancelled;
  });
}

/**
 * What graphile-worker carries for a job: the job_runs id, the task's input and the run's scope, so
 * that the wrapper can start the task without reading the row first. Without `data` (a task whose
 * input is carried by reference, `inputByReference`) the attempt reads the input from the row.
 */
const envelopeSchema = z.object({
  job_run_id: z.uuid(),
  data: z.unknown().optional(), // absent when the input is carried by reference
  // Absent in jobs enqueued before the scope was carried: those are claimed before they run.
  workspace_id: z.uuid().nullable().optional(),
  tenant_id: z.uuid().nullable().optional(),
  // The worker records the run's success and result itself (`returnsResult`); graphile-worker's
  // completion of the job leaves the run alone (migration 000270).
  worker_records_success: z.literal(true).optional(),
});
/** The envelope's JSON around the input's JSON (`dataJson`, already serialised for the run row; omitted by reference). */
const envelopeJson = (id: string, dataJson: string | undefined, workspaceId?: string | null, tenantId?: string | null, workerRecordsSuccess?: boolean) =>
  `{"job_run_id":${JSON.stringify(id)},${dataJson === undefined ? '' : `"data":${dataJson},`}"workspace_id":${JSON.stringify(workspaceId ?? null)},"tenant_id":${JSON.stringify(tenantId ?? null)}${workerRecordsSuccess ? ',"worker_records_success":true' : ''}}`;
const cronEnvelopeSchema = z.object({ _cron: z.object({ ts: z.string() }).loose() }).loose();

/**
 * True for failures whose text is internal: database errors (SQL, schema and constraint names),
 * system errors (addresses, paths) and programming errors, also when wrapped as another error's cause.
 */
function isInternal(err: unknown, depth = 0): boolean {
  if (!(err instanceof Error) || depth > 5) return !(err instanceof Error);
  if (err instanceof pg.DatabaseError || 'errno' in err || 'syscall' in err) return true;
  if (err instanceof TypeError || err instanceof RangeError || err instanceof ReferenceError || err instanceof SyntaxError) return true;
  return err.cause !== undefined && isInternal(err.cause, depth + 1);
}

/**
 * The error_detail callers see. Messages written for them (task errors, payload checks) are kept;
 * an internal failure is curated to a message naming the trace id under which the log keeps it.
 */
function describeError(err: unknown, runId: string): string {
  if (err instanceof z.ZodError) return `invalid payload: ${err.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; ')}`;
  if (err instanceof PermanentJobError || err instanceof AppError) return err.message;
  if (isInternal(err)) return `Internal error; the server log holds the details under trace id job:${runId}.`;
  return (err as Error).message || (err as Error).name;
}

/**
 * A run is moved to `running` only once its task has been busy for this long, reports progress or
 * fails: a quick job then costs one bookkeeping statement (queued -> succeeded) instead of two,
 * and pollers see `running` within this delay for anything longer.
 */
const CLAIM_AFTER_MS = 200;

/** The job_runs row of the attempt a worker is running, and its bookkeeping. */
interface StartedRun {
  id: string;
  data: unknown;
  workspaceId: string | null;
  tenantId: string | null;
  /** Moves the row to running now (once); false when it was not runnable (cancelled or finished). */
  claim(): Promise<boolean>;
  succeed(result: unknown): Promise<void>;
  fail(detail: string): Promise<void>;
}

function claimedRun(app: AppContext, row: JobRun, data: unknown, finishes?: FinishBatcher): StartedRun {
  return {
    id: row.id,
    data,
    workspaceId: row.workspace_id,
    tenantId: row.tenant_id,
    claim: async () => true,
    // With the envelope's `worker_records_success` (`finishes` given), recorded in the background as a deferred run's.
    succeed: async (result) =>
      finishes
        ? recordInBackground(app, finishes, finishedRun(row.id, row.attempts, row.started_at ?? new Date(), result))
        : jobRuns.completeJobRun(app.pool, row.id, result),
    fail: (detail) => jobRuns.failJobRun(app.pool, row.id, detail),
  };
}

/**
 * A finished run with its result serialised now, so that a result that cannot be stored fails the
 * attempt here (the task is retried as before) rather than in a statement nobody waits for: jsonb
 * refuses the NUL character (an escaped `\u0000` preceded by an even number of backslashes).
 */
function finishedRun(id: string, attempt: number, startedAt: Date, result: unknown): jobRuns.FinishedRun {
  const resultJson = result === undefined || result === null ? null : JSON.stringify(result);
  if (resultJson !== null && /(^|[^\\])(\\\\)*\\u0000/.test(resultJson))
    throw new Error('the task returned a result that cannot be stored (a NUL character, \\u0000)');
  return { id, attempt, startedAt, result, resultJson };
}

/** SQLSTATE classes of a statement the database refuses for its data: no retry can store it. */
const REFUSED_DATA = /^(22|23|54)/;

/**
 * Records a run's success with the batch and returns at once (`returnsResult`). A failed write is
 * tried again (doubling from 0.5 s to 30 s) while the process lives: the run's job is already
 * complete, so nothing else would. One the database refuses for its data fails the run. If the
 * process dies first, the marker graphile-worker's completion left (migration 000270) has the run
 * put back in the queue by another worker's heartbeat sweep.
 */
function recordInBackground(app: AppContext, finishes: FinishBatcher, run: jobRuns.FinishedRun, delayMs = 500): void {
  finishes.track(
    finishes.finish(run).then(
      (finished) => {
        if (!finished) app.logger.warn('job finished, but its run was no longer runnable (cancelled or already finished)', { job_run_id: run.id });
      },
      async (err: unknown) => {
        const code = (err as { code?: unknown }).code;
        if (err instanceof pg.DatabaseError && typeof code === 'string' && REFUSED_DATA.test(code)) {
          app.logger.error('job failed: its result could not be recorded', { job_run_id: run.id, err });
          await jobRuns
            .failJobRun(app.pool, run.id, describeError(err, run.id), run.attempt)
            .catch((failure) => app.logger.error('could not record a job failure', { job_run_id: run.id, err: failure }));
          return;
        }
        app.logger.warn('could not record a finished job; trying again', { job_run_id: run.id, err, retry_in_ms: delayMs });
        await new Promise((resolve) => setTimeout(resolve, delayMs).unref());
        recordInBackground(app, finishes, run, Math.min(delayMs * 2, 30_000));
      },
    ),
  );
}

/**
 * Group commit of quick runs' results. A quick run's only bookkeeping is its success (queued ->
 * succeeded) with its result; a run without a result needs no statement at all (graphile-worker's
 * deletion of the job records it, migration 000189). A statement's round trip and commit cost more
 * CPU than the update itself, on both
 * sides of the socket. So the successes that arrive in the same turn of the event loop, or while
 * such a statement is on its way, are recorded by one statement (`finishJobRuns`). A run's promise
 * settles only once its own row is written, so graphile-worker still deletes a job only after its
 * success is recorded. If a batch fails, its runs are recorded one by one, so that a run the
 * database refuses (a result jsonb cannot store) fails alone rather than sending the others of its
 * batch to retry. (Waiting a fixed 1 ms for more runs made batches three times larger and cut the CPU
 * per job further, but on a quiet machine the added latency cost more throughput than it saved:
 * docs/benchmarks.md, issue 11, session 5.)
 */
export class FinishBatcher {
  private waiting: Array<{ run: jobRuns.FinishedRun; resolve(finished: boolean): void; reject(err: unknown): void }> = [];
  /** A statement is on its way, or one is about to be sent. */
  private busy = false;
  /** Background records (`recordInBackground`) not settled yet, and who waits for none to be left. */
  private outstanding = 0;
  private drained: Array<() => void> = [];

  constructor(private readonly pool: Queryable) {}

  /** Counts a background record until it settles (see `drain`). */
  track(settling: Promise<unknown>): void {
    this.outstanding++;
    void settling.finally(() => {
      if (--this.outstanding > 0) return;
      for (const resolve of this.drained.splice(0)) resolve();
    });
  }

  /** Resolves once no background record is left, or after `timeoutMs` (those left are the sweep's). */
  async drain(timeoutMs: number): Promise<void> {
    if (this.outstanding === 0) return;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([new Promise<void>((resolve) => this.drained.push(resolve)), new Promise((resolve) => (timer = setTimeout(resolve, timeoutMs)))]);
    clearTimeout(timer);
  }

  /** Records a quick run's success; false when the run was no longer runnable (cancelled or finished). */
  finish(run: jobRuns.FinishedRun): Promise<boolean> {
    return new Promise<boolean>((resolve, reject) => {
      this.waiting.push({ run, resolve, reject });
      if (this.busy) return;
      this.busy = true;
      setImmediate(() => void this.flush());
    });
  }

  private async flush(): Promise<void> {
    while (this.waiting.length > 0) {
      const batch = this.waiting;
      this.waiting = [];
      try {
        await this.record(batch);
      } catch (err) {
        if (batch.length === 1) batch[0].reject(err);
        else await Promise.all(batch.map((w) => this.record([w]).catch(w.reject)));
      }
    }
    this.busy = false;
  }

  private async record(batch: typeof this.waiting): Promise<void> {
    const finished = await jobRuns.finishJobRuns(
      this.pool,
      batch.map((w) => w.run),
    );
    for (const w of batch) w.resolve(finished.has(w.run.id));
  }
}

/**
 * A run that is not claimed yet (see CLAIM_AFTER_MS). A class rather than an object of closures:
 * this is built for every job, and its methods are then shared rather than created each time.
 */
class DeferredRun implements StartedRun {
  private readonly startedAt = new Date();
  private claiming: Promise<boolean> | undefined;
  private readonly timer: NodeJS.Timeout;
  constructor(
    readonly app: AppContext,
    private readonly finishes: FinishBatcher,
    readonly id: string,
    private readonly attempt: number,
    readonly data: unknown,
    readonly workspaceId: string | null,
    readonly tenantId: string | null,
    /** The envelope's `worker_records_success`: the success is recorded in the background, result or not. */
    private readonly inBackground: boolean,
  ) {
    this.timer = setTimeout(claimInBackground, CLAIM_AFTER_MS, this);
    this.timer.unref();
  }

  claimOnce(): Promise<boolean> {
    return (this.claiming ??= jobRuns.claimJobRun(this.app.pool, this.id, this.attempt).then((row) => row !== null));
  }

  claim(): Promise<boolean> {
    clearTimeout(this.timer);
    return this.claimOnce();
  }

  async succeed(result: unknown): Promise<void> {
    clearTimeout(this.timer);
    // A claim on its way meanwhile cannot cross this record: both move only runnable runs, so a claim
    // landing after it finds the run succeeded and does nothing.
    if (this.inBackground) return recordInBackground(this.app, this.finishes, finishedRun(this.id, this.attempt, this.startedAt, result));
    // Nothing to store: graphile-worker's completion of the job records the success (migration 000189).
    if (result === undefined || result === null) return;
    // A run claimed meanwhile (a slow task, or a busy machine past CLAIM_AFTER_MS) is finished by the same
    // batched statement (it moves running runs too), after its claim so the two never cross.
    if (this.claiming) await this.claiming;
    const finished = await this.finishes.finish({ id: this.id, attempt: this.attempt, startedAt: this.startedAt, result });
    if (!finished) this.app.logger.warn('job finished, but its run was no longer runnable (cancelled or already finished)', { job_run_id: this.id });
  }

  async fail(detail: string): Promise<void> {
    clearTimeout(this.timer);
    await jobRuns.failJobRun(this.app.pool, this.id, detail, this.attempt);
  }
}

function claimInBackground(run: DeferredRun): void {
  run.claimOnce().catch((err) => run.app.logger.warn('could not mark a job running', { job_run_id: run.id, err }));
}

type Outcome = 'succeeded' | 'failed' | 'retried' | 'skipped';
function observeAttempt(task: string, outcome: Outcome, started: bigint): void {
  jobsCompleted.inc({ task, outcome });
  jobDuration.observe({ task, outcome }, Number(process.hrtime.bigint() - started) / 1e9);
}

/**
 * Turns a task definition into a graphile-worker task bound to `app`. The path of a quick job that
 * succeeds does as little as it can besides the task itself: no statement when it has no result (its
 * success commits with graphile-worker's deletion of the job, migration 000189), else one statement
 * shared with other runs finishing at the same time (FinishBatcher); no per-job logger or closures
 * beyond the task's context.
 */
export function wrapTask(task: TaskDefinition, app: AppContext, finishes: FinishBatcher): Task {
  if (task.untracked) return wrapUntrackedTask(task, app);
  return async (rawPayload: unknown, helpers: JobHelpers) => {
    const started = process.hrtime.bigint();
    jobQueueLatency.observe({ task: task.name }, Math.max(0, Date.now() - new Date(helpers.job.run_at).getTime()) / 1000);
    const run = await startRun(task, app, finishes, rawPayload, helpers);
    if (!run) {
      app.logger.warn('job skipped: no runnable job_runs row (cancelled, finished or malformed envelope)', { task: task.name, worker_job_id: helpers.job.id });
      observeAttempt(task.name, 'skipped', started);
      return;
    }
    return withTrace(`job:${run.id}`, () => runAttempt(task, app, run, helpers, started));
  };
}

/** One attempt of a tracked task inside its trace scope: the task, then its outcome recorded. */
async function runAttempt(task: TaskDefinition, app: AppContext, run: StartedRun, helpers: JobHelpers, started: bigint): Promise<void> {
  const where = { task: task.name, worker_job_id: helpers.job.id, job_run_id: run.id };
  const parsed = task.payload.safeParse(run.data);
  if (!parsed.success) {
    const error = describeError(parsed.error, run.id);
    await run.fail(error);
    app.logger.error('job failed: invalid payload', { ...where, error });
    observeAttempt(task.name, 'failed', started);
    return;
  }
  const ctx: JobContext = {
    app,
    runId: run.id,
    attempt: helpers.job.attempts,
    maxAttempts: helpers.job.max_attempts,
    workspaceId: run.workspaceId,
    tenantId: run.tenantId,
    progress: async (percent, step) => {
      if (await run.claim()) await jobRuns.recordJobProgress(app.pool, run.id, Math.max(0, Math.min(100, Math.round(percent))), step);
    },
    signal: helpers.abortSignal,
  };
  try {
    const result = await task.run(parsed.data, ctx);
    await run.succeed(result);
    observeAttempt(task.name, 'succeeded', started);
  } catch (err) {
    if (helpers.abortSignal?.aborted) return releaseForShutdown(task, app, helpers, where, err);
    const detail = describeError(err, run.id);
    const permanent = err instanceof PermanentJobError || err instanceof z.ZodError;
    if (permanent || helpers.job.attempts >= helpers.job.max_attempts) {
      await run.fail(detail);
      app.logger.error('job failed', { ...where, attempt: helpers.job.attempts, err });
      observeAttempt(task.name, 'failed', started);
      return; // recorded; nothing for graphile-worker to retry
    }
    await run.claim(); // the attempt is recorded on the row before it goes back to queued
    await jobRuns.retryJobRun(app.pool, run.id, detail);
    app.logger.warn('job attempt failed; will retry', { ...where, attempt: helpers.job.attempts, err });
    observeAttempt(task.name, 'retried', started);
    throw err;
  }
}

/**
 * The worker is shutting down and the task stopped on its abort signal: the attempt goes back to
 * the queue uncounted (job_runs records the interruption), and the next runner starts it at once.
 */
async function releaseForShutdown(task: TaskDefinition, app: AppContext, helpers: JobHelpers, where: Record<string, unknown>, err: unknown): Promise<never> {
  const worker = helpers.job.locked_by;
  if (worker) {
    await withTransaction(app.pool, (client) =>
      releaseWorkerJobs(client, { workers: [worker], workerJobIds: [helpers.job.id], reason: 'shut down', giveBackAttempt: true }),
    );
  }
  jobsCompleted.inc({ task: task.name, outcome: 'interrupted' });
  app.logger.info('job interrupted by shutdown; released for retry', { ...where, attempt: helpers.job.attempts, reason: (err as Error)?.message });
  throw new JobInterrupted(`${task.name} interrupted by shutdown; released for retry`);
}

/**
 * An untracked task: the payload is parsed as is (a cron line's `_cron` is dropped); an invalid one is
 * logged and dropped, a thrown error is retried by graphile-worker's backoff.
 */
function wrapUntrackedTask(task: TaskDefinition, app: AppContext): Task {
  return async (rawPayload: unknown, helpers: JobHelpers) => {
    const started = process.hrtime.bigint();
    const observe = (outcome: 'succeeded' | 'failed' | 'retried') => {
      jobsCompleted.inc({ task: task.name, outcome });
      jobDuration.observe({ task: task.name, outcome }, Number(process.hrtime.bigint() - started) / 1e9);
    };
    const { _cron, ...data } = (rawPayload ?? {}) as Record<string, unknown>;
    const parsed = task.payload.safeParse(data);
    if (!parsed.success) {
      app.logger.error('job dropped: invalid payload', {
        task: task.name,
        worker_job_id: helpers.job.id,
        error: describeError(parsed.error, `worker:${helpers.job.id}`),
      });
      observe('failed');
      return;
    }
    const runId = `worker:${helpers.job.id}`;
    return withTrace(`job:${runId}`, async () => {
      try {
        await task.run(parsed.data, {
          app,
          runId,
          attempt: helpers.job.attempts,
          maxAttempts: helpers.job.max_attempts,
          workspaceId: null,
          tenantId: null,
          progress: async () => {},
          signal: helpers.abortSignal,
        });
        observe('succeeded');
      } catch (err) {
        if (helpers.abortSignal?.aborted) return releaseForShutdown(task, app, helpers, { task: task.name, worker_job_id: helpers.job.id }, err);
        observe(helpers.job.attempts >= helpers.job.max_attempts ? 'failed' : 'retried');
        throw err;
      }
    });
  };
}

/**
 * The run of this attempt. Coalescing tasks (whose key must be released as the run starts), jobs
 * enqueued without their scope in the envelope and jobs carrying their input by reference are claimed
 * before the task starts; the others when CLAIM_AFTER_MS says. Cron-scheduled jobs get a row created
 * on the fly.
 */
async function startRun(task: TaskDefinition, app: AppContext, finishes: FinishBatcher, rawPayload: unknown, helpers: JobHelpers): Promise<StartedRun | null> {
  const envelope = envelopeSchema.safeParse(rawPayload);
  if (envelope.success) {
    const { job_run_id: id, data, workspace_id: workspaceId, tenant_id: tenantId, worker_records_success: inBackground = false } = envelope.data;
    // `data` is absent (JSON has no undefined) when the input is carried by reference: the claim reads it.
    if (task.coalescing || workspaceId === undefined || tenantId === undefined || data === undefined) {
      const row = await jobRuns.claimJobRun(app.pool, id, helpers.job.attempts, task.coalescing);
      return row ? claimedRun(app, row, data === undefined ? row.payload : data, inBackground ? finishes : undefined) : null;
    }
    return new DeferredRun(app, finishes, id, helpers.job.attempts, data, workspaceId, tenantId, inBackground);
  }
  if (cronEnvelopeSchema.safeParse(rawPayload).success) {
    const { _cron, ...data } = rawPayload as Record<string, unknown>;
    const row = await jobRuns.insertJobRun(app.pool, {
      kind: task.name,
      payload: data,
      maxAttempts: helpers.job.max_attempts,
      status: 'running',
    });
    return row ? claimedRun(app, row, data) : null;
  }
  return null;
}

/**
 * Puts a failed or cancelled run back in the queue with its original payload (operators' `svc jobs
 * retry`); the same transition a durable key's `retryTerminal` makes. A run in any other state is a
 * conflict: queued and running runs are under way, succeeded ones are done.
 */
export async function retryTerminalJob(app: AppContext, runId: string, options: { queueName?: string } = {}): Promise<JobRun> {
  return withTransaction(app.pool, async (client) => {
    const run = await jobRuns.lockJobRun(client, runId);
    if (!run) throw new AppError('not_found', 'Job not found');
    if (run.status !== 'failed' && run.status !== 'cancelled')
      throw new AppError('conflict', `Job is ${run.status}; only failed or cancelled jobs can be retried`);
    const requeued = await jobRuns.requeueJobRun(client, run.id, run.payload);
    const workerJobId = await jobRuns.addWorkerJob(client, {
      task: run.kind,
      payloadJson: envelopeJson(run.id, JSON.stringify(run.payload ?? {}), run.workspace_id, run.tenant_id),
      maxAttempts: run.max_attempts,
      queueName: options.queueName,
    });
    await jobRuns.setWorkerJobId(client, run.id, workerJobId);
    return { ...requeued, worker_job_id: workerJobId };
  });
}
