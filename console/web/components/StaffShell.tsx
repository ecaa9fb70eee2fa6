import type { ComponentChildren } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { get, post, setWriteGuard } from '../api/client.ts';
import { ApiError } from '../api/errors.ts';
import { currentLocation, navigate } from '../app/router.ts';
import { READ_ONLY_REASON, StaffSessionContext, type Employee, type StaffSession } from '../app/staffSession.ts';
import { ErrorMessage, Notice } from './Alert.tsx';
import { TopBar } from './TopBar.tsx';

const NAV = [
  { href: '/admin/tenants', label: 'Tenants' },
  { href: '/admin/operations', label: 'Operations' },
  { href: '/admin/jobs', label: 'Background jobs' },
  { href: '/admin/outbox', label: 'Outbox' },
];

/** Sends the person to sign-in, to come back here afterwards; `expired` says why. */
export function toStaffSignIn(expired: boolean) {
  const here = currentLocation();
  if (here.pathname === '/admin/sign-in') return; // several requests of one page failed together
  const next = encodeURIComponent(here.pathname + here.search);
  navigate(`/admin/sign-in?next=${next}${expired ? '&expired=1' : ''}`, { replace: true });
}

/** Every staff page sits in this: it loads who is signed in, and gives the nav and sign-out. */
export function StaffShell({ children, pathname }: { children: ComponentChildren; pathname: string }) {
  const [me, setMe] = useState<Employee | null>(null);
  const [error, setError] = useState<unknown>(null);

  useEffect(() => {
    get<Employee>('/admin/me').then(setMe, (err: unknown) => {
      if (err instanceof ApiError && err.status === 401) return; // the session-lost listener moves on
      setError(err);
    });
  }, []);

  useEffect(() => {
    if (!me) return;
    // Read-only staff: a write is refused before it leaves the browser (sign-out aside).
    setWriteGuard(me.control_role === 'onboarding_admin' ? null : (_m, path) => (path === '/admin/logout' ? null : READ_ONLY_REASON));
    return () => setWriteGuard(null);
  }, [me]);

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

  const session: StaffSession = {
    me,
    canWrite: me.control_role === 'onboarding_admin',
    readOnlyReason: READ_ONLY_REASON,
    signOut: async () => {
      try {
        await post('/admin/logout');
      } finally {
        navigate('/admin/sign-in?signed_out=1', { replace: true });
      }
    },
  };
  return (
    <StaffSessionContext.Provider value={session}>
      <TopBar
        brand="svc staff console"
        navLabel="Staff console"
        items={NAV}
        current={(href) => pathname === href || pathname.startsWith(`${href}/`)}
        who={
          <>
            {me.full_name ?? me.email} <span class="role">({me.control_role})</span>
          </>
        }
        onSignOut={() => void session.signOut()}
      />
      <main id="main" tabIndex={-1}>
        {!session.canWrite && <Notice>{READ_ONLY_REASON}</Notice>}
        {children}
      </main>
    </StaffSessionContext.Provider>
  );
}
