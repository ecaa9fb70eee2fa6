/** The CAP links the remediation pages share, and what changed between two versions of a CAP. */
import type { Cap } from './types.ts';

/** A CAP's page; its target rides along so the page asks the API for that target's CAPs only. */
export const capPath = (cap: Pick<Cap, 'id' | 'target_type' | 'target_id'>) =>
  `/remediation/caps/${encodeURIComponent(cap.id)}?target_type=${encodeURIComponent(cap.target_type)}&target_id=${encodeURIComponent(cap.target_id)}`;

/** The API's CAP list for the target named in a CAP page's query (every CAP when it names none). */
export function capsQueryFor(query: URLSearchParams): string {
  const type = query.get('target_type');
  const id = query.get('target_id');
  return type && id ? `/remediation/caps?target_type=${encodeURIComponent(type)}&target_id=${encodeURIComponent(id)}` : '/remediation/caps';
}

const FIELDS: Array<{ key: keyof Cap; label: string }> = [
  { key: 'status', label: 'Status' },
  { key: 'title', label: 'Title' },
  { key: 'problem_statement', label: 'Problem statement' },
  { key: 'owner_user_id', label: 'Owner' },
  { key: 'due_date', label: 'Due date' },
];

export interface FieldChange {
  label: string;
  before: string;
  after: string;
}

/** The fields a person sees that differ between the CAP they loaded and the stored one. */
export function capChanges(loaded: Cap, stored: Cap, show: (key: keyof Cap, value: unknown) => string): FieldChange[] {
  return FIELDS.filter(({ key }) => loaded[key] !== stored[key]).map(({ key, label }) => ({
    label,
    before: show(key, loaded[key]),
    after: show(key, stored[key]),
  }));
}

/** What a button moving a CAP to `status` says. */
export const moveLabel: Record<string, string> = {
  submitted: 'Submit for review',
  in_progress: 'Start work',
  verified: 'Mark verified',
  closed: 'Close',
  cancelled: 'Cancel the plan',
};
