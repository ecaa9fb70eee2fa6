import { useState } from 'preact/hooks';
import { post } from '../../api/client.ts';
import { navigate } from '../../app/router.ts';
import { Notice } from '../../components/Alert.tsx';
import { TextField } from '../../components/Field.tsx';
import { NewPasswordForm } from '../../components/NewPasswordForm.tsx';

/** The page of the invitation link (`/accept-invite?workspace=…&token=…`): choose a password, signed in. */
export function AcceptInvite({ query }: { query: URLSearchParams }) {
  const workspace = query.get('workspace');
  const token = query.get('token');
  const [fullName, setFullName] = useState('');
  if (!workspace || !token) {
    return (
      <section class="card">
        <h1>Accept your invitation</h1>
        <Notice tone="warning">This invitation link is incomplete. Open the link from the e-mail again, or ask for a new invitation.</Notice>
      </section>
    );
  }
  return (
    <section class="card">
      <h1>Accept your invitation</h1>
      <p>
        You are joining the workspace <strong>{workspace}</strong>. Choose your password to finish.
      </p>
      <NewPasswordForm
        label="Accept and sign in"
        extra={<TextField label="Your full name (optional)" name="full_name" autoComplete="name" value={fullName} onValue={setFullName} />}
        submit={async (password) => {
          await post('/accept-invite', { workspace, token, password, full_name: fullName.trim() || undefined });
          document.body.dataset.signedIn = 'true';
          navigate('/', { replace: true });
        }}
      />
    </section>
  );
}
