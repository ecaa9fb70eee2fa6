/**
 * The WebSocket clients of bench/realtime.ts, in a child process so that they never share the
 * server's event loop. Jobs (bench/loadChild.ts protocol):
 * - `connect`: opens `count` connections to `url` (with `headers`) as group `group` and answers when
 *   all are open;
 * - `await`: answers, once every connection of the group has received the message carrying `marker`
 *   (`@@bench:…@@` inside it), the wall-clock arrival time of that message at each client
 *   (milliseconds, sub-millisecond precision: performance.timeOrigin + performance.now(),
 *   comparable with the parent's on the same machine). Arrivals are recorded as they come, so a
 *   message may arrive before its `await` job.
 */
import { WebSocket } from 'ws';
import { serveLoadJobs } from './loadChild.ts';

export type ClientJob =
  | { op: 'connect'; url: string; headers: Record<string, string>; count: number; group: string }
  | { op: 'await'; group: string; marker: string; timeoutMs: number };
export type ClientResult = { connected: number } | { arrivals: number[] };

const now = () => performance.timeOrigin + performance.now();
const groups = new Map<string, WebSocket[]>();
const arrivalsOf = new Map<string, number[]>();
const waiting = new Map<string, () => void>();
const MARKER = /@@bench:[^@]+@@/;

function onMessage(data: Buffer) {
  const at = now();
  const marker = MARKER.exec(data.toString())?.[0];
  if (!marker) return;
  const list = arrivalsOf.get(marker) ?? [];
  list.push(at);
  arrivalsOf.set(marker, list);
  waiting.get(marker)?.();
}

async function connect(job: Extract<ClientJob, { op: 'connect' }>): Promise<ClientResult> {
  const sockets: WebSocket[] = [];
  for (let i = 0; i < job.count; i += 100) {
    const batch = Array.from({ length: Math.min(100, job.count - i) }, () => {
      const ws = new WebSocket(job.url, { headers: job.headers, perMessageDeflate: false });
      ws.on('message', (data) => onMessage(data as Buffer));
      sockets.push(ws);
      return new Promise<void>((resolve, reject) => {
        ws.once('open', () => resolve());
        ws.once('error', reject);
        ws.once('close', (code) => reject(new Error(`closed with ${code} while connecting`)));
      });
    });
    await Promise.all(batch);
  }
  groups.set(job.group, sockets);
  return { connected: sockets.length };
}

function awaitMarker(job: Extract<ClientJob, { op: 'await' }>): Promise<ClientResult> {
  const expected = groups.get(job.group)?.length ?? 0;
  return new Promise((resolve, reject) => {
    const check = () => {
      const arrivals = arrivalsOf.get(job.marker) ?? [];
      if (arrivals.length < expected) return;
      clearTimeout(timer);
      waiting.delete(job.marker);
      arrivalsOf.delete(job.marker);
      resolve({ arrivals });
    };
    const timer = setTimeout(() => {
      waiting.delete(job.marker);
      reject(new Error(`only ${arrivalsOf.get(job.marker)?.length ?? 0} of ${expected} clients received ${job.marker} within ${job.timeoutMs} ms`));
    }, job.timeoutMs);
    waiting.set(job.marker, check);
    check();
  });
}

serveLoadJobs<ClientJob, ClientResult>(async (job) => (job.op === 'connect' ? connect(job) : awaitMarker(job)));
