/** A small client for real HTTP calls in tests: JSON in, status, headers and parsed body out. */
export interface HttpResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export interface RequestOptions {
  body?: unknown;
  headers?: Record<string, string>;
  token?: string;
  /** Sent as-is (e.g. malformed JSON); overrides `body`. */
  raw?: string | Buffer | FormData;
}

export async function request<T = any>(base: string, method: string, path: string, options: RequestOptions = {}): Promise<HttpResponse<T>> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  let body: RequestInit['body'];
  if (options.raw !== undefined) body = options.raw as RequestInit['body'];
  else if (options.body !== undefined) {
    body = JSON.stringify(options.body);
    headers['content-type'] ??= 'application/json';
  }
  const res = await fetch(base + path, { method, headers, body, redirect: 'manual' });
  const text = await res.text();
  let parsed: unknown = text;
  if ((res.headers.get('content-type') ?? '').includes('json') && text) parsed = JSON.parse(text);
  return { status: res.status, headers: res.headers, body: parsed as T, text };
}

/** Bound to one base URL (and optionally a token): `api.get('/v1/jobs')`. */
export function client(base: string, defaults: { token?: string; headers?: Record<string, string> } = {}) {
  const call = <T = any>(method: string, path: string, options: RequestOptions = {}) =>
    request<T>(base, method, path, { token: defaults.token, ...options, headers: { ...defaults.headers, ...options.headers } });
  return {
    base,
    request: call,
    get: <T = any>(path: string, options?: RequestOptions) => call<T>('GET', path, options),
    post: <T = any>(path: string, body?: unknown, options?: RequestOptions) => call<T>('POST', path, { body, ...options }),
    patch: <T = any>(path: string, body?: unknown, options?: RequestOptions) => call<T>('PATCH', path, { body, ...options }),
    put: <T = any>(path: string, body?: unknown, options?: RequestOptions) => call<T>('PUT', path, { body, ...options }),
    delete: <T = any>(path: string, options?: RequestOptions) => call<T>('DELETE', path, options),
    as: (token: string) => client(base, { ...defaults, token }),
  };
}
export type Client = ReturnType<typeof client>;
