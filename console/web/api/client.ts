/**
 * The one way the console talks to the product API: through the console's own proxy
 * (`/api/backend/*`), with the session cookies the browser holds (httpOnly: never read here) and the
 * CSRF double-submit header on every write. Errors become `ApiError` carrying the API's `detail`.
 * A 401 on a session route tells the app the session is gone (see `onSessionLost`).
 */
import { PUBLIC_PATHS } from '../../publicPaths.ts';
import { ApiError, retryAfterSeconds } from './errors.ts';

const PREFIX = '/api/backend';

type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** The non-httpOnly CSRF cookie the API sets with each session (product-api.md, CSRF). */
export function csrfToken(): string | undefined {
  const pair = document.cookie.split('; ').find((c) => c.startsWith('svc_csrf='));
  return pair ? decodeURIComponent(pair.slice('svc_csrf='.length)) : undefined;
}

type SessionLostListener = (error: ApiError, path: string) => void;
const sessionLostListeners = new Set<SessionLostListener>();
/** Called when a session route answers 401; the shells send the person to sign-in. */
export function onSessionLost(listener: SessionLostListener): () => void {
  sessionLostListeners.add(listener);
  return () => sessionLostListeners.delete(listener);
}

/**
 * A last line behind disabled controls: a read-only person's console refuses to send any write
 * (the staff shell installs it for `support_readonly`).
 */
let writeGuard: ((method: Method, path: string) => string | null) | null = null;
export function setWriteGuard(guard: typeof writeGuard): void {
  writeGuard = guard;
}

async function parseBody(res: Response): Promise<unknown> {
  const type = res.headers.get('content-type') ?? '';
  if (res.status === 204) return undefined;
  if (type.includes('application/json')) return res.json();
  return res.text();
}

function fail(status: number, body: unknown, path: string, retryAfter: string | null = null): never {
  const detail =
    body && typeof body === 'object' && 'detail' in body ? (body as { detail: unknown }).detail : typeof body === 'string' && body ? body : `HTTP ${status}`;
  const error = new ApiError(status, detail, retryAfterSeconds(retryAfter));
  if (status === 401 && !PUBLIC_PATHS.has(path.split('?')[0])) for (const listener of sessionLostListeners) listener(error, path);
  throw error;
}

function headersFor(method: Method, json: boolean): Record<string, string> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (json) headers['content-type'] = 'application/json';
  if (method !== 'GET') {
    const token = csrfToken();
    if (token) headers['x-csrf-token'] = token;
  }
  return headers;
}

function guard(method: Method, path: string) {
  const refusal = method !== 'GET' && writeGuard?.(method, path);
  if (refusal) throw new ApiError(403, refusal);
}

export async function api<T = unknown>(method: Method, path: string, body?: unknown, signal?: AbortSignal): Promise<T> {
  guard(method, path);
  let res: Response;
  try {
    res = await fetch(PREFIX + path, {
      method,
      headers: headersFor(method, body !== undefined),
      body: body === undefined ? undefined : JSON.stringify(body),
      credentials: 'same-origin',
      signal,
    });
  } catch (err) {
    if ((err as Error).name === 'AbortError') throw err;
    throw new ApiError(0, 'The console cannot be reached. Check your connection and try again.');
  }
  const parsed = await parseBody(res);
  if (!res.ok) fail(res.status, parsed, path, res.headers.get('retry-after'));
  return parsed as T;
}

export const get = <T>(path: string, signal?: AbortSignal) => api<T>('GET', path, undefined, signal);
export const post = <T>(path: string, body?: unknown) => api<T>('POST', path, body);
export const put = <T>(path: string, body?: unknown) => api<T>('PUT', path, body);

/** multipart/form-data upload of one `file` field, with upload progress (fetch has none). */
export function upload<T>(path: string, file: File, onProgress: (fraction: number) => void): Promise<T> {
  guard('POST', path);
  return new Promise<T>((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open('POST', PREFIX + path);
    for (const [name, value] of Object.entries(headersFor('POST', false))) xhr.setRequestHeader(name, value);
    xhr.upload.onprogress = (e) => e.lengthComputable && onProgress(e.loaded / e.total);
    xhr.onerror = () => reject(new ApiError(0, 'The upload was interrupted. Check your connection and try again.'));
    xhr.onload = () => {
      let body: unknown = xhr.responseText;
      try {
        body = JSON.parse(xhr.responseText);
      } catch {
        // a non-JSON body is shown as text
      }
      if (xhr.status >= 200 && xhr.status < 300) return resolve(body as T);
      try {
        fail(xhr.status, body, path, xhr.getResponseHeader('retry-after'));
      } catch (err) {
        reject(err);
      }
    };
    const form = new FormData();
    form.append('file', file);
    xhr.send(form);
  });
}
