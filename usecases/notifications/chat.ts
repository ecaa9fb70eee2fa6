/**
 * Chat notifications: the body posted to a member's `chat_webhook_url` (CONTRACT.md's outbound
 * delivery body `{id, type, created_at, workspace_id, data}`) and the member's signing secret.
 *
 * The secret is derived, not stored: HMAC-SHA256 of "chat:<workspace>:<user>" under an installation
 * key kept in app_settings, so it is stable for the member, differs between members, and is shown to
 * the member alone (`chat_signing_secret` in their preferences once a chat URL is set).
 */
import { hmacSha256 } from '../../lib/crypto.ts';
import type { KeyRing } from '../../lib/keyRing.ts';
import type { NotificationRow } from '../../sql/notifications.ts';

/** The member's current secret (what their preferences show). */
export function chatSigningSecret(keys: KeyRing, workspaceId: string, userId: string): string {
  return secretUnder(keys.current, workspaceId, userId);
}

/**
 * Every secret a delivery is signed with: the current one, then one per previous CHAT_SIGNING_KEY
 * (issue 26: during a rotation the delivery carries a `v1,` signature under each, as Standard
 * Webhooks allows, so a receiver still holding the old secret keeps verifying).
 */
export function chatSigningSecrets(keys: KeyRing, workspaceId: string, userId: string): string[] {
  return keys.all.map((key) => secretUnder(key, workspaceId, userId));
}

const secretUnder = (key: Buffer, workspaceId: string, userId: string) => `whsec_${hmacSha256(key, `chat:${workspaceId}:${userId}`).toString('base64')}`;

export function chatBody(deliveryId: string, n: NotificationRow, createdAt: Date) {
  return {
    id: deliveryId,
    type: `notification.${n.kind}`,
    created_at: createdAt.toISOString(),
    workspace_id: n.workspace_id,
    data: {
      notification_id: n.id,
      kind: n.kind,
      title: n.title,
      text: n.body,
      link: n.link,
      subject: { type: n.subject_type, id: n.subject_id },
      user_id: n.user_id,
    },
  };
}
