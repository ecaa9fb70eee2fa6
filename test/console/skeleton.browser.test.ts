/** The console's first page in a real browser: staff sign-in and the tenant registry, axe-clean. */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { axeViolations, chromiumAvailable, describeViolations, launchChromium, newContext, outputDir, screenshot } from '../helpers/browser.ts';
import { startTestConsole } from '../helpers/console.ts';
import { seedStaff } from '../helpers/product.ts';

if (chromiumAvailable('the console browser tests')) {
  const c = await startTestConsole();
  const browser = await launchChromium();
  const out = outputDir(import.meta.filename);
  test.after(async () => {
    await browser.close();
    await c.close();
  });

  test('staff sign in and see the tenant registry', async () => {
    const staff = await seedStaff(c.t);
    const context = await newContext(browser);
    const page = await context.newPage();
    await page.goto(`${c.url}/admin/tenants`);
    await page.getByRole('heading', { name: 'Staff sign-in' }).waitFor();
    await page.getByLabel('E-mail').fill(staff.email);
    await page.getByLabel('Password').fill(staff.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Tenants', level: 1 }).waitFor();
    await screenshot(page, out, 'tenants');
    const violations = await axeViolations(page);
    assert.is(violations.length, 0, describeViolations(violations));
    await context.close();
  });

  test.run();
}
