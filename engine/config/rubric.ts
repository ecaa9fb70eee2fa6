/**
 * rubric: how criticality is scored. score = Σ severity weight + Σ matched signal weights, clamped to
 * [0, 1]; the level is the highest whose `min_score` the score reaches; confidence below
 * `abstain_below` sends the issue to the review queue instead of guessing.
 */
import { z } from 'zod';

export const rubricSchema = z.strictObject({
  severity_weights: z.strictObject({
    critical: z.number().min(0).max(1),
    high: z.number().min(0).max(1),
    medium: z.number().min(0).max(1),
    low: z.number().min(0).max(1),
  }),
  signals: z.array(z.strictObject({ term: z.string().trim().min(1).max(100), weight: z.number().min(-1).max(1) })).max(500),
  levels: z
    .array(z.strictObject({ name: z.string().trim().min(1).max(50), min_score: z.number().min(0).max(1) }))
    .min(2)
    .max(10),
  abstain_below: z.number().min(0).max(1),
});
export type RubricConfig = z.infer<typeof rubricSchema>;

export function checkRubric(doc: RubricConfig, issue: (path: string, message: string) => void): void {
  const w = doc.severity_weights;
  if (!(w.critical >= w.high && w.high >= w.medium && w.medium >= w.low)) {
    issue('severity_weights', 'must not decrease from critical to low');
  }
  const names = new Set<string>();
  doc.levels.forEach((level, i) => {
    if (names.has(level.name)) issue(`levels.${i}.name`, `duplicate level '${level.name}'`);
    names.add(level.name);
    if (i > 0 && level.min_score <= doc.levels[i - 1].min_score) issue(`levels.${i}.min_score`, 'must be greater than the previous level');
  });
  if (doc.levels[0] && doc.levels[0].min_score !== 0) issue('levels.0.min_score', 'the first level must start at 0');
  const terms = new Set<string>();
  doc.signals.forEach((s, i) => {
    const key = s.term.toLowerCase();
    if (terms.has(key)) issue(`signals.${i}.term`, `duplicate signal '${s.term}'`);
    terms.add(key);
  });
}

export const defaultRubric: RubricConfig = {
  severity_weights: { critical: 0.7, high: 0.5, medium: 0.3, low: 0.1 },
  signals: [
    { term: 'data loss', weight: 0.3 },
    { term: 'corruption', weight: 0.3 },
    { term: 'outage', weight: 0.25 },
    { term: 'security', weight: 0.25 },
    { term: 'crash', weight: 0.15 },
    { term: 'deadlock', weight: 0.15 },
    { term: 'leak', weight: 0.1 },
    { term: 'timeout', weight: 0.1 },
    { term: 'typo', weight: -0.2 },
    { term: 'documentation', weight: -0.15 },
  ],
  levels: [
    { name: 'low', min_score: 0 },
    { name: 'moderate', min_score: 0.3 },
    { name: 'high', min_score: 0.55 },
    { name: 'critical', min_score: 0.8 },
  ],
  abstain_below: 0.5,
};
