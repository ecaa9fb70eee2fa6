import { post } from '../../api/client.ts';
import { navigate } from '../../app/router.ts';
import { Notice } from '../../components/Alert.tsx';
import { NewPasswordForm } from '../../components/NewPasswordForm.tsx';

/** The page of a tenant user's reset link (`/reset-password?workspace=…&token=…`). */
export function TenantResetPassword({ query }: { query: URLSearchParams }) {
  const token = query.get('token');
  const workspace = query.get('workspace') ?? undefined;
  return (
    <section class="card">
      <h1>Choose a new password</h1>
      {token ? (
        <NewPasswordForm
          label="Set password"
          submit={async (password) => {
            await post('/password-reset/confirm', { token, password, workspace });
            navigate(`/sign-in?reset=1${workspace ? `&workspace=${encodeURIComponent(workspace)}` : ''}`, { replace: true });
          }}
        />
      ) : (
        <Notice tone="warning">This link has no reset token. Ask for a new link.</Notice>
      )}
    </section>
  );
}
