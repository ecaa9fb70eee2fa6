/**
 * Templates: Markdown with `{{path.to.fact}}` placeholders, optionally with a named format
 * (`{{prediction.p_recurrence.estimate|pct0}}`, formats of quantity.ts). Every number a template
 * shows comes from a placeholder, formatted with the rounding its format declares; a number typed
 * into the template text is checked like any other numeral (factCheck.ts). The built-in templates of
 * the four kinds are functions of the facts (which sections apply) that return such templates.
 */
import type { Facts, ReportKind } from './facts.ts';
import { formatQuantity, formats, isQuantity, quantity, type FormatName } from './quantity.ts';

export const MAX_TEMPLATE_LENGTH = 50_000;

/** Top-level sections of each kind's facts: the first segment of every placeholder path. */
export const factSections: Record<ReportKind, readonly string[]> = {
  pattern_brief: ['kind', 'run', 'pattern', 'hazard', 'prediction', 'financials', 'recommendation', 'alert'],
  recommendation_case: ['kind', 'run', 'pattern', 'hazard', 'prediction', 'financials', 'recommendation', 'alert'],
  workspace_risk: ['kind', 'run', 'totals', 'top_patterns', 'alerts'],
  backtest_accuracy: ['kind', 'run', 'backtest'],
};

const PLACEHOLDER = /\{\{\s*([^{}|]*?)\s*(?:\|\s*([^{}]*?)\s*)?\}\}/g;
const PATH = /^[a-z_][a-z0-9_]*(?:\.(?:[a-z_][a-z0-9_]*|\d+))*$/;

export interface TemplateProblem {
  placeholder: string;
  position: number;
  message: string;
}

/** Syntax and sections of a custom template (what can be known before the facts exist). */
export function validateTemplate(template: string, kind: ReportKind): TemplateProblem[] {
  const problems: TemplateProblem[] = [];
  if (!template.trim()) return [{ placeholder: '', position: 0, message: 'must not be empty' }];
  if (template.length > MAX_TEMPLATE_LENGTH) return [{ placeholder: '', position: 0, message: `must be at most ${MAX_TEMPLATE_LENGTH} characters` }];
  const covered: Array<[number, number]> = [];
  for (const m of template.matchAll(PLACEHOLDER)) {
    covered.push([m.index, m.index + m[0].length]);
    const [placeholder, path, format] = m;
    if (!PATH.test(path))
      problems.push({ placeholder, position: m.index, message: 'the path must be dot-separated lowercase names and indexes, e.g. pattern.issue_count' });
    else if (!factSections[kind].includes(path.split('.')[0]))
      problems.push({
        placeholder,
        position: m.index,
        message: `unknown section '${path.split('.')[0]}'; a ${kind} report has ${factSections[kind].join(', ')}`,
      });
    if (format !== undefined && !(formats as readonly string[]).includes(format))
      problems.push({ placeholder, position: m.index, message: `unknown format '${format}'; formats are ${formats.join(', ')}` });
  }
  for (const stray of template.matchAll(/\{\{|\}\}/g)) {
    if (!covered.some(([a, b]) => stray.index >= a && stray.index < b))
      problems.push({ placeholder: stray[0], position: stray.index, message: 'unbalanced placeholder braces' });
  }
  return problems;
}

export class TemplateError extends Error {
  override name = 'TemplateError';
  constructor(readonly problems: TemplateProblem[]) {
    super(problems.map((p) => `${p.placeholder} at ${p.position}: ${p.message}`).join('; '));
  }
}

function lookup(facts: unknown, path: string): { found: boolean; value: unknown } {
  let v: unknown = facts;
  for (const key of path.split('.')) {
    if (v === null || typeof v !== 'object' || !Object.hasOwn(v, key)) return { found: false, value: undefined };
    v = (v as Record<string, unknown>)[key];
  }
  return { found: true, value: v };
}

function renderValue(value: unknown, format: FormatName): string {
  if (isQuantity(value)) return formatQuantity(value, format);
  if (value === null) return 'n/a';
  if (typeof value === 'number') return formatQuantity(quantity(value, 'number'), format);
  if (typeof value === 'string') return format === 'date' || format === 'month' ? formatQuantity(quantity(value, 'date'), format) : value;
  if (typeof value === 'boolean') return value ? 'yes' : 'no';
  throw new TypeError('does not name a single fact (it is a list or a section)');
}

/** The template with every placeholder replaced; every unresolvable placeholder is reported at once. */
export function renderTemplate(template: string, facts: Facts): string {
  const problems = validateTemplate(template, facts.kind);
  if (problems.length) throw new TemplateError(problems);
  const text = template.replace(PLACEHOLDER, (placeholder: string, path: string, format: string | undefined, position: number) => {
    const { found, value } = lookup(facts, path);
    if (!found) {
      problems.push({ placeholder, position, message: `no fact at ${path}` });
      return placeholder;
    }
    try {
      return renderValue(value, (format ?? 'auto') as FormatName);
    } catch (err) {
      problems.push({ placeholder, position, message: (err as Error).message });
      return placeholder;
    }
  });
  if (problems.length) throw new TemplateError(problems);
  return text;
}

