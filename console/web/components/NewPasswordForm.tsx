import { useState } from 'preact/hooks';
import { fieldErrors } from '../api/errors.ts';
import { useAction } from '../app/hooks.ts';
import { ErrorMessage } from './Alert.tsx';
import { TextField } from './Field.tsx';

export const MIN_PASSWORD_LENGTH = 8;

/** New password twice, checked for a match here and for the API's rules there; errors in place. */
export function NewPasswordForm({ submit, label, extra }: { submit: (password: string) => Promise<unknown>; label: string; extra?: preact.ComponentChildren }) {
  const [password, setPassword] = useState('');
  const [repeat, setRepeat] = useState('');
  const [mismatch, setMismatch] = useState('');
  const action = useAction(submit);
  const errors = fieldErrors(action.error);
  const onSubmit = (e: Event) => {
    e.preventDefault();
    if (password !== repeat) return setMismatch('The two passwords differ.');
    setMismatch('');
    void action.run(password);
  };
  return (
    <form onSubmit={onSubmit} noValidate>
      {extra}
      <TextField
        label="New password"
        name="password"
        type="password"
        autoComplete="new-password"
        required
        minLength={MIN_PASSWORD_LENGTH}
        hint={`At least ${MIN_PASSWORD_LENGTH} characters.`}
        value={password}
        onValue={setPassword}
        error={errors.password}
      />
      <TextField
        label="Repeat the new password"
        name="repeat"
        type="password"
        autoComplete="new-password"
        required
        value={repeat}
        onValue={setRepeat}
        error={mismatch || undefined}
      />
      {Object.keys(errors).length === 0 && <ErrorMessage error={action.error} />}
      <button type="submit" disabled={action.pending}>
        {label}
      </button>
    </form>
  );
}
