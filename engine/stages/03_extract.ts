/**
 * Stage 3, extract: per issue, domain and root-cause candidates from the taxonomy's keywords and
 * criticality from the rubric, each with a confidence. Below the threshold the engine abstains and
 * asks a reviewer (kinds extraction, root_cause, criticality) instead of guessing; reviewers'
 * decisions from earlier runs override the engine (confidence 1, source `human`).
 *
 * Keyword evidence: each distinct keyword counts 2 in the title, 1 in the narrative. With `top` and
 * `second` the two best candidates' scores, confidence = (1 - e^-top) · top / (top + second): more
 * evidence raises it, a close runner-up lowers it.
 * Criticality: score = severity weight + Σ matched signal weights, clamped to [0, 1]; the level is
 * the highest whose min_score it reaches; confidence = min(1, 0.5 + 5 · distance to the nearest level
 * boundary), so only scores right at a boundary abstain.
 */
import type { RubricConfig } from '../config/rubric.ts';
import type { TaxonomyConfig } from '../config/taxonomy.ts';
import { round } from '../round.ts';
import { keywordScanner } from '../text/keywords.ts';
import type { StageContext } from './context.ts';
import type { Decision, SnapshotOutput } from './01_snapshot.ts';
import type { NormalizeOutput } from './02_normalize.ts';

export interface Judgement {
  value: string | null;
  confidence: number;
  source: 'engine' | 'human';
  abstained: boolean;
  candidates: Array<{ id: string; score: number }>;
  evidence: string[];
}

export interface CriticalityJudgement {
  level: string | null;
  score: number;
  confidence: number;
  source: 'engine' | 'human';
  abstained: boolean;
  evidence: string[];
}

export interface ExtractionResult {
  issue_id: string;
  domain: Judgement;
  root_cause: Judgement;
  criticality: CriticalityJudgement;
}

export interface Abstention {
  issue_id: string;
  kind: 'extraction' | 'root_cause' | 'criticality';
  reason: string;
  candidates: Array<{ id: string; score: number }>;
}

export interface ExtractOutput {
  results: ExtractionResult[];
  abstentions: Abstention[];
}

/** `inTitle[e]`, `inBody[e]`: the keywords of entry `ids[e]` found in the title and the narrative. */
function judge(ids: string[], inTitles: Array<ReadonlySet<string>>, inBodies: Array<ReadonlySet<string>>, threshold: number): Judgement {
  const scored: Array<{ id: string; score: number; evidence: string[] }> = [];
  for (let e = 0; e < ids.length; e++) {
    const inTitle = inTitles[e];
    const inBody = inBodies[e];
    // No keyword of this entry: score 0, not a candidate (most entries for most reports; no set built).
    if (inTitle.size === 0 && inBody.size === 0) continue;
    let score = 0;
    const evidence = new Set<string>();
    for (const k of inTitle) {
      score += 2;
      evidence.add(k);
    }
    for (const k of inBody) {
      if (!inTitle.has(k)) score += 1;
      evidence.add(k);
    }
    if (score > 0) scored.push({ id: ids[e], score, evidence: [...evidence].sort() });
  }
  scored.sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : 1));
  const top = scored[0]?.score ?? 0;
  const second = scored[1]?.score ?? 0;
  const confidence = top === 0 ? 0 : round((1 - Math.exp(-top)) * (top / (top + second)));
  const abstained = confidence < threshold;
  return {
    value: abstained ? null : scored[0].id,
    confidence,
    source: 'engine',
    abstained,
    candidates: scored.slice(0, 3).map(({ id, score }) => ({ id, score })),
    evidence: scored[0]?.evidence ?? [],
  };
}

