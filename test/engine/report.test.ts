/**
 * The pure parts of reports: numerals of every form found and read with the precision they show;
 * each form resolved against a hand-made facts document, and for each form a deliberately wrong
 * narrative caught with the offending numeral and its position; template rendering and validation;
 * facts determinism over a stored-output fixture; Markdown to HTML escaping.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { checkNarrative, conflictingFacts } from '../../engine/report/factCheck.ts';
import { findNumerals } from '../../engine/report/numerals.ts';
import { formatQuantity, inWords, measuring, quantity as q } from '../../engine/report/quantity.ts';
import { renderTemplate, TemplateError, validateTemplate } from '../../engine/report/templates.ts';
import { checkedNarrative, FactsMismatch, type NarrativeGenerator } from '../../engine/report/narrative.ts';
import { markdownToHtml } from '../../engine/report/markdown.ts';
import { lineChart, niceDomain, niceTicks, timeTicks } from '../../engine/report/svg.ts';
import { occurrencesByMonth, type Facts } from '../../engine/report/facts.ts';

const facts = {
  kind: 'pattern_brief',
  run: { id: '3f2a9b1c-1111-4222-8333-444455556666', as_of: '2024-06-30T12:00:00.000Z' },
  pattern: {
    name: 'hadoop 3 upgrade breaks yarn',
    issue_count: q(1234, 'count'),
    small: q(3, 'count'),
    twenty_one: q(21, 'count'),
    risk_score: q(87, 'score'),
    last_seen_at: q('2024-03-05T08:30:00.000Z', 'date'),
    first_month: q('2023-11', 'month'),
  },
  prediction: {
    p_recurrence: { estimate: q(0.4237, 'probability'), lower: q(0.121, 'probability'), upper: q(0.302, 'probability') },
    horizon_days: q(30, 'days'),
  },
  hazard: {
    scale_days: q(12.46, 'days'),
    shape: q(1.27, 'number'),
    forecast: [{ lower: q(3, 'count'), upper: q(7, 'count') }],
    series: { survival: [0.999, 0.5] },
  },
  financials: {
    cost_to_date: q(1200.5, 'currency', 'USD'),
    cost_eur: q(12, 'currency', 'EUR'),
    big: q(3_412_000, 'currency', 'USD'),
    low: q(1200, 'currency', 'USD'),
    high: q(3400, 'currency', 'USD'),
  },
  recommendation: { roi: q(3.24, 'ratio'), payback_days: q(14, 'days'), payback_long: q(21, 'days') },
  backtest: { skill: q(-0.12, 'number') },
} as unknown as Facts;

/** Each numeral form: a sentence that cites the facts right, and one with the number changed. */
const forms: Array<{ form: string; right: string; wrong: string; wrongText: string }> = [
  { form: 'integer with separators', right: 'It groups 1,234 issues.', wrong: 'It groups 1,243 issues.', wrongText: '1,243' },
  { form: 'integer', right: 'Risk score 87.', wrong: 'Risk score 78.', wrongText: '78' },
  { form: 'decimal', right: 'Shape 1.27 fitted.', wrong: 'Shape 1.72 fitted.', wrongText: '1.72' },
  { form: 'negative decimal', right: 'Skill -0.12 overall.', wrong: 'Skill 0.15 overall.', wrongText: '0.15' },
  { form: 'percentage', right: 'Probability 42.4% within the horizon.', wrong: 'Probability 42.7% within the horizon.', wrongText: '42.7%' },
  { form: 'percentage, whole', right: 'About 42% likely.', wrong: 'About 44% likely.', wrongText: '44%' },
  { form: 'percent in words', right: 'About 42 percent likely.', wrong: 'About 24 percent likely.', wrongText: '24 percent' },
  { form: 'currency symbol', right: 'It cost $1,200.50 so far.', wrong: 'It cost $1,250.50 so far.', wrongText: '$1,250.50' },
  { form: 'currency code after', right: 'It cost 12 EUR in Europe.', wrong: 'It cost 12 USD in Europe.', wrongText: '12 USD' },
  { form: 'currency magnitude', right: 'Exposure is $3.4M.', wrong: 'Exposure is $4.3M.', wrongText: '$4.3M' },
  { form: 'date ISO', right: 'Last seen 2024-03-05.', wrong: 'Last seen 2024-03-06.', wrongText: '2024-03-06' },
  { form: 'date in words', right: 'Last seen on 5 March 2024.', wrong: 'Last seen on 15 March 2024.', wrongText: '15 March 2024' },
  { form: 'date, month first', right: 'Last seen on March 5, 2024.', wrong: 'Last seen on May 5, 2024.', wrongText: 'May 5, 2024' },
  { form: 'month', right: 'First seen in November 2023.', wrong: 'First seen in December 2023.', wrongText: 'December 2023' },
  { form: 'instant', right: 'At 2024-03-05T08:30:00.000Z.', wrong: 'At 2024-03-05T09:30:00.000Z.', wrongText: '2024-03-05T09:30:00.000Z' },
  { form: 'duration in days', right: 'The scale is 12.5 days.', wrong: 'The scale is 15.2 days.', wrongText: '15.2 days' },
  { form: 'duration in weeks', right: 'Paid back in 2 weeks.', wrong: 'Paid back in 5 weeks.', wrongText: '5 weeks' },
  { form: 'duration in hours', right: 'Horizon 720 hours.', wrong: 'Horizon 72 hours.', wrongText: '72 hours' },
  { form: 'range of counts', right: 'Between 3 and 7 occurrences.', wrong: 'Between 3 and 9 occurrences.', wrongText: '3 and 9' },
  { form: 'range with dash', right: 'Expect 3–7 occurrences.', wrong: 'Expect 2–7 occurrences.', wrongText: '2–7' },
  { form: 'range of percentages', right: 'Interval 12.1%–30.2%.', wrong: 'Interval 12.1%–32.0%.', wrongText: '12.1%–32.0%' },
  { form: 'range of amounts', right: 'Between $1,200 and $3,400.', wrong: 'Between $1,200 and $4,300.', wrongText: '$1,200 and $4,300' },
  { form: 'range of durations', right: 'Payback in 2–3 weeks.', wrong: 'Payback in 2–6 weeks.', wrongText: '2–6 weeks' },
  { form: 'ratio', right: 'A return of 3.2x.', wrong: 'A return of 2.3x.', wrongText: '2.3x' },
  { form: 'ratio with ×', right: 'A return of 3.24×.', wrong: 'A return of 3.42×.', wrongText: '3.42×' },
  { form: 'number in words', right: 'Only three of them.', wrong: 'Only four of them.', wrongText: 'four' },
  { form: 'compound number in words', right: 'All twenty-one of them.', wrong: 'All twenty-two of them.', wrongText: 'twenty-two' },
];

