/**
 * The load generator of bench/http.ts, run as a child process so that it never shares the
 * server's event loop. Each round opens `concurrency` keep-alive connections; each connection sends
 * its next request as soon as the previous response is complete (a closed loop) until the round's
 * duration is over. Plain sockets and a minimal response reader (status line and Content-Length)
 * keep the client's own CPU per request small: client, server and PostgreSQL share the machine's
 * cores, and a heavy client would hide the difference between the two servers.
 *
 * Protocol (bench/loadChild.ts): the parent sends a LoadRound, the child answers with its LoadResult.
 */
import net from 'node:net';
import { processCpuSeconds } from './cpuAccount.ts';
import { serveLoadJobs } from './loadChild.ts';

export interface LoadRound {
  url: string;
  path: string;
  headers: Record<string, string>;
  concurrency: number;
  durationMs: number;
}

export interface LoadResult {
  requests: number;
  /** Responses whose status was not 2xx (the benchmark treats any as a failed run). */
  non2xx: number;
  /** Status of the first non-2xx response, for the error message. */
  firstBadStatus?: number;
  bodyBytes: number;
  elapsedMs: number;
  /** Latency of every request in microseconds, request written to response complete. */
  latenciesUs: number[];
  /** CPU time the client process spent in this round. */
  cpuMs: number;
}

function requestBytes(round: LoadRound, host: string): Buffer {
  const lines = [`GET ${round.path} HTTP/1.1`, `Host: ${host}`, 'Connection: keep-alive'];
  for (const [name, value] of Object.entries(round.headers)) lines.push(`${name}: ${value}`);
  return Buffer.from(lines.join('\r\n') + '\r\n\r\n', 'latin1');
}

const HEADER_END = Buffer.from('\r\n\r\n');

/** One keep-alive connection running requests back to back until `deadline`. */
function drive(target: URL, request: Buffer, deadline: bigint, result: LoadResult): Promise<void> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: target.hostname, port: Number(target.port) });
    socket.setNoDelay(true);
    let chunks: Buffer[] = [];
    let received = 0;
    let expected = -1;
    let started = 0n;
    let done = false;

    const send = () => {
      started = process.hrtime.bigint();
      socket.write(request);
    };
    socket.on('connect', send);
    socket.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      received += chunk.length;
      if (expected < 0) {
        const head = chunks.length === 1 ? chunks[0] : Buffer.concat(chunks);
        const end = head.indexOf(HEADER_END);
        if (end < 0) return;
        const text = head.toString('latin1', 0, end);
        const length = /\r\ncontent-length:[ \t]*(\d+)/i.exec(text);
        if (!length) {
          socket.destroy();
          return reject(new Error('response without Content-Length (the benchmark reads only sized bodies)'));
        }
        const status = Number(text.slice(9, 12));
        if (status < 200 || status > 299) {
          result.non2xx++;
          result.firstBadStatus ??= status;
        }
        expected = end + HEADER_END.length + Number(length[1]);
        result.bodyBytes = Number(length[1]);
      }
      if (received < expected) return;
      const now = process.hrtime.bigint();
      result.requests++;
      result.latenciesUs.push(Number(now - started) / 1000);
      chunks = [];
      received = 0;
      expected = -1;
      if (now < deadline) return send();
      done = true;
      socket.end();
      resolve();
    });
    socket.on('error', (err) => {
      if (!done) reject(err);
    });
    socket.on('close', () => {
      if (!done) reject(new Error('server closed a keep-alive connection mid-round'));
    });
  });
}

export async function runRound(round: LoadRound): Promise<LoadResult> {
  const target = new URL(round.url);
  const request = requestBytes(round, target.host);
  const result: LoadResult = { requests: 0, non2xx: 0, bodyBytes: 0, elapsedMs: 0, latenciesUs: [], cpuMs: 0 };
  const cpu = process.cpuUsage();
  const start = process.hrtime.bigint();
  const deadline = start + BigInt(round.durationMs) * 1_000_000n;
  await Promise.all(Array.from({ length: round.concurrency }, () => drive(target, request, deadline, result)));
  result.elapsedMs = Number(process.hrtime.bigint() - start) / 1e6;
  result.cpuMs = processCpuSeconds(cpu) * 1000;
  return result;
}

serveLoadJobs(runRound);
