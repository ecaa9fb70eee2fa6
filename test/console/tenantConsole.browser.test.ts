/**
 * The tenant console in a real browser (Debian's Chromium through playwright-core) against a real
 * console server, product API, worker and Postgres: an invitation accepted from the link of the
 * e-mail the SMTP sink caught, sign-in and sign-out (the deliberate 401 text, the 429 with when to
 * retry), insights of a trained and activated model, members, sources (register, upload, the 409
 * of another kind), the whole CAP flow (create from a pattern, submit, a second user decides the
 * review, the stale-version 409 in two tabs with what changed, the already-decided 409, the audit
 * log), the export read back with exceljs, a viewer without write actions, and impersonation from
 * the staff console. axe-core on every page; a screenshot of each under test-output/.
 */
import { readFile } from 'node:fs/promises';
import ExcelJS from 'exceljs';
import type { BrowserContext, Page } from 'playwright-core';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  axeViolations,
  chromiumAvailable,
  DESKTOP,
  describeViolations,
  launchChromium,
  NARROW,
  newContext,
  outputDir,
  screenshot,
} from '../helpers/browser.ts';
import { startTestConsole } from '../helpers/console.ts';
import { endingNow, ingestRecords, syntheticRecords, trainCheckpoint } from '../helpers/onboarding.ts';
import { createTenant, provisionTenant, seedStaff, setTenantState, staffLogin } from '../helpers/product.ts';
import { startSmtpSink } from '../helpers/smtp.ts';

const PASSWORD = 'a long enough passphrase';

