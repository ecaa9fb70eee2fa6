/**
 * Long tables render their rows a window at a time: the first screenfuls at once, the rest in small
 * batches while the browser is idle (so the table is whole a moment later and scrolls over plain
 * rows), sooner when the person scrolls towards the end (an IntersectionObserver on the last row),
 * or with the "Show more" button of that row (keyboard and screen-reader users reach it by Tab).
 * 1,000 tenants or 500 patterns are usable as soon as the first rows are in, instead of after the
 * whole table is laid out.
 */
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';

export const FIRST_ROWS = 60;
export const MORE_ROWS = 60;

/** How many of `total` rows to render; back to the first window when `resetKey` changes (a new filter). */
export function useRowWindow(total: number, resetKey: unknown): { shown: number; more: () => void } {
  const [count, setCount] = useState(FIRST_ROWS);
  const key = useRef(resetKey);
  let current = count;
  if (key.current !== resetKey) {
    key.current = resetKey;
    current = FIRST_ROWS;
    if (count !== FIRST_ROWS) setCount(FIRST_ROWS);
  }
  const more = useCallback(() => setCount((c) => c + MORE_ROWS), []);
  const shown = Math.min(current, total);
  useEffect(() => {
    if (shown >= total) return;
    if (typeof requestIdleCallback === 'function') {
      const id = requestIdleCallback(more, { timeout: 1000 });
      return () => cancelIdleCallback(id);
    }
    const timer = setTimeout(more, 50);
    return () => clearTimeout(timer);
  }, [shown, total, more]);
  return { shown, more };
}

/** The row after the last rendered one: renders the next window when it nears the viewport. */
export function MoreRows({ shown, total, colSpan, more, noun }: { shown: number; total: number; colSpan: number; more: () => void; noun: string }) {
  const row = useRef<HTMLTableRowElement>(null);
  useEffect(() => {
    const element = row.current;
    if (!element || typeof IntersectionObserver === 'undefined') return;
    const observer = new IntersectionObserver((entries) => entries.some((e) => e.isIntersecting) && more(), { rootMargin: '1200px 0px' });
    observer.observe(element);
    return () => observer.disconnect();
  }, [shown, more]);
  if (shown >= total) return null;
  return (
    <tr ref={row} class="more-rows">
      <td colSpan={colSpan}>
        <button type="button" class="secondary" onClick={more}>
          Show {Math.min(MORE_ROWS, total - shown)} more {noun} ({total - shown} not shown yet)
        </button>
      </td>
    </tr>
  );
}
