#!/usr/bin/env node
// The `svc` bin. It runs the compiled build (dist/, `npm run build`) when that build is current with
// the sources, with no TypeScript loader; otherwise (a checkout being worked on, the tests) it
// registers the TypeScript loader (tsx) and runs the CLI's sources.
import { buildIsCurrent } from './build.mjs';

if (buildIsCurrent()) {
  await import('../dist/scripts/svc.js');
} else {
  (await import('tsx/esm/api')).register();
  await import('./svc.ts');
}
