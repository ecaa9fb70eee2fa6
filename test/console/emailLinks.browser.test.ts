/**
 * Every link the product sends opens a real console page: the e-mails are caught by a real SMTP
 * sink, each link in them is opened in Chromium, and the page must answer 200 and render its own
 * heading (not the console's "Page not found"), axe-clean, and a platform page the exact /v1 request
 * that reads the linked thing. Covered: the tenant invitation and
 * password reset, the staff password reset, the platform member invitation, and the platform
 * notifications of an ingest (issues), an invitation (members), an engine run (patterns, and
 * alerts/recommendations when the run raises them) and the weekly digest.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { produceWeeklyDigests } from '../../jobs/tasks/notification__weekly_digest.ts';
import { axeViolations, chromiumAvailable, describeViolations, launchChromium, newContext, outputDir, screenshot } from '../helpers/browser.ts';
import { startTestConsole } from '../helpers/console.ts';
import { demoToken, eventually } from '../helpers/app.ts';
import { fresh } from '../helpers/errors.ts';
import { syntheticRecords } from '../helpers/onboarding.ts';
import { createTenant, liveTenant, provisionTenant, seedStaff, staffLogin } from '../helpers/product.ts';
import { addMember } from '../helpers/members.ts';
import { startSmtpSink, type ReceivedMail } from '../helpers/smtp.ts';

/** The heading each console page of a link renders, by the link's path. */
const expectedHeading: Array<[RegExp, RegExp]> = [
  [/^\/accept-invite$/, /Accept your invitation/],
  [/^\/reset-password$/, /Choose a new password/],
  [/^\/admin\/reset-password$/, /Choose a new staff password|new password/i],
  [/^\/platform\/accept-invite$/, /Your invitation to a platform workspace/],
  [/^\/platform\/issues\/[^/]+$/, /An issue in your platform workspace/],
  [/^\/platform\/patterns\/[^/]+$/, /A pattern in your platform workspace/],
  [/^\/platform\/alerts\/[^/]+$/, /A crest alert in your platform workspace/],
  [/^\/platform\/recommendations\/[^/]+$/, /A fix recommendation in your platform workspace/],
  [/^\/platform\/members$/, /Members of your platform workspace/],
  [/^\/platform$/, /Your svc platform workspace/],
];

/** The /v1 request a platform link's page must show, by the link's path. */
function v1Request(pathname: string, query: URLSearchParams): string | null {
  const subject = /^\/platform\/(issues|patterns|alerts|recommendations)\/([^/]+)$/.exec(pathname);
  if (subject) return `GET /v1/${subject[1]}/${subject[2]}`;
  if (pathname === '/platform/accept-invite') return `POST /v1/invitations/accept\n{"invitation_token": "${query.get('token')}"`;
  if (pathname === '/platform/members') return 'GET /v1/members';
  if (pathname === '/platform') return 'GET /v1/shell/nav';
  return null;
}

