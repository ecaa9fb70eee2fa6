/**
 * The page registry: every console URL and the page it renders. Staff pages live under `/admin/`;
 * tenant pages at the root. Add a page here (and a file under pages/) to publish it.
 */
import type { PageDefinition } from './router.ts';
import { StaffForgotPassword } from '../pages/staff/ForgotPassword.tsx';
import { StaffResetPassword } from '../pages/staff/ResetPassword.tsx';
import { StaffSignIn } from '../pages/staff/SignIn.tsx';
import { Tenants } from '../pages/staff/Tenants.tsx';
import { TenantOnboarding } from '../pages/staff/tenant/TenantOnboarding.tsx';
import { Operations } from '../pages/staff/Operations.tsx';
import { Jobs } from '../pages/staff/Jobs.tsx';
import { JobDetail } from '../pages/staff/JobDetail.tsx';
import { Outbox } from '../pages/staff/Outbox.tsx';
import { TenantResetPassword } from '../pages/tenant/ResetPassword.tsx';
import { TenantHome } from '../tenant/Home.tsx';
import { tenantPages } from '../tenant/pages.ts';

export const pages: readonly PageDefinition[] = [
  // Staff console
  { path: '/admin', title: 'Tenants', area: 'staff', component: Tenants },
  { path: '/admin/sign-in', title: 'Staff sign-in', area: 'public', component: StaffSignIn },
  { path: '/admin/forgot-password', title: 'Reset your staff password', area: 'public', component: StaffForgotPassword },
  { path: '/admin/reset-password', title: 'Choose a new staff password', area: 'public', component: StaffResetPassword },
  { path: '/admin/tenants', title: 'Tenants', area: 'staff', component: Tenants },
  { path: '/admin/tenants/:tenantId', title: 'Tenant onboarding', area: 'staff', component: TenantOnboarding },
  { path: '/admin/operations', title: 'Operations', area: 'staff', component: Operations },
  { path: '/admin/jobs', title: 'Background jobs', area: 'staff', component: Jobs },
  { path: '/admin/jobs/:jobId', title: 'Background job', area: 'staff', component: JobDetail },
  { path: '/admin/outbox', title: 'Outbox (development)', area: 'staff', component: Outbox },
  // Tenant console (console/web/tenant/) and the pages of the links the product mails:
  // /accept-invite, /reset-password, /platform/...
  { path: '/reset-password', title: 'Choose a new password', area: 'public', component: TenantResetPassword },
  { path: '/', title: 'Home', area: 'tenant', component: TenantHome },
  ...tenantPages,
];
