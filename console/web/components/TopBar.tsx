import type { ComponentChildren } from 'preact';
import { Link } from './Link.tsx';

export interface NavItem {
  href: string;
  label: string;
}

/** The header of both shells: skip link, brand, nav (current page marked), who is signed in, sign-out. */
export function TopBar({
  brand,
  navLabel,
  items,
  current,
  who,
  onSignOut,
}: {
  brand: string;
  navLabel: string;
  items: NavItem[];
  current: (href: string) => boolean;
  who: ComponentChildren;
  onSignOut: () => void;
}) {
  return (
    <header class="topbar">
      <a class="skip-link" href="#main">
        Skip to content
      </a>
      <span class="brand">{brand}</span>
      <nav aria-label={navLabel}>
        <ul>
          {items.map((item) => (
            <li key={item.href}>
              <Link href={item.href} aria-current={current(item.href) ? 'page' : undefined}>
                {item.label}
              </Link>
            </li>
          ))}
        </ul>
      </nav>
      <div class="whoami">
        <span>{who}</span>
        <button type="button" class="secondary" onClick={onSignOut}>
          Sign out
        </button>
      </div>
    </header>
  );
}
