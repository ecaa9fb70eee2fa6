/**
 * The IPC protocol of the benchmarks' load generators, which run as child processes so that they
 * never share the server's event loop: the parent sends one job, the child answers with one result
 * (or the error it failed with); the child exits when the parent disconnects.
 */
import { fork } from 'node:child_process';

type Reply<R> = { ok: true; result: R } | { ok: false; error: string };

/** Forks `file` (a TypeScript module run under tsx) and returns a function running one job in it. */
export function forkLoadChild<J, R>(file: URL): { run(job: J): Promise<R>; close(): void } {
  const child = fork(file, [], { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  return {
    run: (job) =>
      new Promise((resolve, reject) => {
        const exited = (code: number | null) => reject(new Error(`load client exited with ${code}`));
        child.once('exit', exited);
        child.once('message', (reply: Reply<R>) => {
          child.off('exit', exited);
          if (reply.ok) resolve(reply.result);
          else reject(new Error(`load client: ${reply.error}`));
        });
        child.send(job as object);
      }),
    close: () => {
      if (child.connected) child.disconnect();
    },
  };
}

/** In the forked child: answers each job with `handle`'s result. Does nothing when not forked. */
export function serveLoadJobs<J, R>(handle: (job: J) => Promise<R>): void {
  if (!process.send) return;
  process.on('message', (job: J) => {
    handle(job).then(
      (result) => process.send!({ ok: true, result } satisfies Reply<R>),
      (err: Error) => process.send!({ ok: false, error: err.stack ?? String(err) } satisfies Reply<R>),
    );
  });
  process.on('disconnect', () => process.exit(0));
}
