/**
 * How a batch of ingest records maps onto issues, before any row is read (pure): dedup on
 * (source, external_id) — within one batch the last record of a key wins and decides the issue of
 * every record of that key; a record without external_id always makes an issue of its own — and the
 * engine eligibility of each deciding record, judged at the time the batch was received
 * (domain/engineEligibility.ts). sql/issues.ts `storeIngestPlan` writes the plan.
 */
import { engineEligibility, type EngineStatus } from './engineEligibility.ts';
import type { IssueInput } from './ingestRecord.ts';

/** The dedup key of a record with an external id. */
export const ingestKey = (source: string, externalId: string) => `${source}\u0000${externalId}`;

export interface PlannedRecord {
  /** Its position in the batch. */
  index: number;
  input: IssueInput;
  /** Null without an external id. */
  key: string | null;
  eligibility: { status: EngineStatus; reason: string | null };
}

export interface IngestPlan {
  /** Per record of the batch, the index of the record that decides its issue. */
  decidingIndex: number[];
  /** The deciding records, in batch order. */
  effective: PlannedRecord[];
}

export function planIngest(inputs: IssueInput[], receivedAt: Date): IngestPlan {
  const keys = inputs.map((input) => (input.external_id === null ? null : ingestKey(input.source, input.external_id)));
  const lastIndexOfKey = new Map<string, number>();
  keys.forEach((key, i) => {
    if (key !== null) lastIndexOfKey.set(key, i);
  });
  const decidingIndex = keys.map((key, i) => (key === null ? i : lastIndexOfKey.get(key)!));
  const effective: PlannedRecord[] = [];
  decidingIndex.forEach((deciding, index) => {
    if (deciding !== index) return;
    const input = inputs[index];
    effective.push({ index, input, key: keys[index], eligibility: engineEligibility(input.narrative, input.occurred_at, receivedAt) });
  });
  return { decidingIndex, effective };
}
