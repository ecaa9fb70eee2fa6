/**
 * A small History-API router. Pages are registered in `pages.ts` (the registry) with a path pattern
 * (`/admin/tenants/:tenantId`); `useLocation` re-renders on navigation; `navigate` moves without a
 * reload; `<Link>` (components/Link.tsx) uses it.
 */
import type { ComponentChildren, FunctionComponent } from 'preact';
import { useEffect, useState } from 'preact/hooks';

export type Params = Record<string, string>;

export interface PageDefinition {
  /** `/admin/tenants/:tenantId`; segments starting with `:` are parameters. */
  path: string;
  /** The document title (and the page's h1 unless it renders its own). */
  title: string;
  /** `staff`: inside the staff shell (needs a staff session); `tenant`: the tenant shell; `public`: no session. */
  area: 'staff' | 'tenant' | 'public';
  component: FunctionComponent<{ params: Params; query: URLSearchParams }>;
}

export interface Match {
  page: PageDefinition;
  params: Params;
}

export function matchPage(pages: readonly PageDefinition[], pathname: string): Match | null {
  const parts = pathname.replace(/\/+$/, '').split('/');
  for (const page of pages) {
    const pattern = page.path.replace(/\/+$/, '').split('/');
    if (pattern.length !== parts.length) continue;
    const params: Params = {};
    const ok = pattern.every((segment, i) => {
      if (segment.startsWith(':')) {
        if (!parts[i]) return false;
        params[segment.slice(1)] = decodeURIComponent(parts[i]);
        return true;
      }
      return segment === parts[i];
    });
    if (ok) return { page, params };
  }
  return null;
}

const listeners = new Set<() => void>();
window.addEventListener('popstate', () => {
  for (const l of listeners) l();
});

export function navigate(to: string, options: { replace?: boolean } = {}): void {
  if (options.replace) history.replaceState(null, '', to);
  else history.pushState(null, '', to);
  window.scrollTo(0, 0);
  for (const l of listeners) l();
}

export interface Location {
  pathname: string;
  search: string;
  query: URLSearchParams;
}

export function currentLocation(): Location {
  return { pathname: location.pathname, search: location.search, query: new URLSearchParams(location.search) };
}

export function useLocation(): Location {
  const [loc, setLoc] = useState(currentLocation);
  useEffect(() => {
    const update = () => setLoc(currentLocation());
    listeners.add(update);
    return () => void listeners.delete(update);
  }, []);
  return loc;
}

export type { ComponentChildren };
