/**
 * The realtime fan-out of one API process. One dedicated connection LISTENs on two channels:
 * - `svc_events`: "<workspace>:<last sequence>" after every commit that appended events (trigger in
 *   migration 000130). For a workspace with subscribers, the hub reads the new events once, in
 *   sequence order, and sends each as a message to every subscriber of the workspace;
 * - `svc_realtime`: live-only messages (new in-app notifications, engine run status) as JSON.
 * So every process fans out what any process or worker commits. A subscriber that resumes from a
 * sequence first gets what it missed from the event log, then the live stream, without gaps or
 * repeats (each subscriber's cursor is the last sequence it was sent).
 */
import pg from 'pg';
import type { AppContext } from '../../../lib/context.ts';
import { eventsAfter, lastSequence, type StreamedEventRow } from '../../../sql/events.ts';

export const realtimeTypes = ['issue.created', 'issue.updated', 'pattern.updated', 'engine_run.updated', 'notification.created'] as const;

/** Event-log types as realtime message types; other events are not streamed. */
function typeOf(eventType: string): (typeof realtimeTypes)[number] | null {
  if (eventType === 'issue.created') return 'issue.created';
  if (eventType.startsWith('issue.')) return 'issue.updated';
  if (eventType === 'pattern.created' || eventType === 'pattern.updated') return 'pattern.updated';
  return null;
}

export interface Subscriber {
  workspaceId: string;
  userId: string | null;
  /** Sends one serialized message (UTF-8 JSON, encoded once for every subscriber); false when the subscriber was dropped (too slow). */
  send(message: Buffer): boolean;
}

interface SubscriberState {
  subscriber: Subscriber;
  /** The last event-log sequence sent (or skipped as not streamed). */
  cursor: number;
  /** While it replays what it missed, live messages wait here. */
  buffered: Array<{ sequence: number; message: Buffer; userId: string | null; fromLog: boolean }> | null;
}

interface WorkspaceState {
  subscribers: Set<SubscriberState>;
  /** Last sequence read from the log for this workspace's live stream. */
  fetched: number;
  /** Highest sequence announced. */
  announced: number;
  reading: boolean;
  /** Until the workspace's log position is known, nothing is read. */
  ready: Promise<void> | null;
}

type EventRow = StreamedEventRow;

const PAGE = 1000;

export class RealtimeHub {
  private readonly workspaces = new Map<string, WorkspaceState>();
  private listener: pg.Client | null = null;
  private stopped = false;
  private reconnectTimer: NodeJS.Timeout | null = null;

  constructor(private readonly app: AppContext) {}

  async start(): Promise<void> {
    await this.connect();
  }

  private async connect(): Promise<void> {
    const client = new pg.Client({ connectionString: this.app.directDatabaseUrl ?? this.app.pool.options.connectionString, application_name: 'svc-realtime' });
    client.on('error', (err) => {
      this.app.logger.warn('realtime listener connection lost; reconnecting', { err });
      this.scheduleReconnect();
    });
    client.on('notification', (n) => this.onNotification(n.channel, n.payload ?? ''));
    await client.connect();
    await client.query('listen svc_events');
    await client.query('listen svc_realtime');
    await client.query('listen svc_authority');
    this.listener = client;
    // Whatever changed while no connection listened is re-checked everywhere.
    for (const listener of this.authorityListeners) listener(null);
    // Anything committed while no connection listened is read now.
    for (const [workspaceId, state] of this.workspaces) {
      state.announced = Math.max(state.announced, await this.lastSequence(workspaceId));
      this.read(workspaceId, state);
    }
  }

