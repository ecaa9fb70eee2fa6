import { useState } from 'preact/hooks';
import { post } from '../../api/client.ts';
import { useAction } from '../../app/hooks.ts';
import { ErrorMessage, Notice } from '../../components/Alert.tsx';
import { TextField } from '../../components/Field.tsx';
import { Link } from '../../components/Link.tsx';

export function StaffForgotPassword() {
  const [email, setEmail] = useState('');
  const [sent, setSent] = useState(false);
  const request = useAction(async () => {
    await post('/admin/password-reset/request', { email });
    return true;
  });
  const onSubmit = async (e: Event) => {
    e.preventDefault();
    if (await request.run()) setSent(true);
  };
  return (
    <section class="card">
      <h1>Reset your staff password</h1>
      {sent ? (
        <Notice tone="success">If that address belongs to an employee, an e-mail with a reset link is on its way. The link works once.</Notice>
      ) : (
        <form onSubmit={onSubmit} noValidate>
          <TextField label="E-mail" name="email" type="email" autoComplete="username" required value={email} onValue={setEmail} />
          <ErrorMessage error={request.error} />
          <button type="submit" disabled={request.pending}>
            Send reset link
          </button>
        </form>
      )}
      <p>
        <Link href="/admin/sign-in">Back to sign-in</Link>
      </p>
    </section>
  );
}
