import { useEffect, useState } from 'preact/hooks';
import { post } from '../api/client.ts';
import { ApiError } from '../api/errors.ts';
import { useAction } from '../app/hooks.ts';
import { navigate } from '../app/router.ts';
import { safeNext } from '../app/staffSession.ts';
import { ErrorMessage, Notice } from '../components/Alert.tsx';
import { SelectField, TextField } from '../components/Field.tsx';
import { Link } from '../components/Link.tsx';
import { retryIn } from './format.ts';

interface Workspace {
  client_id: string;
  company: string;
  industry: string | null;
}

const TYPED = '';

/**
 * Tenant sign-in: pick a live workspace (GET /workspaces, read by the console) or type its slug, then e-mail and
 * password. A wrong anything is the API's one deliberate "Invalid workspace, email, or password.";
 * the rate limit's 429 says when to try again (Retry-After).
 */
export function TenantSignIn({ query }: { query: URLSearchParams }) {
  const [workspaces, setWorkspaces] = useState<Workspace[] | null>(null);
  const [picked, setPicked] = useState(query.get('workspace') ?? TYPED);
  const [typed, setTyped] = useState(query.get('workspace') ?? '');
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  useEffect(() => {
    // The console's own copy of GET /workspaces (console/server/workspaceList.ts): the proxy keeps
    // its ten public paths, and the list is only a convenience, so a failure leaves the typed slug.
    fetch('/workspaces.json')
      .then((res) => (res.ok ? (res.json() as Promise<Workspace[]>) : []))
      .then(setWorkspaces, () => setWorkspaces([]));
  }, []);
  const listed = workspaces?.some((w) => w.client_id === picked) ?? false;
  const workspace = (listed ? picked : typed).trim();
  const signIn = useAction(() => post('/login', { workspace, email, password }));
  const onSubmit = async (e: Event) => {
    e.preventDefault();
    if ((await signIn.run()) === undefined) return;
    document.body.dataset.signedIn = 'true';
    navigate(safeNext(query.get('next'), '/insights'), { replace: true });
  };
  const limited = signIn.error instanceof ApiError && signIn.error.status === 429 ? signIn.error : null;
  return (
    <section class="card">
      <h1>Sign in to your workspace</h1>
      {query.get('expired') && <Notice tone="warning">Your session has expired. Sign in again to go back to the page you were on.</Notice>}
      {query.get('signed_out') && <Notice>You are signed out.</Notice>}
      {query.get('reset') && <Notice tone="success">Your password was changed. Sign in with the new one.</Notice>}
      <form onSubmit={onSubmit} noValidate>
        {workspaces && workspaces.length > 0 && (
          <SelectField
            label="Workspace"
            name="workspace_pick"
            value={listed ? picked : TYPED}
            onValue={setPicked}
            options={[
              ...workspaces.map((w) => ({ value: w.client_id, label: `${w.company} (${w.client_id})` })),
              { value: TYPED, label: 'Another workspace: type its name' },
            ]}
          />
        )}
        {!listed && (
          <TextField
            label={workspaces && workspaces.length > 0 ? 'Workspace name' : 'Workspace'}
            name="workspace"
            required
            autoComplete="organization"
            hint="The short name of your organisation's workspace, as in your invitation (for example acme-industrial)."
            value={typed}
            onValue={setTyped}
          />
        )}
        <TextField label="E-mail" name="email" type="email" autoComplete="username" required value={email} onValue={setEmail} />
        <TextField label="Password" name="password" type="password" autoComplete="current-password" required value={password} onValue={setPassword} />
        {limited ? (
          <div class="alert alert--error" role="alert">
            {limited.message}
            {limited.retryAfter !== null && ` You can try again ${retryIn(limited.retryAfter)}.`}
          </div>
        ) : (
          <ErrorMessage error={signIn.error} />
        )}
        <div class="actions">
          <button type="submit" disabled={signIn.pending}>
            Sign in
          </button>
          <Link href={`/forgot-password${workspace ? `?workspace=${encodeURIComponent(workspace)}` : ''}`}>Forgot your password?</Link>
        </div>
      </form>
    </section>
  );
}
