/**
 * Provisioning time per tenant as the number of tenants grows (`npm run bench:tenants`). Each tenant
 * is a schema with its own tables, so the Postgres catalog grows with every tenant; this measures
 * whether provisioning slows down with it. For 1, 10 and 100 tenants already provisioned, SAMPLE new
 * tenants are provisioned one at a time (each removed again, so each sees exactly that many others)
 * through the provision task's own steps
 * (`provisionSchema`: create schema, tenant migrations, role profiles, defaults) and timed; the
 * worker's queueing and polling are left out (they do not depend on the tenant count). Printed: the
 * median and slowest time per tenant, the median of each step, the catalog size, and the growth
 * ratio against the 1-tenant baseline measured in the same run.
 */
import { benchArgs } from './args.ts';
import { createPool } from '../lib/db.ts';
import { provisionSchema, PROVISION_STEPS, type ProvisionStep } from '../usecases/tenants/provisionTenant.ts';
import { insertTenant } from '../sql/tenants.ts';
import { tenantMigrationFiles } from '../sql/tenant/schema.ts';
import { createTestDatabase } from '../fixtures/database.ts';
import { median } from './measure.ts';

const { values } = benchArgs(import.meta.url, { options: { sample: { type: 'string', default: '15' }, levels: { type: 'string', default: '1,10,100' } } });
const SAMPLE = Number(values.sample);
const LEVELS = values.levels!.split(',').map(Number);

const db = await createTestDatabase();
const pool = createPool(db.url, { max: 4 });
let created = 0;
let present = 0;

async function provisionOne(): Promise<{ totalMs: number; steps: Record<ProvisionStep, number> }> {
  const tenant = (await insertTenant(pool, { slug: `bench-${++created}`, company: `Bench ${created}`, industry: null }))!;
  const steps = {} as Record<ProvisionStep, number>;
  const started = performance.now();
  let last = started;
  await provisionSchema(pool, tenant.schema_name, async (step) => {
    const now = performance.now();
    steps[step] = now - last;
    last = now;
  });
  await pool.query(`update tenants set lifecycle_state = 'onboarding' where id = $1`, [tenant.id]);
  present++;
  return { totalMs: performance.now() - started, steps };
}

/** Removes the most recently provisioned tenant and its schema. */
async function removeLatest(): Promise<void> {
  const { rows } = await pool.query<{ schema_name: string }>(
    'delete from tenants where id = (select id from tenants order by created_at desc limit 1) returning schema_name',
  );
  await pool.query(`drop schema "${rows[0].schema_name}" cascade`);
  present--;
}

/** Provisions one tenant with exactly `present` others in place, then removes it again. */
async function sample() {
  const result = await provisionOne();
  await removeLatest();
  return result;
}

const relationCount = async () => (await pool.query<{ n: number }>('select count(*)::int as n from pg_class')).rows[0].n;

try {
  console.log(`Tenant provisioning: ${tenantMigrationFiles().length} tenant migrations, ${SAMPLE} tenants timed per level, database ${db.name}`);
  // Warm-up, so that the 1-tenant level does not pay for cold caches.
  for (let i = 0; i < 5; i++) await sample();
  const rows: Array<{ present: number; medianMs: number; maxMs: number; steps: Record<ProvisionStep, number>; relations: number }> = [];
  for (const level of LEVELS) {
    const fillStarted = performance.now();
    const before = present;
    while (present < level) await provisionOne();
    if (present > before) console.log(`  filled to ${present} tenants in ${((performance.now() - fillStarted) / 1000).toFixed(1)} s`);
    const relations = await relationCount();
    await pool.query('vacuum analyze pg_class, pg_attribute, pg_namespace, pg_type');
    const samples: Array<Awaited<ReturnType<typeof sample>>> = [];
    for (let i = 0; i < SAMPLE; i++) samples.push(await sample());
    const totals = samples.map((s) => s.totalMs);
    const steps = Object.fromEntries(PROVISION_STEPS.map((step) => [step, median(samples.map((s) => s.steps[step]))])) as Record<ProvisionStep, number>;
    rows.push({ present: level, medianMs: median(totals), maxMs: Math.max(...totals), steps, relations });
  }
  const base = rows[0].medianMs;
  console.log('');
  console.log(['tenants present', 'catalog relations', 'median ms/tenant', 'slowest ms', ...PROVISION_STEPS.map((s) => `${s} ms`), 'growth vs 1'].join(' | '));
  for (const row of rows) {
    console.log(
      [
        row.present,
        row.relations,
        row.medianMs.toFixed(1),
        row.maxMs.toFixed(1),
        ...PROVISION_STEPS.map((s) => row.steps[s].toFixed(1)),
        `${(row.medianMs / base).toFixed(2)}×`,
      ].join(' | '),
    );
  }
} finally {
  await pool.end();
  await db.drop();
}
