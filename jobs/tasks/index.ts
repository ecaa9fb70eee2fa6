/** Every task this product runs, and the recurring schedule. Workers register exactly these. */
import type { TaskDefinition } from '../runtime.ts';
import { engineReplayTask } from './engine__replay.ts';
import { engineRunTask } from './engine__run.ts';
import { exportGenerateTask } from './export__generate.ts';
import { ingestProcessTask } from './ingest__process.ts';
import { mailSendTask } from './mail__send.ts';
import { maintenancePurgeExpiredTask } from './maintenance__purge_expired.ts';
import { recommendationVerifyTask } from './recommendation__verify.ts';
import { reportGenerateTask } from './report__generate.ts';
import { recommendationVerifyAllTask } from './recommendation__verify_all.ts';
import { tenantProvisionTask } from './tenant__provision.ts';
import { tenantTrainTask } from './tenant__train.ts';
import { webhookDeliverTask } from './webhook__deliver.ts';
import { webhookSweepTask } from './webhook__sweep.ts';
import { connectorSyncTask } from './connector__sync.ts';
import { notificationRouteTask } from './notification__route.ts';
import { notificationChatTask } from './notification__chat.ts';
import { notificationDispatchTask } from './notification__dispatch.ts';
import { notificationWeeklyDigestTask } from './notification__weekly_digest.ts';

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
