/**
 * The /v1 request rate limit (platform-api.md, Limits): 600 requests per 60-second sliding window
 * per client IP, X-RateLimit-Limit/-Remaining on every response, 429 `{error: {code, message}}`
 * without trace_id and with Retry-After once the budget is spent. Both stores (memory, postgres)
 * run the same cases; the postgres store is shown to be shared by two real `svc api` processes.
 *
 * The sliding window is the weighted two-window counter: at time t inside the fixed window that
 * started at W, with `previous` hits in [W - 60 s, W) and `current` hits in [W, t),
 *   estimate = previous * (1 - (t - W) / 60 s) + current
 * and a request is allowed when estimate + 1 <= 600; X-RateLimit-Remaining is
 * floor(600 - estimate - 1) after an allowed request.
 */
import type { ChildProcess } from 'node:child_process';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { listen, type RunningServer } from '../../../api/http/server.ts';
import { slidingWindowTake, type WindowState } from '../../../api/http/rateLimit.ts';
import type { Config } from '../../../lib/config.ts';
import { buildHttpApps } from '../../../scripts/processes.ts';
import { startTestApp, type TestApp } from '../../helpers/app.ts';
import { TestClock } from '../../helpers/clock.ts';
import { createTestDatabase, type TestDatabase } from '../../../fixtures/database.ts';
import { client, type Client, type HttpResponse } from '../../helpers/http.ts';
import { spawnSvc, svcEnv } from '../../../fixtures/svcProcess.ts';

const LIMIT = 600;
const WINDOW_MS = 60_000;

const clock = new TestClock();
let t: TestApp;
const extraServers: RunningServer[] = [];

/**
 * One more /v1 surface over the same context and database, with other settings. buildHttpApps is
 * what `svc api` runs; only the settings differ.
 */
async function surface(overrides: Partial<Config>): Promise<Client> {
  const { platform } = buildHttpApps({ ...t.app, config: { ...t.config, ...overrides } }, { validateResponses: true });
  const server = await listen(platform, 0, '127.0.0.1');
  extraServers.push(server);
  return client(server.url);
}

const surfaces: Record<'memory' | 'postgres', { direct: Client; proxied: Client }> = {} as never;

test.before(async () => {
  t = await startTestApp({ clock });
  surfaces.memory = { direct: t.platform, proxied: await surface({ TRUST_PROXY: true }) };
  surfaces.postgres = {
    direct: await surface({ RATE_LIMIT_STORE: 'postgres' }),
    proxied: await surface({ RATE_LIMIT_STORE: 'postgres', TRUST_PROXY: true }),
  };
});

const children: ChildProcess[] = [];
let childDb: TestDatabase | undefined;

test.after(async () => {
  await Promise.all(children.map(stopChild));
  await childDb?.drop();
  for (const server of extraServers) await server.close(1000);
  await t.close();
});

/** Moves the clock to the start of a fixed window at least two windows later: every budget is fresh. */
function freshWindow(): number {
  const now = clock.now().getTime();
  const start = now - (now % WINDOW_MS) + 3 * WINDOW_MS;
  clock.set(new Date(start));
  return start;
}

/** `n` requests, ~50 at a time. */
async function burst(n: number, send: (i: number) => Promise<HttpResponse>): Promise<HttpResponse[]> {
  const out: HttpResponse[] = [];
  for (let i = 0; i < n; i += 50) {
    out.push(...(await Promise.all(Array.from({ length: Math.min(50, n - i) }, (_, j) => send(i + j)))));
  }
  return out;
}

const remaining = (res: HttpResponse) => Number(res.headers.get('x-ratelimit-remaining'));
const sortedRemaining = (responses: HttpResponse[]) => responses.map(remaining).sort((a, b) => b - a);
const countdown = (from: number) => Array.from({ length: from + 1 }, (_, i) => from - i);

