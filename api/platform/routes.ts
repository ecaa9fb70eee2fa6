/** Every /v1 route, by resource group. The platform app mounts exactly these. */
import type { PlatformRoute } from './route.ts';
import { auditRoutes } from './audit/routes.ts';
import { configRoutes } from './configs/routes.ts';
import { engineRoutes } from './engine/routes.ts';
import { feedRoutes } from './events/routes.ts';
import { ingestRoutes } from './ingest/routes.ts';
import { issueRoutes } from './issues/routes.ts';
import { patternRoutes } from './patterns/routes.ts';
import { patternHazardRoutes } from './patterns/hazard/routes.ts';
import { groupingRoutes } from './grouping/routes.ts';
import { alertRoutes } from './alerts/routes.ts';
import { predictionRoutes } from './predictions/routes.ts';
import { recommendationRoutes } from './recommendations/routes.ts';
import { reviewQueueRoutes } from './reviewQueue/routes.ts';
import { sourceRoutes } from './sources/routes.ts';
import { authRoutes } from './auth/routes.ts';
import { signOutRoutes } from './auth/signOut.ts';
import { apiKeyRoutes } from './apiKeys/routes.ts';
import { domainRoutes } from './domains/routes.ts';
import { jobRoutes } from './jobs/routes.ts';
import { invitationRoutes, memberRoutes } from './members/routes.ts';
import { provisioningRoutes } from './provisioning/routes.ts';
import { serviceAccountRoutes } from './serviceAccounts/routes.ts';
import { workspaceRoutes } from './workspaces/routes.ts';
import { reportRoutes } from './reports/routes.ts';
import { exportRoutes } from './exports/routes.ts';
import { shellRoutes } from './shell/routes.ts';
import { webhookRoutes } from './webhooks/routes.ts';
import { inboundWebhookRoutes } from './webhooks/inbound.ts';
import { connectorRoutes } from './connectors/routes.ts';
import { notificationRoutes } from './notifications/routes.ts';
import { realtimeRoutes } from './realtime/routes.ts';
import { mfaRoutes } from './mfa/routes.ts';
import { scimTokenRoutes } from './scim/tokenRoutes.ts';
import { ssoConnectionRoutes, ssoSignInRoutes } from './sso/routes.ts';

export const platformRoutes: PlatformRoute[] = [
  ...authRoutes,
  ...provisioningRoutes,
  ...workspaceRoutes,
  ...memberRoutes,
  ...invitationRoutes,
  ...serviceAccountRoutes,
  ...jobRoutes,
  ...auditRoutes,
  ...ingestRoutes,
  ...issueRoutes,
  ...patternRoutes,
  ...patternHazardRoutes,
  ...groupingRoutes,
  ...alertRoutes,
  ...predictionRoutes,
  ...recommendationRoutes,
  ...reviewQueueRoutes,
  ...configRoutes,
  ...feedRoutes,
  ...sourceRoutes,
  ...engineRoutes,
  ...reportRoutes,
  ...exportRoutes,
  ...shellRoutes,
  ...inboundWebhookRoutes,
  ...webhookRoutes,
  ...connectorRoutes,
  ...notificationRoutes,
  ...realtimeRoutes,
  ...mfaRoutes,
  ...scimTokenRoutes,
  ...ssoConnectionRoutes,
  ...ssoSignInRoutes,
  ...signOutRoutes,
  ...apiKeyRoutes,
  ...domainRoutes,
];
