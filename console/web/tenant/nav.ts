/** The tenant shell's nav: each entry shown when the user holds its permission. */
export const tenantNav: Array<{ href: string; label: string; permission: string }> = [
  { href: '/insights', label: 'Insights', permission: 'insights.read' },
  { href: '/members', label: 'Members', permission: 'members.read' },
  { href: '/sources', label: 'Sources', permission: 'sources.read' },
  { href: '/remediation/caps', label: 'Plans', permission: 'caps.read' },
  { href: '/remediation/reviews', label: 'Reviews', permission: 'reviews.read' },
  { href: '/remediation/audit-log', label: 'Audit log', permission: 'audit.read' },
];
