/**
 * Ingest records whose occurrence times give each pattern a known hazard outcome: generated issues
 * of four themes (fixtures/synthetic.ts), their `occurred_at` replaced relative to `now`:
 * - disk_full and memory recur every two to four days from now - 400 d to now - 150 d, then (a fix
 *   taking hold) every two to three weeks up to a few days ago: fitted, still recurring and alerting.
 *   (A pattern silent for 150 days after gaps of days would be dormant: engine/hazard/dormancy.ts.)
 * - network has no occurred_at: not fitted, `no_timestamps`;
 * - auth occurred at two instants only (one gap): not fitted, `insufficient_events`.
 * Deterministic for `now` and the seed (jitter from engine/rng.ts).
 */
import { generateIssues, type SyntheticIssue } from '../../fixtures/synthetic.ts';
import { createRng } from '../../engine/rng.ts';

export const DAY = 86_400_000;
export const FIXTURE_THEMES = ['disk_full', 'memory', 'network', 'auth'] as const;
export type FixtureTheme = (typeof FIXTURE_THEMES)[number];

export interface FixtureRecord {
  external_id: string;
  title: string;
  narrative: string;
  source: string;
  severity: SyntheticIssue['severity'];
  occurred_at?: string;
}

/** `count` times spread evenly over [from, to] with jitter of ±40% of a slot. */
export function spreadTimes(count: number, from: number, to: number, seed: number): number[] {
  const rng = createRng(seed);
  const slot = (to - from) / count;
  return Array.from({ length: count }, (_, i) => Math.round(from + slot * (i + 0.5 + (rng.next() - 0.5) * 0.8)));
}

function timed(issues: SyntheticIssue[], times: (theme: FixtureTheme, count: number) => Array<number | null>): FixtureRecord[] {
  const byTheme = new Map<FixtureTheme, SyntheticIssue[]>();
  for (const g of issues) byTheme.set(g.theme as FixtureTheme, [...(byTheme.get(g.theme as FixtureTheme) ?? []), g]);
  const timeOf = new Map<string, number | null>();
  for (const [theme, members] of byTheme) times(theme, members.length).forEach((t, i) => timeOf.set(members[i].external_id, t));
  return issues.map((g) => {
    const t = timeOf.get(g.external_id)!;
    return {
      external_id: g.external_id,
      title: g.title,
      narrative: g.narrative,
      source: 'synthetic',
      severity: g.severity,
      ...(t === null ? {} : { occurred_at: new Date(t).toISOString() }),
    };
  });
}

export const RECURRING_FROM_DAYS = 400;
export const RECURRING_UNTIL_DAYS = 150;
/** The sparse occurrences after the busy period, over [now - TAIL_FROM_DAYS, now - TAIL_UNTIL_DAYS]. */
export const TAIL_OCCURRENCES = 8;
export const TAIL_FROM_DAYS = 140;
export const TAIL_UNTIL_DAYS = 3;

export function forecastRecords(now: number, count = 300, seed = 11): { records: FixtureRecord[]; themeOf: Map<string, FixtureTheme> } {
  const generated = generateIssues(count, seed, FIXTURE_THEMES.length);
  const records = timed(generated, (theme, n) => {
    if (theme === 'network') return new Array(n).fill(null);
    if (theme === 'auth') return Array.from({ length: n }, (_, i) => now - (i % 2 ? 20 : 50) * DAY);
    const seed = theme === 'disk_full' ? 1 : 2;
    return [
      ...spreadTimes(n - TAIL_OCCURRENCES, now - RECURRING_FROM_DAYS * DAY, now - RECURRING_UNTIL_DAYS * DAY, seed),
      ...spreadTimes(TAIL_OCCURRENCES, now - TAIL_FROM_DAYS * DAY, now - TAIL_UNTIL_DAYS * DAY, seed + 10),
    ];
  });
  return { records, themeOf: new Map(generated.map((g) => [g.external_id, g.theme as FixtureTheme])) };
}

/**
 * `count` recurrences of the failures in `of` (their titles and narratives in turn, new external ids),
 * occurring over [from, to]: more of the same failure, not a new one.
 */
export function recurrencesOf(of: FixtureRecord[], count: number, from: number, to: number): FixtureRecord[] {
  const times = spreadTimes(count, from, to, 3);
  return times.map((t, i) => {
    const r = of[i % of.length];
    return { ...r, external_id: `${r.external_id}-again-${i}`, occurred_at: new Date(t).toISOString() };
  });
}
