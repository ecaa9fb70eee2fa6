import { createHmac } from 'node:crypto';
import net from 'node:net';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Webhook } from 'standardwebhooks';
import { loadConfig } from '../../lib/config.ts';
import {
  checkOutboundUrl,
  outboundPolicy,
  outboundPolicyFromConfig,
  OutboundRefusedError,
  postOutbound,
  postSigned,
  retryDelayMs,
  RETRY_DELAYS_MS,
} from '../../lib/outbound/index.ts';
import { startReceiver, type Receiver, type Reply } from '../helpers/receiver.ts';

let receiver: Receiver;
test.before(async () => {
  receiver = await startReceiver();
});
test.after(async () => receiver.close());

const dev = outboundPolicy({ allowLoopback: true });
const prod = outboundPolicy({ allowLoopback: false });
const secret = 'whsec_' + Buffer.from('0123456789abcdef0123456789abcdef').toString('base64');

async function refused(policy: ReturnType<typeof outboundPolicy>, url: string): Promise<string> {
  try {
    await checkOutboundUrl(policy, url);
  } catch (err) {
    assert.instance(err, OutboundRefusedError);
    return (err as Error).message;
  }
  throw new Error(`${url} was not refused`);
}

test('the guard refuses private, link-local, metadata and non-http targets, resolving names', async () => {
  for (const url of [
    'http://10.1.2.3/hook',
    'http://192.168.0.10/',
    'http://172.20.1.1/',
    'http://169.254.169.254/latest/meta-data/',
    'http://100.64.0.1/',
    'http://0.0.0.0:8080/',
    'http://[fe80::1]/',
    'http://[fd00:ec2::254]/',
    'http://[::ffff:10.0.0.1]/',
    // Issue 26: IPv4-compatible, IPv4-translated and 6to4 addresses carry an IPv4 address too.
    'http://[::10.0.0.1]/',
    'http://[::a9fe:a9fe]/',
    'http://[::ffff:0:a9fe:a9fe]/',
    'http://[2002:a9fe:a9fe::1]/',
    'http://[2002:7f00:1::]/',
  ]) {
    assert.match(await refused(dev, url), /private, link-local or reserved/, url);
  }
  assert.match(await refused(dev, 'ftp://example.com/x'), /http or https/);
  assert.match(await refused(dev, 'not a url'), /absolute http or https URL/);
  assert.match(await refused(dev, 'http://user:pw@example.com/'), /credentials/);
  // Loopback: allowed in development, refused in production, also behind a name that resolves to it.
  assert.is((await checkOutboundUrl(dev, 'http://127.0.0.1:9/x')).hostname, '127.0.0.1');
  assert.match(await refused(prod, 'http://127.0.0.1:9/x'), /loopback/);
  assert.match(await refused(prod, 'http://[::1]:9/x'), /loopback/);
  assert.match(await refused(prod, 'http://localhost:9/x'), /localhost resolves to .*loopback/);
  // A public address passes.
  assert.is((await checkOutboundUrl(prod, 'https://93.184.216.34/hook')).protocol, 'https:');
});

test('OUTBOUND_ALLOWLIST admits named hosts and CIDRs; a malformed entry stops start-up', async () => {
  const policy = outboundPolicyFromConfig(loadConfig({ NODE_ENV: 'development', OUTBOUND_ALLOWLIST: '10.1.0.0/16, internal.example , fd00::/8' }));
  await checkOutboundUrl(policy, 'http://10.1.200.7/');
  await checkOutboundUrl(policy, 'http://[fd00::5]/');
  assert.match(await refused(policy, 'http://10.2.0.1/'), /private/);
  const prodPolicy = outboundPolicy({ allowLoopback: false, allowlist: ['localhost'] });
  await checkOutboundUrl(prodPolicy, 'http://localhost:9/');
  assert.throws(() => loadConfig({ OUTBOUND_ALLOWLIST: '10.0.0.0/40' }), /OUTBOUND_ALLOWLIST/);
});

