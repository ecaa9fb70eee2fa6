/**
 * A pattern's recurrence data from its occurrence times: the gaps t₍ᵢ₊₁₎ - t₍ᵢ₎ between consecutive
 * occurrences (events) and the open gap asOf - t₍ₙ₎ from the last occurrence to the as-of time
 * (right-censored). Times are numbers in one unit (the caller converts, e.g. epoch ms to days).
 * Simultaneous occurrences give gaps of 0, which a model of log T cannot hold: they are dropped and
 * counted in `droppedTies` (the occurrences still count as occurrences elsewhere). An open gap of 0
 * (an occurrence exactly at the as-of time) carries no information and is left out.
 */
import type { SurvivalData } from './survivalData.ts';

export interface CensoredGaps extends SurvivalData {
  /** Zero-length gaps between simultaneous occurrences that were dropped. */
  droppedTies: number;
  /** asOf - last occurrence: the time since the last occurrence (the age of the open gap). */
  sinceLast: number;
}

export function censoredGaps(occurrences: readonly number[], asOf: number): CensoredGaps {
  if (!Number.isFinite(asOf)) throw new RangeError(`censoredGaps: asOf must be finite, got ${asOf}`);
  if (occurrences.length === 0) throw new RangeError('censoredGaps: no occurrences');
  const sorted = [...occurrences];
  for (let i = 0; i < sorted.length; i++) {
    if (typeof sorted[i] !== 'number' || !Number.isFinite(sorted[i])) throw new RangeError(`censoredGaps: occurrence ${i} is not a finite number`);
  }
  sorted.sort((a, b) => a - b);
  const last = sorted[sorted.length - 1];
  if (last > asOf) throw new RangeError(`censoredGaps: an occurrence (${last}) is after asOf (${asOf})`);
  const time: number[] = [];
  const event: boolean[] = [];
  let droppedTies = 0;
  for (let i = 1; i < sorted.length; i++) {
    const gap = sorted[i] - sorted[i - 1];
    if (gap === 0) {
      droppedTies++;
      continue;
    }
    time.push(gap);
    event.push(true);
  }
  const sinceLast = asOf - last;
  if (sinceLast > 0) {
    time.push(sinceLast);
    event.push(false);
  }
  return { time, event, droppedTies, sinceLast };
}