// The built-in templates. Their prose holds no number of its own (not even "one" or "ten").

type F = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

function patternSections(f: F): string[] {
  const out: string[] = [];
  out.push(
    '## Summary',
    '',
    '**{{pattern.name}}** groups {{pattern.issue_count}} issues' +
      (f.pattern.first_seen_at ? ', first seen on {{pattern.first_seen_at}} and last seen on {{pattern.last_seen_at}}' : '') +
      '. Its risk score is {{pattern.risk_score}}.' +
      (f.pattern.root_cause
        ? ' The evidence of {{pattern.root_cause_share}} of its issues points to **{{pattern.root_cause.name}}**.'
        : ' Its root cause is undecided: the evidence is split, so a reviewer decides.'),
    '',
  );
  if (f.alert)
    out.push(
      '**Crest alert:** recurrence within {{alert.horizon_days|days0}} has a probability of {{alert.probability}} ({{alert.lower}}–{{alert.upper}}), at or above the threshold of {{alert.threshold|pct0}}.',
      '',
    );
  const h = f.hazard;
  out.push('## Recurrence', '');
  if (!h) out.push('The run did not model recurrence for this pattern.', '');
  else if (h.status === 'not_fitted') out.push('No recurrence model was fitted: {{hazard.detail}}.', '');
  else {
    out.push(
      'A {{hazard.model}} model was fitted to {{hazard.n_gaps}} gaps between {{hazard.n_occurrences}} occurrences (scale {{hazard.scale_days}}, shape {{hazard.shape|fixed2}}). ' +
        'The last occurrence was on {{hazard.last_occurrence_at}}, {{hazard.since_last_days}} before the run.',
      '',
    );
    if (h.dormant) {
      out.push(
        '**Dormant:** under this model a silence this long has a probability below {{hazard.dormancy_level|pct0}} ({{hazard.silence_probability|pct2}}). ' +
          'The model no longer describes the pattern, so no forecast is made from it; its history stays, and the next occurrence makes it forecastable again.',
        '',
      );
      return [...out, ...costSection(f)];
    }
    if (f.prediction) {
      out.push(
        'The probability of a recurrence within {{prediction.horizon_days|days0}} is {{prediction.p_recurrence.estimate}} ({{prediction.p_recurrence.lower}}–{{prediction.p_recurrence.upper}}); ' +
          'the next occurrence is expected in {{prediction.expected_time_to_next_days.estimate}}.',
        '',
      );
    }
    out.push('| Horizon | Expected occurrences | {{hazard.interval_level|pct0}} interval | Probability of any |', '|---|---|---|---|');
    h.forecast.forEach((_: unknown, i: number) =>
      out.push(
        `| {{hazard.forecast.${i}.horizon_days|days0}} | {{hazard.forecast.${i}.expected|fixed1}} | {{hazard.forecast.${i}.lower|int}}–{{hazard.forecast.${i}.upper|int}} | {{hazard.forecast.${i}.probability_any}} |`,
      ),
    );
    out.push('');
  }
  return [...out, ...costSection(f)];
}

function costSection(f: F): string[] {
  const out: string[] = [];
  if (f.financials) {
    out.push('## Cost', '', 'An occurrence costs {{financials.cost_per_occurrence}} on average; the occurrences so far cost {{financials.cost_to_date}}.', '');
    if (f.financials.horizons.length) {
      out.push('| Horizon | Expected cost | Interval |', '|---|---|---|');
      f.financials.horizons.forEach((_: unknown, i: number) =>
        out.push(
          `| {{financials.horizons.${i}.horizon_days|days0}} | {{financials.horizons.${i}.expected_cost.estimate}} | {{financials.horizons.${i}.expected_cost.lower}}–{{financials.horizons.${i}.expected_cost.upper}} |`,
        ),
      );
      out.push('');
    }
  }
  return out;
}

function recommendationSection(f: F): string[] {
  const r = f.recommendation;
  if (!r) return ['## Recommendation', '', 'The run made no recommendation for this pattern.', ''];
  if (r.status === 'abstained') return ['## Recommendation', '', 'The engine abstained from recommending a fix ({{recommendation.abstain_reason}}).', ''];
  const out = ['## Recommendation', '', '**{{recommendation.playbook.title}}** (root cause: {{recommendation.root_cause.name}}).', ''];
  r.playbook.steps.forEach((_: unknown, i: number) => out.push(`- {{recommendation.playbook.steps.${i}}}`));
  out.push('');
  if (r.business_case) {
    out.push(
      'Over {{recommendation.business_case.horizon_days|days0}} the fix is expected to avoid {{recommendation.business_case.avoided_cost.estimate}} ' +
        '({{recommendation.business_case.avoided_cost.lower}}–{{recommendation.business_case.avoided_cost.upper}}) for a fix cost of {{recommendation.business_case.fix_cost}}' +
        (r.business_case.roi !== null ? ', a return of {{recommendation.business_case.roi|ratio1}}' : '') +
        (r.business_case.payback_days !== null ? ', paid back in {{recommendation.business_case.payback_days}}' : '') +
        '. Confidence in the case: {{recommendation.business_case.confidence|pct0}}.',
      '',
    );
  }
  return out;
}

