/** The e-mail outbox: every message the service sends, and what became of it. */
import type { Queryable } from '../lib/db.ts';

export interface OutboxEmail {
  id: string;
  to_address: string;
  subject: string;
  text_body: string;
  html_body: string | null;
  status: 'queued' | 'sent' | 'logged' | 'failed';
}

export async function insertOutboxEmail(
  db: Queryable,
  mail: { to: string; subject: string; text: string; html?: string; workspaceId?: string | null; tenantId?: string | null },
): Promise<OutboxEmail> {
  const { rows } = await db.query<OutboxEmail>(
    `insert into outbox_emails (to_address, subject, text_body, html_body, workspace_id, tenant_id)
     values ($1, $2, $3, $4, $5, $6) returning id, to_address, subject, text_body, html_body, status`,
    [mail.to, mail.subject, mail.text, mail.html ?? null, mail.workspaceId ?? null, mail.tenantId ?? null],
  );
  return rows[0];
}

export async function findOutboxEmail(db: Queryable, id: string): Promise<OutboxEmail | null> {
  const { rows } = await db.query<OutboxEmail>('select id, to_address, subject, text_body, html_body, status from outbox_emails where id = $1', [id]);
  return rows[0] ?? null;
}

/** What replaces the body of a delivered message: its one-time links are no longer needed here. */
export const ERASED_BODY = '[erased after delivery]';

/** Records the outcome; a `sent` message's body is erased in the same statement. */
export async function markOutboxEmail(db: Queryable, id: string, status: 'sent' | 'logged' | 'failed', errorDetail?: string): Promise<void> {
  await db.query(
    `update outbox_emails set status = $2, error_detail = $3, sent_at = case when $2 in ('sent', 'logged') then now() end,
            text_body = case when $2 = 'sent' then $4 else text_body end, html_body = case when $2 = 'sent' then null else html_body end
      where id = $1`,
    [id, status, errorDetail ?? null, ERASED_BODY],
  );
}

export interface OutboxListItem extends OutboxEmail {
  created_at: Date;
  sent_at: Date | null;
}

/** The newest messages first (the development outbox page: what would have been mailed). */
export async function listOutboxEmails(db: Queryable, limit: number): Promise<OutboxListItem[]> {
  const { rows } = await db.query<OutboxListItem>(
    `select id, to_address, subject, text_body, html_body, status, created_at, sent_at from outbox_emails order by created_at desc, id desc limit $1`,
    [limit],
  );
  return rows;
}
