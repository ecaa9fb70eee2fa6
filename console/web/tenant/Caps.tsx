import { useMemo, useState } from 'preact/hooks';
import { useResource } from '../app/hooks.ts';
import { navigate } from '../app/router.ts';
import { useTenant } from '../app/tenantSession.ts';
import { ErrorMessage } from '../components/Alert.tsx';
import { SelectField, TextField } from '../components/Field.tsx';
import { Link } from '../components/Link.tsx';
import { capPath } from './caps.ts';
import { formatDate, statusLabel } from './format.ts';
import { CAP_STATUSES, CAP_TARGET_TYPES, type Cap } from './types.ts';

/** Rows per page: the API answers every CAP at once, the page shows them a page at a time. */
export const CAPS_PER_PAGE = 50;

const ALL = '';

/** The CAPs, filterable by target (sent to the API) and status, paged on the client. */
export function TenantCaps({ query }: { query: URLSearchParams }) {
  const { can } = useTenant();
  const targetType = query.get('target_type') ?? ALL;
  const targetId = query.get('target_id') ?? '';
  const [status, setStatus] = useState(ALL);
  const [idInput, setIdInput] = useState(targetId);
  const page = Math.max(1, Number(query.get('page')) || 1);
  const apiQuery = new URLSearchParams();
  if (targetType) apiQuery.set('target_type', targetType);
  if (targetType && targetId) apiQuery.set('target_id', targetId);
  const caps = useResource<Cap[]>(`/remediation/caps${apiQuery.size ? `?${apiQuery}` : ''}`);
  const shown = useMemo(() => (caps.data ?? []).filter((c) => status === ALL || c.status === status), [caps.data, status]);
  const pages = Math.max(1, Math.ceil(shown.length / CAPS_PER_PAGE));
  const current = Math.min(page, pages);
  const rows = shown.slice((current - 1) * CAPS_PER_PAGE, current * CAPS_PER_PAGE);

  const go = (changes: Record<string, string>) => {
    const next = new URLSearchParams(query);
    for (const [k, v] of Object.entries(changes)) {
      if (v) next.set(k, v);
      else next.delete(k);
    }
    navigate(`/remediation/caps${next.size ? `?${next}` : ''}`, { replace: true });
  };

  return (
    <>
      <h1>Corrective action plans</h1>
      {can('caps.write') && (
        <p>
          <Link
            href={`/remediation/caps/new${targetType && targetId ? `?target_type=${targetType}&target_id=${encodeURIComponent(targetId)}` : ''}`}
            class="button"
          >
            New plan
          </Link>
        </p>
      )}
      <form
        class="filters"
        aria-label="Filter plans"
        onSubmit={(e) => {
          e.preventDefault();
          go({ target_id: idInput.trim(), page: '' });
        }}
      >
        <SelectField
          label="Target type"
          name="target_type"
          value={targetType}
          onValue={(v) => go({ target_type: v, target_id: v ? idInput.trim() : '', page: '' })}
          options={[{ value: ALL, label: 'Any' }, ...CAP_TARGET_TYPES.map((t) => ({ value: t, label: statusLabel(t) }))]}
        />
        <TextField
          label="Target id"
          name="target_id"
          value={idInput}
          onValue={setIdInput}
          disabled={!targetType}
          hint={targetType ? undefined : 'Choose a target type first.'}
        />
        <SelectField
          label="Status"
          name="status"
          value={status}
          onValue={(v) => {
            setStatus(v);
            go({ page: '' });
          }}
          options={[{ value: ALL, label: 'Any' }, ...CAP_STATUSES.map((s) => ({ value: s, label: statusLabel(s) }))]}
        />
        <button type="submit" class="secondary" disabled={!targetType}>
          Apply target
        </button>
      </form>
      <ErrorMessage error={caps.error} />
      {!caps.data && !caps.error && <p class="loading">Loading plans…</p>}
      {caps.data && (
        <>
          <p class="count" role="status">
            {shown.length === 0
              ? 'No plans match.'
              : `Plans ${(current - 1) * CAPS_PER_PAGE + 1}–${(current - 1) * CAPS_PER_PAGE + rows.length} of ${shown.length}`}
          </p>
          {rows.length > 0 && (
            <div class="table-wrap">
              <table>
                <caption class="visually-hidden">Corrective action plans, newest first</caption>
                <thead>
                  <tr>
                    <th scope="col">Title</th>
                    <th scope="col">Status</th>
                    <th scope="col" class="optional">
                      Target
                    </th>
                    <th scope="col" class="optional">
                      Due
                    </th>
                    <th scope="col" class="optional">
                      Created
                    </th>
                  </tr>
                </thead>
                <tbody>
                  {rows.map((c) => (
                    <tr key={c.id}>
                      <td>
                        <Link href={capPath(c)}>{c.title}</Link>
                      </td>
                      <td>
                        <span class={`badge badge--cap-${c.status}`}>{statusLabel(c.status)}</span>
                      </td>
                      <td class="optional">
                        {statusLabel(c.target_type)} <code>{c.target_id.length > 14 ? `${c.target_id.slice(0, 8)}…` : c.target_id}</code>
                      </td>
                      <td class="optional">{formatDate(c.due_date)}</td>
                      <td class="optional">{formatDate(c.created_at)}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )}
          {pages > 1 && (
            <nav class="pager" aria-label="Pages of plans">
              <button type="button" class="secondary" disabled={current <= 1} onClick={() => go({ page: String(current - 1) })}>
                Previous
              </button>
              <span>
                Page {current} of {pages}
              </span>
              <button type="button" class="secondary" disabled={current >= pages} onClick={() => go({ page: String(current + 1) })}>
                Next
              </button>
            </nav>
          )}
        </>
      )}
    </>
  );
}
