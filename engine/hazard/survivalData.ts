/**
 * Right-censored durations: `time[i]` is a duration, `event[i]` true when it ended in an occurrence
 * (an observed gap) and false when it is censored (the open gap up to the as-of time). Durations are in
 * any one unit (the stages use days). An event duration must be > 0 (log T is modelled); a censored
 * duration of 0 carries no information (S(0) = 1) and is allowed. No durations at all is valid data
 * (a single occurrence at the as-of time): the fits answer `insufficient_events` for it.
 */
export interface SurvivalData {
  time: readonly number[];
  event: readonly boolean[];
}

/** Throws a RangeError naming the first offending entry; returns the number of events. */
export function checkSurvivalData(data: SurvivalData, where: string): number {
  const { time, event } = data;
  if (!Array.isArray(time) || !Array.isArray(event)) throw new TypeError(`${where}: time and event must be arrays`);
  if (time.length !== event.length) throw new RangeError(`${where}: time has ${time.length} entries but event has ${event.length}`);
  let events = 0;
  for (let i = 0; i < time.length; i++) {
    const t = time[i];
    if (typeof t !== 'number' || Number.isNaN(t)) throw new RangeError(`${where}: time[${i}] is not a number`);
    if (!Number.isFinite(t)) throw new RangeError(`${where}: time[${i}] is not finite`);
    if (t < 0) throw new RangeError(`${where}: time[${i}] = ${t} is negative`);
    if (typeof event[i] !== 'boolean') throw new TypeError(`${where}: event[${i}] must be a boolean`);
    if (event[i]) {
      if (t === 0) throw new RangeError(`${where}: time[${i}] is an event at duration 0 (drop simultaneous occurrences first)`);
      events++;
    }
  }
  return events;
}
