/**
 * Housekeeping of expiring rows: idempotency cache entries, idle rate-limit counters, closed login
 * windows, spent password-reset tokens, staff and tenant sessions dead for 30 days (a tenant's
 * sessions live in its own schema), and expired export files.
 * sessions live in its own schema), and outbox e-mails: undelivered (`logged`, `failed`) bodies with
 * their one-time links after 1 day, every row after 30 days.
 */
import type { Queryable } from '../lib/db.ts';
import { schemaIdent } from './tenant/schema.ts';
import { purgeExpiredExports } from './exports.ts';

async function purgeTenantSessions(db: Queryable): Promise<number> {
  const { rows } = await db.query<{ schema_name: string }>(
    `select schema_name from tenants where to_regclass(quote_ident(schema_name) || '.sessions') is not null order by schema_name`,
  );
  let purged = 0;
  for (const { schema_name } of rows) {
    const res = await db.query(`delete from ${schemaIdent(schema_name)}.sessions where expires_at < now() - interval '30 days'`);
    purged += res.rowCount ?? 0;
  }
  return purged;
}

export async function purgeExpired(db: Queryable): Promise<Record<string, number>> {
  const keys = await db.query(`delete from idempotency_keys where expires_at < now()`);
  // A counter untouched for two windows (2 minutes) holds no information any more.
  const counters = await db.query(`delete from rate_limit_counters where updated_at < now() - interval '10 minutes'`);
  // The longest login window is 15 minutes.
  const attempts = await db.query(`delete from login_attempts where window_started_at < now() - interval '1 hour'`);
  const resets = await db.query(`delete from password_reset_tokens where expires_at < now() - interval '1 day'`);
  const sessions = await db.query(`delete from employee_sessions where expires_at < now() - interval '30 days'`);
  const tenantSessions = await purgeTenantSessions(db);
  const exports = await purgeExpiredExports(db);
  // Invitation and reset links expire within days: an undelivered body outlives its use after one.
  const outbox = await db.query(
    `delete from outbox_emails where created_at < now() - interval '30 days'
        or (status in ('logged', 'failed') and created_at < now() - interval '1 day')`,
  );
  // Text messages carry one-time codes that expire in minutes.
  const sms = await db.query(`delete from outbox_sms where created_at < now() - interval '1 day'`);
  return {
    outbox_sms: sms.rowCount ?? 0,
    idempotency_keys: keys.rowCount ?? 0,
    rate_limit_counters: counters.rowCount ?? 0,
    login_attempts: attempts.rowCount ?? 0,
    password_reset_tokens: resets.rowCount ?? 0,
    employee_sessions: sessions.rowCount ?? 0,
    tenant_sessions: tenantSessions,
    exports,
    outbox_emails: outbox.rowCount ?? 0,
  };
}
