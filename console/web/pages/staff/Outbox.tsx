import { useResource } from '../../app/hooks.ts';
import { formatDate } from '../../app/tenants.ts';
import { ErrorMessage } from '../../components/Alert.tsx';

interface OutboxEmail {
  id: string;
  to: string;
  subject: string;
  text_body: string;
  status: string;
  created_at: string;
}

const LINK = /(https?:\/\/[^\s]+)/g;

/** Development only: what the product would have mailed (SMTP_URL unset), links clickable. */
export function Outbox() {
  const mails = useResource<OutboxEmail[]>('/admin/outbox');
  return (
    <>
      <h1>Outbox (development)</h1>
      <p>What the product would have e-mailed: SMTP_URL is unset, so messages are kept here instead. Newest first.</p>
      <ErrorMessage error={mails.error} />
      {mails.data?.length === 0 && <p class="empty">No message yet.</p>}
      {mails.data?.map((m) => (
        <article class="card" key={m.id} aria-labelledby={`mail-${m.id}`}>
          <h2 id={`mail-${m.id}`}>{m.subject}</h2>
          <p>
            To {m.to} · {formatDate(m.created_at)} · {m.status}
          </p>
          <pre>
            {m.text_body.split(LINK).map((part, i) =>
              i % 2 === 1 ? (
                <a key={i} href={part}>
                  {part}
                </a>
              ) : (
                part
              ),
            )}
          </pre>
        </article>
      ))}
    </>
  );
}
