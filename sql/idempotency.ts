/**
 * The /v1 idempotency cache: the first 2xx response per (hash of Authorization, key, path), kept 24
 * hours. A row is claimed `in_flight` before the handler runs so that a concurrent duplicate is
 * refused instead of executed twice; a claim left behind by a crashed process expires after
 * `lockMs`.
 */
import { prepared, type Queryable } from '../lib/db.ts';

export interface IdempotencyId {
  authHash: string;
  key: string;
  path: string;
}

export interface StoredResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

export type ClaimResult = { outcome: 'claimed' } | { outcome: 'replay'; response: StoredResponse } | { outcome: 'in_flight' } | { outcome: 'mismatch' };

// Every idempotent request runs these two statements: prepared (lib/db.ts).
const claim = prepared(
  'idempotency_claim',
  `insert into idempotency_keys (auth_hash, idempotency_key, path, request_hash, state, locked_until, expires_at)
   values ($1, $2, $3, $4, 'in_flight', now() + $5 * interval '1 millisecond', now() + $6 * interval '1 millisecond')
   on conflict (auth_hash, idempotency_key, path) do update
     set request_hash = excluded.request_hash, state = 'in_flight', locked_until = excluded.locked_until,
         created_at = now(), expires_at = excluded.expires_at,
         response_status = null, response_headers = null, response_body = null
     where idempotency_keys.expires_at < now()
        or (idempotency_keys.state = 'in_flight' and idempotency_keys.locked_until < now())
   returning 1`,
);
const store = prepared(
  'idempotency_store',
  `update idempotency_keys set state = 'completed', response_status = $4, response_headers = $5, response_body = $6
   where auth_hash = $1 and idempotency_key = $2 and path = $3`,
);

export async function claimIdempotencyKey(db: Queryable, id: IdempotencyId, requestHash: string, lockMs: number, ttlMs: number): Promise<ClaimResult> {
  const claimed = await db.query(claim([id.authHash, id.key, id.path, requestHash, lockMs, ttlMs]));
  if (claimed.rowCount) return { outcome: 'claimed' };
  const { rows } = await db.query<{
    request_hash: string;
    state: string;
    response_status: number;
    response_headers: Record<string, string>;
    response_body: string;
  }>(
    `select request_hash, state, response_status, response_headers, response_body
       from idempotency_keys where auth_hash = $1 and idempotency_key = $2 and path = $3`,
    [id.authHash, id.key, id.path],
  );
  const row = rows[0];
  if (!row) return claimIdempotencyKey(db, id, requestHash, lockMs, ttlMs); // released meanwhile
  if (row.request_hash !== requestHash) return { outcome: 'mismatch' };
  if (row.state === 'in_flight') return { outcome: 'in_flight' };
  return { outcome: 'replay', response: { status: row.response_status, headers: row.response_headers, body: row.response_body } };
}

export async function storeIdempotentResponse(db: Queryable, id: IdempotencyId, response: StoredResponse): Promise<void> {
  await db.query(store([id.authHash, id.key, id.path, response.status, JSON.stringify(response.headers), response.body]));
}

/** Non-2xx outcomes are not cached: the claim is dropped so that a retry executes again. */
export async function releaseIdempotencyKey(db: Queryable, id: IdempotencyId): Promise<void> {
  await db.query(`delete from idempotency_keys where auth_hash = $1 and idempotency_key = $2 and path = $3 and state = 'in_flight'`, [
    id.authHash,
    id.key,
    id.path,
  ]);
}