  private scheduleReconnect() {
    if (this.stopped || this.reconnectTimer) return;
    this.listener?.end().catch(() => {});
    this.listener = null;
    this.reconnectTimer = setTimeout(() => {
      this.reconnectTimer = null;
      this.connect().catch((err) => {
        this.app.logger.warn('realtime listener could not reconnect', { err });
        this.scheduleReconnect();
      });
    }, 1000);
    this.reconnectTimer.unref();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.reconnectTimer) clearTimeout(this.reconnectTimer);
    await this.listener?.end().catch(() => {});
  }

  private lastSequence(workspaceId: string): Promise<number> {
    return lastSequence(this.app.pool, workspaceId);
  }

  /**
   * Adds a subscriber. With `after`, it first receives every streamed event with a greater sequence
   * from the log; without, it starts with what is committed next.
   */
  async subscribe(subscriber: Subscriber, after: number | null): Promise<() => void> {
    let state = this.workspaces.get(subscriber.workspaceId);
    if (!state) {
      // Registered before the log position is known, so that no announcement in between is lost.
      const created: WorkspaceState = { subscribers: new Set(), fetched: 0, announced: 0, reading: false, ready: null };
      created.ready = this.lastSequence(subscriber.workspaceId).then((last) => {
        created.fetched = last;
        created.announced = Math.max(created.announced, last);
        created.ready = null;
        this.read(subscriber.workspaceId, created);
      });
      this.workspaces.set(subscriber.workspaceId, created);
      state = created;
    }
    if (state.ready) await state.ready;
    const entry: SubscriberState = { subscriber, cursor: after ?? state.fetched, buffered: after === null ? null : [] };
    state.subscribers.add(entry);
    const workspace = state;
    const unsubscribe = () => {
      workspace.subscribers.delete(entry);
      if (!workspace.subscribers.size && this.workspaces.get(subscriber.workspaceId) === workspace) this.workspaces.delete(subscriber.workspaceId);
    };
    if (after !== null) await this.replay(entry);
    return unsubscribe;
  }

  private async replay(entry: SubscriberState): Promise<void> {
    const { workspaceId } = entry.subscriber;
    for (;;) {
      const rows = await this.events(workspaceId, entry.cursor, null);
      for (const row of rows) {
        // A client too slow for its backlog is dropped: it stops here.
        if (!this.deliver(entry, row.sequence, this.eventMessage(workspaceId, row), null, true, true)) return;
      }
      if (rows.length < PAGE) break;
    }
    const waiting = entry.buffered ?? [];
    entry.buffered = null;
    for (const m of waiting) this.deliver(entry, m.sequence, m.message, m.userId, m.fromLog, false);
  }

  private events(workspaceId: string, after: number, upTo: number | null): Promise<EventRow[]> {
    return eventsAfter(this.app.pool, workspaceId, after, upTo, PAGE);
  }

  private eventMessage(workspaceId: string, row: EventRow): Buffer | null {
    const type = typeOf(row.event_type);
    if (!type) return null;
    const data = { id: row.aggregate_id, event_type: row.event_type, recorded_at: row.recorded_at.toISOString(), ...row.payload };
    return Buffer.from(JSON.stringify({ type, workspace_id: workspaceId, sequence: row.sequence, data }));
  }

  /**
   * Sends to one subscriber unless it has it already; `message` null only moves its cursor. False
   * when the subscriber was dropped.
   */
  private deliver(entry: SubscriberState, sequence: number, message: Buffer | null, userId: string | null, fromLog: boolean, replaying: boolean): boolean {
    if (entry.buffered && !replaying) {
      if (message) entry.buffered.push({ sequence, message, userId, fromLog });
      return true;
    }
    if (fromLog) {
      if (sequence <= entry.cursor) return true;
      entry.cursor = sequence;
    }
    if (!message || (userId !== null && entry.subscriber.userId !== userId)) return true;
    return entry.subscriber.send(message);
  }

  private readonly authorityListeners = new Set<(workspaceId: string | null) => void>();

  /**
   * Calls `listener` with the workspace whenever a change that can end a sign-in's authority commits
   * there (`svc_authority`, migration 000201), and with null after a reconnect (anything may have changed).
   */
  onAuthorityChange(listener: (workspaceId: string | null) => void): () => void {
    this.authorityListeners.add(listener);
    return () => this.authorityListeners.delete(listener);
  }

  private onNotification(channel: string, payload: string) {
    if (channel === 'svc_authority') {
      for (const listener of this.authorityListeners) listener(payload);
      return;
    }
    if (channel === 'svc_events') {
      const [workspaceId, sequence] = payload.split(':');
      const state = this.workspaces.get(workspaceId);
      if (!state) return;
      state.announced = Math.max(state.announced, Number(sequence));
      this.read(workspaceId, state);
      return;
    }
    if (channel === 'svc_realtime') {
      let parsed: { type: string; workspace_id: string; user_id?: string; data: unknown };
      try {
        parsed = JSON.parse(payload);
      } catch {
        return;
      }
      const state = this.workspaces.get(parsed.workspace_id);
      if (!state) return;
      const message = Buffer.from(JSON.stringify({ type: parsed.type, workspace_id: parsed.workspace_id, sequence: state.fetched, data: parsed.data }));
      for (const entry of state.subscribers) this.deliver(entry, state.fetched, message, parsed.user_id ?? null, false, false);
    }
  }

  /** Reads the workspace's announced events once (one reader at a time) and fans them out in order. */
  private read(workspaceId: string, state: WorkspaceState) {
    if (state.reading || state.ready) return;
    state.reading = true;
    void (async () => {
      try {
        while (state.fetched < state.announced && state.subscribers.size) {
          const rows = await this.events(workspaceId, state.fetched, state.announced);
          if (!rows.length) break;
          for (const row of rows) {
            const message = this.eventMessage(workspaceId, row);
            for (const entry of state.subscribers) this.deliver(entry, row.sequence, message, null, true, false);
            state.fetched = row.sequence;
          }
        }
      } catch (err) {
        this.app.logger.warn('realtime could not read events', { err, workspace_id: workspaceId });
      } finally {
        state.reading = false;
      }
      if (state.fetched < state.announced && state.subscribers.size) setTimeout(() => this.read(workspaceId, state), 100).unref();
    })();
  }

  /** Subscribers of this process (for metrics and tests). */
  get connections(): number {
    let n = 0;
    for (const state of this.workspaces.values()) n += state.subscribers.size;
    return n;
  }
}
