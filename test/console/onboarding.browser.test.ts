/**
 * The whole onboarding of a tenant through the staff console in Chromium, against the real console,
 * product API, worker and Postgres, by clicking and typing only: sign-in (sent back to the page
 * asked for), the registry's 422 next to the field, go-live's 409 as a checklist, provision with live
 * progress, data policy and training configuration (a 422 by field), a dropped CSV with progress and
 * its result, commit, training, activation, sources, an invitation, go-live, the invitee accepting
 * from the outbox link, and impersonation in a new tab. axe-core checks every page (light and dark,
 * 1280 and 400 pixels wide) and each page is saved as a screenshot under test-output/.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { BrowserContext, Page } from 'playwright-core';
import { recordsCsv, syntheticRecords } from '../helpers/onboarding.ts';
import { axeViolations, chromiumAvailable, describeViolations, launchChromium, NARROW, newContext, outputDir, screenshot } from '../helpers/browser.ts';
import { startTestConsole } from '../helpers/console.ts';
import { seedStaff } from '../helpers/product.ts';

if (chromiumAvailable('the staff console onboarding in a browser')) {
  const c = await startTestConsole({ worker: true });
  const browser = await launchChromium();
  const out = outputDir(import.meta.filename);
  test.after(async () => {
    await browser.close();
    await c.close();
  });

  /** Screenshot and axe, light and dark, wide and narrow. */
  async function checkPage(page: Page, name: string) {
    await page.waitForLoadState('networkidle');
    await screenshot(page, out, name);
    const violations = await axeViolations(page);
    assert.is(violations.length, 0, `${name}:\n${describeViolations(violations)}`);
    const url = page.url();
    for (const variant of [{ colorScheme: 'dark' as const }, { viewport: NARROW }]) {
      const other = await newContext(browser, variant);
      await other.addCookies(await page.context().cookies());
      const p = await other.newPage();
      await p.goto(url);
      await p.waitForLoadState('networkidle');
      await p.locator('main').waitFor();
      const suffix = variant.viewport ? 'narrow' : 'dark';
      await screenshot(p, out, `${name}-${suffix}`);
      const v = await axeViolations(p);
      assert.is(v.length, 0, `${name} (${suffix}):\n${describeViolations(v)}`);
      await other.close();
    }
  }

  const section = (page: Page, id: string) => page.locator(`section#${id}`);

  test('a tenant is onboarded from sign-in to go-live and impersonation through the staff console', async () => {
    const staff = await seedStaff(c.t, { name: 'Olga Onboarder' });
    const context: BrowserContext = await newContext(browser);
    const page = await context.newPage();

    // Asked for the registry without a session: sign-in first, then back to the registry.
    await page.goto(`${c.url}/admin/tenants`);
    await page.getByRole('heading', { name: 'Staff sign-in' }).waitFor();
    assert.match(page.url(), /\/admin\/sign-in\?next=%2Fadmin%2Ftenants/);
    await checkPage(page, 'staff-sign-in');
    await page.getByLabel('E-mail').fill(staff.email);
    await page.getByLabel('Password').fill('wrong password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('alert').filter({ hasText: 'Invalid email or password.' }).waitFor();
    await page.getByLabel('Password').fill(staff.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Tenants', level: 1 }).waitFor();
    assert.match(page.url(), /\/admin\/tenants$/);
    const cookies = await context.cookies();
    assert.ok(cookies.find((k) => k.name === 'svc_admin_session')?.httpOnly, 'the session cookie is httpOnly');
    assert.is(await page.evaluate('JSON.stringify({ ...localStorage }) + JSON.stringify({ ...sessionStorage })'), '{}{}', 'nothing in web storage');

    // The API's 422 for the slug's character rule, next to the slug field.
    await page.getByLabel('Slug', { exact: true }).fill('Acme_Corp');
    await page.getByLabel('Company', { exact: true }).fill('Acme Corporation');
    await page.getByRole('button', { name: 'Create tenant' }).click();
    const slugError = page.locator('.field', { has: page.getByLabel('Slug', { exact: true }) }).locator('.field__error');
    await slugError.waitFor();
    assert.match((await slugError.textContent()) ?? '', /lowercase letters, digits and hyphens/);
    assert.is(await page.getByLabel('Slug', { exact: true }).getAttribute('aria-invalid'), 'true');
    await checkPage(page, 'tenants-create-422');
    await page.getByLabel('Slug', { exact: true }).fill('acme');
    await page.getByRole('button', { name: 'Create tenant' }).click();
    await page.getByRole('heading', { name: /Acme Corporation/ }).waitFor();

    // Go-live before anything: the 409's missing prerequisites as a checklist with links to the steps.
    await section(page, 'go-live').getByRole('button', { name: 'Go live' }).click();
    const checklist = section(page, 'go-live').locator('.checklist li');
    await checklist.first().waitFor();
    assert.equal(await checklist.allInnerTexts(), [
      '☐ historical data ingested: Upload and commit historical data',
      '☐ a model checkpoint activated: Train a model and activate a checkpoint',
      '☐ at least one user invited: Invite at least one user',
    ]);
    await checkPage(page, 'tenant-draft-go-live-409');

    // Provision, with progress polled until it succeeded.
    await section(page, 'provision').getByRole('button', { name: 'Provision' }).click();
    await section(page, 'provision').locator('.badge--succeeded').waitFor({ timeout: 30_000 });
    await page.locator('h1 .badge--onboarding').waitFor();

    // Data policy and training configuration; a bad number gets the API's 422 by its field.
    await section(page, 'settings').getByLabel('Retention (days, empty: keep everything)').fill('3650');
    await section(page, 'settings').getByRole('button', { name: 'Save data policy' }).click();
    await section(page, 'settings').getByText('Policy saved').waitFor();
    await section(page, 'settings').getByLabel('Fewest clusters (k_min)').fill('6');
    await section(page, 'settings').getByLabel('Most clusters (k_max)').fill('3');
    await section(page, 'settings').getByRole('button', { name: 'Save training configuration' }).click();
    const kMaxError = section(page, 'settings')
      .locator('.field', { has: page.getByLabel('Most clusters (k_max)') })
      .locator('.field__error');
    await kMaxError.waitFor();
    assert.is(await kMaxError.textContent(), 'must be at least k_min');
    await section(page, 'settings').getByLabel('Fewest clusters (k_min)').fill('2');
    await section(page, 'settings').getByLabel('Most clusters (k_max)').fill('6');
    await section(page, 'settings').getByRole('button', { name: 'Save training configuration' }).click();
    await section(page, 'settings').getByText('Configuration saved').waitFor();

    // A CSV dropped on the drop zone: progress, the upload's result, commit.
    const csv = recordsCsv(syntheticRecords(120));
    const dropzone = section(page, 'upload').locator('.dropzone');
    const dataTransfer = await page.evaluateHandle((text) => {
      const browser = globalThis as any;
      const dt = new browser.DataTransfer();
      dt.items.add(new browser.File([text], 'history.csv', { type: 'text/csv' }));
      return dt;
    }, csv);
    await dropzone.dispatchEvent('dragover', { dataTransfer });
    await dropzone.dispatchEvent('drop', { dataTransfer });
    await section(page, 'upload').getByText('history.csv').first().waitFor();
    await section(page, 'upload').getByRole('button', { name: 'Commit 120 records' }).waitFor();
    assert.is(await section(page, 'upload').locator('progress').getAttribute('value'), '1');
    await section(page, 'upload').getByRole('button', { name: 'Commit 120 records' }).click();
    await section(page, 'upload').getByText('Committed: dataset version 1 holds 120 records').waitFor();

    // Train with live progress; activate the checkpoint.
    await section(page, 'train').getByRole('button', { name: 'Train a model' }).click();
    await section(page, 'train').locator('.job-progress .badge--succeeded').waitFor({ timeout: 60_000 });
    await section(page, 'train').getByRole('button', { name: 'Activate model v1' }).click();
    await section(page, 'train').locator('td .badge--live', { hasText: 'active' }).waitFor();

    // Sources, and an invitation listed with its state and expiry.
    await section(page, 'sources').getByRole('button', { name: 'Seed sources' }).click();
    await section(page, 'sources').getByRole('cell', { name: 'Historical import' }).waitFor();
    await section(page, 'invitations').getByLabel('E-mail of the person to invite').fill('Ada@Acme.example');
    await section(page, 'invitations').getByLabel('Their full name (optional)').fill('Ada Lovelace');
    await section(page, 'invitations').getByLabel('Role profile').selectOption('admin');
    await section(page, 'invitations').getByRole('button', { name: 'Send invitation' }).click();
    await section(page, 'invitations').getByRole('cell', { name: 'ada@acme.example' }).waitFor();
    await section(page, 'invitations').locator('.badge--pending').waitFor();

    // Go live now that nothing is missing.
    await section(page, 'go-live').getByRole('button', { name: 'Go live' }).click();
    await page.locator('h1 .badge--live').waitFor();
    await checkPage(page, 'tenant-live');

    // The operations pages.
    await page.getByRole('link', { name: 'Operations' }).click();
    await page.getByRole('heading', { name: 'Operations', level: 1 }).waitFor();
    await page.getByRole('cell', { name: 'acme' }).first().waitFor();
    await checkPage(page, 'operations');
    await page.getByRole('link', { name: 'Background jobs' }).click();
    await page.getByRole('heading', { name: 'Background jobs', level: 1 }).waitFor();
    await page.getByLabel('Kind').selectOption('tenant__train');
    await page.waitForURL(/kind=tenant__train/);
    await page.getByRole('link', { name: 'tenant__train' }).first().waitFor();
    // The unfiltered list stays on screen until the filtered one arrives: wait for its rows to go.
    await page.getByRole('link', { name: 'tenant__provision' }).first().waitFor({ state: 'hidden', timeout: 10_000 });
    assert.is(await page.getByRole('link', { name: 'tenant__provision' }).count(), 0, 'the kind filter applies');
    await checkPage(page, 'jobs');
    await page.getByRole('link', { name: 'tenant__train' }).first().click();
    await page.getByRole('heading', { name: 'Job tenant__train' }).waitFor();
    assert.ok(await page.getByRole('button', { name: 'Retry' }).isDisabled(), 'a succeeded job cannot be retried');
    await checkPage(page, 'job-detail');

    // The invitee follows the link the product would have mailed (development outbox).
    await page.getByRole('link', { name: 'Outbox' }).click();
    const link = page.locator('article', { hasText: 'You are invited to Acme Corporation' }).locator('a[href*="/accept-invite?"]');
    await link.waitFor();
    await checkPage(page, 'outbox');
    const inviteUrl = await link.getAttribute('href');
    assert.ok(inviteUrl?.startsWith(`${c.t.config.APP_URL}/accept-invite?workspace=acme&token=`), inviteUrl ?? '');
    const invitee = await newContext(browser);
    const inviteePage = await invitee.newPage();
    await inviteePage.goto(`${c.url}${new URL(inviteUrl!).pathname}${new URL(inviteUrl!).search}`);
    await inviteePage.getByRole('heading', { name: 'Accept your invitation' }).waitFor();
    await checkPage(inviteePage, 'accept-invite');
    await inviteePage.getByLabel('New password', { exact: true }).fill('analytical engine');
    await inviteePage.getByLabel('Repeat the new password').fill('analytical engine');
    await inviteePage.getByRole('button', { name: 'Accept and sign in' }).click();
    await inviteePage.getByRole('heading', { name: 'Insights', level: 1 }).waitFor();
    await checkPage(inviteePage, 'tenant-home');
    await invitee.close();

    // Impersonation: the tenant console opens in a new tab as that user; the staff session stays.
    await page.goto(`${c.url}/admin/tenants`);
    await page.getByRole('link', { name: 'acme' }).click();
    const [tenantTab] = await Promise.all([
      context.waitForEvent('page'),
      section(page, 'go-live').getByRole('button', { name: 'Open the tenant console as a user' }).click(),
    ]);
    await tenantTab.getByRole('heading', { name: 'Insights', level: 1 }).waitFor();
    await tenantTab.getByText('ada@acme.example').waitFor();
    await screenshot(tenantTab, out, 'impersonation-tab');
    await section(page, 'go-live').getByText('Tenant console opened in a new tab as ada@acme.example').waitFor();
    await page.reload();
    await page.getByRole('heading', { name: /Acme Corporation/ }).waitFor();
    assert.ok(
      (await context.cookies()).some((k) => k.name === 'svc_admin_session'),
      'the staff session stays',
    );
    await context.close();
  });

  test.run();
}
