import { useState } from 'preact/hooks';
import { api } from '../api/client.ts';
import { ApiError } from '../api/errors.ts';
import { useAction } from '../app/hooks.ts';
import { ErrorMessage } from '../components/Alert.tsx';
import { TextArea } from './TextArea.tsx';
import type { Cap, Review } from './types.ts';

/**
 * Approve or reject a review with an optional comment. When someone decided it first (409 "This
 * review has already been decided.") the message stays in place with a reload that shows their
 * decision.
 */
export function ReviewDecision({ review, onDecided }: { review: Review; onDecided: () => void }) {
  const [comment, setComment] = useState('');
  const decide = useAction((decision: 'approved' | 'rejected') =>
    api<{ review: Review; cap: Cap }>('PATCH', `/remediation/reviews/${review.id}`, { decision, comment: comment.trim() || undefined }),
  );
  const taken = decide.error instanceof ApiError && decide.error.status === 409;
  const run = async (decision: 'approved' | 'rejected') => {
    if (await decide.run(decision)) onDecided();
  };
  return (
    <form class="decision" onSubmit={(e) => e.preventDefault()} aria-label="Decide the review">
      <TextArea label="Comment (optional)" name="comment" rows={2} value={comment} onValue={setComment} />
      {taken ? (
        <div class="alert alert--error" role="alert">
          {decide.error instanceof Error && decide.error.message}{' '}
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
