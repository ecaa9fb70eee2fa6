/**
 * A request written by hand on a socket, for what fetch cannot do: announce a body and send only its
 * start, then read the answer. A server that answers has decided without reading the body (it cannot
 * have: the rest was never sent). `waitMs` only bounds how long a server that does wait for the body is
 * given before the test fails; a passing answer never depends on it.
 */
import net from 'node:net';

export interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: any;
  text: string;
}

export function answerBeforeBodyEnds(
  base: string,
  request: { method: string; path: string; headers?: Record<string, string>; declaredLength: number; sent: string },
  waitMs = 15_000,
): Promise<RawAnswer> {
  const url = new URL(base);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(url.port), url.hostname);
    let received = Buffer.alloc(0);
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no answer within ${waitMs} ms while ${request.declaredLength - Buffer.byteLength(request.sent)} bytes of the body were never sent`));
    }, waitMs);
    const finish = (result: RawAnswer | Error) => {
      clearTimeout(timer);
      socket.destroy();
      if (result instanceof Error) reject(result);
      else resolve(result);
    };
    socket.on('error', (err) => finish(err));
    socket.on('connect', () => {
      const lines = [`${request.method} ${request.path} HTTP/1.1`, `Host: ${url.host}`];
      for (const [name, value] of Object.entries(request.headers ?? {})) lines.push(`${name}: ${value}`);
      lines.push(`Content-Length: ${request.declaredLength}`);
      socket.write(`${lines.join('\r\n')}\r\n\r\n${request.sent}`);
    });
    socket.on('data', (chunk) => {
      received = Buffer.concat([received, chunk]);
      const end = received.indexOf('\r\n\r\n');
      if (end < 0) return;
      const [statusLine, ...headerLines] = received.subarray(0, end).toString('latin1').split('\r\n');
      const headers: Record<string, string> = {};
      for (const line of headerLines) {
        const colon = line.indexOf(':');
        headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
      }
      const length = Number(headers['content-length'] ?? 0);
      if (received.length - end - 4 < length) return;
      const text = received.subarray(end + 4, end + 4 + length).toString('utf8');
      let body: unknown = text;
      try {
        body = JSON.parse(text);
      } catch {
        // not JSON: keep the text
      }
      finish({ status: Number(statusLine.split(' ')[1]), headers, body, text });
    });
    socket.on('end', () => finish(new Error(`the server closed the connection without a complete answer: ${received.toString('latin1').slice(0, 300)}`)));
  });
}