/** `found[s]`: the occurrences of signal `s` in the issue's text. */
function criticality(rubric: RubricConfig, found: Array<ReadonlySet<string>>, severity: keyof RubricConfig['severity_weights']): CriticalityJudgement {
  let score = rubric.severity_weights[severity];
  const evidence: string[] = [`severity:${severity}`];
  for (const [s, signal] of rubric.signals.entries()) {
    if (found[s].size) {
      score += signal.weight;
      evidence.push(signal.term);
    }
  }
  // Rounded before the level is chosen: 0.3 + 0.15 + 0.1 sums to 0.5499999999999999, which must reach a 0.55 level.
  score = round(Math.min(1, Math.max(0, score)));
  let level = rubric.levels[0];
  for (const l of rubric.levels) if (score >= l.min_score) level = l;
  const boundaries = rubric.levels.slice(1).map((l) => l.min_score);
  const margin = boundaries.length ? Math.min(...boundaries.map((b) => Math.abs(score - b))) : 1;
  const confidence = round(Math.min(1, 0.5 + 5 * margin));
  const abstained = confidence < rubric.abstain_below;
  return { level: abstained ? null : level.name, score: round(score), confidence, source: 'engine', abstained, evidence };
}

function human(decision: Decision | undefined, field: 'domain' | 'root_cause'): string | null | undefined {
  if (!decision) return undefined;
  const value = decision.decision[field];
  return typeof value === 'string' ? value : value === null ? null : undefined;
}

export function extract(input: { snapshot: SnapshotOutput; normalize: NormalizeOutput }, ctx: StageContext): ExtractOutput {
  const taxonomy: TaxonomyConfig = ctx.configs.taxonomy.document;
  const rubric: RubricConfig = ctx.configs.rubric.document;
  const domainIds = taxonomy.domains.map((d) => d.id);
  const causeIds = taxonomy.root_causes.map((r) => r.id);
  // One pass per text finds the keywords of every domain and root cause (groups: domains, then causes).
  const entries = keywordScanner([...taxonomy.domains, ...taxonomy.root_causes].map((e) => e.keywords));
  const signals = keywordScanner(rubric.signals.map((s) => [s.term]));
  const split = taxonomy.domains.length;
  const decisions = new Map(input.snapshot.decisions.filter((d) => d.issue_id).map((d) => [`${d.issue_id}:${d.kind}`, d]));

  const results: ExtractionResult[] = [];
  const abstentions: Abstention[] = [];
  input.snapshot.issues.forEach((issue, i) => {
    const title = input.normalize.title_text[i];
    const body = input.normalize.body_text[i];
    const inTitle = entries.scan(title);
    const inBody = entries.scan(body);
    const domain = judge(domainIds, inTitle.slice(0, split), inBody.slice(0, split), taxonomy.extraction_threshold);
    const rootCause = judge(causeIds, inTitle.slice(split), inBody.slice(split), taxonomy.extraction_threshold);
    const crit = criticality(rubric, signals.scan(`${title} ${body}`), issue.severity);

    const extraction = decisions.get(`${issue.id}:extraction`);
    const cause = decisions.get(`${issue.id}:root_cause`);
    const level = decisions.get(`${issue.id}:criticality`);
    const humanDomain = human(extraction, 'domain');
    const humanCause = human(cause, 'root_cause') ?? human(extraction, 'root_cause');
    if (humanDomain !== undefined) Object.assign(domain, { value: humanDomain, confidence: 1, source: 'human', abstained: false });
    if (humanCause !== undefined) Object.assign(rootCause, { value: humanCause, confidence: 1, source: 'human', abstained: false });
    if (level && typeof level.decision.criticality === 'string')
      Object.assign(crit, { level: level.decision.criticality, confidence: 1, source: 'human', abstained: false });

    if (domain.abstained)
      abstentions.push({ issue_id: issue.id, kind: 'extraction', reason: `Domain unclear (confidence ${domain.confidence})`, candidates: domain.candidates });
    if (rootCause.abstained)
      abstentions.push({
        issue_id: issue.id,
        kind: 'root_cause',
        reason: `Root cause unclear (confidence ${rootCause.confidence})`,
        candidates: rootCause.candidates,
      });
    if (crit.abstained)
      abstentions.push({ issue_id: issue.id, kind: 'criticality', reason: `Criticality at a level boundary (score ${crit.score})`, candidates: [] });
    results.push({ issue_id: issue.id, domain, root_cause: rootCause, criticality: crit });
  });
  return { results, abstentions };
}
