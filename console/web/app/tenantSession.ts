/** The signed-in tenant user, for every tenant page. */
import { createContext } from 'preact';
import { useContext } from 'preact/hooks';

export interface TenantMe {
  user_id: string;
  workspace: string;
  email: string;
  full_name: string | null;
  permissions: string[];
  /** The staff member impersonating this user in this session, or null. */
  impersonated_by: { employee_id: string; email: string; full_name: string } | null;
}

export interface TenantSession {
  me: TenantMe;
  can: (permission: string) => boolean;
  signOut: () => Promise<void>;
}

export const TenantSessionContext = createContext<TenantSession | null>(null);

export function useTenant(): TenantSession {
  const session = useContext(TenantSessionContext);
  if (!session) throw new Error('useTenant outside the tenant shell');
  return session;
}
