// Entry of an engine worker thread (jobs/engineThread.ts): registers the TypeScript loader in this
// thread, as scripts/svc.js does for the process, and runs the thread's module.
import { register } from 'tsx/esm/api';
import { workerData } from 'node:worker_threads';

register();
await import(workerData.module);