/** The sliding-window estimate of the file comment (both stores document the same formula). */
const estimate = (previous: number, current: number, elapsedMs: number) => previous * (1 - elapsedMs / WINDOW_MS) + current;

function assertLimited(res: HttpResponse, retryAfterSeconds?: number) {
  assert.is(res.status, 429, res.text);
  assert.match(res.headers.get('content-type') ?? '', /^application\/json/);
  assert.equal(Object.keys(res.body), ['error']);
  assert.equal(Object.keys(res.body.error).sort(), ['code', 'message']);
  assert.is(res.body.error.code, 'rate_limited');
  assert.type(res.body.error.message, 'string');
  assert.ok(res.body.error.message.length > 0);
  assert.is(res.headers.get('x-ratelimit-limit'), '600');
  assert.is(res.headers.get('x-ratelimit-remaining'), '0');
  const retryAfter = res.headers.get('retry-after') ?? '';
  assert.match(retryAfter, /^[1-9][0-9]*$/, `Retry-After must be whole seconds >= 1, got ${retryAfter}`);
  if (retryAfterSeconds !== undefined) assert.is(Number(retryAfter), retryAfterSeconds);
}

for (const store of ['memory', 'postgres'] as const) {
  test(`[${store}] X-RateLimit-Limit and X-RateLimit-Remaining are on every response, errors included`, async () => {
    freshWindow();
    const api = surfaces[store].direct;
    const responses = [
      await api.get('/v1/does-not-exist'),
      await api.get('/v1/jobs'),
      await api.get('/v1/jobs', { token: 'garbage' }),
      await api.request('POST', '/v1/auth/exchange', { raw: '{', headers: { 'content-type': 'application/json' } }),
      await api.post('/v1/ingest/anything', {}),
      await api.get('/openapi.json'),
    ];
    assert.equal(
      responses.map((r) => r.status),
      [404, 401, 401, 400, 400, 200],
    );
    responses.forEach((res, i) => {
      assert.is(res.headers.get('x-ratelimit-limit'), '600');
      assert.is(res.headers.get('x-ratelimit-remaining'), String(LIMIT - 1 - i));
    });
  });

  test(`[${store}] the 601st request in a window is 429 with Retry-After; the window slides; a full window later the budget is whole`, async () => {
    const W = freshWindow();
    const api = surfaces[store].direct;
    const spent = await burst(LIMIT, () => api.get('/v1/nope'));
    assert.ok(
      spent.every((r) => r.status === 404),
      'all 600 requests are served',
    );
    // Each allowed request saw the budget one smaller: 599, 598, ..., 0, each exactly once.
    assert.equal(sortedRemaining(spent), countdown(LIMIT - 1));

    // 600 hits at the start of window W: the estimate first drops to 599 at W + 60 s + 100 ms
    // (600 * (1 - 0.1 / 60) = 599), so Retry-After is ceil(60.1) = 61 seconds.
    const limited = await api.get('/v1/jobs', { headers: { 'x-request-id': 'limited-1' } });
    assertLimited(limited, 61);
    assert.not.ok(limited.text.includes('limited-1'), 'no trace_id on 429');
    // Every path is limited (before authentication and routing); denied requests spend nothing.
    assertLimited(await api.post('/v1/auth/exchange', { subject_token: 'demo' }), 61);
    assertLimited(await api.get('/openapi.json'), 61);

    clock.set(new Date(W + WINDOW_MS)); // 60 s later, short of Retry-After: the old window still weighs 600
    assertLimited(await api.get('/v1/nope'), 1);

    // Half a window after the full window: previous 600 weighs 0.5, so 300 requests are free.
    clock.set(new Date(W + WINDOW_MS + WINDOW_MS / 2));
    const free = LIMIT - estimate(LIMIT, 0, WINDOW_MS / 2);
    assert.is(free, 300);
    const half = await burst(free, () => api.get('/v1/nope'));
    assert.ok(
      half.every((r) => r.status === 404),
      'the free half of the budget is served',
    );
    assert.equal(sortedRemaining(half), countdown(free - 1));
    // Now 600 * 0.5 + 300 = 600; it is 599 once the old window's weight drops by 1/600 (100 ms):
    // Retry-After rounds that up to 1 second, and after it the client is served.
    assertLimited(await api.get('/v1/nope'), 1);
    clock.advance(1_000);
    const later = await api.get('/v1/nope');
    assert.is(later.status, 404);
    assert.is(remaining(later), Math.floor(LIMIT - estimate(LIMIT, free, WINDOW_MS / 2 + 1_000) - 1)); // 9
    assert.is(remaining(later), 9);

    clock.set(new Date(W + 3 * WINDOW_MS)); // nothing of windows W and W+1 counts any more
    const fresh = await api.get('/v1/nope');
    assert.is(fresh.status, 404);
    assert.is(remaining(fresh), LIMIT - 1);
  });

  test(`[${store}] TRUST_PROXY set: the first X-Forwarded-For value is the client, each with its own budget`, async () => {
    freshWindow();
    const api = surfaces[store].proxied;
    const from = async (forwardedFor: string) => remaining(await api.get('/v1/nope', { headers: { 'x-forwarded-for': forwardedFor } }));
    assert.is(await from('203.0.113.7'), 599);
    assert.is(await from('203.0.113.7'), 598);
    assert.is(await from('198.51.100.9'), 599);
    assert.is(await from('203.0.113.7, 10.0.0.1'), 597);
    assert.is(await from('192.0.2.1, 203.0.113.7'), 599);
    assert.is(await from('198.51.100.9'), 598);
  });

  test(`[${store}] TRUST_PROXY unset: X-Forwarded-For is ignored, the socket address is the client`, async () => {
    freshWindow();
    const api = surfaces[store].direct;
    for (let i = 0; i < 5; i++) {
      const res = await api.get('/v1/nope', { headers: { 'x-forwarded-for': `10.0.0.${i + 1}` } });
      assert.is(remaining(res), LIMIT - 1 - i);
    }
  });
}

