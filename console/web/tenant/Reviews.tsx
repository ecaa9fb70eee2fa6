import { useResource } from '../app/hooks.ts';
import { useTenant } from '../app/tenantSession.ts';
import { ErrorMessage } from '../components/Alert.tsx';
import { Link } from '../components/Link.tsx';
import { capPath } from './caps.ts';
import { formatDateTime, statusLabel } from './format.ts';
import { ReviewDecision } from './ReviewDecision.tsx';
import type { Cap, Review } from './types.ts';

/** Reviews waiting for a decision (approve / reject with a comment), then the decided ones. */
export function TenantReviews() {
  const { can } = useTenant();
  const reviews = useResource<Review[]>('/remediation/reviews');
  const caps = useResource<Cap[]>(can('caps.read') ? '/remediation/caps' : null);
  const capOf = new Map((caps.data ?? []).map((c) => [c.id, c]));
  const waiting = reviews.data?.filter((r) => r.decision === null) ?? [];
  const decided = reviews.data?.filter((r) => r.decision !== null) ?? [];
  const title = (r: Review) => {
    const cap = capOf.get(r.cap_id);
    return cap ? <Link href={capPath(cap)}>{cap.title}</Link> : <code>{r.cap_id}</code>;
  };
  const refresh = () => {
    void reviews.reload();
    void caps.reload();
  };
  return (
    <>
      <h1>Reviews</h1>
      <ErrorMessage error={reviews.error} />
      {!reviews.data && !reviews.error && <p class="loading">Loading reviews…</p>}
      {reviews.data && (
        <>
          <section aria-labelledby="waiting">
            <h2 id="waiting">Waiting for a decision ({waiting.length})</h2>
            {waiting.length === 0 && <p class="empty">Nothing waits for a decision.</p>}
            <ul class="review-list">
              {waiting.map((r) => (
                <li key={r.id} class="card">
                  <h3>{title(r)}</h3>
                  <p>
                    Submitted {formatDateTime(r.created_at)} (plan version {r.cap_version}), target {statusLabel(r.target_type)} <code>{r.target_id}</code>
                  </p>
                  {can('reviews.write') ? (
                    <ReviewDecision review={r} onDecided={refresh} />
                  ) : (
                    <p class="count">Your role can read reviews but not decide them.</p>
                  )}
                </li>
              ))}
            </ul>
          </section>
          <section aria-labelledby="decided">
            <h2 id="decided">Decided ({decided.length})</h2>
            {decided.length === 0 ? (
              <p class="empty">No review has been decided yet.</p>
            ) : (
              <div class="table-wrap">
                <table>
                  <caption class="visually-hidden">Decided reviews, newest first</caption>
                  <thead>
                    <tr>
                      <th scope="col">Plan</th>
                      <th scope="col">Decision</th>
                      <th scope="col" class="optional">
                        Comment
                      </th>
                      <th scope="col">Decided</th>
                    </tr>
                  </thead>
                  <tbody>
                    {decided.map((r) => (
                      <tr key={r.id}>
                        <td>{title(r)}</td>
                        <td>
                          <span class={`badge badge--${r.decision}`}>{statusLabel(r.decision!)}</span>
                        </td>
                        <td class="optional">{r.comment ?? '—'}</td>
                        <td>{formatDateTime(r.decided_at)}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
            )}
          </section>
        </>
      )}
    </>
  );
}
