/**
 * The status workflow of an issue (CONTRACT: open -> in_progress -> resolved -> closed,
 * resolved -> open, open|in_progress -> closed). Pure: no I/O.
 */
export const issueStatuses = ['open', 'in_progress', 'resolved', 'closed'] as const;
export type IssueStatus = (typeof issueStatuses)[number];

const transitions: Record<IssueStatus, readonly IssueStatus[]> = {
  open: ['in_progress', 'closed'],
  in_progress: ['resolved', 'closed'],
  resolved: ['closed', 'open'],
  closed: [],
};

export function canTransition(from: IssueStatus, to: IssueStatus): boolean {
  return transitions[from].includes(to);
}