test('postSigned sends the four headers: an independent HMAC and the standardwebhooks package verify them', async () => {
  const body = JSON.stringify({ id: 'evt_1', type: 'issue.ingested', data: { n: 1 } });
  const result = await postSigned(dev, { url: `${receiver.url}/hook?x=1`, body, secret, messageId: 'msg_1' });
  assert.ok(result.ok, result.error ?? '');
  assert.is(result.statusCode, 200);
  const got = receiver.received.at(-1)!;
  assert.is(got.path, '/hook?x=1');
  assert.is(got.raw.toString(), body);
  assert.is(got.headers['content-type'], 'application/json');
  assert.is(got.headers['x-svc-signature'], createHmac('sha256', secret).update(got.raw).digest('hex'));
  assert.is(got.headers['webhook-id'], 'msg_1');
  const verified = new Webhook(secret).verify(got.raw.toString(), got.headers as Record<string, string>);
  assert.equal(verified, JSON.parse(body));
  assert.throws(() =>
    new Webhook('whsec_' + Buffer.from('another secret, another key!!!!!').toString('base64')).verify(
      got.raw.toString(),
      got.headers as Record<string, string>,
    ),
  );
});

test('connect-time guard: a refused target is never contacted, in production loopback is refused', async () => {
  const before = receiver.received.length;
  const result = await postOutbound(prod, { url: `${receiver.url}/x`, body: '{}' });
  assert.is(result.ok, false);
  assert.is(result.refused, true);
  assert.is(result.statusCode, null);
  assert.match(result.error!, /^refused: .*loopback/);
  const named = await postOutbound(prod, { url: `${receiver.url.replace('127.0.0.1', 'localhost')}/x`, body: '{}' });
  assert.is(named.refused, true, named.error ?? '');
  assert.is(receiver.received.length, before);
});

test('non-2xx, redirects (not followed), Retry-After, response timeout and connect failure are results', async () => {
  receiver.respond = (req): Reply => {
    if (req.path === '/busy') return { status: 503, headers: { 'retry-after': '7' } };
    if (req.path === '/moved') return { status: 302, headers: { location: 'http://169.254.169.254/' } };
    if (req.path === '/slow') return { status: 200, delayMs: 1_000 };
    return { status: 200 };
  };
  const busy = await postOutbound(dev, { url: `${receiver.url}/busy`, body: '{}' });
  assert.equal([busy.ok, busy.statusCode, busy.retryAfterMs, busy.error], [false, 503, 7000, 'HTTP 503']);
  const moved = await postOutbound(dev, { url: `${receiver.url}/moved`, body: '{}' });
  assert.equal([moved.ok, moved.statusCode], [false, 302]);
  const slow = await postOutbound(dev, { url: `${receiver.url}/slow`, body: '{}', responseTimeoutMs: 150 });
  assert.is(slow.ok, false);
  assert.is(slow.statusCode, null);
  assert.match(slow.error!, /^timeout: no complete response within 150 ms/);
  // A port nobody listens on.
  const closed = net.createServer();
  await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
  const port = (closed.address() as net.AddressInfo).port;
  await new Promise((r) => closed.close(r));
  const nobody = await postOutbound(dev, { url: `http://127.0.0.1:${port}/`, body: '{}' });
  assert.is(nobody.ok, false);
  assert.match(nobody.error!, /ECONNREFUSED/);
  receiver.respond = () => ({ status: 200 });
});

test('the retry schedule: 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h with ±20% jitter, scalable', () => {
  assert.equal(
    RETRY_DELAYS_MS.map((d) => d / 1000),
    [5, 300, 1800, 7200, 18000, 36000, 36000],
  );
  assert.is(retryDelayMs(1, 1, 0.5), 5000);
  assert.is(retryDelayMs(1, 1, 0), 4000);
  assert.is(retryDelayMs(2, 1, 0.999999), 360000);
  assert.is(retryDelayMs(7, 1, 0.5), 36_000_000);
  assert.is(retryDelayMs(8, 1, 0.5), null);
  assert.is(retryDelayMs(2, 0.001, 0.5), 300);
});

test.run();
