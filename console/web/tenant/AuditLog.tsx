import { useResource } from '../app/hooks.ts';
import { navigate } from '../app/router.ts';
import { useTenant } from '../app/tenantSession.ts';
import { ErrorMessage } from '../components/Alert.tsx';
import { DataTable } from '../components/DataTable.tsx';
import { SelectField } from '../components/Field.tsx';
import { formatDateTime, statusLabel } from './format.ts';
import type { AuditEntry, Member } from './types.ts';

const LIMITS = ['20', '50', '100', '200'];
/** The API's default page and its ceiling (GET /remediation/audit-log clamps `limit` to 1..200). */
const DEFAULT_LIMIT = '50';

/** The most recent audit entries (the API's limit, at most 200) and the whole history as a spreadsheet. */
export function TenantAuditLog({ query }: { query: URLSearchParams }) {
  const { can } = useTenant();
  const limit = LIMITS.includes(query.get('limit') ?? '') ? query.get('limit')! : DEFAULT_LIMIT;
  const entries = useResource<AuditEntry[]>(`/remediation/audit-log?limit=${limit}`);
  const members = useResource<Member[]>(can('members.read') ? '/members' : null);
  const names = new Map((members.data ?? []).map((m) => [m.user_id, m.full_name || m.email]));
  const actor = (e: AuditEntry) =>
    e.actor_type === 'employee' ? 'svc staff' : e.actor_type === 'system' ? 'svc' : (names.get(e.actor_id ?? '') ?? `user ${e.actor_id?.slice(0, 8) ?? ''}`);
  return (
    <>
      <h1>Audit log</h1>
      <div class="filters">
        <SelectField
          label="Entries shown"
          name="limit"
          value={limit}
          onValue={(v) => navigate(`/remediation/audit-log?limit=${v}`, { replace: true })}
          options={LIMITS.map((l) => ({ value: l, label: `The latest ${l}` }))}
        />
        {can('exports.create') && (
          <p>
            {/* A plain download: the browser streams the workbook to disk, the page never holds it. */}
            <a class="button" href="/api/backend/remediation/export.xlsx" download>
              Download the whole history (.xlsx)
            </a>
          </p>
        )}
      </div>
      <p class="count">The log shows at most 200 entries; the spreadsheet holds every plan, review and entry.</p>
      <ErrorMessage error={entries.error} />
      {entries.data && (
        <DataTable
          caption="Audit entries, most recent first"
          rows={entries.data}
          rowKey={(e) => e.id}
          empty="Nothing recorded yet."
          columns={[
            { header: 'When', cell: (e) => formatDateTime(e.occurred_at) },
            { header: 'Action', cell: (e) => statusLabel(e.action) },
            { header: 'By', cell: actor },
            { header: 'On', cell: (e) => (e.resource_type ? `${e.resource_type} ${e.resource_id?.slice(0, 8) ?? ''}` : '—'), optional: true },
            { header: 'Details', cell: (e) => detailsOf(e.metadata), optional: true },
          ]}
        />
      )}
    </>
  );
}

/** "status: draft → submitted" for a change record `{status: {from, to}}`. */
function changesOf(changes: unknown): string[] {
  if (!changes || typeof changes !== 'object') return [];
  return Object.entries(changes as Record<string, { from?: unknown; to?: unknown }>).map(
    ([field, c]) => `${field}: ${String(c?.from ?? '—')} → ${String(c?.to ?? '—')}`,
  );
}

function detailsOf(metadata: Record<string, unknown>): string {
  const parts = [
    ...changesOf(metadata.changes),
    ...Object.entries(metadata)
      .filter(([, v]) => v !== null && v !== undefined && typeof v !== 'object')
      .map(([k, v]) => `${k}: ${String(v)}`),
  ];
  return parts.join(', ') || '—';
}
