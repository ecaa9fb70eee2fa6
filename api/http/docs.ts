/**
 * Interactive API documentation served from npm packages (no CDN): Swagger UI at /docs and, on the
 * product surface, ReDoc at /redoc. Both read the surface's own /openapi.json.
 */
import { createRequire } from 'node:module';
import path from 'node:path';
import express, { type Router } from 'express';

const require = createRequire(import.meta.url);
const swaggerDir = path.dirname(require.resolve('swagger-ui-dist/package.json'));
const redocBundle = require.resolve('redoc/bundles/redoc.standalone.js');

const page = (title: string, head: string, body: string) =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">` +
  `<title>${title}</title>${head}</head><body>${body}</body></html>`;

export function docsRouter(options: { title: string; redoc: boolean }): Router {
  const router = express.Router();
  router.use('/docs/assets', express.static(swaggerDir, { index: false, maxAge: '1h' }));
  // A person opening the port in a browser (or curl) lands on the explorer, told where it is.
  router.get('/', (_req, res) => {
    res
      .status(302)
      .location('/docs')
      .json({ message: `${options.title}: the API explorer is at /docs and the description at /openapi.json`, docs: '/docs', openapi: '/openapi.json' });
  });
  router.get('/docs', (_req, res) => {
    res
      .type('html')
      .send(
        page(
          `${options.title}: API explorer`,
          `<link rel="stylesheet" href="/docs/assets/swagger-ui.css">`,
          `<div id="swagger-ui"></div><script src="/docs/assets/swagger-ui-bundle.js"></script>` +
            `<script>window.ui = SwaggerUIBundle({ url: '/openapi.json', dom_id: '#swagger-ui', deepLinking: true });</script>`,
        ),
      );
  });
  if (options.redoc) {
    router.get('/redoc/redoc.standalone.js', (_req, res) => res.sendFile(redocBundle, { maxAge: '1h' }));
    router.get('/redoc', (_req, res) => {
      res
        .type('html')
        .send(page(`${options.title}: API reference`, '', `<redoc spec-url="/openapi.json"></redoc><script src="/redoc/redoc.standalone.js"></script>`));
    });
  }
  return router;
}
