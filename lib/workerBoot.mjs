// Entry of every worker thread (lib/workerThread.ts, lib/engineThread.ts): runs the module named in workerData, registering
// the TypeScript loader in this thread first when that module is a TypeScript source (tests,
// development); the compiled build (dist/) needs no loader.
import { workerData } from 'node:worker_threads';

if (workerData.module.endsWith('.ts')) (await import('tsx/esm/api')).register();
await import(workerData.module);