for (const f of forms) {
  test(`numeral form "${f.form}": the right number resolves, the wrong one is caught with its position`, () => {
    const right = checkNarrative(f.right, facts);
    assert.equal(right.unresolved, [], f.right);
    assert.ok(right.checked >= 1);
    const wrong = checkNarrative(f.wrong, facts);
    assert.equal(wrong.unresolved, [{ text: f.wrongText, position: f.wrong.indexOf(f.wrongText) }], f.wrong);
  });
}

test('precision: a numeral claims the rounding it shows, no more and no less', () => {
  assert.ok(checkNarrative('42.37%', facts).ok);
  assert.not.ok(checkNarrative('42.38%', facts).ok, 'two decimals claim 42.37');
  assert.ok(checkNarrative('0.4237', facts).ok);
  assert.not.ok(checkNarrative('0.43', facts).ok, 'a bare decimal is the raw value: 0.42 rounds it, 0.43 does not');
  assert.not.ok(checkNarrative('42.0%', facts).ok);
  // Units must match: a probability is not a number of days; an amount in EUR is not one in USD.
  assert.not.ok(checkNarrative('87 days', facts).ok);
  assert.not.ok(checkNarrative('€1,200.50', facts).ok);
});

test('identifiers are not numerals; digits quoted from a text fact are not numbers', () => {
  const text =
    'Run 3f2a9b1c-1111-4222-8333-444455556666, digest 9f86d081884c7d65, see /v1/issues?pattern_id=7 and [x](https://example.com/42), on x86_64 with p95 and sha256. Pattern hadoop 3 upgrade breaks yarn.';
  assert.equal(findNumerals(text.replace('Pattern hadoop 3 upgrade breaks yarn.', '')), []);
  assert.ok(checkNarrative(text, facts).ok);
  // The same digit outside the quoted name is a claim.
  assert.equal(checkNarrative('hadoop 3 upgrade breaks yarn, 5 times', facts).unresolved, [{ text: '5', position: 30 }]);
});

test('chart series are not citable facts', () => {
  assert.not.ok(checkNarrative('Survival 99.9% at first.', facts).ok);
});

test('every wrong numeral of a narrative is listed, in order', () => {
  const r = checkNarrative('It groups 1,234 issues; risk 88, cost $99 and 13% likely.', facts);
  assert.equal(
    r.unresolved.map((u) => u.text),
    ['88', '$99', '13%'],
  );
});

