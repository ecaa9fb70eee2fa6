/**
 * A seeded, bounded black-box fuzz of both surfaces (issue 18). The operations come from each
 * surface's served `/openapi.json` at test time, so routes added later are fuzzed without touching
 * this file. Each operation gets CASES hostile requests (path ids, query strings, bodies, headers),
 * as an authorized caller and anonymously: nothing may answer 5xx, every error must be in its
 * surface's shape, and both processes must still answer at the end. Seed: FUZZ_SEED (default 18).
 */
import { randomUUID } from 'node:crypto';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { errorCodes } from '../../../lib/errors.ts';
import { demoToken, startTestApp, type TestApp } from '../../helpers/app.ts';
import { request, type HttpResponse } from '../../helpers/http.ts';
import { provisioningKey } from '../../helpers/identities.ts';
import { staffLogin, type ProductClient } from '../../helpers/product.ts';

const SEED = Number(process.env.FUZZ_SEED ?? 18);
const CASES = 6;

/** mulberry32: a small seeded PRNG, so a failure reproduces with its seed. */
function prng(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Path segments as sent (already encoded, some deliberately malformed). */
const HOSTILE_SEGMENTS = [
  '%00',
  'a%00b',
  '%01%02',
  '%ZZ',
  '%E0%A4%A',
  '..',
  '%2e%2e%2f%2e%2e',
  '%2F',
  'x'.repeat(500),
  '%27%20or%201%3D1--',
  '%F0%9F%92%A5',
  '%E2%80%AE',
  '-1',
  '0',
  '99999999999999999999999',
  '00000000-0000-0000-0000-000000000000',
  'NaN',
  'null',
  '%20',
  '__proto__',
  'constructor',
  '%3Cscript%3E',
  randomUUID(),
];
const HOSTILE_STRINGS = [
  '\u0000',
  'a\u0000b',
  '',
  ' ',
  'x'.repeat(100_000),
  '\u202e',
  '💥',
  "' or 1=1--",
  '../../etc/passwd',
  '%00',
  '<script>',
  '\ud800',
  'NaN',
  '-1',
  '1e309',
];
const HOSTILE_VALUES: unknown[] = [null, true, 0, -1, 1e308, -1e308, 2 ** 63, 0.1, [], {}, [null], { $ne: 1 }, ...HOSTILE_STRINGS];

const deep = (n: number) => '['.repeat(n) + ']'.repeat(n);

interface Operation {
  method: string;
  path: string;
  parameters: Array<{ name: string; in: string }>;
  hasBody: boolean;
  bodyProperties: string[];
}

function operationsOf(doc: any): Operation[] {
  const out: Operation[] = [];
  for (const [path, item] of Object.entries<any>(doc.paths)) {
    for (const [method, op] of Object.entries<any>(item)) {
      if (!['get', 'post', 'put', 'patch', 'delete'].includes(method)) continue;
      const schema = op.requestBody?.content?.['application/json']?.schema;
      out.push({
        method: method.toUpperCase(),
        path,
        parameters: (op.parameters ?? []).map((p: any) => ({ name: p.name, in: p.in })),
        hasBody: !!op.requestBody,
        bodyProperties: Object.keys(schema?.properties ?? {}),
      });
    }
  }
  // Sign-outs last: they end the session the other cases use.
  return out.sort((a, b) => Number(/logout|sign-?out/.test(a.path)) - Number(/logout|sign-?out/.test(b.path)));
}

function hostileRequest(op: Operation, rnd: () => number) {
  const pick = <T>(items: readonly T[]): T => items[Math.floor(rnd() * items.length)];
  const path = op.path.replace(/\{[^}]+\}/g, () => pick(HOSTILE_SEGMENTS));
  const query = new URLSearchParams();
  for (const p of op.parameters.filter((x) => x.in === 'query')) if (rnd() < 0.7) query.append(p.name, String(pick(HOSTILE_STRINGS)));
  if (rnd() < 0.3) query.append(pick(['cursor', 'limit', 'sort', 'q', '__proto__[x]', 'a[b][c]']), String(pick(HOSTILE_STRINGS)));
  const url = path + (query.size ? `?${query.toString().replace(/%00/g, rnd() < 0.5 ? '%00' : '')}` : '');
  const headers: Record<string, string> = { 'x-forwarded-for': `10.${Math.floor(rnd() * 255)}.${Math.floor(rnd() * 255)}.${1 + Math.floor(rnd() * 250)}` };
  if (rnd() < 0.8) headers['idempotency-key'] = randomUUID();
  let raw: string | Buffer | undefined;
  if (op.method !== 'GET' && (op.hasBody || rnd() < 0.2)) {
    const kind = Math.floor(rnd() * 7);
    const body: Record<string, unknown> = {};
    for (const name of op.bodyProperties) if (rnd() < 0.8) body[name] = pick(HOSTILE_VALUES);
    if (kind === 0) raw = deep(10_000);
    else if (kind === 1) raw = '{"a":';
    else if (kind === 2) raw = JSON.stringify(pick(HOSTILE_VALUES));
    else if (kind === 3) raw = JSON.stringify({ ...body, __proto__: { polluted: true }, constructor: { prototype: { polluted: true } } });
    else if (kind === 4) {
      raw = Buffer.from(JSON.stringify(body).replace(/}$/, ',"x":"caf\u00e9"}'), 'latin1');
      headers['content-type'] = 'application/json; charset=latin1';
    } else raw = JSON.stringify(body);
    headers['content-type'] ??= pick(['application/json', 'application/json', 'text/plain', 'application/x-www-form-urlencoded', 'application/vnd.api+json']);
  }
  return { method: op.method, url, headers, raw };
}

