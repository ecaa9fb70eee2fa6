/** Every task this product runs, and the recurring schedule. Workers register exactly these. */
import type { TaskDefinition } from './runtime.ts';
import { engineReplay } from './tasks/engine__replay.ts';
import { engineRun } from './tasks/engine__run.ts';
import { exportGenerate } from './tasks/export__generate.ts';
import { ingestProcess } from './tasks/ingest__process.ts';
import { mailSend } from './tasks/mail__send.ts';
import { maintenancePurgeExpired } from './tasks/maintenance__purge_expired.ts';
import { recommendationVerify } from './tasks/recommendation__verify.ts';
import { reportGenerate } from './tasks/report__generate.ts';
import { recommendationVerifyAll } from './tasks/recommendation__verify_all.ts';
import { tenantProvision } from './tasks/tenant__provision.ts';
import { tenantTrain } from './tasks/tenant__train.ts';
import { webhookDeliver } from './tasks/webhook__deliver.ts';
import { webhookSweep } from './tasks/webhook__sweep.ts';
import { connectorSync } from './tasks/connector__sync.ts';
import { notificationRoute } from './tasks/notification__route.ts';
import { notificationChat } from './tasks/notification__chat.ts';
import { notificationDispatch } from './tasks/notification__dispatch.ts';
import { notificationWeeklyDigest } from './tasks/notification__weekly_digest.ts';

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
  reportGenerate,
  exportGenerate,
  webhookDeliver,
  webhookSweep,
  connectorSync,
  notificationRoute,
  notificationChat,
  notificationDispatch,
  notificationWeeklyDigest,
];

/** graphile-worker crontab lines (`minute hour dom month dow task ?opts`). */
export const crontab = [
  `17 * * * * ${maintenancePurgeExpired.name} ?max=3`,
  // Daily: implemented fixes are verified again as the weeks after them pass.
  `41 3 * * * ${recommendationVerifyAll.name} ?max=3`,
  // Deliveries whose job died with its worker are sent again (jobs/tasks/webhook__sweep.ts).
  `* * * * * ${webhookSweep.name} ?max=1`,
  // Notifications held by quiet hours and digests whose local time came; weekly digests per member's Monday 08:00.
  `* * * * * ${notificationDispatch.name} ?max=3`,
  `*/15 * * * * ${notificationWeeklyDigest.name} ?max=3`,
].join('\n');
