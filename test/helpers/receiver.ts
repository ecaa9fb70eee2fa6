/**
 * A real HTTP receiver for outbound deliveries: records every request (raw body bytes, headers,
 * arrival time) and answers with what `respond` decides (default 200).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedRequest {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  raw: Buffer;
  body: any;
  arrivedAt: number;
}

export interface Reply {
  status: number;
  headers?: Record<string, string>;
  body?: string;
  /** Wait this long before answering. */
  delayMs?: number;
}

export interface Receiver {
  url: string;
  received: ReceivedRequest[];
  respond: (req: ReceivedRequest, index: number) => Reply;
  close(): Promise<void>;
}

export async function startReceiver(respond: (req: ReceivedRequest, index: number) => Reply = () => ({ status: 200 })): Promise<Receiver> {
  const receiver: Receiver = { url: '', received: [], respond, close: async () => {} };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks);
      let body: unknown = null;
      try {
        body = JSON.parse(raw.toString('utf8'));
      } catch {
        body = raw.toString('utf8');
      }
      const entry: ReceivedRequest = { method: req.method ?? '', path: req.url ?? '', headers: req.headers, raw, body, arrivedAt: Date.now() };
      const index = receiver.received.push(entry) - 1;
      const reply = receiver.respond(entry, index);
      const send = () => {
        res.writeHead(reply.status, { 'content-type': 'text/plain', ...reply.headers });
        res.end(reply.body ?? '');
      };
      if (reply.delayMs)
        setTimeout(send, reply.delayMs).unref(); // a held reply must not keep the test process alive
      else send();
    });
  });
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  receiver.close = () =>
    new Promise((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return receiver;
}
