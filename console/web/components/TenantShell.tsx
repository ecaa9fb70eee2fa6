import type { ComponentChildren } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { get, post } from '../api/client.ts';
import { ApiError } from '../api/errors.ts';
import { currentLocation, navigate } from '../app/router.ts';
import { TenantSessionContext, type TenantMe, type TenantSession } from '../app/tenantSession.ts';
import { ErrorMessage } from './Alert.tsx';
import { TopBar } from './TopBar.tsx';
import { tenantNav } from '../tenant/nav.ts';

/** Shown while staff impersonate a user: whom, by whom, and the way back (the staff session is intact). */
function ImpersonationBanner({ me }: { me: TenantMe }) {
  if (!me.impersonated_by) return null;
  return (
    <section class="impersonation" aria-label="Impersonation">
      <span>
        You are viewing workspace {me.workspace} as {me.full_name || me.email} ({me.email}), impersonated by{' '}
        {me.impersonated_by.full_name || me.impersonated_by.email}.
      </span>
      <a href="/admin/tenants">Back to the staff console</a>
    </section>
  );
}

export function toTenantSignIn(expired: boolean) {
  const here = currentLocation();
  if (here.pathname === '/sign-in') return; // several requests of one page failed together
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
  if (error)
    return (
      <main id="main">
        <ErrorMessage error={error} />
      </main>
    );
  if (!me)
    return (
      <main id="main" aria-busy="true">
        <p class="loading">Loading…</p>
      </main>
    );
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
      <ImpersonationBanner me={me} />
      <TopBar
        brand={me.workspace}
        navLabel="Workspace"
        items={tenantNav.filter((item) => session.can(item.permission))}
        current={(href) => pathname === href || pathname.startsWith(`${href}/`)}
        who={me.full_name ?? me.email}
        onSignOut={() => void session.signOut()}
      />
      <main id="main" tabIndex={-1}>
        {children}
      </main>
    </TenantSessionContext.Provider>
  );
}
