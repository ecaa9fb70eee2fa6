/**
 * The console server: `/api/backend/*` goes to the proxy, `/assets/*` are the bundled files, and every
 * other GET answers the app's one HTML page (its router renders the page for the URL, including the
 * links the product mails: `/accept-invite`, `/reset-password`, `/admin/reset-password`). Security
 * headers go on every response.
 */
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import type { ConsoleAssets } from './assets.ts';
import { createBackendProxy, type ProxyOptions } from './proxy.ts';
import { securityHeaders } from './securityHeaders.ts';
import { serveWorkspaceList, WORKSPACE_LIST_PATH } from './workspaceList.ts';

const PROXY_PREFIX = '/api/backend';

export interface ConsoleApp {
  handler: RequestListener;
  close(): Promise<void>;
}

function plain(res: ServerResponse, status: number, text: string) {
  res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

export function createConsoleApp(assets: ConsoleAssets, proxyOptions: ProxyOptions): ConsoleApp {
  const proxy = createBackendProxy(proxyOptions);
  const html = Buffer.from(assets.html);

  const handler = (req: IncomingMessage, res: ServerResponse) => {
    const url = req.url ?? '/';
    // The proxy writes its answer's headers in one writeHead, the security headers among them.
    if (url.startsWith(`${PROXY_PREFIX}/`)) return proxy.handle(req, res, url.slice(PROXY_PREFIX.length));
    for (const [name, value] of securityHeaders) res.setHeader(name, value);
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.setHeader('allow', 'GET, HEAD');
      return plain(res, 405, 'Method Not Allowed');
    }
    const pathname = url.split('?')[0];
    if (pathname.startsWith('/assets/')) {
      const asset = assets.files.get(pathname.slice('/assets/'.length));
      if (!asset) return plain(res, 404, 'Not Found');
      res.writeHead(200, { 'content-type': asset.contentType, 'content-length': asset.body.length, 'cache-control': 'public, max-age=31536000, immutable' });
      res.end(req.method === 'HEAD' ? undefined : asset.body);
      return;
    }
    if (pathname === PROXY_PREFIX) return plain(res, 404, 'Not Found');
    if (pathname === WORKSPACE_LIST_PATH) return void serveWorkspaceList(res, proxyOptions);
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'content-length': html.length, 'cache-control': 'no-cache' });
    res.end(req.method === 'HEAD' ? undefined : html);
  };
  return { handler, close: proxy.close };
}
