import { useEffect, useState } from 'preact/hooks';
import { api, get } from '../api/client.ts';
import { ApiError } from '../api/errors.ts';
import { useAction, useResource } from '../app/hooks.ts';
import { useTenant } from '../app/tenantSession.ts';
import { ErrorMessage, Notice } from '../components/Alert.tsx';
import { SelectField, TextField } from '../components/Field.tsx';
import { Link } from '../components/Link.tsx';
import { capChanges, capsQueryFor, moveLabel, type FieldChange } from './caps.ts';
import { formatDate, formatDateTime, statusLabel } from './format.ts';
import { ReviewDecision } from './ReviewDecision.tsx';
import { TextArea } from './TextArea.tsx';
import type { Cap, Member, Review } from './types.ts';

/** The API's text for a PATCH based on a version that is no longer the stored one. */
export const STALE_CAP = 'This CAP changed since you loaded it — refresh and retry.';

interface Stale {
  stored: Cap;
  changes: FieldChange[];
}

function Edit({
  cap,
  members,
  save,
  pending,
}: {
  cap: Cap;
  members: Member[] | undefined;
  save: (changes: Record<string, unknown>) => void;
  pending: boolean;
}) {
  const [title, setTitle] = useState(cap.title);
  const [problem, setProblem] = useState(cap.problem_statement ?? '');
  const [owner, setOwner] = useState(cap.owner_user_id ?? '');
  const [due, setDue] = useState(cap.due_date ?? '');
  const onSubmit = (e: Event) => {
    e.preventDefault();
    const changes: Record<string, unknown> = {};
    if (title.trim() !== cap.title) changes.title = title.trim();
    if ((problem.trim() || null) !== cap.problem_statement) changes.problem_statement = problem.trim() || null;
    if ((owner || null) !== cap.owner_user_id) changes.owner_user_id = owner || null;
    if ((due || null) !== cap.due_date) changes.due_date = due || null;
    if (Object.keys(changes).length) save(changes);
  };
  return (
    <form onSubmit={onSubmit} noValidate aria-label="Edit the plan">
      <TextField label="Title" name="title" required maxLength={200} value={title} onValue={setTitle} />
      <TextArea label="Problem statement" name="problem_statement" value={problem} onValue={setProblem} />
      {members && (
        <SelectField
          label="Owner"
          name="owner_user_id"
          value={owner}
          onValue={setOwner}
          options={[{ value: '', label: 'Nobody' }, ...members.map((m) => ({ value: m.user_id, label: m.full_name || m.email }))]}
        />
      )}
      <TextField label="Due date" name="due_date" type="date" value={due} onValue={setDue} />
      <button type="submit" disabled={pending}>
        Save changes
      </button>
    </form>
  );
}

/**
 * A CAP's page: its facts, the status moves its current status allows, editing with
 * `expected_version` (a 409 shows what someone else changed and offers to reload), and its reviews.
 */
