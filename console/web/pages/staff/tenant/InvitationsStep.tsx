import { useState } from 'preact/hooks';
import { post } from '../../../api/client.ts';
import { fieldErrors } from '../../../api/errors.ts';
import { useAction, useResource } from '../../../app/hooks.ts';
import { useStaff } from '../../../app/staffSession.ts';
import { formatDate } from '../../../app/tenants.ts';
import { ErrorMessage, Notice } from '../../../components/Alert.tsx';
import { DataTable } from '../../../components/DataTable.tsx';
import { SelectField, TextField } from '../../../components/Field.tsx';
import { WriteButton } from '../../../components/WriteButton.tsx';
import type { StepProps } from './TenantOnboarding.tsx';

interface Invitation {
  id: string;
  email: string;
  full_name: string | null;
  role_profile: string;
  status: 'pending' | 'accepted';
  expired: boolean;
  expires_at: string;
  accepted_at: string | null;
}

const ROLE_PROFILES = [
  { value: 'admin', label: 'admin (every permission)' },
  { value: 'analyst', label: 'analyst' },
  { value: 'viewer', label: 'viewer (read only)' },
];

/** Step 6: invite users with a role profile; the list with each invitation's state and expiry. */
export function InvitationsStep({ tenant }: StepProps) {
  const { canWrite } = useStaff();
  const invitations = useResource<Invitation[]>(`/admin/tenants/${tenant.id}/invitations`);
  const [email, setEmail] = useState('');
  const [fullName, setFullName] = useState('');
  const [role, setRole] = useState('admin');
  const [sent, setSent] = useState<string | null>(null);
  const invite = useAction(() =>
    post<Invitation>(`/admin/tenants/${tenant.id}/invite`, { email, role_profile: role, full_name: fullName.trim() || undefined }),
  );
  const errors = fieldErrors(invite.error);

  return (
    <section id="invitations" aria-labelledby="invitations-heading">
      <h2 id="invitations-heading">6. Invitations</h2>
      <form
        onSubmit={async (e) => {
          e.preventDefault();
          const created = await invite.run();
          if (created) {
            setSent(created.email);
            setEmail('');
            setFullName('');
            await invitations.reload();
          }
        }}
        noValidate
      >
        <fieldset disabled={!canWrite}>
          <TextField label="E-mail of the person to invite" name="invite_email" type="email" required value={email} onValue={setEmail} error={errors.email} />
          <TextField label="Their full name (optional)" name="invite_full_name" value={fullName} onValue={setFullName} error={errors.full_name} />
          <SelectField label="Role profile" name="role_profile" value={role} onValue={setRole} options={ROLE_PROFILES} error={errors.role_profile} />
          {Object.keys(errors).length === 0 && <ErrorMessage error={invite.error} />}
          {sent && <Notice tone="success">Invitation sent to {sent}. The link is valid for 7 days.</Notice>}
          <WriteButton pending={invite.pending}>Send invitation</WriteButton>
        </fieldset>
      </form>
      <ErrorMessage error={invitations.error} />
      {invitations.data && (
        <DataTable<Invitation>
          caption="Invitations"
          rows={invitations.data}
          rowKey={(i) => i.id}
          empty="No invitation yet."
          columns={[
            { header: 'E-mail', cell: (i) => i.email },
            { header: 'Role', cell: (i) => i.role_profile },
            {
              header: 'State',
              cell: (i) => {
                const state = i.status === 'pending' && i.expired ? 'expired' : i.status;
                return <span class={`badge badge--${state}`}>{state}</span>;
              },
            },
            { header: 'Expires', cell: (i) => (i.status === 'accepted' ? `accepted ${formatDate(i.accepted_at)}` : formatDate(i.expires_at)), optional: true },
          ]}
        />
      )}
    </section>
  );
}
