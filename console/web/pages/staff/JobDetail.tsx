import type { Params } from '../../app/router.ts';
import { post } from '../../api/client.ts';
import { useAction, useResource } from '../../app/hooks.ts';
import { duration, type JobDetail as Job } from '../../app/jobs.ts';
import { formatDate } from '../../app/tenants.ts';
import { ErrorMessage } from '../../components/Alert.tsx';
import { Link } from '../../components/Link.tsx';
import { WriteButton } from '../../components/WriteButton.tsx';

/** One job: payload, attempts, errors, timing and its queue row; retry and cancel for onboarding_admin. */
export function JobDetail({ params }: { params: Params }) {
  const job = useResource<Job>(`/admin/jobs/${encodeURIComponent(params.jobId)}`);
  const retry = useAction(() => post(`/admin/jobs/${params.jobId}/retry`));
  const cancel = useAction(() => post(`/admin/jobs/${params.jobId}/cancel`));
  const j = job.data;
  return (
    <>
      <p>
        <Link href="/admin/jobs">← Background jobs</Link>
      </p>
      <h1>Job {j ? j.kind : ''}</h1>
      <ErrorMessage error={job.error} />
      {j && (
        <>
          <dl class="facts">
            <dt>Id</dt>
            <dd>
              <code>{j.id}</code>
            </dd>
            <dt>State</dt>
            <dd>
              <span class={`badge badge--${j.status}`}>{j.status}</span> {j.progress}%
            </dd>
            <dt>Attempts</dt>
            <dd>
              {j.attempts} of {j.max_attempts}
            </dd>
            <dt>Error</dt>
            <dd>{j.error_detail ?? '—'}</dd>
            {j.queue && (
              <>
                <dt>Last attempt’s error</dt>
                <dd>{j.queue.last_error ?? '—'}</dd>
                <dt>Next run</dt>
                <dd>{formatDate(j.queue.run_at)}</dd>
                <dt>Held by</dt>
                <dd>{j.queue.locked_by ?? 'no worker'}</dd>
              </>
            )}
            <dt>Created</dt>
            <dd>{formatDate(j.created_at)}</dd>
            <dt>Started</dt>
            <dd>{formatDate(j.started_at)}</dd>
            <dt>Finished</dt>
            <dd>
              {formatDate(j.finished_at)} (took {duration(j.started_at, j.finished_at)})
            </dd>
            <dt>Steps</dt>
            <dd>{j.steps_completed.join(', ') || '—'}</dd>
            <dt>Key</dt>
            <dd>{j.job_key ?? '—'}</dd>
            {j.tenant_id && (
              <>
                <dt>Tenant</dt>
                <dd>
                  <Link href={`/admin/tenants/${j.tenant_id}`}>{j.tenant_id}</Link>
                </dd>
              </>
            )}
          </dl>
          <div class="actions">
            <form
              onSubmit={async (e) => {
                e.preventDefault();
                if (await retry.run()) await job.reload();
              }}
            >
              <WriteButton pending={retry.pending} disabled={j.status !== 'failed' && j.status !== 'cancelled'}>
                Retry
              </WriteButton>
            </form>
            <form
              onSubmit={async (e) => {
                e.preventDefault();
                if (await cancel.run()) await job.reload();
              }}
            >
              <WriteButton pending={cancel.pending} disabled={j.status !== 'queued'} class="secondary">
                Cancel
              </WriteButton>
            </form>
          </div>
          <ErrorMessage error={retry.error ?? cancel.error} />
          <h2>Payload</h2>
          <pre>{JSON.stringify(j.payload, null, 2)}</pre>
          {j.result !== null && j.result !== undefined && (
            <>
              <h2>Result</h2>
              <pre>{JSON.stringify(j.result, null, 2)}</pre>
            </>
          )}
        </>
      )}
    </>
  );
}
