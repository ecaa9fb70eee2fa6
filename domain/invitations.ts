/** How long an invitation can be accepted, a workspace's (/v1) and a tenant's alike: 7 days, as its e-mail says. */
export const INVITATION_TTL_MS = 7 * 24 * 60 * 60 * 1000;
