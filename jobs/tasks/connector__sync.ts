/** Syncs an `http_pull` connector page by page (usecases/syncConnector.ts). */
import { syncConnector } from '../../usecases/syncConnector.ts';
import { connectorSync } from '../queue/connector__sync.ts';
import { defineTask } from '../runtime.ts';

export const connectorSyncTask = defineTask({
  ...connectorSync,
  run: (payload, job) => syncConnector(job, payload),
});
