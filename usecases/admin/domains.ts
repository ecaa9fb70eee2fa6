/**
 * A workspace's e-mail domains: claiming one (a repeat answers the same claim), verifying it by its
 * DNS TXT record (domain/domainVerification.ts) and giving it up. A domain verified by another
 * workspace is a 409. Each change is audited in the same transaction.
 */
import type { AppContext } from '../../lib/context.ts';
import { randomToken } from '../../lib/crypto.ts';
import { withTransaction } from '../../lib/db.ts';
import { resolveTxt } from '../../lib/dnsTxt.ts';
import { AppError, conflict } from '../../lib/errors.ts';
import { verificationRecord } from '../../domain/domainVerification.ts';
import * as domains from '../../sql/workspaceDomains.ts';
import { recordActorAudit, type WorkspaceActor } from '../workspaceActor.ts';

const notFound = () => new AppError('not_found', 'Domain not found');
const takenElsewhere = (domain: string) => conflict(`The domain ${domain} is verified by another workspace`);
const target = (id: string) => ({ type: 'domain', id });

export async function claimDomain(app: AppContext, actor: WorkspaceActor, domain: string): Promise<domains.WorkspaceDomainRow> {
  return withTransaction(app.pool, async (client) => {
    const owner = await domains.verifiedOwner(client, domain);
    if (owner && owner !== actor.workspaceId) throw takenElsewhere(domain);
    const row = await domains.claimDomain(client, actor.workspaceId, domain, randomToken(24));
    await recordActorAudit(client, actor, 'domain.claimed', target(row.id), { domain: row.domain });
    return row;
  });
}

/**
 * Looks the TXT record up and marks the domain verified (a verified one is answered as it is).
 * 422 `unprocessable` when the record is not found, 503 when the lookup fails.
 */
export async function verifyDomain(app: AppContext, actor: WorkspaceActor, id: string): Promise<domains.WorkspaceDomainRow> {
  const row = await domains.findDomain(app.pool, actor.workspaceId, id);
  if (!row) throw notFound();
  if (row.verified_at) return row;
  const expected = verificationRecord(row.domain, row.verification_token);
  let records: string[];
  try {
    records = await resolveTxt(app.config, expected.name);
  } catch (err) {
    app.logger.warn('domain verification lookup failed', { domain: row.domain, err });
    throw new AppError('service_unavailable', 'The DNS lookup failed; try again later');
  }
  if (!records.includes(expected.value)) {
    throw new AppError('unprocessable', `No TXT record ${expected.name} with the value ${expected.value} was found`, { txt_record: expected });
  }
  return withTransaction(app.pool, async (client) => {
    if (!(await domains.markDomainVerified(client, row.id, app.clock.now()))) throw takenElsewhere(row.domain);
    await recordActorAudit(client, actor, 'domain.verified', target(row.id), { domain: row.domain });
    return (await domains.findDomain(client, actor.workspaceId, row.id))!;
  });
}

/** Just-in-time sign-up stops admitting the domain. */
export async function deleteDomain(app: AppContext, actor: WorkspaceActor, id: string): Promise<void> {
  await withTransaction(app.pool, async (client) => {
    if (!(await domains.deleteDomain(client, actor.workspaceId, id))) throw notFound();
    await recordActorAudit(client, actor, 'domain.deleted', target(id));
  });
}
