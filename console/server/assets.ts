/**
 * The browser app, bundled at start-up with esbuild (already in the tree) into memory: one script and
 * one stylesheet, named by their content hash so they can be cached for good, and the one HTML page
 * every console URL answers (the app's router picks the page). Nothing is fetched from elsewhere.
 */
import { createHash } from 'node:crypto';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const webRoot = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'web');

export interface Asset {
  body: Buffer;
  contentType: string;
}

export interface ConsoleAssets {
  /** `/assets/<name>` → file. */
  files: Map<string, Asset>;
  html: string;
}

const hashed = (name: string, ext: string, body: Buffer) => `${name}-${createHash('sha256').update(body).digest('hex').slice(0, 12)}.${ext}`;

export async function buildAssets(options: { minify?: boolean } = {}): Promise<ConsoleAssets> {
  const result = await build({
    entryPoints: { app: path.join(webRoot, 'main.tsx') },
    bundle: true,
    write: false,
    outdir: '/assets',
    format: 'esm',
    target: 'es2022',
    jsx: 'automatic',
    jsxImportSource: 'preact',
    minify: options.minify ?? true,
    sourcemap: false,
    legalComments: 'none',
    logLevel: 'silent',
    loader: { '.css': 'css' },
  });
  const files = new Map<string, Asset>();
  let script = '';
  let stylesheet = '';
  for (const out of result.outputFiles) {
    const body = Buffer.from(out.contents);
    if (out.path.endsWith('.js')) {
      script = hashed('app', 'js', body);
      files.set(script, { body, contentType: 'text/javascript; charset=utf-8' });
    } else if (out.path.endsWith('.css')) {
      stylesheet = hashed('app', 'css', body);
      files.set(stylesheet, { body, contentType: 'text/css; charset=utf-8' });
    }
  }
  if (!script || !stylesheet) throw new Error('console build produced no script or stylesheet');
  const html = [
    '<!doctype html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    '<meta name="color-scheme" content="light dark">',
    '<title>svc console</title>',
    `<link rel="stylesheet" href="/assets/${stylesheet}">`,
    `<script type="module" src="/assets/${script}"></script>`,
    '</head>',
    '<body><div id="app"></div><noscript>The svc console needs JavaScript.</noscript></body>',
    '</html>',
  ].join('\n');
  return { files, html };
}