export function TenantCap({ params, query }: { params: { capId: string }; query: URLSearchParams }) {
  const { can } = useTenant();
  const caps = useResource<Cap[]>(capsQueryFor(query));
  const members = useResource<Member[]>(can('members.read') ? '/members' : null);
  const [cap, setCap] = useState<Cap | null>(null);
  const [stale, setStale] = useState<Stale | null>(null);
  const [saved, setSaved] = useState<string | null>(null);
  const [editKey, setEditKey] = useState(0);
  const reviewsPath =
    cap && can('reviews.read')
      ? `/remediation/reviews?target_type=${encodeURIComponent(cap.target_type)}&target_id=${encodeURIComponent(cap.target_id)}`
      : null;
  const reviews = useResource<Review[]>(reviewsPath);

  useEffect(() => {
    const found = caps.data?.find((c) => c.id === params.capId);
    if (found) setCap(found);
  }, [caps.data, params.capId]);

  const memberName = (id: unknown) => {
    if (!id) return 'Nobody';
    const m = members.data?.find((x) => x.user_id === id);
    return m ? m.full_name || m.email : String(id);
  };
  const show = (key: keyof Cap, value: unknown) =>
    value === null || value === undefined || value === ''
      ? '—'
      : key === 'owner_user_id'
        ? memberName(value)
        : key === 'status'
          ? statusLabel(String(value))
          : key === 'due_date'
            ? formatDate(String(value))
            : String(value);

  const change = useAction(async (changes: Record<string, unknown>) => {
    if (!cap) return;
    try {
      const updated = await api<Cap>('PATCH', `/remediation/caps/${cap.id}`, { expected_version: cap.version, ...changes });
      setCap(updated);
      setStale(null);
      setEditKey((k) => k + 1);
      setSaved(changes.status ? `Moved to ${statusLabel(String(changes.status))}.` : 'Saved.');
      await reviews.reload();
      return updated;
    } catch (err) {
      if (err instanceof ApiError && err.status === 409 && err.message === STALE_CAP) {
        const list = await get<Cap[]>(capsQueryFor(query));
        const stored = list.find((c) => c.id === cap.id);
        if (stored) setStale({ stored, changes: capChanges(cap, stored, show) });
      }
      setSaved(null);
      throw err;
    }
  });

  const reload = () => {
    if (stale) setCap(stale.stored);
    setStale(null);
    change.clear();
    setEditKey((k) => k + 1);
  };

  if (caps.error) return <ErrorMessage error={caps.error} />;
  if (!cap) {
    if (caps.data) {
      return (
        <>
          <h1>Plan not found</h1>
          <p>
            No corrective action plan has this id. <Link href="/remediation/caps">See all plans</Link>.
          </p>
        </>
      );
    }
    return <p class="loading">Loading the plan…</p>;
  }
  const write = can('caps.write');
  const pending = reviews.data?.find((r) => r.cap_id === cap.id && r.decision === null);
  const history = reviews.data?.filter((r) => r.cap_id === cap.id && r.decision !== null) ?? [];
  return (
    <>
      <p>
        <Link href="/remediation/caps">← All plans</Link>
      </p>
      <h1>{cap.title}</h1>
      <p>
        <span class={`badge badge--cap-${cap.status}`}>{statusLabel(cap.status)}</span> · version {cap.version}
      </p>
      {saved && <Notice tone="success">{saved}</Notice>}
      {stale && (
        <div class="alert alert--error" role="alert">
          <p>{STALE_CAP}</p>
          {stale.changes.length > 0 ? (
            <table class="changes">
              <caption>What changed since you loaded it (now version {stale.stored.version})</caption>
              <thead>
                <tr>
                  <th scope="col">Field</th>
                  <th scope="col">You had</th>
                  <th scope="col">Now</th>
                </tr>
              </thead>
              <tbody>
                {stale.changes.map((c) => (
                  <tr key={c.label}>
                    <th scope="row">{c.label}</th>
                    <td>{c.before}</td>
                    <td>{c.after}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          ) : (
            <p>It was saved again (now version {stale.stored.version}) without a change to the fields shown here.</p>
          )}
          <button type="button" onClick={reload}>
            Reload the plan
          </button>
        </div>
      )}
      {!stale && <ErrorMessage error={change.error} />}
      <div class="columns">
        <section class="grow card" aria-labelledby="cap-facts">
          <h2 id="cap-facts">Plan</h2>
          <dl class="facts">
            <dt>Target</dt>
            <dd>
              {statusLabel(cap.target_type)}{' '}
              {cap.target_type === 'pattern' ? (
                <Link href={`/insights/patterns/${encodeURIComponent(cap.target_id)}`}>{cap.target_id}</Link>
              ) : (
                <code>{cap.target_id}</code>
              )}
            </dd>
            <dt>Problem statement</dt>
            <dd>{cap.problem_statement ?? '—'}</dd>
            <dt>Owner</dt>
            <dd>{memberName(cap.owner_user_id)}</dd>
            <dt>Due</dt>
            <dd>{formatDate(cap.due_date)}</dd>
            <dt>Created</dt>
            <dd>
              {formatDateTime(cap.created_at)} by {memberName(cap.created_by)}
            </dd>
            <dt>Last change</dt>
            <dd>{formatDateTime(cap.updated_at)}</dd>
          </dl>
        </section>
        <section class="side card" aria-labelledby="cap-actions">
          <h2 id="cap-actions">Next steps</h2>
          {cap.status === 'submitted' && <p>Waiting for its review: approving or rejecting it moves the plan on.</p>}
          {cap.next_statuses.length === 0 && cap.status !== 'submitted' && <p>This plan is {statusLabel(cap.status).toLowerCase()}: a final status.</p>}
          {write && cap.next_statuses.length > 0 && (
            <div class="actions">
              {cap.next_statuses.map((s) => (
                <button
                  key={s}
                  type="button"
                  class={s === 'cancelled' ? 'secondary' : undefined}
                  disabled={change.pending || Boolean(stale)}
                  onClick={() => void change.run({ status: s })}
                >
                  {moveLabel[s] ?? statusLabel(s)}
                </button>
              ))}
            </div>
          )}
          {!write && cap.next_statuses.length > 0 && <p class="count">Your role can read plans but not change them.</p>}
        </section>
      </div>
      {write && cap.next_statuses.length > 0 && (
        <section class="card" aria-labelledby="cap-edit">
          <h2 id="cap-edit">Edit</h2>
          <Edit
            key={`${cap.version}:${editKey}`}
            cap={cap}
            members={members.data}
            pending={change.pending || Boolean(stale)}
            save={(c) => void change.run(c)}
          />
        </section>
      )}
      {can('reviews.read') && (
        <section class="card" aria-labelledby="cap-reviews">
          <h2 id="cap-reviews">Reviews</h2>
          <ErrorMessage error={reviews.error} />
          {pending && (
            <div>
              <p>
                Submitted {formatDateTime(pending.created_at)} (version {pending.cap_version}); waiting for a decision.
              </p>
              {can('reviews.write') && (
                <ReviewDecision
                  review={pending}
                  onDecided={() => {
                    void reviews.reload();
                    void caps.reload();
                  }}
                />
              )}
            </div>
          )}
          {history.length === 0 && !pending && <p class="empty">No reviews yet: submitting the plan asks for one.</p>}
          <ul class="reviews">
            {history.map((r) => (
              <li key={r.id}>
                <span class={`badge badge--${r.decision}`}>{statusLabel(r.decision!)}</span> {formatDateTime(r.decided_at)} by {memberName(r.decided_by)}
                {r.comment && <blockquote>{r.comment}</blockquote>}
              </li>
            ))}
          </ul>
        </section>
      )}
    </>
  );
}
