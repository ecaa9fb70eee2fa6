/** The console's browser app: one page for every URL, chosen by the router from the registry. */
import { render } from 'preact';
import { useEffect } from 'preact/hooks';
import './styles.css';
import { onSessionLost } from './api/client.ts';
import { pages } from './app/pages.ts';
import { matchPage, useLocation } from './app/router.ts';
import { StaffShell, toStaffSignIn } from './components/StaffShell.tsx';
import { TenantShell, toTenantSignIn } from './components/TenantShell.tsx';

const EXPIRED = /expired|revoked/i;

function App() {
  const location = useLocation();
  const match = matchPage(pages, location.pathname);

  useEffect(
    () =>
      onSessionLost((error) => {
        const wasExpired = EXPIRED.test(error.message) || document.body.dataset.signedIn === 'true';
        document.body.dataset.signedIn = 'false';
        if (location.pathname.startsWith('/admin/')) toStaffSignIn(wasExpired);
        else toTenantSignIn(wasExpired);
      }),
    [location.pathname],
  );

  useEffect(() => {
    document.title = match ? `${match.page.title} · svc` : 'Page not found · svc';
  }, [match]);

  if (!match) {
    return (
      <main id="main" class="narrow">
        <h1>Page not found</h1>
        <p>
          There is no console page at <code>{location.pathname}</code>. <a href="/admin/tenants">Staff console</a> · <a href="/">Tenant console</a>
        </p>
      </main>
    );
  }
  const Page = match.page.component;
  const page = <Page params={match.params} query={location.query} />;
  if (match.page.area === 'staff') return <StaffShell pathname={location.pathname}>{page}</StaffShell>;
  if (match.page.area === 'tenant') return <TenantShell pathname={location.pathname}>{page}</TenantShell>;
  return (
    <main id="main" class="narrow">
      {page}
    </main>
  );
}

render(<App />, document.getElementById('app')!);