test('formats declare their rounding; numbers in words', () => {
  assert.is(formatQuantity(q(0.4237, 'probability'), 'pct1'), '42.4%');
  assert.is(formatQuantity(q(0.4237, 'probability'), 'pct0'), '42%');
  assert.is(formatQuantity(q(1200.5, 'currency', 'USD'), 'money0'), '$1,201');
  assert.is(formatQuantity(q(12, 'currency', 'CHF'), 'money2'), '12.00 CHF');
  assert.is(formatQuantity(q(12.46, 'days')), '12.5 days');
  assert.is(formatQuantity(q(3.24, 'ratio')), '3.2x');
  assert.is(formatQuantity(q(3, 'count')), 'three');
  assert.is(formatQuantity(q(1234, 'count')), '1,234');
  assert.is(formatQuantity(q('2024-03-05T08:30:00.000Z', 'date')), '2024-03-05');
  assert.is(formatQuantity(q('2023-11', 'month')), 'November 2023');
  assert.is(inWords(21), 'twenty-one');
  assert.is(inWords(305), 'three hundred and five');
  assert.throws(() => formatQuantity(q(3, 'count'), 'pct0'), /needs a probability/);
});

test('templates: placeholders render under their format and pass the check; problems are reported with positions', () => {
  const out = renderTemplate(
    '{{pattern.issue_count}} issues, {{prediction.p_recurrence.estimate|pct0}} likely, {{pattern.small}} small, ROI {{recommendation.roi}}',
    facts,
  );
  assert.is(out, '1,234 issues, 42% likely, three small, ROI 3.2x');
  assert.ok(checkNarrative(out, facts).ok);
  assert.equal(validateTemplate('ok {{pattern.name}}', 'pattern_brief'), []);
  assert.equal(
    validateTemplate('{{Pattern Name}} {{totals.patterns}} {{pattern.name|bold}} }}', 'pattern_brief').map((p) => [p.placeholder, p.position]),
    [
      ['{{Pattern Name}}', 0],
      ['{{totals.patterns}}', 17],
      ['{{pattern.name|bold}}', 37],
      ['}}', 59],
    ],
  );
  try {
    renderTemplate('{{pattern.missing}} and {{pattern}}', facts);
    assert.unreachable('renders');
  } catch (err) {
    assert.instance(err, TemplateError);
    assert.equal(
      (err as TemplateError).problems.map((p) => p.message),
      ['no fact at pattern.missing', 'does not name a single fact (it is a list or a section)'],
    );
  }
});

test('any narrative generator is checked the same way', async () => {
  const model: NarrativeGenerator = { name: 'model', generate: async () => 'The pattern grew to 1,300 issues, with 42% likelihood.' };
  try {
    await checkedNarrative(model, facts);
    assert.unreachable('accepted');
  } catch (err) {
    assert.instance(err, FactsMismatch);
    assert.equal((err as FactsMismatch).numerals, [{ text: '1,300', position: 20 }]);
  }
  const honest: NarrativeGenerator = { name: 'model', generate: () => 'The pattern has 1,234 issues, with 42% likelihood.' };
  assert.is((await checkedNarrative(honest, facts)).numerals_checked, 2);
});

test('one fact per quantity: two values for one quantity fail the check, although each numeral resolves', async () => {
  const p30 = (value: number) => measuring('recurrence_probability:p1:30d', q(value, 'probability'));
  const twoValues = {
    kind: 'pattern_brief',
    prediction: { p_recurrence: { estimate: p30(0.407) }, horizon_days: q(30, 'days') },
    hazard: { forecast: [{ horizon_days: q(30, 'days'), probability_any: p30(0.4) }], series: { survival: [0.5] } },
  } as unknown as Facts;
  const narrative = 'A recurrence within 30 days has a probability of 40.7%.\n\n| 30 days | 40.0% |';
  const result = checkNarrative(narrative, twoValues);
  assert.equal(result.unresolved, []);
  assert.not.ok(result.ok);
  assert.equal(result.conflicts, [
    {
      measures: 'recurrence_probability:p1:30d',
      facts: [
        { path: 'prediction.p_recurrence.estimate', value: 0.407 },
        { path: 'hazard.forecast.0.probability_any', value: 0.4 },
      ],
    },
  ]);
  try {
    await checkedNarrative({ name: 'any', generate: () => narrative }, twoValues);
    assert.unreachable('a document with two values for one quantity must fail');
  } catch (err) {
    assert.instance(err, FactsMismatch);
    assert.match((err as Error).message, /two values for one quantity \(recurrence_probability:p1:30d\)/);
  }
  // The same quantity held twice with one value passes; other measurements are independent.
  const oneValue = { ...twoValues, hazard: { forecast: [{ probability_any: p30(0.407) }, { probability_any: measuring('other', q(0.1, 'probability')) }] } };
  assert.equal(conflictingFacts(oneValue), []);
  assert.ok(checkNarrative('A recurrence within 30 days has a probability of 40.7%.', oneValue).ok);
});

