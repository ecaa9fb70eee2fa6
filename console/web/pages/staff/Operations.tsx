import { useMemo } from 'preact/hooks';
import { useResource } from '../../app/hooks.ts';
import { duration, type JobSummary } from '../../app/jobs.ts';
import { formatDate, type Tenant } from '../../app/tenants.ts';
import { ErrorMessage } from '../../components/Alert.tsx';
import { DataTable } from '../../components/DataTable.tsx';
import { Link } from '../../components/Link.tsx';

interface Health {
  status?: string;
  [key: string]: unknown;
}

function HealthCard({ title, path }: { title: string; path: string }) {
  const health = useResource<Health>(path);
  const ok = health.data !== undefined && !health.error;
  return (
    <section class="card grow" aria-labelledby={`${title}-heading`}>
      <h2 id={`${title}-heading`}>{title}</h2>
      <p>
        <span class={`badge badge--${ok ? 'ok' : health.loading ? 'queued' : 'down'}`}>{ok ? 'OK' : health.loading ? 'checking' : 'failing'}</span>{' '}
        <button type="button" class="secondary" onClick={() => void health.reload()}>
          Check again
        </button>
      </p>
      <ErrorMessage error={health.error} />
      {health.data && <pre>{JSON.stringify(health.data, null, 2)}</pre>}
    </section>
  );
}

/** Readiness and liveness at a glance, and the platform jobs (provision, train) of every tenant. */
export function Operations() {
  const tenants = useResource<Tenant[]>('/admin/tenants');
  const provisions = useResource<JobSummary[]>('/admin/jobs?kind=tenant__provision&limit=200');
  const trainings = useResource<JobSummary[]>('/admin/jobs?kind=tenant__train&limit=200');
  const slugs = useMemo(() => new Map((tenants.data ?? []).map((t) => [t.id, t])), [tenants.data]);
  const jobs = [...(provisions.data ?? []), ...(trainings.data ?? [])].sort((a, b) => b.created_at.localeCompare(a.created_at));
  return (
    <>
      <h1>Operations</h1>
      <div class="columns">
        <HealthCard title="Readiness" path="/health/ready" />
        <HealthCard title="Liveness" path="/health/live" />
      </div>
      <section aria-labelledby="platform-jobs-heading">
        <h2 id="platform-jobs-heading">Platform jobs of every tenant</h2>
        <ErrorMessage error={provisions.error ?? trainings.error ?? tenants.error} />
        <DataTable<JobSummary>
          caption="Provision and train jobs"
          rows={jobs}
          rowKey={(j) => j.id}
          empty={provisions.loading || trainings.loading ? 'Loading…' : 'No provision or train job yet.'}
          columns={[
            {
              header: 'Tenant',
              cell: (j) => (j.tenant_id && slugs.get(j.tenant_id) ? <Link href={`/admin/tenants/${j.tenant_id}`}>{slugs.get(j.tenant_id)!.slug}</Link> : '—'),
            },
            { header: 'Job', cell: (j) => <Link href={`/admin/jobs/${j.id}`}>{j.kind === 'tenant__provision' ? 'provision' : 'train'}</Link> },
            { header: 'Status', cell: (j) => <span class={`badge badge--${j.status}`}>{j.status}</span> },
            { header: 'Progress', cell: (j) => `${j.progress}%` },
            { header: 'Error', cell: (j) => j.error_detail ?? '—' },
            { header: 'Created', cell: (j) => formatDate(j.created_at), optional: true },
            { header: 'Took', cell: (j) => duration(j.started_at, j.finished_at), optional: true },
          ]}
        />
      </section>
    </>
  );
}