const linksOf = (mail: ReceivedMail) => [...mail.text.matchAll(/https?:\/\/[^\s<>"]+/g)].map((m) => m[0].replace(/[.,)]+$/, ''));

if (chromiumAvailable('the e-mail link browser tests')) {
  const smtp = await startSmtpSink();
  const c = await startTestConsole({ worker: { concurrency: 2 }, env: { SMTP_URL: smtp.url } });
  const browser = await launchChromium();
  const out = outputDir(import.meta.filename);
  test.after(async () => {
    await browser.close();
    await c.close();
    await smtp.close();
  });

  test('each link of each e-mail the product sends opens its console page', async () => {
    const t = c.t;
    assert.is(t.config.APP_URL, c.url, 'links point at the console');
    // Tenant invitation and tenant password reset.
    const staff = await seedStaff(t);
    const admin = await staffLogin(t, staff);
    const onboarding = await createTenant(admin);
    await provisionTenant(t, admin, onboarding.id);
    assert.is((await admin.post(`/admin/tenants/${onboarding.id}/invite`, { email: 'invitee@client.test', role_profile: 'analyst' })).status, 201);
    const { tenant, user } = await liveTenant(t, admin);
    assert.is((await t.product.post('/password-reset/request', { workspace: tenant.slug, email: user.email })).status, 202);
    // Staff password reset.
    assert.is((await t.product.post('/admin/password-reset/request', { email: staff.email })).status, 202);

    // Platform: a second member gets every notification by e-mail at once (the inviter is not told
    // of their own invitation).
    const owner = t.platform.as(await demoToken(t));
    const watcher = t.platform.as((await addMember(t.app, t.demo.workspaceId, 'watcher@example.com', 'admin')).token);
    const everyKind = Object.fromEntries(
      [
        'high_confidence_prediction',
        'member_invited',
        'new_issue_ingested',
        'new_prediction',
        'pattern_detected',
        'pattern_confirmed',
        'recommendation_pushed',
        'weekly_digest',
      ].map((k) => [k, { email: true, in_app: true, chat: false }]),
    );
    const prefs = await watcher.patch('/v1/me/notifications', { digest_frequency: 'realtime', events: everyKind, min_risk_score_for_alert: 0 });
    assert.is(prefs.status, 200, prefs.text);
    assert.is((await owner.post('/v1/invitations', { email: 'member@platform.test', role: 'member' }, fresh())).status, 201);
    const records = syntheticRecords(90, 51, 3, 'tracker');
    assert.is((await owner.post('/v1/ingest/batch', { records }, fresh())).status, 202);
    const run = await owner.post('/v1/engine/runs', {}, fresh());
    assert.is(run.status, 202, run.text);
    await eventually(
      async () => (['succeeded', 'failed'].includes((await owner.get(`/v1/engine/runs/${run.body.run_id}`)).body.status) ? true : undefined),
      60_000,
      'the engine run',
    );
    await produceWeeklyDigests(t.app);

    const want = [
      '/accept-invite',
      '/reset-password',
      '/admin/reset-password',
      '/platform/accept-invite',
      '/platform/issues/',
      '/platform/members',
      '/platform/patterns/',
    ];
    await eventually(
      async () => {
        const paths = smtp.messages.flatMap(linksOf).map((l) => new URL(l).pathname);
        return want.every((w) => paths.some((p) => (w.endsWith('/') ? p.startsWith(w) : p === w))) && paths.includes('/platform') ? true : undefined;
      },
      60_000,
      `e-mails with every kind of link; received ${smtp.messages.length}`,
    );

    // One link of each path shape (the ids differ, the page is the same).
    const byShape = new Map<string, string>();
    for (const link of smtp.messages.flatMap(linksOf)) {
      const url = new URL(link);
      assert.is(url.origin, c.url, `${link} points at the console`);
      const shape = url.pathname.replace(/\/[0-9a-f-]{36}$/, '/:id');
      if (!byShape.has(shape)) byShape.set(shape, link);
    }
    const context = await newContext(browser);
    const page = await context.newPage();
    for (const [shape, link] of byShape) {
      const response = await page.goto(link);
      assert.is(response?.status(), 200, link);
      const pathname = new URL(link).pathname;
      const expected = expectedHeading.find(([path]) => path.test(pathname));
      assert.ok(expected, `a known page for ${pathname}`);
      const heading = page.getByRole('heading', { level: 1 });
      await heading.waitFor();
      assert.match((await heading.allInnerTexts()).join('\n'), expected![1], link);
      // A platform page explains the link with the exact /v1 request that reads (or acts on) it.
      const request = v1Request(pathname, new URL(link).searchParams);
      if (request) assert.ok((await page.locator('main').allInnerTexts()).join('\n').includes(request), `${link} shows ${request}`);
      const name = shape.replace(/^\//, '').replace(/[/:]+/g, '-') || 'root';
      await screenshot(page, out, `link-${name}`);
      const violations = await axeViolations(page);
      assert.is(violations.length, 0, `${link}\n${describeViolations(violations)}`);
    }
    await context.close();
  });

  test.run();
}
