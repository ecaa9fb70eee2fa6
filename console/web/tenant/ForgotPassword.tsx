import { useState } from 'preact/hooks';
import { post } from '../api/client.ts';
import { useAction } from '../app/hooks.ts';
import { ErrorMessage, Notice } from '../components/Alert.tsx';
import { TextField } from '../components/Field.tsx';
import { Link } from '../components/Link.tsx';

/** Asks for a reset link. The API never says whether the account exists, so neither does the page. */
export function TenantForgotPassword({ query }: { query: URLSearchParams }) {
  const [workspace, setWorkspace] = useState(query.get('workspace') ?? '');
  const [email, setEmail] = useState('');
  const [sent, setSent] = useState(false);
  const request = useAction(() => post('/password-reset/request', { workspace: workspace.trim(), email: email.trim() }));
  const onSubmit = async (e: Event) => {
    e.preventDefault();
    if ((await request.run()) !== undefined) setSent(true);
  };
  return (
    <section class="card">
      <h1>Reset your password</h1>
      {sent ? (
        <>
          <Notice tone="success">
            If {email} has an account in the workspace {workspace}, a link to choose a new password is on its way. It works for one hour.
          </Notice>
          <p>
            <Link href={`/sign-in?workspace=${encodeURIComponent(workspace)}`}>Back to sign-in</Link>
          </p>
        </>
      ) : (
        <form onSubmit={onSubmit} noValidate>
          <TextField label="Workspace" name="workspace" required autoComplete="organization" value={workspace} onValue={setWorkspace} />
          <TextField label="E-mail" name="email" type="email" autoComplete="username" required value={email} onValue={setEmail} />
          <ErrorMessage error={request.error} />
          <div class="actions">
            <button type="submit" disabled={request.pending}>
              Send the reset link
            </button>
            <Link href="/sign-in">Back to sign-in</Link>
          </div>
        </form>
      )}
    </section>
  );
}
