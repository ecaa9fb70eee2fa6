/** Every task this product runs, and the recurring schedule. Workers register exactly these. */
import type { TaskDefinition } from './runtime.ts';
import { engineReplayTask } from './tasks/engine__replay.ts';
import { engineRunTask } from './tasks/engine__run.ts';
import { exportGenerateTask } from './tasks/export__generate.ts';
import { ingestProcessTask } from './tasks/ingest__process.ts';
import { mailSendTask } from './tasks/mail__send.ts';
import { maintenancePurgeExpiredTask } from './tasks/maintenance__purge_expired.ts';
import { recommendationVerifyTask } from './tasks/recommendation__verify.ts';
import { reportGenerateTask } from './tasks/report__generate.ts';
import { recommendationVerifyAllTask } from './tasks/recommendation__verify_all.ts';
import { tenantProvisionTask } from './tasks/tenant__provision.ts';
import { tenantTrainTask } from './tasks/tenant__train.ts';
import { webhookDeliverTask } from './tasks/webhook__deliver.ts';
import { webhookSweepTask } from './tasks/webhook__sweep.ts';
import { connectorSyncTask } from './tasks/connector__sync.ts';
import { notificationRouteTask } from './tasks/notification__route.ts';
import { notificationChatTask } from './tasks/notification__chat.ts';
import { notificationDispatchTask } from './tasks/notification__dispatch.ts';
import { notificationWeeklyDigestTask } from './tasks/notification__weekly_digest.ts';

export const tasks: TaskDefinition[] = [
  maintenancePurgeExpiredTask,
  mailSendTask,
  ingestProcessTask,
  engineRunTask,
  engineReplayTask,
  recommendationVerifyTask,
  recommendationVerifyAllTask,
  tenantProvisionTask,
  tenantTrainTask,
  reportGenerateTask,
  exportGenerateTask,
  webhookDeliverTask,
  webhookSweepTask,
  connectorSyncTask,
  notificationRouteTask,
  notificationChatTask,
  notificationDispatchTask,
  notificationWeeklyDigestTask,
];

/** graphile-worker crontab lines (`minute hour dom month dow task ?opts`). */
export const crontab = [
  `17 * * * * ${maintenancePurgeExpiredTask.name} ?max=3`,
  // Daily: implemented fixes are verified again as the weeks after them pass.
  `41 3 * * * ${recommendationVerifyAllTask.name} ?max=3`,
  // Deliveries whose job died with its worker are sent again (jobs/tasks/webhook__sweep.ts).
  `* * * * * ${webhookSweepTask.name} ?max=1`,
  // Notifications held by quiet hours and digests whose local time came; weekly digests per member's Monday 08:00.
  `* * * * * ${notificationDispatchTask.name} ?max=3`,
  `*/15 * * * * ${notificationWeeklyDigestTask.name} ?max=3`,
].join('\n');
