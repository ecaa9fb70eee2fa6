import type { ComponentChildren, JSX } from 'preact';
import { navigate } from '../app/router.ts';

type Props = { href: string; children: ComponentChildren } & Omit<JSX.AnchorHTMLAttributes<HTMLAnchorElement>, 'href'>;

/** An ordinary link (keyboard, middle-click and new tab work) that navigates in place on a plain click. */
export function Link({ href, children, ...rest }: Props) {
  const onClick = (e: MouseEvent) => {
    if (e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
    e.preventDefault();
    navigate(href);
  };
  return (
    <a href={href} onClick={onClick} {...rest}>
      {children}
    </a>
  );
}