test('charts: nice ticks (1, 2 or 5 times a power of ten, as d3 gives them), dates on time axes, the legend outside the plot', () => {
  // The ticks the issue saw unrounded: 11.825, 186.249, 360.672 and 8.25, 5.5, 2.75.
  assert.equal(niceDomain(11.825, 710.5), [0, 800]);
  assert.equal(niceTicks(0, 800), [0, 200, 400, 600, 800]);
  assert.equal(niceDomain(0, 11), [0, 12]);
  assert.equal(niceTicks(0, 12), [0, 2, 4, 6, 8, 10, 12]);
  assert.equal(niceTicks(0, 1), [0, 0.2, 0.4, 0.6, 0.8, 1]);
  assert.equal(niceTicks(0, 0.3), [0, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3]);
  assert.equal(niceDomain(0.0123, 0.0871), [0, 0.1]);
  assert.equal(
    timeTicks(Date.UTC(2020, 0, 1), Date.UTC(2024, 11, 1)).map((t) => t.label),
    ['2020', '2021', '2022', '2023', '2024'],
  );
  assert.equal(
    timeTicks(Date.UTC(2024, 0, 1), Date.UTC(2024, 5, 1)).map((t) => t.label),
    ['Jan 2024', 'Feb 2024', 'Mar 2024', 'Apr 2024', 'May 2024', 'Jun 2024'],
  );
  const svg = lineChart({
    kind: 'sizes',
    title: 'sizes',
    xLabel: 'month',
    yLabel: 'occurrences',
    series: [
      {
        name: 'a',
        points: [
          [Date.UTC(2023, 0, 1), 3],
          [Date.UTC(2023, 6, 1), 11],
        ],
      },
      {
        name: 'b',
        points: [
          [Date.UTC(2023, 0, 1), 1],
          [Date.UTC(2023, 6, 1), 2],
        ],
      },
    ],
    xAxis: { kind: 'time' },
  });
  const ticks = (axis: string) => [...svg.matchAll(new RegExp(`data-tick="${axis}">([^<]*)<`, 'g'))].map((m) => m[1]);
  assert.equal(ticks('y'), ['0', '2', '4', '6', '8', '10', '12']);
  assert.equal(ticks('x'), ['Jan 2023', 'Feb 2023', 'Mar 2023', 'Apr 2023', 'May 2023', 'Jun 2023', 'Jul 2023']);
  // Every legend entry lies above the plot area.
  const plotTop = Number(/data-plot="\d+ (\d+)/.exec(svg)![1]);
  const legendYs = [...svg.matchAll(/<g data-legend="[^"]*"><line [^>]*y1="([\d.]+)"/g)].map((m) => Number(m[1]));
  assert.is(legendYs.length, 2);
  assert.ok(
    legendYs.every((y) => y < plotTop),
    `legend at ${legendYs}, plot from ${plotTop}`,
  );
});

test('pattern size over time: every month from the first to the last occurrence, empty months included', () => {
  const months = occurrencesByMonth(['2023-11-03T00:00:00Z', '2023-11-20T00:00:00Z', '2024-02-01T00:00:00Z']);
  assert.equal(
    months.map((m) => [m.month.value, m.count.value]),
    [
      ['2023-11', 2],
      ['2023-12', 0],
      ['2024-01', 0],
      ['2024-02', 1],
    ],
  );
});

test('Markdown: headings, tables, lists, inline marks; markup in text is escaped', () => {
  const html = markdownToHtml(
    '## Head\n\nText **bold** `code` [link](https://x.test/a) <script>alert(1)</script>\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n- one\n- two',
  );
  assert.is(
    html,
    '<h2>Head</h2>\n<p>Text <strong>bold</strong> <code>code</code> <a href="https://x.test/a">link</a> &lt;script&gt;alert(1)&lt;/script&gt;</p>\n<table><thead><tr><th>a</th><th>b</th></tr></thead><tbody><tr><td>1</td><td>2</td></tr></tbody></table>\n<ul><li>one</li><li>two</li></ul>',
  );
  assert.not.match(markdownToHtml('[x](javascript:alert(1))'), /href/);
});

test.run();
