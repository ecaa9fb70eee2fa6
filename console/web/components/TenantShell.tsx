import type { ComponentChildren } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { get, post } from '../api/client.ts';
import { ApiError } from '../api/errors.ts';
import { currentLocation, navigate } from '../app/router.ts';
import { TenantSessionContext, type TenantMe, type TenantSession } from '../app/tenantSession.ts';
import { ErrorMessage } from './Alert.tsx';
import { Link } from './Link.tsx';

/** The tenant pages' nav; tenant pages add themselves here as they are registered. */
export const TENANT_NAV: Array<{ href: string; label: string }> = [{ href: '/', label: 'Home' }];

export function toTenantSignIn(expired: boolean) {
  const here = currentLocation();
  navigate(`/sign-in?next=${encodeURIComponent(here.pathname + here.search)}${expired ? '&expired=1' : ''}`, { replace: true });
}

/** Every tenant page sits in this: it loads the signed-in user (GET /me) and gives nav and sign-out. */
export function TenantShell({ children, pathname }: { children: ComponentChildren; pathname: string }) {
  const [me, setMe] = useState<TenantMe | null>(null);
  const [error, setError] = useState<unknown>(null);
  useEffect(() => {
    get<TenantMe>('/me').then(setMe, (err: unknown) => {
      if (!(err instanceof ApiError && err.status === 401)) setError(err);
    });
  }, []);
  if (error) return <main id="main"><ErrorMessage error={error} /></main>;
  if (!me) return <main id="main" aria-busy="true"><p class="loading">Loading…</p></main>;
  const session: TenantSession = {
    me,
    can: (permission) => me.permissions.includes(permission),
    signOut: async () => {
      try {
        await post('/logout');
      } finally {
        navigate('/sign-in?signed_out=1', { replace: true });
      }
    },
  };
  return (
    <TenantSessionContext.Provider value={session}>
      <header class="topbar">
        <a class="skip-link" href="#main">Skip to content</a>
        <span class="brand">{me.workspace}</span>
        <nav aria-label="Workspace">
          <ul>
            {TENANT_NAV.map((item) => (
              <li key={item.href}>
                <Link href={item.href} aria-current={pathname === item.href ? 'page' : undefined}>
                  {item.label}
                </Link>
              </li>
            ))}
          </ul>
        </nav>
        <div class="whoami">
          <span>{me.full_name ?? me.email}</span>
          <button type="button" class="secondary" onClick={() => void session.signOut()}>
            Sign out
          </button>
        </div>
      </header>
      <main id="main" tabIndex={-1}>
        {children}
      </main>
    </TenantSessionContext.Provider>
  );
}