test('TRUST_PROXY set: one forwarded client spending its budget leaves another untouched', async () => {
  freshWindow();
  const api = surfaces.postgres.proxied;
  const spent = await burst(LIMIT, () => api.get('/v1/nope', { headers: { 'x-forwarded-for': '203.0.113.7' } }));
  assert.ok(spent.every((r) => r.status === 404));
  assert.equal(sortedRemaining(spent), countdown(LIMIT - 1));
  assertLimited(await api.get('/v1/nope', { headers: { 'x-forwarded-for': '203.0.113.7' } }));
  assertLimited(await api.get('/v1/nope', { headers: { 'x-forwarded-for': '203.0.113.7, 10.0.0.1' } }));
  const other = await api.get('/v1/nope', { headers: { 'x-forwarded-for': '198.51.100.9' } });
  assert.is(other.status, 404);
  assert.is(remaining(other), LIMIT - 1);
});

test('TRUST_PROXY unset: rotating X-Forwarded-For values does not escape the limit', async () => {
  freshWindow();
  const api = surfaces.memory.direct;
  const spent = await burst(LIMIT, (i) => api.get('/v1/nope', { headers: { 'x-forwarded-for': `10.${i >> 8}.${i & 255}.1` } }));
  assert.ok(spent.every((r) => r.status === 404));
  assert.equal(sortedRemaining(spent), countdown(LIMIT - 1));
  assertLimited(await api.get('/v1/nope', { headers: { 'x-forwarded-for': '198.51.100.200' } }));
});

// --- slidingWindowTake and rate_limit_take agree -----------------------------------------------------