const provenanceLine = [
  '## Provenance',
  '',
  'Engine run `{{run.id}}` as of {{run.as_of|date}} (engine {{run.engine_version}}). The facts cite {{pattern.issues.count|int}} issues; their ids and digest `{{pattern.issues.digest}}` are in the facts document.',
  '',
];

function patternBrief(f: F): string {
  return ['# Pattern brief: {{pattern.name}}', '', ...patternSections(f), ...recommendationSection(f), ...provenanceLine].join('\n');
}

function recommendationCase(f: F): string {
  return ['# Recommendation case: {{pattern.name}}', '', ...recommendationSection(f), ...patternSections(f), ...provenanceLine].join('\n');
}

function workspaceRisk(f: F): string {
  const out = [
    '# Workspace risk',
    '',
    'As of {{run.as_of|date}} the engine tracks {{totals.patterns}} patterns covering {{totals.issues_in_patterns}} issues; {{totals.fitted_patterns}} have a fitted recurrence model and {{totals.open_alerts}} crest alerts are open. ' +
      'Expected cost over the next {{totals.horizon_days|days0}}: {{totals.expected_cost}}.',
    '',
    '## Riskiest patterns',
    '',
    '| Pattern | Risk score | Issues | Probability of recurrence | Expected cost |',
    '|---|---|---|---|---|',
  ];
  f.top_patterns.forEach((_: unknown, i: number) =>
    out.push(
      `| {{top_patterns.${i}.name}} | {{top_patterns.${i}.risk_score}} | {{top_patterns.${i}.issue_count|int}} | {{top_patterns.${i}.p_recurrence}} | {{top_patterns.${i}.expected_cost}} |`,
    ),
  );
  out.push(
    '',
    '## Provenance',
    '',
    'Engine run `{{run.id}}` (engine {{run.engine_version}}); each pattern of the table lists its member issue ids in the facts document.',
    '',
  );
  return out.join('\n');
}

function backtestAccuracy(f: F): string {
  const b = f.backtest;
  const out = ['# Backtest accuracy', ''];
  if (!b.overall)
    out.push(
      'Nothing could be scored yet: no origin of the rolling-origin backtest has its horizon of {{backtest.horizon_days|days0}} fully observed with a fitted pattern.',
      '',
    );
  else {
    out.push(
      'Forecasts of a recurrence within {{backtest.horizon_days|days0}} were scored from past origins: {{backtest.overall.n_scored|int}} forecasts over {{backtest.overall.n_patterns|int}} patterns. ' +
        'The Brier score is {{backtest.overall.brier|fixed3}} against {{backtest.overall.brier_reference|fixed3}} for always forecasting the base rate of {{backtest.overall.base_rate}}' +
        (b.overall.skill !== null ? ' (skill {{backtest.overall.skill|fixed2}})' : '') +
        (b.overall.coverage !== null
          ? '; {{backtest.overall.coverage}} of the actual counts fell inside their {{backtest.interval_level|pct0}} interval'
          : '') +
        '.',
      '',
      '## Calibration',
      '',
      '| Forecast probability | Forecasts | Mean forecast | Observed rate |',
      '|---|---|---|---|',
    );
    b.overall.calibration.forEach((bin: F, i: number) => {
      if (bin.count.value > 0) {
        out.push(
          `| {{backtest.overall.calibration.${i}.lower|pct0}}–{{backtest.overall.calibration.${i}.upper|pct0}} | {{backtest.overall.calibration.${i}.count|int}} | {{backtest.overall.calibration.${i}.mean_forecast}} | {{backtest.overall.calibration.${i}.observed_rate}} |`,
        );
      }
    });
    out.push('');
  }
  if (b.abstained.count.value > 0)
    out.push(
      'Patterns that were dormant at an origin (silent for longer than their model allows) made no forecast: {{backtest.abstained.count|int}} abstentions, of which {{backtest.abstained.recurred|int}} recurred within the horizon all the same.',
      '',
    );
  out.push('## Origins', '', '| Origin | Scored | Brier score |', '|---|---|---|');
  b.origins.forEach((o: F, i: number) =>
    out.push(
      o.scores
        ? `| {{backtest.origins.${i}.origin_at}} | {{backtest.origins.${i}.scores.n_scored|int}} | {{backtest.origins.${i}.scores.brier|fixed3}} |`
        : `| {{backtest.origins.${i}.origin_at}} | not scored | n/a |`,
    ),
  );
  out.push('', '## Provenance', '', 'Engine run `{{run.id}}` (engine {{run.engine_version}}); the scored patterns are listed in the facts document.', '');
  return out.join('\n');
}

/** The built-in template of a kind for these facts. */
export function builtInTemplate(facts: Facts): string {
  const f = facts as F;
  switch (facts.kind) {
    case 'pattern_brief':
      return patternBrief(f);
    case 'recommendation_case':
      return recommendationCase(f);
    case 'workspace_risk':
      return workspaceRisk(f);
    case 'backtest_accuracy':
      return backtestAccuracy(f);
  }
}
