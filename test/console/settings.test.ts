/** The console's settings: defaults derived from the ports, and APP_URL opening console pages. */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { loadConfig } from '../../lib/config.ts';

test('CONSOLE_PORT defaults to 8082, PRODUCT_URL to the local product port, APP_URL to the console', () => {
  const defaults = loadConfig({});
  assert.is(defaults.CONSOLE_PORT, 8082);
  assert.is(defaults.PRODUCT_URL, 'http://127.0.0.1:8081');
  assert.is(defaults.APP_URL, 'http://127.0.0.1:8082');
  assert.is(defaults.CONSOLE_PROXY_SECRET, undefined);
  const moved = loadConfig({ PRODUCT_PORT: '9001', CONSOLE_PORT: '9002' });
  assert.is(moved.PRODUCT_URL, 'http://127.0.0.1:9001');
  assert.is(moved.APP_URL, 'http://127.0.0.1:9002');
  const set = loadConfig({ PRODUCT_URL: 'http://api.internal:8081/', APP_URL: 'https://console.example.com/' });
  assert.is(set.PRODUCT_URL, 'http://api.internal:8081');
  assert.is(set.APP_URL, 'https://console.example.com');
});

test('bad console settings name the variable', () => {
  assert.throws(() => loadConfig({ CONSOLE_PORT: 'x' }), /CONSOLE_PORT/);
  assert.throws(() => loadConfig({ PRODUCT_URL: 'not a url' }), /PRODUCT_URL/);
  assert.throws(() => loadConfig({ CONSOLE_PROXY_SECRET: 'short' }), /CONSOLE_PROXY_SECRET: must be at least 32 characters/);
});

test.run();
