/**
 * The template miner (engine/cluster/templateMiner.ts) on hand-made templated lines, and the path
 * decision of stage 5 (templated vs prose, per source) with its provenance.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mineTemplates } from '../../engine/cluster/templateMiner.ts';
import { groupingAccuracy } from '../../engine/cluster/agreement.ts';
import { templateColumn } from '../../engine/stages/02_normalize.ts';
import { templateTokens } from '../../engine/text/templateTokens.ts';
import { runPipeline, type StageOutputs } from '../../engine/pipeline.ts';
import { syntheticInput, testContext, testUuid } from '../helpers/engineInput.ts';

/** Mines `lines`; returns the template text of every line. */
function mine(lines: string[]): string[] {
  const { column, vocabulary, wildcard } = templateColumn(lines);
  const mined = mineTemplates(
    column,
    lines.map((_, i) => i),
    wildcard,
  );
  return Array.from(mined.templateOf, (t) => Array.from(mined.templates[t].tokens, (id) => vocabulary[id]).join(' '));
}

const users = ['alice', 'bob', 'carol', 'dave', 'erin', 'frank', 'grace'];
const hosts = ['alpha.example.org', 'beta.example.org', 'gamma.example.org', 'delta.example.org'];
const days = ['Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat', 'Sun'];

test('template tokens: white-space split, case kept, digits and paths masked, long texts not kept', () => {
  assert.equal(templateTokens('Receiving block blk_-1608 src: /10.250.19.102:54106 dest: /10.250.19.102:50010', 64).tokens, [
    'Receiving',
    'block',
    'blk_<*>',
    'src:',
    '<*>',
    'dest:',
    '<*>',
  ]);
  assert.equal(templateTokens('open /var/log/app.log failed', 64).tokens, ['open', '<*>', 'failed']);
  assert.equal(templateTokens('a b c d', 3), { tokens: [], length: 4 });
});

test('miner: words that vary where the rest of the line stays are variables, in every position', () => {
  const lines: string[] = [];
  // Variables in the middle of the line; digits masked before mining (the leading word anchors: see
  // test/engine/templateFixtures.test.ts).
  for (const u of users) lines.push(`user ${u} logged in from console`);
  for (const u of users) lines.push(`session opened for user ${u} by uid=0`);
  for (const h of hosts) for (const d of days.slice(0, 3)) lines.push(`connection from ${h} at ${d} Jun 14 15:16:01`);
  const templates = mine(lines);
  assert.equal(new Set(templates.slice(0, 7)), new Set(['user <*> logged in from console']));
  assert.equal(new Set(templates.slice(7, 14)), new Set(['session opened for user <*> by uid= <*>']));
  // Two word variables at once (host and weekday) still meet: each varies in several contexts.
  assert.equal(new Set(templates.slice(14)), new Set(['connection from <*> at <*> Jun <*>']));
});

test('miner: lines of different lengths never share a template; near-identical templates stay apart', () => {
  const lines: string[] = [];
  // One word apart, each in a single context with few values: constants, not a variable.
  for (const state of ['Started', 'Paused', 'Resumed', 'Stopped'])
    for (let i = 0; i < 5; i++) lines.push(`[instance: ${i}a-${i}] VM ${state} (Lifecycle Event)`);
  for (let i = 0; i < 4; i++) lines.push(`Connection opened for client ${i}`);
  for (let i = 0; i < 4; i++) lines.push(`Connection closed for client ${i}`);
  for (let i = 0; i < 3; i++) lines.push(`Connection closed for client ${i} after timeout`);
  const truth = [...Array(20)].map((_, i) => `vm-${Math.floor(i / 5)}`).concat(['o', 'o', 'o', 'o', 'c', 'c', 'c', 'c', 't', 't', 't']);
  const templates = mine(lines);
  assert.is(new Set(templates).size, 7);
  assert.is(templates[0], '[instance: <*>] VM Started (Lifecycle Event)');
  assert.is(templates[20], 'Connection opened for client <*>');
  assert.is(templates[24], 'Connection closed for client <*>');
  assert.is(templates[28], 'Connection closed for client <*> after timeout');
  assert.is(
    groupingAccuracy(
      truth,
      Int32Array.from(templates, (t) => [...new Set(templates)].indexOf(t)),
    ),
    1,
  );
});

test('miner: the result does not depend on the order of the lines (only the numbering does)', () => {
  const lines: string[] = [];
  for (const u of users) for (const h of hosts) lines.push(`Accepted password for ${u} from ${h} port 22 ssh2`);
  for (const u of users) lines.push(`Invalid user ${u} from 10.0.0.${u.length}`);
  const forward = mine(lines);
  const backward = mine([...lines].reverse()).reverse();
  assert.equal(forward, backward);
  assert.equal(new Set(forward), new Set(['Accepted password for <*> from <*> port <*> ssh<*>', 'Invalid user <*> from <*>']));
});

test('path decision: a source of repeated machine lines is templated, prose reports are not; recorded per source', async () => {
  const prose = syntheticInput(120, 3, 4).input;
  const alerts = [];
  for (let i = 0; i < 30; i++) {
    alerts.push({
      id: testUuid(`alert-${i}`),
      title: `disk check failed on ${hosts[i % 4]}`,
      narrative: i % 2 ? `disk check failed on node-${i} used ${90 + (i % 9)}%` : `backup job ${users[(i / 2) % 7]} finished in ${i} s`,
      severity: 'medium' as const,
      source: 'monitor',
      occurred_at: '2024-06-01T00:00:00.000Z',
      created_at: '2024-06-01T00:00:00.000Z',
    });
  }
  const input = { ...prose, issues: [...prose.issues, ...alerts] };
  const o = (await runPipeline({ ctx: testContext(), snapshotInput: input, to: 'patterns' })).outputs as StageOutputs;
  const bySource = new Map(o.cluster.paths.map((p) => [p.source, p]));
  assert.is(bySource.get('monitor')!.path, 'templated');
  assert.is(bySource.get('monitor')!.template_coverage, 1);
  assert.is(bySource.get(prose.issues[0].source)!.path, 'prose');
  const templated = o.patterns.patterns.filter((p) => p.path === 'templated');
  assert.equal(templated.map((p) => p.template).sort(), ['backup job <*> finished in <*>', 'disk check failed on node-<*> used <*>']);
  for (const p of templated) {
    assert.is(p.issue_count, 15);
    // The name reads the template with an ellipsis at the variables: no internal wildcard in a name.
    assert.is(p.name, p.template!.replaceAll('<*>', '…'));
    assert.not.match(p.name, /<\*>/);
  }
  // Every alert took the templated path, no prose issue did.
  o.snapshot.issues.forEach((issue, i) => assert.is(o.cluster.templated[i], issue.source === 'monitor' ? 1 : 0, issue.source));
});

test.run();
