import { useEffect } from 'preact/hooks';
import { post } from '../../../api/client.ts';
import { ACTIVE_JOB_STATES, useAction, usePolling } from '../../../app/hooks.ts';
import { ErrorMessage } from '../../../components/Alert.tsx';
import { JobProgress, type JobStatus } from '../../../components/JobProgress.tsx';
import { WriteButton } from '../../../components/WriteButton.tsx';
import type { StepProps } from './TenantOnboarding.tsx';

/** Step 1: provision the tenant's schema; progress and steps polled from the status route until terminal. */
export function ProvisionStep({ tenant, onTenantChanged }: StepProps) {
  const status = usePolling<JobStatus>(`/admin/tenants/${tenant.id}/provision/status`, (s) => ACTIVE_JOB_STATES.includes(s.status));
  const provision = useAction(() => post(`/admin/tenants/${tenant.id}/provision`));
  const finished = status.data?.status === 'succeeded';
  useEffect(() => {
    if (finished && tenant.lifecycle_state === 'provisioning') onTenantChanged();
  }, [finished, tenant.lifecycle_state]);
  const provisionable = ['draft', 'provisioning', 'onboarding'].includes(tenant.lifecycle_state);
  return (
    <section id="provision" aria-labelledby="provision-heading">
      <h2 id="provision-heading">1. Provision</h2>
      <p>Creates the tenant’s isolated data schema. Safe to repeat: the same job is answered.</p>
      {status.data && <JobProgress job={status.data} label="Provisioning" />}
      <ErrorMessage error={status.error} />
      <form
        onSubmit={async (e) => {
          e.preventDefault();
          if (await provision.run()) {
            await status.restart();
            onTenantChanged();
          }
        }}
      >
        <ErrorMessage error={provision.error} />
        {!provisionable && <p class="field__hint">A {tenant.lifecycle_state} tenant is past provisioning.</p>}
        <WriteButton pending={provision.pending} disabled={!provisionable}>
          {finished ? 'Provision again' : 'Provision'}
        </WriteButton>
      </form>
    </section>
  );
}
