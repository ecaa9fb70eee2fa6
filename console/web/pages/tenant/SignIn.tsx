import { useState } from 'preact/hooks';
import { post } from '../../api/client.ts';
import { useAction } from '../../app/hooks.ts';
import { navigate } from '../../app/router.ts';
import { safeNext } from '../../app/staffSession.ts';
import { ErrorMessage, Notice } from '../../components/Alert.tsx';
import { TextField } from '../../components/Field.tsx';

export function TenantSignIn({ query }: { query: URLSearchParams }) {
  const [workspace, setWorkspace] = useState(query.get('workspace') ?? '');
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const signIn = useAction(() => post('/login', { workspace: workspace.trim(), email, password }));
  const onSubmit = async (e: Event) => {
    e.preventDefault();
    if ((await signIn.run()) === undefined) return;
    document.body.dataset.signedIn = 'true';
    navigate(safeNext(query.get('next'), '/'), { replace: true });
  };
  return (
    <section class="card">
      <h1>Sign in to your workspace</h1>
      {query.get('expired') && <Notice tone="warning">Your session has expired. Sign in again to go back to the page you were on.</Notice>}
      {query.get('signed_out') && <Notice>You are signed out.</Notice>}
      {query.get('reset') && <Notice tone="success">Your password was changed. Sign in with the new one.</Notice>}
      <form onSubmit={onSubmit} noValidate>
        <TextField label="Workspace" name="workspace" required autoComplete="organization" value={workspace} onValue={setWorkspace} />
        <TextField label="E-mail" name="email" type="email" autoComplete="username" required value={email} onValue={setEmail} />
        <TextField label="Password" name="password" type="password" autoComplete="current-password" required value={password} onValue={setPassword} />
        <ErrorMessage error={signIn.error} />
        <button type="submit" disabled={signIn.pending}>
          Sign in
        </button>
      </form>
    </section>
  );
}
