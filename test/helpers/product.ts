/**
 * The product surface as a browser sees it: a cookie jar over real HTTP that stores every Set-Cookie
 * and sends `X-CSRF-Token` equal to its `svc_csrf` cookie on mutating requests, plus the steps most
 * product tests start with (seed and sign in staff, create and provision a tenant, add a tenant user
 * directly for tests that precede invitations, make a tenant live).
 */
import { randomInt, randomUUID } from 'node:crypto';
import { createTenantUser as createTenantUserDirectly } from '../../fixtures/tenants.ts';
import { hashPassword } from '../../lib/passwords.ts';
import { upsertEmployee, type ControlRole } from '../../sql/employees.ts';
import { findJobRunByKey } from '../../sql/jobRuns.ts';
import type { LifecycleState } from '../../domain/tenantLifecycle.ts';
import type { TestApp } from './app.ts';
import { eventually } from './app.ts';
import { request, type HttpResponse, type RequestOptions } from './http.ts';

export interface SetCookie {
  name: string;
  value: string;
  attributes: Record<string, string | true>;
  raw: string;
}

/** Parses one Set-Cookie header (attribute names lower-cased). */
export function parseSetCookie(raw: string): SetCookie {
  const [pair, ...attrs] = raw.split(';');
  const eq = pair.indexOf('=');
  const attributes: Record<string, string | true> = {};
  for (const attr of attrs) {
    const at = attr.indexOf('=');
    if (at < 0) attributes[attr.trim().toLowerCase()] = true;
    else attributes[attr.slice(0, at).trim().toLowerCase()] = attr.slice(at + 1).trim();
  }
  return { name: pair.slice(0, eq).trim(), value: pair.slice(eq + 1).trim(), attributes, raw };
}

export const setCookies = (res: HttpResponse): SetCookie[] => res.headers.getSetCookie().map(parseSetCookie);

export interface ProductOptions extends RequestOptions {
  /** Send no X-CSRF-Token even on a mutating request. */
  noCsrf?: boolean;
}

/**
 * One browser: its cookies, and its own client address sent as X-Forwarded-For (honoured when the
 * app runs with TRUST_PROXY, so that every jar has its own per-IP login budget).
 */
export class ProductClient {
  readonly cookies = new Map<string, string>();
  constructor(
    readonly base: string,
    readonly ip = `10.${randomInt(256)}.${randomInt(256)}.${1 + randomInt(254)}`,
  ) {}

