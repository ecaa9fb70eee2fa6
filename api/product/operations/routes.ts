/** GET /metrics on the product surface: the Prometheus exposition, for signed-in staff only. */
import { metricsHandler } from '../../http/metricsServer.ts';
import { productRoute } from '../route.ts';

export const operationsRoutes = [
  productRoute({
    method: 'get',
    path: '/metrics',
    operationId: 'metrics',
    summary: 'Prometheus metrics of this process (staff session required)',
    description: 'The unauthenticated scrape endpoint for Prometheus stays on METRICS_HOST:METRICS_PORT.',
    tags: ['observability'],
    auth: 'staff',
    responses: {
      200: { description: 'Prometheus text exposition', contentType: 'text/plain; version=0.0.4' },
      401: { description: 'No employee session.' },
    },
    handler: async ({ res }) => {
      const { contentType, body } = await metricsHandler();
      res.status(200).type(contentType).send(body);
    },
  }),
];
