/** The e-mails of notifications: one notification, or a digest of several; text and HTML parts. */
import type { NotificationRow } from '../../sql/notifications.ts';

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

export interface RenderedMail {
  subject: string;
  text: string;
  html: string;
}

const FOOTER = 'You receive this because of your notification preferences (GET/PATCH /v1/me/notifications).';

export function notificationMail(n: Pick<NotificationRow, 'title' | 'body' | 'link'>): RenderedMail {
  const text = [n.body, n.link ? `\n${n.link}` : '', `\n\n-- \n${FOOTER}`].join('');
  const html =
    `<p>${escapeHtml(n.body).replace(/\n/g, '<br>')}</p>` +
    (n.link ? `<p><a href="${escapeHtml(n.link)}">${escapeHtml(n.link)}</a></p>` : '') +
    `<hr><p style="color:#666;font-size:12px">${escapeHtml(FOOTER)}</p>`;
  return { subject: `[svc] ${n.title}`, text, html };
}

export function digestMail(notifications: Array<Pick<NotificationRow, 'title' | 'body' | 'link'>>): RenderedMail {
  const count = notifications.length;
  const heading = `Your svc digest: ${count} notification${count === 1 ? '' : 's'}`;
  const text = [heading, '', ...notifications.map((n) => `- ${n.title}${n.link ? ` (${n.link})` : ''}`), '', '-- ', FOOTER].join('\n');
  const html =
    `<h2>${escapeHtml(heading)}</h2><ul>` +
    notifications.map((n) => `<li>${n.link ? `<a href="${escapeHtml(n.link)}">${escapeHtml(n.title)}</a>` : escapeHtml(n.title)}</li>`).join('') +
    `</ul><hr><p style="color:#666;font-size:12px">${escapeHtml(FOOTER)}</p>`;
  return { subject: `[svc] ${heading}`, text, html };
}
