import { useMemo, useState } from 'preact/hooks';
import { post } from '../../api/client.ts';
import { ApiError, fieldErrors } from '../../api/errors.ts';
import { useAction, useResource } from '../../app/hooks.ts';
import { navigate } from '../../app/router.ts';
import { useStaff } from '../../app/staffSession.ts';
import { formatDate, LIFECYCLE_STATES, type Tenant } from '../../app/tenants.ts';
import { ErrorMessage } from '../../components/Alert.tsx';
import { DataTable } from '../../components/DataTable.tsx';
import { SelectField, TextField } from '../../components/Field.tsx';
import { Link } from '../../components/Link.tsx';
import { WriteButton } from '../../components/WriteButton.tsx';

/** The registry: every tenant with its state, searchable and filterable; and creating one. */
export function Tenants() {
  const tenants = useResource<Tenant[]>('/admin/tenants');
  const [search, setSearch] = useState('');
  const [state, setState] = useState('');
  const shown = useMemo(() => {
    const needle = search.trim().toLowerCase();
    return (tenants.data ?? []).filter(
      (t) =>
        (!state || t.lifecycle_state === state) &&
        (!needle || t.slug.includes(needle) || t.company.toLowerCase().includes(needle) || (t.industry ?? '').toLowerCase().includes(needle)),
    );
  }, [tenants.data, search, state]);

  return (
    <>
      <h1>Tenants</h1>
      <div class="columns">
        <section class="grow" aria-labelledby="registry-heading">
          <h2 id="registry-heading">Registry</h2>
          <form class="filters" aria-label="Search and filter tenants" onSubmit={(e) => e.preventDefault()}>
            <TextField label="Search slug, company or industry" name="search" type="search" value={search} onValue={setSearch} />
            <SelectField
              label="State"
              name="state"
              value={state}
              onValue={setState}
              options={[{ value: '', label: 'Every state' }, ...LIFECYCLE_STATES.map((s) => ({ value: s, label: s }))]}
            />
          </form>
          <ErrorMessage error={tenants.error} />
          {tenants.data && (
            <>
              <p class="count" aria-live="polite">
                {shown.length} of {tenants.data.length} tenants
              </p>
              <DataTable<Tenant>
                caption="Tenants"
                rows={shown}
                rowKey={(t) => t.id}
                empty={tenants.data.length ? 'No tenant matches.' : 'No tenant yet: create the first one.'}
                columns={[
                  { header: 'Slug', cell: (t) => <Link href={`/admin/tenants/${t.id}`}>{t.slug}</Link> },
                  { header: 'Company', cell: (t) => t.company },
                  { header: 'State', cell: (t) => <span class={`badge badge--${t.lifecycle_state}`}>{t.lifecycle_state}</span> },
                  { header: 'Industry', cell: (t) => t.industry ?? '—', optional: true },
                  { header: 'Created', cell: (t) => formatDate(t.created_at), optional: true },
                ]}
              />
            </>
          )}
          {tenants.loading && !tenants.data && <p class="loading">Loading tenants…</p>}
        </section>
        <CreateTenant />
      </div>
    </>
  );
}

function CreateTenant() {
  const { canWrite } = useStaff();
  const [slug, setSlug] = useState('');
  const [company, setCompany] = useState('');
  const [industry, setIndustry] = useState('');
  const create = useAction(() => post<Tenant>('/admin/tenants', { slug, company, industry: industry.trim() || undefined }));
  const errors = fieldErrors(create.error);
  // The slug's character rule answers 422 with a plain-string detail: it belongs to the slug field.
  const slugRule = create.error instanceof ApiError && create.error.status === 422 && typeof create.error.detail === 'string' ? create.error.detail : undefined;
  const duplicate = create.error instanceof ApiError && create.error.status === 409 ? create.error.message : undefined;
  const fieldMessage = errors.slug ?? slugRule ?? duplicate;
  const general = !fieldMessage && !errors.company && !errors.industry ? create.error : null;

  const onSubmit = async (e: Event) => {
    e.preventDefault();
    const tenant = await create.run();
    if (tenant) navigate(`/admin/tenants/${tenant.id}`);
  };
  return (
    <section class="card side" aria-labelledby="create-heading">
      <h2 id="create-heading">Create a tenant</h2>
      <form onSubmit={onSubmit} noValidate>
        <fieldset disabled={!canWrite}>
          <TextField
            label="Slug"
            name="slug"
            required
            value={slug}
            onValue={setSlug}
            error={fieldMessage}
            hint="3-63 lowercase letters, digits and hyphens; the workspace name its users sign in with."
            autoComplete="off"
          />
          <TextField label="Company" name="company" required value={company} onValue={setCompany} error={errors.company} autoComplete="organization" />
          <TextField label="Industry (optional)" name="industry" value={industry} onValue={setIndustry} error={errors.industry} />
          <ErrorMessage error={general} />
          <WriteButton pending={create.pending}>Create tenant</WriteButton>
        </fieldset>
      </form>
    </section>
  );
}
