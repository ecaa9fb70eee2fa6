import type { Params } from '../../../app/router.ts';
import { useResource } from '../../../app/hooks.ts';
import { formatDate, type Tenant } from '../../../app/tenants.ts';
import { ErrorMessage } from '../../../components/Alert.tsx';
import { Link } from '../../../components/Link.tsx';
import { GoLiveStep } from './GoLiveStep.tsx';
import { InvitationsStep } from './InvitationsStep.tsx';
import { ProvisionStep } from './ProvisionStep.tsx';
import { SettingsStep } from './SettingsStep.tsx';
import { SourcesStep } from './SourcesStep.tsx';
import { TrainStep } from './TrainStep.tsx';
import { UploadStep } from './UploadStep.tsx';

export interface StepProps {
  tenant: Tenant;
  /** Reload the tenant (its lifecycle state moves with provisioning and go-live). */
  onTenantChanged: () => void;
}

/** One tenant's page as guided onboarding: each step in order, each with its own state and errors. */
export function TenantOnboarding({ params }: { params: Params }) {
  const tenant = useResource<Tenant>(`/admin/tenants/${encodeURIComponent(params.tenantId)}`);
  if (tenant.error && !tenant.data) {
    return (
      <>
        <h1>Tenant</h1>
        <ErrorMessage error={tenant.error} />
        <p>
          <Link href="/admin/tenants">Back to the registry</Link>
        </p>
      </>
    );
  }
  if (!tenant.data) return <p class="loading">Loading tenant…</p>;
  const t = tenant.data;
  const props: StepProps = { tenant: t, onTenantChanged: () => void tenant.reload() };
  return (
    <>
      <p>
        <Link href="/admin/tenants">← Registry</Link>
      </p>
      <h1>
        {t.company} <span class={`badge badge--${t.lifecycle_state}`}>{t.lifecycle_state}</span>
      </h1>
      <dl class="facts">
        <dt>Slug</dt>
        <dd>{t.slug}</dd>
        <dt>Industry</dt>
        <dd>{t.industry ?? '—'}</dd>
        <dt>Created</dt>
        <dd>{formatDate(t.created_at)}</dd>
      </dl>
      <ol class="onboarding-steps">
        <li>
          <ProvisionStep {...props} />
        </li>
        <li>
          <SettingsStep {...props} />
        </li>
        <li>
          <UploadStep {...props} />
        </li>
        <li>
          <TrainStep {...props} />
        </li>
        <li>
          <SourcesStep {...props} />
        </li>
        <li>
          <InvitationsStep {...props} />
        </li>
        <li>
          <GoLiveStep {...props} />
        </li>
      </ol>
    </>
  );
}
