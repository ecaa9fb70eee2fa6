/**
 * Deciding an item of the engine's review queue: resolving it with the decision its kind needs, or
 * dismissing it. Decisions are events and feed the next engine run; the narrative a reviewer supplies
 * goes to the issue too, and a decision on a pattern's question settles every member at once.
 */
import { z } from 'zod';
import type { AppContext } from '../lib/context.ts';
import type { PoolClient } from '../lib/db.ts';
import { AppError } from '../lib/errors.ts';
import { activeConfig } from '../sql/configs.ts';
import { withEventBatch, type Actor } from '../sql/events.ts';
import { lockIssuesById } from '../sql/issues.ts';
import {
  decideReviewItem as storeDecision,
  findReviewItem,
  lockReviewItem,
  patternOfQuestion,
  settlePatternMembers,
  type ReviewItemRow,
} from '../sql/reviewItems.ts';
import { updateIssue } from './updateIssue.ts';

/** What a resolution must carry, by kind. */
const decisionSchemas = {
  missing_narrative: z.object({ narrative: z.string().trim().min(1, 'must not be empty').max(100_000) }),
  // An extraction item offers domain candidates: its decision is the domain; a root cause may come along.
  extraction: z.object({
    domain: z.string({ error: 'is required: a domain id of the active taxonomy, or null' }).min(1).nullable(),
    root_cause: z.string().min(1).nullable().optional(),
  }),
  root_cause: z.object({ root_cause: z.string().min(1) }),
  criticality: z.object({ criticality: z.string().min(1) }),
} as const;

const invalidDecision = (details: Record<string, string>) => new AppError('validation_error', 'Request validation failed', details);

/** Checks a decision against the item's kind and the workspace's active taxonomy and rubric. */
async function checkedDecision(client: PoolClient, workspaceId: string, item: ReviewItemRow, decision: unknown): Promise<Record<string, unknown>> {
  const parsed = decisionSchemas[item.kind].safeParse(decision);
  if (!parsed.success) {
    const details: Record<string, string> = {};
    for (const i of parsed.error.issues) details[['decision', ...i.path.map(String)].join('.')] ??= i.message;
    throw invalidDecision(details);
  }
  const value = parsed.data as Record<string, string | null>;
  if ('domain' in value || 'root_cause' in value) {
    const taxonomy = (await activeConfig(client, workspaceId, 'taxonomy')).document;
    if (value.domain && !taxonomy.domains.some((d) => d.id === value.domain))
      throw invalidDecision({ 'decision.domain': `is not a domain of the active taxonomy; one of ${taxonomy.domains.map((d) => d.id).join(', ')}` });
    if (value.root_cause && !taxonomy.root_causes.some((r) => r.id === value.root_cause))
      throw invalidDecision({
        'decision.root_cause': `is not a root cause of the active taxonomy; one of ${taxonomy.root_causes.map((r) => r.id).join(', ')}`,
      });
  }
  if ('criticality' in value) {
    const rubric = (await activeConfig(client, workspaceId, 'rubric')).document;
    if (!rubric.levels.some((l) => l.name === value.criticality))
      throw invalidDecision({ 'decision.criticality': `is not a level of the active rubric; one of ${rubric.levels.map((l) => l.name).join(', ')}` });
  }
  return value;
}

/**
 * A reviewer's decision on an open item: `dismissed`, or `resolved` with the decision its kind needs
 * (checked against the active taxonomy and rubric); 404 when absent, 409 when already decided.
 */
export async function decideReviewItem(
  app: AppContext,
  workspaceId: string,
  actor: Actor,
  id: string,
  outcome: 'resolved' | 'dismissed',
  decision: unknown,
  note: string | undefined,
): Promise<ReviewItemRow> {
  return withEventBatch(app.pool, workspaceId, async (client, events) => {
    // The lock order of every writer: the item's issue first, then the item (an item's issue never changes).
    const seen = await findReviewItem(client, workspaceId, id);
    if (!seen) throw new AppError('not_found', 'Review item not found');
    if (seen.issue_id) await lockIssuesById(client, workspaceId, [seen.issue_id]);
    const item = await lockReviewItem(client, workspaceId, id);
    if (!item) throw new AppError('not_found', 'Review item not found');
    if (item.status !== 'open') throw new AppError('conflict', `Review item is already ${item.status}`);
    if (outcome === 'dismissed') return storeDecision(client, events, actor, id, 'dismissed', { note: note ?? null });
    const value = await checkedDecision(client, workspaceId, item, decision);
    const decided = await storeDecision(client, events, actor, id, 'resolved', { ...value, note: note ?? null });
    // The narrative a reviewer supplies goes to the issue too (which makes it eligible for clustering).
    if (item.kind === 'missing_narrative' && item.issue_id) await updateIssue(client, events, actor, item.issue_id, { narrative: value.narrative as string });
    const patternId = item.issue_id ? null : patternOfQuestion(item.question_key);
    if (patternId) await settlePatternMembers(client, workspaceId, patternId, item.kind, value);
    return decided;
  });
}
