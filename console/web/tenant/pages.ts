/**
 * The tenant console's pages (issue 30) and the platform links' pages, registered into the
 * console's page registry (app/pages.ts), and the tenant nav.
 */
import type { PageDefinition } from '../app/router.ts';
import { PlatformAcceptInvite, PlatformHome, PlatformMembers, PlatformSubject } from '../platform/PlatformPages.tsx';
import { TenantAcceptInvite } from './AcceptInvite.tsx';
import { TenantAuditLog } from './AuditLog.tsx';
import { TenantCap } from './CapPage.tsx';
import { TenantCaps } from './Caps.tsx';
import { TenantForgotPassword } from './ForgotPassword.tsx';
import { TenantInsights } from './Insights.tsx';
import { TenantMembers } from './Members.tsx';
import { TenantNewCap } from './NewCap.tsx';
import { TenantPattern } from './PatternPage.tsx';
import { TenantReviews } from './Reviews.tsx';
import { TenantSignIn } from './SignIn.tsx';
import { TenantSources } from './Sources.tsx';
import { prefetchSnapshot } from './snapshot.ts';
import './tenant.css';

prefetchSnapshot();

type Component = PageDefinition['component'];
const page = (path: string, title: string, area: PageDefinition['area'], component: unknown): PageDefinition => ({
  path,
  title,
  area,
  component: component as Component,
});

export const tenantPages: readonly PageDefinition[] = [
  page('/sign-in', 'Sign in', 'public', TenantSignIn),
  page('/forgot-password', 'Reset your password', 'public', TenantForgotPassword),
  page('/accept-invite', 'Accept your invitation', 'public', TenantAcceptInvite),
  page('/insights', 'Insights', 'tenant', TenantInsights),
  page('/insights/patterns/:patternId', 'Pattern', 'tenant', TenantPattern),
  page('/members', 'Members', 'tenant', TenantMembers),
  page('/sources', 'Sources', 'tenant', TenantSources),
  page('/remediation/caps', 'Corrective action plans', 'tenant', TenantCaps),
  page('/remediation/caps/new', 'New corrective action plan', 'tenant', TenantNewCap),
  page('/remediation/caps/:capId', 'Corrective action plan', 'tenant', TenantCap),
  page('/remediation/reviews', 'Reviews', 'tenant', TenantReviews),
  page('/remediation/audit-log', 'Audit log', 'tenant', TenantAuditLog),
  // The links of platform e-mails and notifications (APP_URL/platform/...).
  page('/platform', 'Platform workspace', 'public', PlatformHome),
  page('/platform/accept-invite', 'Platform invitation', 'public', PlatformAcceptInvite),
  page('/platform/members', 'Platform members', 'public', PlatformMembers),
  page('/platform/:kind/:id', 'Platform notification', 'public', PlatformSubject),
];
