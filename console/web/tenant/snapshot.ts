/**
 * The insight snapshot as the insights pages read it, one call per page (never one per pattern):
 * the list reads `?view=summary` (every pattern without its records and forecast curve: a tenth of
 * the bytes, so 500 patterns arrive and render quickly), and a pattern's page reads
 * `?pattern_id=<id>` (that pattern whole, in the same coherent snapshot). Each answer is kept for the
 * signed-in workspace until `reload` or a new workspace.
 */
import { useEffect, useState } from 'preact/hooks';
import { get } from '../api/client.ts';
import type { InsightSnapshot, InsightSnapshotSummary } from './types.ts';

export const SUMMARY_PATH = '/insights/snapshot?view=summary';
export const patternPath = (patternId: string) => `/insights/snapshot?pattern_id=${encodeURIComponent(patternId)}`;
const PATTERN_PAGE = /^\/insights\/patterns\/([0-9a-f-]{36})\/?$/i;

const cache = new Map<string, { request: Promise<unknown>; workspace: string | null }>();

function fetchPath(path: string, workspace: string | null) {
  const entry = { request: get<unknown>(path), workspace };
  cache.set(path, entry);
  entry.request.catch(() => {
    if (cache.get(path) === entry) cache.delete(path);
  });
  return entry;
}

/**
 * Starts loading the page's snapshot before the shell has the user (GET /me), so the two requests
 * overlap on an insights page's first load; `useSnapshot…` then takes this request over.
 */
export function prefetchSnapshot(): void {
  const path = location.pathname;
  const pattern = PATTERN_PAGE.exec(path)?.[1];
  const wanted = path === '/insights' || path === '/insights/' ? SUMMARY_PATH : pattern ? patternPath(pattern) : null;
  if (wanted && !cache.has(wanted)) fetchPath(wanted, null);
}

function useCached<T>(path: string | null, workspace: string) {
  const [state, setState] = useState<{ data?: T; error?: unknown; path?: string | null }>({});
  const load = (fresh: boolean) => {
    if (path === null) return;
    let entry = cache.get(path);
    // A prefetched request (workspace null) belongs to whoever is signed in now.
    if (entry && entry.workspace === null) entry.workspace = workspace;
    if (fresh || !entry || entry.workspace !== workspace) entry = fetchPath(path, workspace);
    entry.request.then(
      (data) => setState({ data: data as T, path }),
      (error: unknown) => setState({ error, path }),
    );
  };
  useEffect(() => load(false), [workspace, path]);
  // Another pattern's page: nothing shown from the previous one while it loads.
  const current = state.path === path ? state : {};
  return { data: current.data, error: current.error, reload: () => load(true) };
}

/** The list's snapshot: every pattern without its records and forecast. */
export const useSnapshotSummary = (workspace: string) => useCached<InsightSnapshotSummary>(SUMMARY_PATH, workspace);
/** One pattern of the snapshot, whole (its records and forecast); `patterns` is empty when there is none such. */
export const usePatternSnapshot = (workspace: string, patternId: string) =>
  useCached<InsightSnapshot>(PATTERN_PAGE.test(`/insights/patterns/${patternId}`) ? patternPath(patternId) : null, workspace);
