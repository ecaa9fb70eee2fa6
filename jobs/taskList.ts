/** Every task this product runs, and the recurring schedule. Workers register exactly these. */
import type { TaskDefinition } from './runtime.ts';
import { engineReplay } from './tasks/engine__replay.ts';
import { engineRun } from './tasks/engine__run.ts';
import { ingestProcess } from './tasks/ingest__process.ts';
import { mailSend } from './tasks/mail__send.ts';
import { maintenancePurgeExpired } from './tasks/maintenance__purge_expired.ts';
import { recommendationVerify } from './tasks/recommendation__verify.ts';
import { recommendationVerifyAll } from './tasks/recommendation__verify_all.ts';
import { tenantProvision } from './tasks/tenant__provision.ts';
import { tenantTrain } from './tasks/tenant__train.ts';

export const tasks: TaskDefinition[] = [
  maintenancePurgeExpired,
  mailSend,
  ingestProcess,
  engineRun,
  engineReplay,
  recommendationVerify,
  recommendationVerifyAll,
  tenantProvision,
  tenantTrain,
];

/** graphile-worker crontab lines (`minute hour dom month dow task ?opts`). */
export const crontab = [
  `17 * * * * ${maintenancePurgeExpired.name} ?max=3`,
  // Daily: implemented fixes are verified again as the weeks after them pass.
  `41 3 * * * ${recommendationVerifyAll.name} ?max=3`,
].join('\n');
