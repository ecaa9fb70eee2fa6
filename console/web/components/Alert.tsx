import type { ComponentChildren } from 'preact';
import { errorText } from '../api/errors.ts';

/** An error shown in place, as the API's `detail` in words; announced to screen readers. */
export function ErrorMessage({ error }: { error: unknown }) {
  if (!error) return null;
  return (
    <div class="alert alert--error" role="alert">
      {errorText(error)}
    </div>
  );
}

export function Notice({ children, tone = 'info' }: { children: ComponentChildren; tone?: 'info' | 'success' | 'warning' }) {
  return (
    <div class={`alert alert--${tone}`} role="status">
      {children}
    </div>
  );
}
