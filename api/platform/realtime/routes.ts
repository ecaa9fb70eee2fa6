/**
 * GET /v1/realtime in /openapi.json: the WebSocket of CONTRACT.md, described as the GET whose
 * handshake answers 101 Switching Protocols. The upgrade itself never reaches express (server.ts
 * takes it from the HTTP server's `upgrade` event); a plain GET does, and answers 426 Upgrade
 * Required in the envelope, after the same authentication and query validation as the stream.
 * The query and message schemas here are the ones server.ts parses with and the hub sends.
 */
import { z } from 'zod';
import { AppError } from '../../../lib/errors.ts';
import { queryInteger } from '../../http/routes.ts';
import { sendPlatformError } from '../errors.ts';
import { platformRoute } from '../route.ts';
import { realtimeTypes } from './hub.ts';

export const realtimeQuery = z.object({
  after_sequence: queryInteger('must be a non-negative integer', z.number().int().min(0, 'must be at least 0').max(Number.MAX_SAFE_INTEGER))
    .optional()
    .describe('Resume: first every streamed event with a greater sequence from the event log, then the live stream'),
});

const envelope = {
  workspace_id: z.guid().describe("The token's workspace; a client only ever receives its own"),
  sequence: z.number().int().describe('Event-log position: the last one to resume from with after_sequence (live-only messages carry the latest)'),
};

/** One JSON text frame of the stream: `{type, workspace_id, sequence, data}`. */
export const realtimeMessageSchema = z
  .union([
    z.object({
      type: z.enum(['issue.created', 'issue.updated', 'pattern.updated']),
      ...envelope,
      data: z
        .looseObject({
          id: z.string().describe('The issue or pattern id'),
          event_type: z.string().describe('The event-log type (issue.created, issue.status_changed, pattern.updated …)'),
          recorded_at: z.string().describe('ISO 8601'),
        })
        .describe("The event's id, type and time plus its payload (the fields that changed, with `from` and `to` for a status change)"),
    }),
    z.object({
      type: z.literal('engine_run.updated'),
      ...envelope,
      data: z.object({ id: z.string(), job_id: z.string(), status: z.string(), progress: z.unknown() }),
    }),
    z.object({
      type: z.literal('notification.created'),
      ...envelope,
      data: z
        .object({
          id: z.string(),
          kind: z.string(),
          subject_type: z.string(),
          subject_id: z.string(),
          title: z.string(),
          link: z.string().nullable(),
          created_at: z.string(),
        })
        .describe('A new in-app notification; only its member receives it'),
    }),
  ])
  .describe(`Each text frame after the handshake is one JSON message; types: ${realtimeTypes.join(', ')}`);
export type RealtimeMessage = z.infer<typeof realtimeMessageSchema>;

const token = { type: 'string' };

export const realtimeRoutes = [
  platformRoute({
    method: 'get',
    path: '/v1/realtime',
    operationId: 'openRealtimeStream',
    summary: "The workspace's realtime stream (WebSocket)",
    description:
      'A WebSocket (RFC 6455): send this GET with `Upgrade: websocket`. Authenticated like REST: the bearer token in ' +
      '`Authorization`, or, for browsers that cannot set headers, as the subprotocol `bearer.<token>` in ' +
      '`Sec-WebSocket-Protocol` (offer another one too, e.g. `svc.v1`, and that one is selected, so the token is not echoed). ' +
      'A missing, invalid or under-scoped token, or a malformed `after_sequence`, completes the handshake and closes at once ' +
      'with 1008 (policy violation). Every text frame is one JSON message `{type, workspace_id, sequence, data}` of the ' +
      "token's workspace (the 101 response below gives its schema); `notification.created` reaches only its member. " +
      'Reconnect with `after_sequence` set to the last sequence seen to receive what was missed. The server pings ' +
      'periodically and terminates a connection that did not answer the previous ping; a client that does not read fast ' +
      'enough is dropped (and resumes). 1001 closes mean the server is shutting down. ' +
      'An open stream closes within seconds when its authority ends: 4401 when the token no longer authenticates (expired; ' +
      'signed out; refresh-token reuse revoked the sign-in; member removed; SCIM deactivation; key revoked): get a new token ' +
      '(refresh, or sign in again) and reconnect with `after_sequence`; 4403 when the sign-in still authenticates but is no ' +
      'longer allowed (the close reason is the error code: `sso_required`, `mfa_required`, or `forbidden` for a lost scope): ' +
      'sign in again as the workspace now requires before reconnecting. Connections are not counted by the ' +
      'REST rate limit. A GET without the upgrade answers 426.',
    tags: ['realtime'],
    scope: 'events:read',
    query: realtimeQuery,
    headers: {
      Upgrade: { description: '`websocket`', required: true, schema: { type: 'string', const: 'websocket' } },
      Connection: { description: '`Upgrade`', required: true, schema: { type: 'string' } },
      'Sec-WebSocket-Key': { description: 'RFC 6455 handshake nonce', required: true, schema: token },
      'Sec-WebSocket-Version': { description: '`13`', required: true, schema: { type: 'string', const: '13' } },
      'Sec-WebSocket-Protocol': { description: 'Optional subprotocols; `bearer.<token>` carries the bearer token instead of Authorization', schema: token },
    },
    responses: {
      101: {
        description: 'Switching Protocols: the WebSocket is open; the content is the schema of each message frame',
        schema: realtimeMessageSchema,
        headers: {
          Upgrade: { description: '`websocket`', schema: { type: 'string' } },
          'Sec-WebSocket-Accept': { description: 'RFC 6455 handshake answer', schema: token },
          'Sec-WebSocket-Protocol': { description: 'The selected subprotocol (not the bearer one when another was offered)', schema: token },
        },
      },
      426: {
        description: 'Upgrade Required (`bad_request`): a plain GET; open it as a WebSocket',
        headers: { Upgrade: { description: '`websocket`', schema: { type: 'string' } } },
      },
    },
    handler: ({ req, res }) => {
      const err = new AppError('bad_request', 'GET /v1/realtime is a WebSocket: open it with an Upgrade: websocket handshake', undefined, {
        Upgrade: 'websocket',
      });
      sendPlatformError(req, res, err, 426);
    },
  }),
];
