#!/usr/bin/env node
// The `svc` bin: registers the TypeScript loader (tsx) and runs the CLI written in TypeScript.
import { register } from 'tsx/esm/api';

register();
await import('./svc.ts');
