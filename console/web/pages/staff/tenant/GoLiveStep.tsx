import { useState } from 'preact/hooks';
import { post } from '../../../api/client.ts';
import { ApiError } from '../../../api/errors.ts';
import { useAction } from '../../../app/hooks.ts';
import { ErrorMessage, Notice } from '../../../components/Alert.tsx';
import { WriteButton } from '../../../components/WriteButton.tsx';
import type { StepProps } from './TenantOnboarding.tsx';

/** The go-live 409's prerequisites and the step of this page that fulfils each. */
const PREREQUISITE_STEPS: Record<string, { href: string; action: string }> = {
  'historical data ingested': { href: '#upload', action: 'Upload and commit historical data' },
  'a model checkpoint activated': { href: '#train', action: 'Train a model and activate a checkpoint' },
  'at least one user invited': { href: '#invitations', action: 'Invite at least one user' },
};

function missingPrerequisites(error: unknown): string[] | null {
  if (!(error instanceof ApiError) || error.status !== 409) return null;
  const detail = error.detail as { missing?: unknown };
  return detail && typeof detail === 'object' && Array.isArray(detail.missing) ? (detail.missing as string[]) : null;
}

/** Step 7: go live (the missing prerequisites as a checklist), then impersonation in a new tab. */
export function GoLiveStep({ tenant, onTenantChanged }: StepProps) {
  const goLive = useAction(() => post(`/admin/tenants/${tenant.id}/go-live`));
  const [impersonating, setImpersonating] = useState<string | null>(null);
  const impersonate = useAction(() => post<{ email: string; workspace: string }>(`/admin/tenants/${tenant.id}/impersonate`));
  const missing = missingPrerequisites(goLive.error);
  const live = tenant.lifecycle_state === 'live';

  const openTenantConsole = async (e: Event) => {
    e.preventDefault();
    // Opened at the click (a tab opened after an await is a blocked pop-up), pointed at the console once the session exists.
    const tab = window.open('about:blank', '_blank');
    const me = await impersonate.run();
    if (!me) return tab?.close();
    setImpersonating(me.email);
    if (tab) tab.location.href = '/';
  };

  return (
    <section id="go-live" aria-labelledby="go-live-heading">
      <h2 id="go-live-heading">7. Go live and impersonate</h2>
      {live ? (
        <Notice tone="success">The tenant is live: its users can sign in.</Notice>
      ) : (
        <form
          onSubmit={async (e) => {
            e.preventDefault();
            if (await goLive.run()) onTenantChanged();
          }}
        >
          {missing ? (
            <div class="alert alert--warning" role="alert">
              <p>{goLive.error instanceof Error ? goLive.error.message : ''} Still missing:</p>
              <ul class="checklist">
                {missing.map((m) => (
                  <li key={m}>
                    <span aria-hidden="true">☐ </span>
                    {m}: <a href={PREREQUISITE_STEPS[m]?.href ?? '#provision'}>{PREREQUISITE_STEPS[m]?.action ?? 'complete this step'}</a>
                  </li>
                ))}
              </ul>
            </div>
          ) : (
            <ErrorMessage error={goLive.error} />
          )}
          <WriteButton pending={goLive.pending}>Go live</WriteButton>
        </form>
      )}
      <form onSubmit={openTenantConsole}>
        <p>Opens the tenant console in a new tab as the tenant’s earliest active user; your staff session stays signed in here.</p>
        {!live && <p class="field__hint">Impersonation needs a live tenant.</p>}
        <ErrorMessage error={impersonate.error} />
        {impersonating && <Notice>Tenant console opened in a new tab as {impersonating}.</Notice>}
        <WriteButton pending={impersonate.pending} disabled={!live}>
          Open the tenant console as a user
        </WriteButton>
      </form>
    </section>
  );
}
