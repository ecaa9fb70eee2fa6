// Entry of every worker thread (lib/workerThread.ts): registers the TypeScript loader, as
// scripts/svc.js does for the main thread, then runs the module named in workerData.
import { register } from 'tsx/esm/api';
import { workerData } from 'node:worker_threads';

register();
await import(workerData.module);
