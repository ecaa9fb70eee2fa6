import { post } from '../../api/client.ts';
import { navigate } from '../../app/router.ts';
import { Notice } from '../../components/Alert.tsx';
import { Link } from '../../components/Link.tsx';
import { NewPasswordForm } from '../../components/NewPasswordForm.tsx';

/** The page of the staff reset link (`/admin/reset-password?token=…`). */
export function StaffResetPassword({ query }: { query: URLSearchParams }) {
  const token = query.get('token');
  return (
    <section class="card">
      <h1>Choose a new staff password</h1>
      {token ? (
        <NewPasswordForm
          label="Set password"
          submit={async (password) => {
            await post('/admin/password-reset/confirm', { token, password });
            navigate('/admin/sign-in?reset=1', { replace: true });
          }}
        />
      ) : (
        <Notice tone="warning">This link has no reset token. Ask for a new link.</Notice>
      )}
      <p>
        <Link href="/admin/forgot-password">Ask for a new link</Link>
      </p>
    </section>
  );
}