  async request<T = any>(method: string, path: string, options: ProductOptions = {}): Promise<HttpResponse<T>> {
    const headers: Record<string, string> = { 'x-forwarded-for': this.ip };
    if (this.cookies.size) headers.cookie = [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
    const csrf = this.cookies.get('svc_csrf');
    if (!['GET', 'HEAD', 'OPTIONS'].includes(method) && csrf && !options.noCsrf) headers['x-csrf-token'] = csrf;
    const res = await request<T>(this.base, method, path, { ...options, headers: { ...headers, ...options.headers } });
    for (const cookie of setCookies(res)) {
      const expired =
        cookie.attributes['max-age'] === '0' || (typeof cookie.attributes.expires === 'string' && Date.parse(cookie.attributes.expires) <= Date.now());
      if (expired) this.cookies.delete(cookie.name);
      else this.cookies.set(cookie.name, cookie.value);
    }
    return res;
  }

  get = <T = any>(path: string, options?: ProductOptions) => this.request<T>('GET', path, options);
  post = <T = any>(path: string, body?: unknown, options?: ProductOptions) => this.request<T>('POST', path, { body, ...options });
  put = <T = any>(path: string, body?: unknown, options?: ProductOptions) => this.request<T>('PUT', path, { body, ...options });
  patch = <T = any>(path: string, body?: unknown, options?: ProductOptions) => this.request<T>('PATCH', path, { body, ...options });
  delete = <T = any>(path: string, options?: ProductOptions) => this.request<T>('DELETE', path, options);
}

export const productClient = (t: TestApp) => new ProductClient(t.product.base);

export interface StaffCredentials {
  id: string;
  email: string;
  password: string;
  role: ControlRole;
}

/** Seeds an employee directly (what `svc staff create` does). */
export async function seedStaff(t: TestApp, options: { email?: string; password?: string; role?: ControlRole; name?: string } = {}): Promise<StaffCredentials> {
  const email = options.email ?? `staff-${randomUUID().slice(0, 8)}@svc.test`;
  const password = options.password ?? 'correct horse battery staple';
  const role = options.role ?? 'onboarding_admin';
  const { employee } = await upsertEmployee(t.app.pool, { email, passwordHash: await hashPassword(password), role, fullName: options.name });
  return { id: employee.id, email: employee.email, password, role };
}

/** A cookie jar signed in as staff (a fresh onboarding_admin unless credentials are given). */
export async function staffLogin(t: TestApp, staff?: StaffCredentials): Promise<ProductClient & { staff: StaffCredentials }> {
  const credentials = staff ?? (await seedStaff(t));
  const client = productClient(t);
  const res = await client.post('/admin/login', { email: credentials.email, password: credentials.password });
  if (res.status !== 200) throw new Error(`staff login failed: ${res.status} ${res.text}`);
  return Object.assign(client, { staff: credentials });
}

export interface TenantBody {
  id: string;
  slug: string;
  company: string;
  industry: string | null;
  lifecycle_state: LifecycleState;
}

export async function createTenant(staff: ProductClient, body: { slug?: string; company?: string; industry?: string } = {}): Promise<TenantBody> {
  const res = await staff.post('/admin/tenants', { slug: `t-${randomUUID().slice(0, 8)}`, company: 'Acme Industrial', ...body });
  if (res.status !== 201) throw new Error(`create tenant failed: ${res.status} ${res.text}`);
  return res.body;
}

/** Queues provisioning and waits (the test app needs a worker) until the job succeeded. */
export async function provisionTenant(t: TestApp, staff: ProductClient, tenantId: string, timeoutMs = 30_000): Promise<{ job_id: string }> {
  const res = await staff.post(`/admin/tenants/${tenantId}/provision`);
  if (res.status !== 202) throw new Error(`provision failed: ${res.status} ${res.text}`);
  await eventually(
    async () => {
      const job = await findJobRunByKey(t.app.pool, `provision:${tenantId}`);
      if (job?.status === 'failed') throw new Error(`provisioning failed: ${job.error_detail}`);
      return job?.status === 'succeeded' ? true : undefined;
    },
    timeoutMs,
    'provisioning',
  );
  return res.body;
}

/** Creates (or updates) an active tenant user directly, with a role profile (default admin). */
export function createTenantUser(
  t: TestApp,
  tenantId: string,
  user: { email?: string; password?: string; roleProfile?: string; fullName?: string } = {},
): Promise<{ id: string; email: string; password: string }> {
  return createTenantUserDirectly(t.app.pool, tenantId, user);
}

/** Puts a tenant in a lifecycle state directly (for tests of routes that precede go-live). */
export async function setTenantState(t: TestApp, tenantId: string, state: LifecycleState): Promise<void> {
  await t.app.pool.query('update tenants set lifecycle_state = $2, updated_at = now() where id = $1', [tenantId, state]);
}

/** A provisioned, live tenant with one active user (role profile `admin` unless given). */
export async function liveTenant(t: TestApp, staff: ProductClient, options: { roleProfile?: string } = {}) {
  const tenant = await createTenant(staff);
  await provisionTenant(t, staff, tenant.id);
  const user = await createTenantUser(t, tenant.id, { roleProfile: options.roleProfile });
  await setTenantState(t, tenant.id, 'live');
  return { tenant, user };
}

/** A cookie jar signed in as a tenant user. */
export async function tenantLogin(t: TestApp, workspace: string, email: string, password: string): Promise<ProductClient> {
  const client = productClient(t);
  const res = await client.post('/login', { workspace, email, password });
  if (res.status !== 200) throw new Error(`tenant login failed: ${res.status} ${res.text}`);
  return client;
}
