/**
 * The product API believes `x-svc-client-ip` only with the console's secret (api/http/requestContext.ts).
 * Since session 13 a connection that has shown the secret is remembered, so the proxy's keep-alive
 * connections are not hashed on every request; what a user relies on must not move: a connection
 * that never showed the secret is never believed, whatever it sent before or on another connection,
 * and a remembered connection that sends anything else is not believed either.
 */
import { Socket } from 'node:net';
import type { Request } from 'express';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { consoleClientIp } from '../../../api/http/requestContext.ts';

const secret = 'console-secret-for-the-test-0123456789abcdef';
const fromConsole = consoleClientIp(secret);
const request = (socket: Socket, headers: Record<string, string>) => ({ socket, headers }) as unknown as Request;

test('the address is believed with the secret, on the first request of a connection and the later ones', () => {
  const proxyConnection = new Socket();
  for (let i = 1; i <= 3; i++) {
    assert.is(fromConsole(request(proxyConnection, { 'x-svc-console-secret': secret, 'x-svc-client-ip': `203.0.113.${i}` })), `203.0.113.${i}`);
  }
});

test('a connection that never showed the secret is not believed, even while another connection is remembered', () => {
  const proxyConnection = new Socket();
  assert.is(fromConsole(request(proxyConnection, { 'x-svc-console-secret': secret, 'x-svc-client-ip': '203.0.113.9' })), '203.0.113.9');
  const other = new Socket();
  const guess = { 'x-svc-console-secret': 'guess'.repeat(10) };
  for (const forged of [{}, guess, guess, { 'x-svc-console-secret': `${secret}x` }, { 'x-svc-console-secret': '' }]) {
    assert.is(fromConsole(request(other, { ...forged, 'x-svc-client-ip': '192.0.2.1' })), undefined, JSON.stringify(forged));
  }
});

test('a remembered connection is not believed without the secret or with another value', () => {
  const connection = new Socket();
  assert.is(fromConsole(request(connection, { 'x-svc-console-secret': secret, 'x-svc-client-ip': '203.0.113.20' })), '203.0.113.20');
  assert.is(fromConsole(request(connection, { 'x-svc-client-ip': '192.0.2.2' })), undefined);
  assert.is(fromConsole(request(connection, { 'x-svc-console-secret': 'guess'.repeat(10), 'x-svc-client-ip': '192.0.2.3' })), undefined);
  // A malformed address is never believed, secret or not.
  assert.is(fromConsole(request(connection, { 'x-svc-console-secret': secret, 'x-svc-client-ip': 'not-an-ip' })), undefined);
  assert.is(fromConsole(request(connection, { 'x-svc-console-secret': secret, 'x-svc-client-ip': '203.0.113.21' })), '203.0.113.21');
});

test('a connection that guessed wrong first is believed once it shows the secret', () => {
  const connection = new Socket();
  assert.is(fromConsole(request(connection, { 'x-svc-console-secret': 'guess'.repeat(10), 'x-svc-client-ip': '192.0.2.4' })), undefined);
  assert.is(fromConsole(request(connection, { 'x-svc-console-secret': secret, 'x-svc-client-ip': '203.0.113.30' })), '203.0.113.30');
});

test('without a configured secret nothing is believed', () => {
  assert.is(consoleClientIp(undefined)(request(new Socket(), { 'x-svc-console-secret': secret, 'x-svc-client-ip': '203.0.113.40' })), undefined);
});

test.run();