let t: TestApp;
let token: string;
let staff: ProductClient;
test.before(async () => {
  const prov = provisioningKey();
  t = await startTestApp({ env: { ...prov.env, TRUST_PROXY: '1' } });
  token = await demoToken(t);
  staff = await staffLogin(t);
});
test.after(async () => t.close());

function assertPlatformShape(res: HttpResponse, what: string) {
  assert.ok(res.status < 500, `${what}: ${res.status} ${res.text.slice(0, 300)}`);
  if (res.status < 400) return;
  const error = res.body?.error;
  assert.ok(
    error && typeof error.message === 'string' && (errorCodes as readonly string[]).includes(error.code),
    `${what}: not an envelope: ${res.text.slice(0, 300)}`,
  );
  if (res.status !== 429) assert.is(error.trace_id, res.headers.get('x-request-id'), `${what}: trace_id`);
}

function assertProductShape(res: HttpResponse, what: string) {
  assert.ok(res.status < 500, `${what}: ${res.status} ${res.text.slice(0, 300)}`);
  if (res.status < 400) return;
  assert.ok(res.body && typeof res.body === 'object' && Object.keys(res.body).join() === 'detail', `${what}: not {detail}: ${res.text.slice(0, 300)}`);
  if (res.status === 422 && Array.isArray(res.body.detail)) {
    for (const item of res.body.detail)
      assert.ok(Array.isArray(item.loc) && typeof item.msg === 'string' && typeof item.type === 'string', `${what}: 422 item ${JSON.stringify(item)}`);
  }
}

test('every /v1 operation survives hostile input: no 5xx, every error an envelope', async () => {
  const doc = (await t.platform.get('/openapi.json')).body;
  const operations = operationsOf(doc);
  assert.ok(operations.length >= 40, `only ${operations.length} operations`);
  const rnd = prng(SEED);
  for (const op of operations) {
    for (let i = 0; i < CASES; i++) {
      const r = hostileRequest(op, rnd);
      const auth: Record<string, string> = i % 3 === 2 ? {} : { authorization: `Bearer ${token}` };
      const res = await request(t.platform.base, r.method, r.url, { raw: r.raw, headers: { ...r.headers, ...auth } });
      assertPlatformShape(res, `seed ${SEED}: ${r.method} ${r.url.slice(0, 120)}`);
    }
  }
  assert.is((await t.platform.get('/openapi.json')).status, 200, 'the process is alive');
});

test('every product operation survives hostile input: no 5xx, every error {detail}', async () => {
  const doc = (await t.product.get('/openapi.json')).body;
  const operations = operationsOf(doc);
  assert.ok(operations.length >= 30, `only ${operations.length} operations`);
  const rnd = prng(SEED + 1);
  for (const op of operations) {
    for (let i = 0; i < CASES; i++) {
      const r = hostileRequest(op, rnd);
      const res =
        i % 3 === 2
          ? await request(t.product.base, r.method, r.url, { raw: r.raw, headers: r.headers })
          : await staff.request(r.method, r.url, { raw: r.raw, headers: r.headers });
      assertProductShape(res, `seed ${SEED + 1}: ${r.method} ${r.url.slice(0, 120)}`);
    }
  }
  assert.is((await t.product.get('/health/ready')).status, 200, 'the process is alive');
  assert.is((await t.platform.get('/openapi.json')).status, 200);
});

test.run();