if (chromiumAvailable('the tenant console browser tests')) {
  const smtp = await startSmtpSink();
  const c = await startTestConsole({ worker: { concurrency: 2 }, env: { SMTP_URL: smtp.url } });
  const browser = await launchChromium();
  const out = outputDir(import.meta.filename);
  const t = c.t;
  const staffCredentials = await seedStaff(t, { name: 'Olive Onboarder' });
  const staff = await staffLogin(t, staffCredentials);

  // A live tenant with an active model and three invited people: admin, analyst, viewer.
  const tenant = await createTenant(staff, { company: 'Acme Industrial' });
  await provisionTenant(t, staff, tenant.id);
  await ingestRecords(staff, tenant.id, endingNow(syntheticRecords(150, 61, 4)));
  const checkpoint = await trainCheckpoint(t, staff, tenant.id);
  assert.is((await staff.post(`/admin/tenants/${tenant.id}/checkpoints/${checkpoint.id}/activate`)).status, 200);
  const invite = async (email: string, role_profile: string, full_name: string) => {
    const res = await staff.post(`/admin/tenants/${tenant.id}/invite`, { email, role_profile, full_name });
    assert.is(res.status, 201, res.text);
    const mail = await smtp.waitFor((m) => m.to.includes(email));
    return mail.text.match(/https?:\/\/\S+accept-invite\S+/)![0];
  };
  const aliceLink = await invite('alice@client.test', 'admin', 'Alice Admin');
  const bobLink = await invite('bob@client.test', 'analyst', 'Bob Analyst');
  const vicLink = await invite('vic@client.test', 'viewer', 'Vic Viewer');
  const live = await staff.post(`/admin/tenants/${tenant.id}/go-live`);
  assert.is(live.status, 200, live.text);

  test.after(async () => {
    await browser.close();
    await c.close();
    await smtp.close();
  });

  /** axe-clean, then a screenshot named `name`. */
  async function check(page: Page, name: string) {
    await page.waitForLoadState('networkidle');
    const violations = await axeViolations(page);
    assert.is(violations.length, 0, `${name}:\n${describeViolations(violations)}`);
    await screenshot(page, out, name);
  }

  async function acceptInvitation(context: BrowserContext, link: string, name: string, shot?: string) {
    const page = await context.newPage();
    const response = await page.goto(link);
    assert.is(response?.status(), 200);
    await page.getByRole('heading', { name: 'Accept your invitation' }).waitFor();
    // The rules are on the page before anything is sent.
    await page.getByText('at least 8 characters').first().waitFor();
    if (shot) await check(page, shot);
    await page.getByLabel('Your full name (optional)').fill(name);
    await page.getByLabel('New password', { exact: true }).fill(PASSWORD);
    await page.getByLabel('Repeat the new password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Accept and sign in' }).click();
    return page;
  }

  async function signIn(context: BrowserContext, email: string, password = PASSWORD) {
    const page = await context.newPage();
    await page.goto(`${c.url}/sign-in`);
    await page.getByRole('combobox', { name: 'Workspace' }).selectOption(tenant.slug);
    await page.getByLabel('E-mail').fill(email);
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    return page;
  }

  let alice: BrowserContext;
  let bob: BrowserContext;

  test('an invitation accepted from the e-mail link lands signed in; the used link then gets its own page', async () => {
    assert.ok(aliceLink.startsWith(`${c.url}/accept-invite?workspace=${tenant.slug}&token=`), aliceLink);
    alice = await newContext(browser);
    const page = await acceptInvitation(alice, aliceLink, 'Alice Admin', 'accept-invite');
    await page.getByRole('heading', { name: 'Insights', level: 1 }).waitFor();
    await page.getByText(`Welcome to ${tenant.slug}`).waitFor();

    const stranger = await newContext(browser);
    const again = await acceptInvitation(stranger, aliceLink, 'Someone Else');
    await again.getByRole('heading', { name: 'This invitation can no longer be used' }).waitFor();
    await check(again, 'accept-invite-used');
    await stranger.close();

    bob = await newContext(browser);
    await (await acceptInvitation(bob, bobLink, 'Bob Analyst')).getByRole('heading', { name: 'Insights', level: 1 }).waitFor();
  });

  test('an expired invitation gets the same clear page, with what to do', async () => {
    const link = await invite('late@client.test', 'viewer', 'Late Comer');
    const schema = `tenant_${tenant.id.replaceAll('-', '')}`;
    await t.app.pool.query(`update "${schema}".invitations set expires_at = now() - interval '1 day' where email = 'late@client.test'`);
    const context = await newContext(browser);
    const page = await acceptInvitation(context, link, 'Late Comer');
    await page.getByRole('heading', { name: 'This invitation can no longer be used' }).waitFor();
    await page.getByText('The link has expired (invitations last 7 days)').waitFor();
    await check(page, 'accept-invite-expired');
    await context.close();
  });

  test('sign-in: the workspace picker, the deliberate 401 text, the 429 with when to retry, sign-out', async () => {
    const context = await newContext(browser);
    const page = await signIn(context, 'alice@client.test', 'not the password');
    await page.getByRole('alert').filter({ hasText: 'Invalid workspace, email, or password.' }).waitFor();
    await check(page, 'sign-in-invalid');
    // The per-account budget is 5 attempts in 15 minutes: the sixth is refused with Retry-After.
    await page.getByLabel('E-mail').fill('nobody@client.test');
    for (let i = 0; i < 6; i++) {
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByRole('alert').waitFor();
    }
    await page
      .getByRole('alert')
      .filter({ hasText: /Too many login attempts\. Try again later\. You can try again in \d+ minutes?\./ })
      .waitFor();
    await check(page, 'sign-in-rate-limited');
    // A typed slug works as well as the picker.
    await page.getByLabel('Workspace', { exact: true }).selectOption('');
    await page.getByLabel('Workspace name').fill(tenant.slug);
    await page.getByLabel('E-mail').fill('alice@client.test');
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Insights', level: 1 }).waitFor();
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByText('You are signed out.').waitFor();
    await check(page, 'sign-in-signed-out');
    await page.goto(`${c.url}/forgot-password?workspace=${tenant.slug}`);
    await page.getByLabel('E-mail').fill('alice@client.test');
    await page.getByRole('button', { name: 'Send the reset link' }).click();
    await page.getByText('a link to choose a new password is on its way').waitFor();
    await check(page, 'forgot-password');
    const mail = await smtp.waitFor((m) => m.to.includes('alice@client.test') && /reset/i.test(m.subject));
    const link = mail.text.match(/https?:\/\/\S+reset-password\S+/)![0];
    await page.goto(link);
    await page.getByRole('heading', { name: 'Choose a new password' }).waitFor();
    await check(page, 'reset-password');
    await context.close();
  });

  test('insights: patterns ranked by risk, the risk/size chart, a pattern with its records and forecast curve', async () => {
    const snapshot = (await c.client().get('/insights/snapshot')).status; // no session: the proxy refuses
    assert.is(snapshot, 401);
    const page = await alice.newPage();
    await page.goto(`${c.url}/insights`);
    await page.getByRole('heading', { name: 'Insights', level: 1 }).waitFor();
    const risks = await page.locator('table.patterns tbody tr td:first-child').allInnerTexts();
    assert.ok(risks.length >= 2, `${risks.length} patterns`);
    assert.equal(
      risks.map(Number),
      risks.map(Number).sort((a: number, b: number) => b - a),
      'ranked by risk',
    );
    await page.getByRole('img', { name: /Risk against size of \d+ patterns/ }).waitFor();
    await check(page, 'insights');
    for (const [name, viewport, colorScheme] of [
      ['insights-narrow', NARROW, 'light'],
      ['insights-dark', DESKTOP, 'dark'],
    ] as const) {
      const view = await browser.newContext({ viewport, colorScheme, storageState: await alice.storageState() });
      const p = await view.newPage();
      await p.goto(`${c.url}/insights`);
      await p.getByRole('heading', { name: 'Insights', level: 1 }).waitFor();
      await check(p, name);
      await view.close();
    }

    await page.locator('table.patterns tbody tr').first().getByRole('link').click();
    await page.getByRole('heading', { name: 'Recurrence forecast' }).waitFor();
    await page.getByRole('heading', { name: 'Records' }).waitFor();
    assert.ok((await page.locator('.terms li').count()) > 0, 'top terms');
    assert.ok((await page.locator('section[aria-labelledby="pattern-records"] tbody tr').count()) > 0, 'records');
    await page.getByRole('img', { name: /Recurrence rate per day/ }).waitFor();
    await page.getByText('Expected next occurrence').waitFor();
    await check(page, 'pattern');
    const narrow = await browser.newContext({ viewport: NARROW, colorScheme: 'dark', storageState: await alice.storageState() });
    const p = await narrow.newPage();
    await p.goto(page.url());
    await p.getByRole('heading', { name: 'Recurrence forecast' }).waitFor();
    await check(p, 'pattern-narrow-dark');
    await narrow.close();
  });

  test('insights of a live workspace without an active model: a page that says so, not an error', async () => {
    const fresh = await createTenant(staff, { company: 'Fresh Start' });
    await provisionTenant(t, staff, fresh.id);
    // Live without a model: go-live needs one, so the state is set as an operator would have left it.
    await setTenantState(t, fresh.id, 'live');
    const res = await staff.post(`/admin/tenants/${fresh.id}/invite`, { email: 'nina@fresh.test', role_profile: 'viewer', full_name: 'Nina New' });
    assert.is(res.status, 201, res.text);
    const mail = await smtp.waitFor((m) => m.to.includes('nina@fresh.test'));
    const context = await newContext(browser);
    const page = await acceptInvitation(context, mail.text.match(/https?:\/\/\S+accept-invite\S+/)![0], 'Nina New');
    await page.getByRole('heading', { name: 'Insights', level: 1 }).waitFor();
    await page.getByRole('heading', { name: 'No insights yet', level: 2 }).waitFor();
    await page.getByText('No model is active for this workspace yet, so there are no insights to show.').waitFor();
    assert.is(await page.getByRole('alert').count(), 0, 'no error');
    await check(page, 'insights-no-model');
    await context.close();
  });

  test('members: the directory with role labels', async () => {
    const vic = await newContext(browser);
    await (await acceptInvitation(vic, vicLink, 'Vic Viewer')).getByRole('heading', { name: 'Insights', level: 1 }).waitFor();
    await vic.close();
    const page = await alice.newPage();
    await page.goto(`${c.url}/members`);
    await page.getByRole('heading', { name: 'Members', level: 1 }).waitFor();
    const rows = page.locator('table tbody tr');
    await rows.nth(2).waitFor();
    const text = (await page.locator('table').allInnerTexts()).join('\n');
    for (const [name, role] of [
      ['Alice Admin', 'Admin'],
      ['Bob Analyst', 'Analyst'],
      ['Vic Viewer', 'Viewer'],
    ])
      assert.match(text, new RegExp(`${name}\\s+\\S+@client\\.test\\s+${role}`));
    await check(page, 'members');
  });

  test('sources: register, upload with its result, a file that fails with its reason, the 409 of another kind', async () => {
    const page = await alice.newPage();
    await page.goto(`${c.url}/sources`);
    await page.getByRole('heading', { name: 'Sources', level: 1 }).waitFor();
    const register = async (name: string, kind: string) => {
      await page.getByLabel('Name').fill(name);
      await page.getByLabel('Kind').selectOption(kind);
      await page.getByRole('button', { name: 'Register' }).click();
      await page.getByRole('heading', { name, level: 2 }).waitFor();
    };
    await register('Line 3 tracker', 'file_upload');
    await register('Maintenance API', 'api');
    const good = [
      'external_id,title,narrative,occurred_at,severity,source',
      'L3-1,Conveyor jam,belt slipped at station 4,2026-01-05T10:00:00Z,high,line3',
      'L3-2,Conveyor jam,belt slipped again,2026-01-09T10:00:00Z,high,line3',
    ].join('\n');
    const upload = async (source: string, name: string, content: string) => {
      const form = page.getByRole('form', { name: `Upload a file to ${source}` });
      await form.getByLabel(`File for ${source}`).setInputFiles({ name, mimeType: 'text/csv', buffer: Buffer.from(content) });
      await form.getByRole('button', { name: 'Upload' }).click();
      return form;
    };
    const ok = await upload('Line 3 tracker', 'line3.csv', good);
    await ok.getByText('line3.csv: 2 rows accepted').waitFor();
    await check(page, 'sources-uploaded');
    const bad = await upload('Line 3 tracker', 'broken.csv', 'external_id,title,severity,source\nX-1,,urgent,line3\n');
    await bad.getByRole('alert').filter({ hasText: 'broken.csv was not accepted' }).waitFor();
    await check(page, 'sources-upload-failed');
    const wrong = await upload('Maintenance API', 'line3.csv', good);
    await wrong.getByRole('alert').filter({ hasText: "Source is kind 'api', not file_upload." }).waitFor();
    await check(page, 'sources-wrong-kind');
  });

  test('the CAP flow: from a pattern, submit, a second user approves, the stale version in two tabs, the audit log, the export', async () => {
    const page = await alice.newPage();
    await page.goto(`${c.url}/insights`);
    await page.locator('table.patterns tbody tr').first().getByRole('link').click();
    const patternUrl = new URL(page.url());
    const patternId = patternUrl.pathname.split('/').at(-1)!;
    await page.getByRole('link', { name: 'Create a corrective action plan' }).click();
    await page.getByRole('heading', { name: 'New corrective action plan' }).waitFor();
    assert.is(await page.getByLabel('Target type').inputValue(), 'pattern');
    assert.is(await page.getByLabel('Target id').inputValue(), patternId);
    await page.getByLabel('Title').fill('Stop the conveyor jams');
    await page.getByLabel('Problem statement (optional)').fill('Belts slip at station 4 every week.');
    await page.getByLabel('Owner (optional)').selectOption({ label: 'Bob Analyst' });
    await check(page, 'cap-new');
    await page.getByRole('button', { name: 'Create the plan' }).click();
    await page.getByRole('heading', { name: 'Stop the conveyor jams', level: 1 }).waitFor();
    await page.getByRole('button', { name: 'Submit for review' }).click();
    await page.getByText('Moved to Submitted.').waitFor();
    await check(page, 'cap-submitted');
    const capUrl = page.url();

    // Bob decides the review.
    const bobPage = await bob.newPage();
    await bobPage.goto(`${c.url}/remediation/reviews`);
    const waiting = bobPage.locator('.review-list li').filter({ hasText: 'Stop the conveyor jams' });
    await waiting.getByLabel('Comment (optional)').fill('Go ahead.');
    await check(bobPage, 'reviews');
    await waiting.getByRole('button', { name: 'Approve' }).click();
    await bobPage.getByRole('heading', { name: 'Waiting for a decision (0)' }).waitFor();

    // Two tabs of the same plan: the one that saves second gets the 409 with what changed.
    const tabA = await alice.newPage();
    const tabB = await alice.newPage();
    await tabA.goto(capUrl);
    await tabB.goto(capUrl);
    // Tab B must hold the plan as approved before tab A moves it (the page loads it after navigation).
    await tabB.getByRole('button', { name: 'Start work' }).waitFor();
    await tabA.getByRole('button', { name: 'Start work' }).click();
    await tabA.getByText('Moved to In progress.').waitFor();
    await tabB.getByLabel('Title').fill('Stop the conveyor jams for good');
    await tabB.getByRole('button', { name: 'Save changes' }).click();
    const stale = tabB.getByRole('alert').filter({ hasText: 'This CAP changed since you loaded it — refresh and retry.' });
    await stale.waitFor();
    assert.match((await stale.locator('table').allInnerTexts()).join('\n'), /Status\s+Approved\s+In progress/);
    await check(tabB, 'cap-stale-409');
    await stale.getByRole('button', { name: 'Reload the plan' }).click();
    await tabB.getByText('In progress', { exact: true }).first().waitFor();
    await tabB.getByLabel('Title').fill('Stop the conveyor jams for good');
    await tabB.getByRole('button', { name: 'Save changes' }).click();
    await tabB.getByRole('heading', { name: 'Stop the conveyor jams for good', level: 1 }).waitFor();
    await check(tabB, 'cap-page');

    // A review decided twice: the second decision gets the 409, in place, and a reload.
    await page.goto(`${c.url}/remediation/caps/new`);
    await page.getByLabel('Target id').fill('line 3 belts');
    await page.getByLabel('Title').fill('Replace the belts');
    await page.getByRole('button', { name: 'Create the plan' }).click();
    await page.getByRole('button', { name: 'Submit for review' }).click();
    await page.getByText('Moved to Submitted.').waitFor();
    await bobPage.goto(`${c.url}/remediation/reviews`);
    await tabA.goto(`${c.url}/remediation/reviews`);
    // Tab A must hold the review as waiting before Bob decides it (the page loads its list after navigation).
    const late = tabA.locator('.review-list li').filter({ hasText: 'Replace the belts' });
    await late.waitFor();
    await bobPage.locator('.review-list li').filter({ hasText: 'Replace the belts' }).getByRole('button', { name: 'Reject' }).click();
    await bobPage.getByRole('heading', { name: 'Waiting for a decision (0)' }).waitFor();
    await late.getByRole('button', { name: 'Approve' }).click();
    await late
      .getByRole('alert')
      .filter({ hasText: /This review has already been decided. It was rejected .+./ })
      .waitFor();
    await check(tabA, 'review-already-decided-409');
    await late.getByRole('button', { name: 'Reload to see the decision' }).click();
    await tabA.getByRole('heading', { name: 'Waiting for a decision (0)' }).waitFor();

    // The list, filtered by the pattern.
    await page.goto(`${c.url}/remediation/caps?target_type=pattern&target_id=${patternId}`);
    await page.getByText('Plans 1–1 of 1').waitFor();
    await check(page, 'caps');

    // The audit log shows the moves, then the whole history downloads as a workbook.
    await page.goto(`${c.url}/remediation/audit-log`);
    await page.getByRole('heading', { name: 'Audit log', level: 1 }).waitFor();
    // The heading comes before the entries: wait for the table itself.
    await page.locator('table tbody tr').first().waitFor();
    const log = (await page.locator('table').allInnerTexts()).join('\n');
    assert.match(log, /status: approved → in_progress/);
    assert.match(log, /Review decided/);
    // The API's limit: the latest 20 of the entries (there are more by now), then back to 50.
    const entries = await page.locator('table tbody tr').count();
    assert.ok(entries > 20, `${entries} entries`);
    await page.getByLabel('Entries shown').selectOption('20');
    await page.waitForURL(/limit=20$/);
    await page.locator('table tbody tr').nth(20).waitFor({ state: 'detached' });
    assert.is(await page.locator('table tbody tr').count(), 20);
    await page.getByLabel('Entries shown').selectOption('50');
    await page
      .locator('table tbody tr')
      .nth(entries - 1)
      .waitFor();
    await check(page, 'audit-log');
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: 'Download the whole history (.xlsx)' }).click()]);
    const workbook = new ExcelJS.Workbook();
    await workbook.xlsx.load((await readFile((await download.path())!)) as unknown as ArrayBuffer);
    const cells = workbook.worksheets.flatMap((sheet) => sheet.getSheetValues().flat().map(String));
    assert.ok(cells.includes('Stop the conveyor jams for good'), 'the CAP is in the workbook');
    assert.ok(cells.includes('Replace the belts'));
  });

  test('a viewer sees no write action, and a 403 the API answers anyway shows its detail', async () => {
    const vic = await newContext(browser);
    const page = await signIn(vic, 'vic@client.test');
    await page.getByRole('heading', { name: 'Insights', level: 1 }).waitFor();
    const nav = (await page.getByRole('navigation', { name: 'Workspace' }).allInnerTexts()).join('\n');
    assert.not.match(nav, 'Audit log');
    await page.locator('table.patterns tbody tr').first().getByRole('link').click();
    await page.getByRole('heading', { name: 'Recurrence forecast' }).waitFor();
    assert.is(await page.getByRole('link', { name: 'Create a corrective action plan' }).count(), 0);
    await page.goto(`${c.url}/remediation/caps`);
    await page.locator('table tbody tr').first().waitFor();
    assert.is(await page.getByRole('link', { name: 'New plan' }).count(), 0);
    await page.locator('table tbody tr').first().getByRole('link').click();
    await page.getByRole('heading', { name: 'Next steps' }).waitFor();
    assert.is(await page.locator('section[aria-labelledby="cap-actions"] button').count(), 0);
    assert.is(await page.getByRole('button', { name: 'Save changes' }).count(), 0);
    await check(page, 'viewer-cap');
    await page.goto(`${c.url}/sources`);
    await page.getByRole('heading', { name: 'Line 3 tracker' }).waitFor();
    assert.is(await page.getByRole('button', { name: /Register|Upload/ }).count(), 0);
    await check(page, 'viewer-sources');
    await page.goto(`${c.url}/remediation/audit-log`);
    await page.getByRole('alert').filter({ hasText: "Missing required permission 'audit.read'." }).waitFor();
    assert.is(await page.getByRole('link', { name: /Download/ }).count(), 0);
    await check(page, 'viewer-403');
    await vic.close();
  });

  test('5,000 CAPs: the list stays usable, a page of 50 at a time', async () => {
    const schema = `tenant_${tenant.id.replaceAll('-', '')}`;
    await t.app.pool.query(
      `insert into "${schema}".caps (title, target_type, target_id, status)
       select 'Bulk plan ' || n, 'other', 'bulk-' || n, (array['draft','approved','in_progress','closed'])[1 + n % 4]
         from generate_series(1, 5000) n`,
    );
    const page = await alice.newPage();
    await page.goto(`${c.url}/remediation/caps`);
    await page.getByText(/^Plans 1–50 of 50\d\d$/).waitFor();
    assert.is(await page.locator('table tbody tr').count(), 50);
    await page.getByRole('button', { name: 'Next' }).click();
    await page.getByText(/^Plans 51–100 of 50\d\d$/).waitFor();
    await page.getByLabel('Status').selectOption('closed');
    await page.getByText(/^Plans 1–50 of 12\d\d$/).waitFor();
    await check(page, 'caps-5000');
  });

  test('impersonation from the staff console: a banner naming the user and the way back', async () => {
    const context = await newContext(browser);
    const page = await context.newPage();
    await page.goto(`${c.url}/admin/sign-in`);
    await page.getByLabel('E-mail').fill(staffCredentials.email);
    await page.getByLabel('Password').fill(staffCredentials.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Tenants', level: 1 }).waitFor();
    await page.goto(`${c.url}/admin/tenants/${tenant.id}`);
    await page.getByRole('button', { name: 'Open the tenant console as a user' }).waitFor();
    const [tenantTab] = await Promise.all([context.waitForEvent('page'), page.getByRole('button', { name: 'Open the tenant console as a user' }).click()]);
    const banner = tenantTab.getByRole('region', { name: 'Impersonation' });
    await banner.waitFor();
    assert.match((await banner.allInnerTexts()).join('\n'), /You are viewing .* as Alice Admin \(alice@client\.test\).*Olive Onboarder/s);
    await check(tenantTab, 'impersonation');
    await banner.getByRole('link', { name: 'Back to the staff console' }).click();
    await tenantTab.getByRole('heading', { name: 'Tenants', level: 1 }).waitFor();
    await context.close();
  });

  test('password reset confirmed: the link of the e-mail, a new password, signed in with it', async () => {
    const context = await newContext(browser);
    const page = await context.newPage();
    await page.goto(`${c.url}/forgot-password?workspace=${tenant.slug}`);
    await page.getByLabel('E-mail').fill('vic@client.test');
    await page.getByRole('button', { name: 'Send the reset link' }).click();
    await page.getByText('a link to choose a new password is on its way').waitFor();
    const mail = await smtp.waitFor((m) => m.to.includes('vic@client.test') && /reset/i.test(m.subject));
    await page.goto(mail.text.match(/https?:\/\/\S+reset-password\S+/)![0]);
    await page.getByRole('heading', { name: 'Choose a new password' }).waitFor();
    const renewed = 'another long enough passphrase';
    await page.getByLabel('New password', { exact: true }).fill(renewed);
    await page.getByLabel('Repeat the new password').fill(renewed);
    await page.getByRole('button', { name: 'Set password' }).click();
    await page.getByText('Your password was changed. Sign in with the new one.').waitFor();
    await check(page, 'reset-password-done');
    await context.close();
    const signedIn = await signIn(await newContext(browser), 'vic@client.test', renewed);
    await signedIn.getByRole('heading', { name: 'Insights', level: 1 }).waitFor();
  });

  test.run();
}
