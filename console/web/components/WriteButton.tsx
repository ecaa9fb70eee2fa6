import type { ComponentChildren, JSX } from 'preact';
import { useStaff } from '../app/staffSession.ts';

type Props = { children: ComponentChildren; pending?: boolean } & JSX.ButtonHTMLAttributes<HTMLButtonElement>;

/**
 * A button that changes something. For a read-only role it is disabled and says why (the reason is
 * its accessible description and shown next to it), so no write can be sent from it.
 */
export function WriteButton({ children, pending, disabled, ...rest }: Props) {
  const { canWrite, readOnlyReason } = useStaff();
  return (
    <button
      type="submit"
      {...rest}
      disabled={!canWrite || pending || Boolean(disabled)}
      aria-busy={pending ? 'true' : undefined}
      title={canWrite ? undefined : readOnlyReason}
    >
      {pending ? 'Working…' : children}
    </button>
  );
}
