/** The signed-in employee, for every staff page: who, and whether their role may change anything. */
import { createContext } from 'preact';
import { useContext } from 'preact/hooks';

export interface Employee {
  id: string;
  email: string;
  full_name: string | null;
  control_role: 'onboarding_admin' | 'support_readonly';
}

export interface StaffSession {
  me: Employee;
  canWrite: boolean;
  /** Why write controls are disabled (support_readonly). */
  readOnlyReason: string;
  signOut: () => Promise<void>;
}

export const READ_ONLY_REASON = 'Your role (support_readonly) can see everything but change nothing.';

export const StaffSessionContext = createContext<StaffSession | null>(null);

export function useStaff(): StaffSession {
  const session = useContext(StaffSessionContext);
  if (!session) throw new Error('useStaff outside the staff shell');
  return session;
}

/** Where sign-in sends a person back to: a local path only (never another origin). */
export function safeNext(next: string | null, fallback: string): string {
  return next && next.startsWith('/') && !next.startsWith('//') ? next : fallback;
}
