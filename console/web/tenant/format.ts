/** How the tenant pages write dates, numbers and statuses for a person. */

const dateFormat = new Intl.DateTimeFormat(undefined, { year: 'numeric', month: 'short', day: 'numeric' });
const dateTimeFormat = new Intl.DateTimeFormat(undefined, { year: 'numeric', month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit' });

export const formatDate = (iso: string | null | undefined) => (iso ? dateFormat.format(new Date(iso)) : '—');
export const formatDateTime = (iso: string | null | undefined) => (iso ? dateTimeFormat.format(new Date(iso)) : '—');
export const percent = (p: number) => `${Math.round(p * 100)}%`;
export const days = (d: number) => (d < 10 ? `${d.toFixed(1)} days` : `${Math.round(d)} days`);

/** `in_progress` -> `In progress`. */
export const statusLabel = (status: string) => status.charAt(0).toUpperCase() + status.slice(1).replace(/_/g, ' ');

/** "in 3 minutes" for a Retry-After of 180 seconds. */
export function retryIn(seconds: number): string {
  if (seconds < 60) return `in ${seconds} second${seconds === 1 ? '' : 's'}`;
  const minutes = Math.ceil(seconds / 60);
  return `in ${minutes} minute${minutes === 1 ? '' : 's'}`;
}
