/** Staff sessions: POST /admin/login, GET /admin/me, POST /admin/logout. */
import { z } from 'zod';
import { controlRoles, revokeEmployeeSession } from '../../../sql/employees.ts';
import { staffLogin } from '../../../usecases/staffLogin.ts';
import { reply } from '../../http/routes.ts';
import { clearSessionCookie, setSessionCookies, STAFF_COOKIE } from '../cookies.ts';
import { detailSchema } from '../errors.ts';
import { productRoute } from '../route.ts';
import { employeeMe, employeeMeSchema, sessionOrigin } from './identity.ts';

export const staffSessionRoutes = [
  productRoute({
    method: 'post',
    path: '/admin/login',
    operationId: 'admin_login',
    summary: 'Staff login',
    description: 'Sets the `svc_admin_session` cookie (12 h) and a fresh `svc_csrf` cookie. Rate limited per IP (20 / 5 min) and per account (5 / 15 min).',
    tags: ['authentication'],
    auth: 'public',
    csrfExempt: true,
    body: z.object({ email: z.string().trim().min(1).max(320), password: z.string().min(1).max(1024) }),
    responses: {
      200: { description: 'Signed in', schema: employeeMeSchema },
      401: { description: 'Invalid email or password.', schema: detailSchema },
      429: { description: 'Too many login attempts. Try again later.', schema: detailSchema },
    },
    handler: async ({ app, req, res, body }) => {
      const { employee, token } = await staffLogin(app, body, req.clientIp, sessionOrigin(req));
      setSessionCookies(app, req, res, STAFF_COOKIE, token);
      return reply.ok(employeeMe(employee));
    },
  }),
  productRoute({
    method: 'get',
    path: '/admin/me',
    operationId: 'admin_me',
    summary: 'The signed-in employee',
    tags: ['authentication'],
    auth: 'staff',
    responses: {
      200: { description: 'Staff identity', schema: employeeMeSchema },
      401: { description: 'No employee session. / Employee session expired or revoked.', schema: detailSchema },
    },
    handler: ({ staff }) => reply.ok(employeeMe(staff)),
  }),
  productRoute({
    method: 'post',
    path: '/admin/logout',
    operationId: 'admin_logout',
    summary: 'Staff logout: revokes the session',
    tags: ['authentication'],
    auth: 'staff',
    staffRoles: controlRoles,
    responses: {
      204: { description: 'Session revoked; the staff cookie is cleared' },
      401: { description: 'No live session', schema: detailSchema },
      403: { description: 'CSRF token missing or mismatched.', schema: detailSchema },
    },
    handler: async ({ app, req, res, staff }) => {
      await revokeEmployeeSession(app.pool, staff.sessionId, app.clock.now());
      clearSessionCookie(app, req, res, STAFF_COOKIE);
      return reply.noContent();
    },
  }),
];
