/** The event record of the feed and of per-aggregate histories. */
import { z } from 'zod';
import { jsonValue } from '../../http/jsonValue.ts';
import type { StoredEvent } from '../../../sql/events.ts';

export const eventSchema = z.object({
  sequence: z.number().int(),
  id: z.string(),
  type: z.string(),
  aggregate_type: z.string(),
  aggregate_id: z.string(),
  payload: z.record(z.string(), jsonValue("A field of the event's payload, by event type")),
  actor: z.object({ type: z.string(), id: z.string().nullable() }),
  occurred_at: z.string(),
  recorded_at: z.string(),
});

export const toEvent = (e: StoredEvent): z.infer<typeof eventSchema> => ({
  sequence: e.sequence,
  id: e.id,
  type: e.event_type,
  aggregate_type: e.aggregate_type,
  aggregate_id: e.aggregate_id,
  payload: e.payload,
  actor: { type: e.actor_type, id: e.actor_id },
  occurred_at: e.occurred_at.toISOString(),
  recorded_at: e.recorded_at.toISOString(),
});
