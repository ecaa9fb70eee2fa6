/**
 * `GET /workspaces.json`: the live workspaces for the tenant sign-in's picker. The product API's
 * `GET /workspaces` needs no credential, but the proxy answers 401 to anyone without a session
 * cookie except on the spec's ten public paths, and `/workspaces` is not one of them (product-api.md,
 * "Console proxy rules"). So the console reads this one list itself, server to server, without
 * forwarding any cookie or header of the caller, and answers it as is (502 when the API is down).
 */
import type { ServerResponse } from 'node:http';

export const WORKSPACE_LIST_PATH = '/workspaces.json';

function json(res: ServerResponse, status: number, body: string) {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body), 'cache-control': 'no-store' });
  res.end(body);
}

export async function serveWorkspaceList(res: ServerResponse, options: { productUrl: string; timeoutMs: number }): Promise<void> {
  try {
    const answer = await fetch(`${options.productUrl}/workspaces`, { signal: AbortSignal.timeout(options.timeoutMs), headers: { accept: 'application/json' } });
    const body = await answer.text();
    if (answer.status !== 200) return json(res, 502, JSON.stringify({ detail: 'backend unavailable' }));
    json(res, 200, body);
  } catch {
    json(res, 502, JSON.stringify({ detail: 'backend unavailable' }));
  }
}