/** Deterministic pseudo-random numbers in [0, 1) (a 32-bit LCG), so a failure is reproducible. */
function lcg(seed: number) {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

/**
 * Times of a client that alternates bursts (a few hundred percent of the limit per window, so it is
 * refused and recovers) with pauses: within a window, exactly to a window boundary, one to two
 * windows, and more than two windows (all state forgotten).
 */
function timeline(seed: number, steps: number, limit: number, windowMs: number, start: number): number[] {
  const random = lcg(seed);
  const times: number[] = [];
  let now = start;
  while (times.length < steps) {
    const burstLength = Math.ceil(limit * (0.3 + random() * 1.7));
    const meanGap = windowMs / (limit * (1 + random() * 4));
    for (let i = 0; i < burstLength && times.length < steps; i++) {
      now += Math.floor(random() * 2 * meanGap);
      times.push(now);
    }
    const pause = random();
    if (pause < 0.35) now += Math.floor(random() * windowMs * 0.5);
    else if (pause < 0.6)
      now += windowMs - (now % windowMs); // exactly on a boundary
    else if (pause < 0.85) now += windowMs + Math.floor(random() * windowMs);
    else now += 2 * windowMs + Math.floor(random() * windowMs);
  }
  return times;
}

test('slidingWindowTake and the SQL rate_limit_take agree on every step of the same sequence', async () => {
  const scenarios = [
    { limit: 5, windowMs: 1_000, seed: 1, steps: 400 },
    { limit: 7, windowMs: 997, seed: 42, steps: 400 },
    { limit: 600, windowMs: 60_000, seed: 3, steps: 2_400 },
  ];
  for (const { limit, windowMs, seed, steps } of scenarios) {
    const key = `test:agree:${seed}`;
    let state: WindowState | undefined;
    const seen = { allowed: 0, allowedSliding: 0, deniedDecaying: 0, deniedUntilNextWindow: 0 };
    const times = timeline(seed, steps, limit, windowMs, 1_750_000_000_123);
    for (const [step, now] of times.entries()) {
      const js = slidingWindowTake(state, limit, windowMs, now);
      state = js.state;
      // Which part of the algorithm this step exercised (each must occur below).
      if (js.result.allowed) {
        seen.allowed++;
        if (js.state.previous > 0) seen.allowedSliding++;
      } else if (js.state.previous > 0 && js.state.current <= limit - 1) seen.deniedDecaying++;
      else seen.deniedUntilNextWindow++;
      const { rows } = await t.app.pool.query('select * from rate_limit_take($1, $2, $3, $4)', [key, limit, windowMs, now]);
      const sql = { allowed: rows[0].allowed, remaining: rows[0].remaining, retryAfterMs: Number(rows[0].retry_after_ms) };
      assert.equal(sql, js.result, `limit ${limit}, window ${windowMs}, step ${step} at ${now}`);
      const stored = await t.app.pool.query('select window_start_ms, current_hits, previous_hits from rate_limit_counters where key = $1', [key]);
      assert.equal(
        { windowStart: Number(stored.rows[0].window_start_ms), current: stored.rows[0].current_hits, previous: stored.rows[0].previous_hits },
        js.state,
        `state after step ${step}`,
      );
    }
    // Allowed with and without a weighted previous window, denied with either Retry-After formula.
    for (const [what, n] of Object.entries(seen)) assert.ok(n > 0, `limit ${limit}: no step was ${what} (${JSON.stringify(seen)})`);
  }
});

test('slidingWindowTake: the spec scenario, step by step', () => {
  const W = 1_800_000_000_000 - (1_800_000_000_000 % WINDOW_MS);
  let state: WindowState | undefined;
  for (let i = 0; i < LIMIT; i++) {
    const step = slidingWindowTake(state, LIMIT, WINDOW_MS, W + i);
    assert.ok(step.result.allowed);
    state = step.state;
  }
  const denied = slidingWindowTake(state, LIMIT, WINDOW_MS, W + 600);
  assert.equal(denied.result, { allowed: false, remaining: 0, retryAfterMs: WINDOW_MS - 600 + 100 });
  assert.equal(denied.state, state, 'a denied request does not count');
  // Retry-After is exact: 1 ms earlier still denied, at that moment allowed.
  const at = W + 600 + denied.result.retryAfterMs;
  assert.not.ok(slidingWindowTake(state, LIMIT, WINDOW_MS, at - 1).result.allowed);
  assert.ok(slidingWindowTake(state, LIMIT, WINDOW_MS, at).result.allowed);
  const half = slidingWindowTake(state, LIMIT, WINDOW_MS, W + WINDOW_MS + WINDOW_MS / 2);
  assert.equal(half.result, { allowed: true, remaining: 299, retryAfterMs: 0 });
  assert.equal(slidingWindowTake(state, LIMIT, WINDOW_MS, W + 2 * WINDOW_MS).result, { allowed: true, remaining: 599, retryAfterMs: 0 });
});

// --- the postgres store is shared by processes ------------------------------------------------------

interface Child {
  process: ChildProcess;
  platform: Client;
}

function startChild(databaseUrl: string): Promise<Child> {
  const env = svcEnv({
    DATABASE_URL: databaseUrl,
    RATE_LIMIT_STORE: 'postgres',
    PLATFORM_PORT: '0',
    PRODUCT_PORT: '0',
    METRICS_PORT: '0',
    LOG_LEVEL: 'info',
    NODE_ENV: 'test',
  });
  const child = spawnSvc(['api'], env);
  children.push(child);
  return new Promise((resolve, reject) => {
    let output = '';
    let buffered = '';
    const timer = setTimeout(() => reject(new Error(`svc api did not report 'listening' within 30 s:\n${output}`)), 30_000);
    child.stderr!.on('data', (d) => (output += d));
    child.stdout!.on('data', (d) => {
      output += d;
      buffered += d;
      let newline: number;
      while ((newline = buffered.indexOf('\n')) >= 0) {
        const line = buffered.slice(0, newline);
        buffered = buffered.slice(newline + 1);
        let entry: { msg?: string; platform?: string };
        try {
          entry = JSON.parse(line);
        } catch {
          continue;
        }
        if (entry.msg === 'listening' && entry.platform) {
          clearTimeout(timer);
          resolve({ process: child, platform: client(entry.platform) });
        }
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`svc api exited with ${code}:\n${output}`));
    });
  });
}

