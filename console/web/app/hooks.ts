/** Data hooks every page uses: a GET with loading/error/reload, an action with pending/error, polling. */
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { get } from '../api/client.ts';

export interface Resource<T> {
  data: T | undefined;
  error: unknown;
  loading: boolean;
  reload: () => Promise<void>;
}

/** GETs `path` (null: nothing yet) and again on `reload()`. */
export function useResource<T>(path: string | null): Resource<T> {
  const [state, setState] = useState<{ data?: T; error?: unknown; loading: boolean }>({ loading: path !== null });
  const current = useRef(path);
  current.current = path;
  const load = useCallback(async () => {
    if (path === null) return;
    setState((s) => ({ ...s, loading: true }));
    try {
      const data = await get<T>(path);
      if (current.current === path) setState({ data, loading: false });
    } catch (error) {
      if (current.current === path) setState((s) => ({ data: s.data, error, loading: false }));
    }
  }, [path]);
  useEffect(() => {
    void load();
  }, [load]);
  return { data: state.data, error: state.error, loading: state.loading, reload: load };
}

export interface Action<A extends unknown[], R> {
  run: (...args: A) => Promise<R | undefined>;
  pending: boolean;
  error: unknown;
  clear: () => void;
}

/** Wraps a write: `pending` while it runs, its error kept for showing in place. */
export function useAction<A extends unknown[], R>(fn: (...args: A) => Promise<R>): Action<A, R> {
  const [pending, setPending] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const run = async (...args: A) => {
    setPending(true);
    setError(null);
    try {
      return await fn(...args);
    } catch (err) {
      setError(err);
      return undefined;
    } finally {
      setPending(false);
    }
  };
  return { run, pending, error, clear: () => setError(null) };
}

export const ACTIVE_JOB_STATES = ['queued', 'running'];
export const POLL_INTERVAL_MS = 1000;

/**
 * Polls `path` every second while `keepPolling(data)` holds (a job queued or running), and stops
 * when it is terminal or the page goes away. `restart()` begins again (after queuing a job).
 */
export function usePolling<T>(path: string | null, keepPolling: (data: T) => boolean, intervalMs = POLL_INTERVAL_MS) {
  const resource = useResource<T>(path);
  const [generation, setGeneration] = useState(0);
  const { data, reload } = resource;
  const active = data !== undefined && keepPolling(data);
  useEffect(() => {
    if (!active) return;
    const timer = setTimeout(() => void reload(), intervalMs);
    return () => clearTimeout(timer);
  }, [active, data, reload, intervalMs, generation]);
  return { ...resource, polling: active, restart: () => reload().then(() => setGeneration((g) => g + 1)) };
}
