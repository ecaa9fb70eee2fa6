/**
 * `svc outbox`: the development mailbox. Without SMTP_URL an invitation can be read (and accepted) on a
 * laptop: the message is listed and shown with its link; --json parses; an unknown id is one line.
 */
import { randomUUID } from 'node:crypto';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { demoToken, startTestApp, type TestApp } from '../helpers/app.ts';
import { fresh } from '../helpers/errors.ts';
import { runSvc, svcEnv } from '../../fixtures/svcProcess.ts';

let t: TestApp;
test.before(async () => {
  t = await startTestApp();
});
test.after(async () => t.close());

const outbox = (...args: string[]) => runSvc(['outbox', ...args], svcEnv({ DATABASE_URL: t.db.url, LOG_LEVEL: 'info', NODE_ENV: 'test' }));

test('an invitation is listed and shown with its link', async () => {
  const api = t.platform.as(await demoToken(t));
  const invited = await api.post('/v1/invitations', { email: 'newcomer@example.com', role: 'member' }, fresh());
  assert.is(invited.status, 201, invited.text);

  const listed = await outbox('list', '--to', 'Newcomer@example.com', '--json');
  assert.is(listed.code, 0, listed.stderr);
  const messages = JSON.parse(listed.stdout);
  assert.is(messages.length, 1);
  assert.is(messages[0].to_address, 'newcomer@example.com');

  const shown = await outbox('show', messages[0].id);
  assert.is(shown.code, 0, shown.stderr);
  assert.match(shown.stdout, /^To: newcomer@example.com\nSubject: /);
  assert.ok(shown.stdout.includes(invited.body.url), 'the invitation link is in the body');
  assert.not.ok(shown.stderr.includes(invited.body.url), 'the link is not logged');
  assert.is(JSON.parse((await outbox('show', messages[0].id, '--json')).stdout).id, messages[0].id);

  const ghost = randomUUID();
  const unknown = await outbox('show', ghost);
  assert.is(unknown.code, 2);
  assert.is(unknown.stderr, `svc outbox: message ${ghost} does not exist\n`);
});

test.run();