function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const kill = setTimeout(() => child.kill('SIGKILL'), 10_000);
    child.once('exit', () => {
      clearTimeout(kill);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

test('RATE_LIMIT_STORE=postgres: two `svc api` processes share one budget per client', async () => {
  childDb = await createTestDatabase();
  const [a, b] = await Promise.all([startChild(childDb.url), startChild(childDb.url)]);
  assert.is.not(a.platform.base, b.platform.base);

  // These processes use the real clock: start the burst well inside one fixed window so that the
  // whole budget is counted in it (the burst itself takes a second or two).
  const left = WINDOW_MS - (Date.now() % WINDOW_MS);
  if (left < 10_000) await new Promise((r) => setTimeout(r, left + 50));
  const windowIndex = Math.floor(Date.now() / WINDOW_MS);

  const [onA, onB] = await Promise.all([burst(400, () => a.platform.get('/v1/nope')), burst(200, () => b.platform.get('/v1/nope'))]);
  const [nextOnA, nextOnB] = [await a.platform.get('/v1/nope'), await b.platform.get('/v1/nope')];
  assert.is(Math.floor(Date.now() / WINDOW_MS), windowIndex, 'the requests took over 10 s and crossed a window boundary (overloaded machine)');

  assert.ok(
    [...onA, ...onB].every((r) => r.status === 404),
    'the 600 requests spread over both processes are served',
  );
  // One counter: the two processes together handed out 599, 598, ..., 0, each exactly once.
  assert.equal(sortedRemaining([...onA, ...onB]), countdown(LIMIT - 1));
  assertLimited(nextOnA);
  assertLimited(nextOnB);
});

test.run();
