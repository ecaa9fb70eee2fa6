import { useState } from 'preact/hooks';
import { api, get } from '../api/client.ts';
import { ApiError } from '../api/errors.ts';
import { useAction } from '../app/hooks.ts';
import { ErrorMessage } from '../components/Alert.tsx';
import { formatDateTime, statusLabel } from './format.ts';
import { TextArea } from './TextArea.tsx';
import type { Cap, Review } from './types.ts';

/**
 * Approve or reject a review with an optional comment. When someone decided it first (409 "This
 * review has already been decided.") the message stays in place with a reload that shows their
 * decision.
 */
export function ReviewDecision({ review, onDecided }: { review: Review; onDecided: () => void }) {
  const [comment, setComment] = useState('');
  const [stored, setStored] = useState<Review | null>(null);
  const decide = useAction(async (decision: 'approved' | 'rejected') => {
    try {
      return await api<{ review: Review; cap: Cap }>('PATCH', `/remediation/reviews/${review.id}`, { decision, comment: comment.trim() || undefined });
    } catch (err) {
      // Someone decided first: show their decision next to the 409.
      if (err instanceof ApiError && err.status === 409) {
        const list = await get<Review[]>(
          `/remediation/reviews?target_type=${encodeURIComponent(review.target_type)}&target_id=${encodeURIComponent(review.target_id)}`,
        );
        setStored(list.find((r) => r.id === review.id) ?? null);
      }
      throw err;
    }
  });
  const taken = decide.error instanceof ApiError && decide.error.status === 409;
  const run = async (decision: 'approved' | 'rejected') => {
    if (await decide.run(decision)) onDecided();
  };
  return (
    <form class="decision" onSubmit={(e) => e.preventDefault()} aria-label="Decide the review">
      <TextArea label="Comment (optional)" name="comment" rows={2} value={comment} onValue={setComment} />
      {taken ? (
        <div class="alert alert--error" role="alert">
          <p>
            {decide.error instanceof Error && decide.error.message}
            {stored?.decision &&
              ` It was ${statusLabel(stored.decision).toLowerCase()} ${formatDateTime(stored.decided_at)}${stored.comment ? ` with the comment “${stored.comment}”` : ''}.`}
          </p>
          <button type="button" class="secondary" onClick={onDecided}>
            Reload to see the decision
          </button>
        </div>
      ) : (
        <ErrorMessage error={decide.error} />
      )}
      <div class="actions">
        <button type="button" disabled={decide.pending} onClick={() => void run('approved')}>
          Approve
        </button>
        <button type="button" class="secondary" disabled={decide.pending} onClick={() => void run('rejected')}>
          Reject
        </button>
      </div>
    </form>
  );
}
