import { useEffect } from 'preact/hooks';
import { navigate } from '../app/router.ts';

/** `/`: the tenant console opens on its insights. */
export function TenantHome() {
  useEffect(() => navigate('/insights', { replace: true }), []);
  return <p class="loading">Opening your insights…</p>;
}
