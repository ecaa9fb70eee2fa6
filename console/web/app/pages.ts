/**
 * The page registry: every console URL and the page it renders. Staff pages live under `/admin/`;
 * tenant pages at the root. Add a page here (and a file under pages/) to publish it.
 */
import type { PageDefinition } from './router.ts';
import { StaffForgotPassword } from '../pages/staff/ForgotPassword.tsx';
import { StaffResetPassword } from '../pages/staff/ResetPassword.tsx';
import { StaffSignIn } from '../pages/staff/SignIn.tsx';
import { Tenants } from '../pages/staff/Tenants.tsx';
import { AcceptInvite } from '../pages/tenant/AcceptInvite.tsx';
import { TenantResetPassword } from '../pages/tenant/ResetPassword.tsx';
import { TenantSignIn } from '../pages/tenant/SignIn.tsx';
import { TenantHome } from '../pages/tenant/Home.tsx';

export const pages: readonly PageDefinition[] = [
  // Staff console
  { path: '/admin', title: 'Tenants', area: 'staff', component: Tenants },
  { path: '/admin/sign-in', title: 'Staff sign-in', area: 'public', component: StaffSignIn },
  { path: '/admin/forgot-password', title: 'Reset your staff password', area: 'public', component: StaffForgotPassword },
  { path: '/admin/reset-password', title: 'Choose a new staff password', area: 'public', component: StaffResetPassword },
  { path: '/admin/tenants', title: 'Tenants', area: 'staff', component: Tenants },
  // Tenant console (links the product mails open: /accept-invite, /reset-password)
  { path: '/sign-in', title: 'Sign in', area: 'public', component: TenantSignIn },
  { path: '/accept-invite', title: 'Accept your invitation', area: 'public', component: AcceptInvite },
  { path: '/reset-password', title: 'Choose a new password', area: 'public', component: TenantResetPassword },
  { path: '/', title: 'Home', area: 'tenant', component: TenantHome },
];
