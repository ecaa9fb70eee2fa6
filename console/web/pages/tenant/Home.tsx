import { useTenant } from '../../app/tenantSession.ts';

/** The tenant console's landing page (the tenant console's pages build on it). */
export function TenantHome() {
  const { me } = useTenant();
  return (
    <>
      <h1>Workspace {me.workspace}</h1>
      <dl class="facts">
        <dt>Signed in as</dt>
        <dd>{me.full_name ? `${me.full_name} (${me.email})` : me.email}</dd>
        <dt>Permissions</dt>
        <dd>{me.permissions.join(', ') || 'none'}</dd>
      </dl>
    </>
  );
}
