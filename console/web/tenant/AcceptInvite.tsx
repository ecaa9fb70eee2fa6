import { useState } from 'preact/hooks';
import { post } from '../api/client.ts';
import { ApiError } from '../api/errors.ts';
import { navigate } from '../app/router.ts';
import { Notice } from '../components/Alert.tsx';
import { TextField } from '../components/Field.tsx';
import { Link } from '../components/Link.tsx';
import { MIN_PASSWORD_LENGTH, NewPasswordForm } from '../components/NewPasswordForm.tsx';

/** What the API answers (400) for an invitation that was used, has expired or never existed. */
const NOT_PENDING = 400;

function InvitationUnusable({ workspace }: { workspace: string | null }) {
  return (
    <section class="card">
      <h1>This invitation can no longer be used</h1>
      <p>The link has expired (invitations last 7 days), has already been used, or is not a complete invitation link.</p>
      <ul>
        <li>
          If you already accepted it, <Link href={`/sign-in${workspace ? `?workspace=${encodeURIComponent(workspace)}` : ''}`}>sign in</Link> with the password
          you chose, or <Link href={`/forgot-password${workspace ? `?workspace=${encodeURIComponent(workspace)}` : ''}`}>reset it</Link>.
        </li>
        <li>Otherwise ask the person who invited you (or your svc contact) to send a new invitation.</li>
      </ul>
    </section>
  );
}

/**
 * The page of the invitation link (`/accept-invite?workspace=…&token=…`): the password rules are
 * shown before submitting; an expired or used invitation gets its own page; success lands signed in.
 */
export function TenantAcceptInvite({ query }: { query: URLSearchParams }) {
  const workspace = query.get('workspace');
  const token = query.get('token');
  const [fullName, setFullName] = useState('');
  const [unusable, setUnusable] = useState(false);
  if (!workspace || !token || unusable) return <InvitationUnusable workspace={workspace} />;
  return (
    <section class="card">
      <h1>Accept your invitation</h1>
      <p>
        You are joining the workspace <strong>{workspace}</strong>. Choose your password to finish; you are signed in straight after.
      </p>
      <Notice>
        Your password needs at least {MIN_PASSWORD_LENGTH} characters. A long passphrase of several words is easier to remember and harder to guess.
      </Notice>
      <NewPasswordForm
        label="Accept and sign in"
        extra={<TextField label="Your full name (optional)" name="full_name" autoComplete="name" value={fullName} onValue={setFullName} />}
        submit={async (password) => {
          try {
            await post('/accept-invite', { workspace, token, password, full_name: fullName.trim() || undefined });
          } catch (err) {
            if (err instanceof ApiError && err.status === NOT_PENDING) setUnusable(true);
            throw err;
          }
          document.body.dataset.signedIn = 'true';
          navigate('/insights?welcome=1', { replace: true });
        }}
      />
    </section>
  );
}
