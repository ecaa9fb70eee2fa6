/**
 * A real SMTP sink for tests (the `smtp-server` package) on an ephemeral port: plain SMTP, no TLS, no
 * authentication, so that nodemailer delivers to `smtp://127.0.0.1:<port>` as to any relay. Every
 * message is kept with its envelope and its decoded subject and text body.
 *
 * The decoding covers what nodemailer produces: RFC 2047 encoded-word headers, quoted-printable or
 * base64 bodies, and multipart messages (the text/plain part as `text`, the text/html part as `html`).
 */
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

export interface ReceivedMail {
  /** Envelope recipients (RCPT TO), lowercased. */
  to: string[];
  /** Envelope sender (MAIL FROM). */
  from: string;
  subject: string;
  text: string;
  /** The HTML part as delivered ('' when the message has none). */
  html: string;
  headers: Record<string, string>;
}

export interface SmtpSink {
  url: string;
  messages: ReceivedMail[];
  /** The first message (already received or arriving within `timeoutMs`) that matches. */
  waitFor(predicate: (mail: ReceivedMail) => boolean, timeoutMs?: number): Promise<ReceivedMail>;
  close(): Promise<void>;
}

export async function startSmtpSink(): Promise<SmtpSink> {
  const messages: ReceivedMail[] = [];
  const waiters = new Set<() => void>();
  const server = new SMTPServer({
    secure: false,
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        const parsed = parseMessage(Buffer.concat(chunks).toString('utf8'));
        messages.push({
          to: session.envelope.rcptTo.map((r) => r.address.toLowerCase()),
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          subject: parsed.headers.subject ?? '',
          text: parsed.text,
          html: parsed.html,
          headers: parsed.headers,
        });
        for (const wake of waiters) wake();
        callback();
      });
    },
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  return {
    url: `smtp://127.0.0.1:${(server.server.address() as AddressInfo).port}`,
    messages,
    waitFor(predicate, timeoutMs = 15_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const found = messages.find(predicate);
          if (!found) return false;
          clearTimeout(timer);
          waiters.delete(check);
          resolve(found);
          return true;
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`no matching e-mail within ${timeoutMs} ms; received: ${JSON.stringify(messages.map((m) => ({ to: m.to, subject: m.subject })))}`));
        }, timeoutMs);
        if (!check()) waiters.add(check);
      });
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

function splitHead(raw: string): { head: string; body: string } {
  const at = raw.search(/\r?\n\r?\n/);
  if (at < 0) return { head: raw, body: '' };
  const separator = /\r?\n\r?\n/.exec(raw.slice(at))![0];
  return { head: raw.slice(0, at), body: raw.slice(at + separator.length) };
}

function parseHeaders(head: string): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const line of head.replace(/\r?\n[ \t]+/g, ' ').split(/\r?\n/)) {
    const colon = line.indexOf(':');
    if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = decodeWords(line.slice(colon + 1).trim());
  }
  return headers;
}

/** RFC 2047 `=?charset?Q|B?text?=` words (whitespace between adjacent words is dropped). */
function decodeWords(value: string): string {
  return value
    .replace(/\?=\s+=\?/g, '?==?')
    .replace(/=\?([^?]+)\?([QqBb])\?([^?]*)\?=/g, (_m, _charset: string, encoding: string, text: string) =>
      encoding.toUpperCase() === 'B'
        ? Buffer.from(text, 'base64').toString('utf8')
        : Buffer.from(decodeQuotedPrintableBytes(text.replace(/_/g, ' '))).toString('utf8'),
    );
}

function decodeQuotedPrintableBytes(text: string): number[] {
  const bytes: number[] = [];
  const source = Buffer.from(text.replace(/=\r?\n/g, ''), 'utf8');
  for (let i = 0; i < source.length; i++) {
    const hex = source.subarray(i + 1, i + 3).toString('latin1');
    if (source[i] === 0x3d && /^[0-9A-Fa-f]{2}$/.test(hex)) {
      bytes.push(parseInt(hex, 16));
      i += 2;
    } else bytes.push(source[i]);
  }
  return bytes;
}

function decodeBody(body: string, transferEncoding: string | undefined): string {
  switch ((transferEncoding ?? '7bit').toLowerCase()) {
    case 'quoted-printable':
      return Buffer.from(decodeQuotedPrintableBytes(body)).toString('utf8');
    case 'base64':
      return Buffer.from(body.replace(/\s+/g, ''), 'base64').toString('utf8');
    default:
      return body;
  }
}

function parseMessage(raw: string): { headers: Record<string, string>; text: string; html: string } {
  const { head, body } = splitHead(raw);
  const headers = parseHeaders(head);
  const contentType = headers['content-type'] ?? 'text/plain';
  const boundary = /boundary="?([^";]+)"?/i.exec(contentType)?.[1];
  if (/^multipart\//i.test(contentType) && boundary) {
    const parts = body
      .split(`--${boundary}`)
      .slice(1)
      .filter((p) => !p.startsWith('--'));
    let text = '';
    let html = '';
    for (const part of parts) {
      const inner = parseMessage(part.replace(/^\r?\n/, ''));
      text ||= inner.text;
      html ||= inner.html;
    }
    return { headers, text, html };
  }
  const decoded = () => decodeBody(body, headers['content-transfer-encoding']).replace(/\r\n/g, '\n').replace(/\n+$/, '');
  if (/^text\/plain/i.test(contentType)) return { headers, text: decoded(), html: '' };
  if (/^text\/html/i.test(contentType)) return { headers, text: '', html: decoded() };
  return { headers, text: '', html: '' };
}
