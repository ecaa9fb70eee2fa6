import { useResource } from '../app/hooks.ts';
import { ErrorMessage } from '../components/Alert.tsx';
import { DataTable } from '../components/DataTable.tsx';
import { formatDate } from './format.ts';
import type { Member } from './types.ts';

/** The workspace's member directory (read-only) with role labels. */
export function TenantMembers() {
  const members = useResource<Member[]>('/members');
  return (
    <>
      <h1>Members</h1>
      <ErrorMessage error={members.error} />
      {members.data && (
        <>
          <p class="count">{members.data.length} active members. New members join through an invitation from your svc contact.</p>
          <DataTable
            caption="Members of the workspace"
            rows={members.data}
            rowKey={(m) => m.user_id}
            empty="No active members."
            columns={[
              { header: 'Name', cell: (m) => m.full_name || '—' },
              { header: 'E-mail', cell: (m) => m.email },
              { header: 'Roles', cell: (m) => m.roles.map((r) => r.label).join(', ') },
              { header: 'Joined', cell: (m) => formatDate(m.joined_at), optional: true },
            ]}
          />
        </>
      )}
      {!members.data && !members.error && <p class="loading">Loading members…</p>}
    </>
  );
}
