import { useMemo, useState } from 'preact/hooks';
import { useResource } from '../../app/hooks.ts';
import { JOB_STATES, type JobSummary } from '../../app/jobs.ts';
import { navigate } from '../../app/router.ts';
import { formatDate, type Tenant } from '../../app/tenants.ts';
import { ErrorMessage } from '../../components/Alert.tsx';
import { DataTable } from '../../components/DataTable.tsx';
import { SelectField, TextField } from '../../components/Field.tsx';
import { Link } from '../../components/Link.tsx';

const KINDS = ['tenant__provision', 'tenant__train', 'mail__send', 'engine__run'];
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Background jobs: filters (kind, state, tenant) kept in the URL, and search by id. */
export function Jobs({ query }: { query: URLSearchParams }) {
  const kind = query.get('kind') ?? '';
  const status = query.get('status') ?? '';
  const tenant = query.get('tenant_id') ?? '';
  const [id, setId] = useState('');
  const [idError, setIdError] = useState('');
  const tenants = useResource<Tenant[]>('/admin/tenants');
  const params = new URLSearchParams();
  if (kind) params.set('kind', kind);
  if (status) params.set('status', status);
  if (tenant) params.set('tenant_id', tenant);
  const jobs = useResource<JobSummary[]>(`/admin/jobs?${params}`);
  const slugs = useMemo(() => new Map((tenants.data ?? []).map((t) => [t.id, t.slug])), [tenants.data]);

  const setFilter = (name: string, value: string) => {
    const next = new URLSearchParams(params);
    if (value) next.set(name, value);
    else next.delete(name);
    navigate(`/admin/jobs${next.size ? `?${next}` : ''}`, { replace: true });
  };

  return (
    <>
      <h1>Background jobs</h1>
      <form
        class="filters"
        aria-label="Find a job by id"
        onSubmit={(e) => {
          e.preventDefault();
          if (!UUID.test(id.trim())) return setIdError('A job id is a UUID, like 0b6f…-…');
          navigate(`/admin/jobs/${id.trim()}`);
        }}
        noValidate
      >
        <TextField label="Job id" name="job_id" value={id} onValue={setId} error={idError || undefined} autoComplete="off" />
        <button type="submit">Open job</button>
      </form>
      <form class="filters" aria-label="Filter jobs" onSubmit={(e) => e.preventDefault()}>
        <SelectField
          label="Kind"
          name="kind"
          value={kind}
          onValue={(v) => setFilter('kind', v)}
          options={[{ value: '', label: 'Every kind' }, ...KINDS.map((k) => ({ value: k, label: k }))]}
        />
        <SelectField
          label="State"
          name="status"
          value={status}
          onValue={(v) => setFilter('status', v)}
          options={[{ value: '', label: 'Every state' }, ...JOB_STATES.map((s) => ({ value: s, label: s }))]}
        />
        <SelectField
          label="Tenant"
          name="tenant_id"
          value={tenant}
          onValue={(v) => setFilter('tenant_id', v)}
          options={[{ value: '', label: 'Every tenant' }, ...(tenants.data ?? []).map((t) => ({ value: t.id, label: t.slug }))]}
        />
      </form>
      <ErrorMessage error={jobs.error} />
      {jobs.data && (
        <DataTable<JobSummary>
          caption="Background jobs, newest first"
          rows={jobs.data}
          rowKey={(j) => j.id}
          empty="No job matches."
          columns={[
            { header: 'Job', cell: (j) => <Link href={`/admin/jobs/${j.id}`}>{j.kind}</Link> },
            { header: 'State', cell: (j) => <span class={`badge badge--${j.status}`}>{j.status}</span> },
            { header: 'Attempts', cell: (j) => `${j.attempts}/${j.max_attempts}` },
            { header: 'Tenant', cell: (j) => (j.tenant_id ? (slugs.get(j.tenant_id) ?? j.tenant_id) : '—'), optional: true },
            { header: 'Created', cell: (j) => formatDate(j.created_at), optional: true },
            { header: 'Error', cell: (j) => j.error_detail ?? '—', optional: true },
          ]}
        />
      )}
    </>
  );
}
