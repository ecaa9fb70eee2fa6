/**
 * The insight snapshot, loaded once and shared by the insights list and a pattern's page (the
 * snapshot carries every pattern's detail: no call per pattern). `reload` fetches it again.
 */
import { useEffect, useState } from 'preact/hooks';
import { get } from '../api/client.ts';
import type { InsightSnapshot } from './types.ts';

let cached: Promise<InsightSnapshot> | null = null;
let cachedFor: string | null = null;

/**
 * Starts loading the snapshot before the shell has the user (GET /me), so the two requests overlap
 * on the insights pages' first load; `useSnapshot` then takes this request over.
 */
export function prefetchSnapshot(): void {
  if (cached || !location.pathname.startsWith('/insights')) return;
  cached = get<InsightSnapshot>('/insights/snapshot');
  cachedFor = null;
  cached.catch(() => {
    cached = null;
  });
}

export function useSnapshot(workspace: string) {
  const [state, setState] = useState<{ data?: InsightSnapshot; error?: unknown }>({});
  const load = (fresh: boolean) => {
    // A prefetched request (cachedFor null) belongs to whoever is signed in now.
    if (cached && cachedFor === null) cachedFor = workspace;
    if (fresh || !cached || cachedFor !== workspace) {
      cached = get<InsightSnapshot>('/insights/snapshot');
      cachedFor = workspace;
      cached.catch(() => {
        cached = null;
      });
    }
    cached.then(
      (data) => setState({ data }),
      (error: unknown) => setState({ error }),
    );
  };
  useEffect(() => load(false), [workspace]);
  return { ...state, reload: () => load(true) };
}
