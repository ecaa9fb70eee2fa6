/**
 * Tenant isolation, one harness for every resource group. A probe knows how to create one resource
 * of its group in a workspace and which per-id requests exist for it; `assertWorkspaceIsolation`
 * creates each resource in workspace A and checks that from workspace B every per-id request answers
 * 404 `not_found` (never 403, never 2xx) and that B's list never contains A's id, while A still sees
 * it (so a list that is empty for everybody cannot pass).
 *
 * Later issues add their resource groups with `registerIsolationProbe(...)` next to the ones below;
 * provisioning.test.ts runs every registered probe over two provisioned workspaces.
 *
 * Workspaces come from POST /v1/provisioning/clients (`provisionWorkspace`): the API key it returns,
 * and the owner's token obtained by accepting the owner invite (the API key has the member role's
 * scopes, so administration needs the owner).
 */
import { randomUUID } from 'node:crypto';
import * as assert from 'uvu/assert';
import { forecastFixture } from './forecastFixture.ts';
import type { Client, HttpResponse } from './http.ts';

/** `'GET /v1/x/ID'` (a bare path means GET), or a request with a body (PATCH needs a valid one). */
export type ProbeRequest = string | { method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE'; path: string; body?: unknown };

export interface ProbeContext {
  /** Unique suffix for names and e-mail addresses. */
  unique: string;
  /** Unauthenticated client of the same /v1 surface (accepting invitations). */
  anonymous: Client;
  /** A subject token for POST /v1/invitations/accept as this e-mail (AUTH_PROVIDER=none: any string). */
  subjectTokenFor(email: string): Promise<string>;
}

export interface IsolationProbe {
  group: string;
  /** Creates one resource in the workspace of `api` and returns its id. */
  create(api: Client, ctx: ProbeContext): Promise<string>;
  /** Every per-id request of the resource; each must be 404 `not_found` from another workspace. */
  paths(id: string): ProbeRequest[];
  /** The list whose items must never include the id for another workspace (all pages are read). */
  listPath?: string;
  /** Field of a list item holding the id (default `id`). */
  listKey?: string;
  /** Checks, as the owning workspace, that the intruders' requests changed nothing. */
  intact?(api: Client, id: string): Promise<void>;
}

export interface IsolationSide {
  label: string;
  api: Client;
  /**
   * The scopes this credential holds, when not all of them: a 403 whose `details.required_scope` is
   * outside this list is then accepted (the scope check runs before any lookup, so it reveals nothing).
   * Omitted: the credential is expected to hold every scope the probes need, and any 403 fails.
   */
  scopes?: readonly string[];
}

export interface IsolationReport {
  /** group -> number of per-id requests answered 404 and list checks made by the intruders. */
  checked: Record<string, { notFound: number; scopeDenied: number; lists: number }>;
}

const registry: IsolationProbe[] = [];

export function registerIsolationProbe(probe: IsolationProbe): void {
  if (registry.some((p) => p.group === probe.group)) throw new Error(`isolation probe ${probe.group} registered twice`);
  registry.push(probe);
}

export const isolationProbes = (): readonly IsolationProbe[] => registry;

function normalise(request: ProbeRequest): { method: string; path: string; body?: unknown } {
  if (typeof request !== 'string') return request;
  const match = /^(GET|POST|PUT|PATCH|DELETE)\s+(\S+)$/.exec(request);
  return match ? { method: match[1], path: match[2] } : { method: 'GET', path: request };
}

const describe = (res: HttpResponse) => `${res.status} ${res.text.slice(0, 300)}`;

/** Every item of a list endpoint, following `page.next_cursor`. */
export async function listAll(api: Client, path: string): Promise<Array<Record<string, unknown>>> {
  const items: Array<Record<string, unknown>> = [];
  let cursor: string | null = null;
  for (let page = 0; page < 1000; page++) {
    const sep = path.includes('?') ? '&' : '?';
    const res: HttpResponse = await api.get(`${path}${sep}limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
    assert.is(res.status, 200, `GET ${path}: ${describe(res)}`);
    items.push(...res.body.data);
    cursor = res.body.page.next_cursor;
    if (!cursor) return items;
  }
  throw new Error(`GET ${path} did not end after 1000 pages`);
}

/**
 * Creates each probe's resource through `owner` (workspace A) and checks it from every intruder
 * (credentials of workspace B). Also checks that A's own GET requests answer 200 (the probe's paths
 * are real) and that A's list contains the id.
 */
export async function assertWorkspaceIsolation(options: {
  owner: IsolationSide;
  intruders: IsolationSide[];
  context: Omit<ProbeContext, 'unique'> & { unique?: string };
  probes?: readonly IsolationProbe[];
}): Promise<IsolationReport> {
  const probes = options.probes ?? registry;
  assert.ok(probes.length > 0, 'no isolation probes registered');
  const report: IsolationReport = { checked: {} };
  let n = 0;
  for (const probe of probes) {
    const ctx: ProbeContext = { ...options.context, unique: `${options.context.unique ?? Date.now().toString(36)}-${n++}` };
    const id = await probe.create(options.owner.api, ctx);
    assert.type(id, 'string', `${probe.group}: create() returned no id`);
    const counts = (report.checked[probe.group] = { notFound: 0, scopeDenied: 0, lists: 0 });
    const requests = probe.paths(id).map(normalise);

    for (const req of requests.filter((r) => r.method === 'GET')) {
      const own = await options.owner.api.request(req.method, req.path);
      assert.is(own.status, 200, `${probe.group}: ${options.owner.label} GET ${req.path} should be 200 for its own resource: ${describe(own)}`);
    }

    for (const intruder of options.intruders) {
      for (const req of requests) {
        const res = await intruder.api.request(req.method, req.path, req.body === undefined ? {} : { body: req.body });
        const what = `${probe.group}: ${intruder.label} ${req.method} ${req.path}`;
        if (res.status === 403 && intruder.scopes) {
          const required = res.body?.error?.details?.required_scope;
          assert.is(res.body?.error?.code, 'forbidden', `${what}: ${describe(res)}`);
          assert.ok(
            typeof required === 'string' && !intruder.scopes.includes(required),
            `${what} answered 403 although the credential holds the scope: ${describe(res)}`,
          );
          counts.scopeDenied++;
          continue;
        }
        assert.is(res.status, 404, `${what} must be 404 for another workspace's resource: ${describe(res)}`);
        assert.is(res.body.error.code, 'not_found', `${what}: ${describe(res)}`);
        counts.notFound++;
      }
      if (probe.listPath) {
        const key = probe.listKey ?? 'id';
        const list = await intruder.api.get(`${probe.listPath}${probe.listPath.includes('?') ? '&' : '?'}limit=1`);
        if (list.status === 403 && intruder.scopes) {
          assert.ok(
            !intruder.scopes.includes(list.body.error.details?.required_scope),
            `${probe.group}: ${intruder.label} list 403 with the scope held: ${describe(list)}`,
          );
          counts.scopeDenied++;
        } else {
          const items = await listAll(intruder.api, probe.listPath);
          assert.not.ok(
            items.some((item) => item[key] === id),
            `${probe.group}: ${intruder.label}'s ${probe.listPath} lists the other workspace's ${id}`,
          );
          counts.lists++;
        }
      }
    }

    // After the intruders' attempts (DELETE included) the resource is still A's, and listed for A.
    for (const req of requests.filter((r) => r.method === 'GET')) {
      const own = await options.owner.api.request(req.method, req.path);
      assert.is(own.status, 200, `${probe.group}: ${req.path} changed after the other workspace's attempts: ${describe(own)}`);
    }
    if (probe.listPath) {
      const items = await listAll(options.owner.api, probe.listPath);
      assert.ok(
        items.some((item) => item[probe.listKey ?? 'id'] === id),
        `${probe.group}: ${options.owner.label}'s ${probe.listPath} does not list its own ${id}`,
      );
    }
    await probe.intact?.(options.owner.api, id);
  }
  return report;
}

// ---------------------------------------------------------------------------------------------
// Provisioned workspaces
// ---------------------------------------------------------------------------------------------

export interface ProvisionedWorkspace {
  /** The 201 body of POST /v1/provisioning/clients. */
  body: any;
  workspaceId: string;
  /** The one-time API key as a bearer, with its scopes. */
  apiKey: IsolationSide;
  /** The owner, signed in by accepting the owner invite (every scope). */
  owner: IsolationSide;
}

/**
 * Provisions an organization with POST /v1/provisioning/clients and signs its owner in through the
 * owner invite. `subjectToken` is presented at accept (AUTH_PROVIDER=none: any non-empty string).
 */
export async function provisionWorkspace(
  platform: Client,
  provisioningKey: string,
  options: { slug: string; ownerEmail: string; subjectToken?: string },
): Promise<ProvisionedWorkspace> {
  const res = await platform.post(
    '/v1/provisioning/clients',
    { organization: { name: `Org ${options.slug}`, slug: options.slug }, owner: { email: options.ownerEmail } },
    { token: provisioningKey },
  );
  assert.is(res.status, 201, `provisioning ${options.slug}: ${describe(res)}`);
  const invitationToken = new URL(res.body.owner_invite.url).searchParams.get('token');
  assert.ok(invitationToken, 'owner invite url carries a token');
  const accepted = await platform.post('/v1/invitations/accept', {
    invitation_token: invitationToken,
    subject_token: options.subjectToken ?? `owner-of-${options.slug}`,
  });
  assert.is(accepted.status, 200, `accepting the owner invite of ${options.slug}: ${describe(accepted)}`);
  assert.is(accepted.body.workspace_id, res.body.workspace.id);
  return {
    body: res.body,
    workspaceId: res.body.workspace.id,
    apiKey: { label: `${options.slug} API key`, api: platform.as(res.body.api_key.secret), scopes: res.body.api_key.scopes },
    owner: { label: `${options.slug} owner`, api: platform.as(accepted.body.access_token) },
  };
}

// ---------------------------------------------------------------------------------------------
// Probes of the resource groups that exist (issue 3). Add new groups below, one probe each.
// ---------------------------------------------------------------------------------------------

const future = () => new Date(Date.now() + 30 * 24 * 3600 * 1000).toISOString();

async function created(res: HttpResponse, what: string): Promise<any> {
  assert.is(res.status, 201, `creating ${what}: ${describe(res)}`);
  return res.body;
}

async function createServiceAccount(api: Client, ctx: ProbeContext): Promise<string> {
  return (await created(await api.post('/v1/service-accounts', { name: `iso-sa-${ctx.unique}`, scopes: ['jobs:read'] }), 'a service account')).id;
}

registerIsolationProbe({
  group: 'service-accounts',
  create: createServiceAccount,
  paths: (id) => [
    `GET /v1/service-accounts/${id}`,
    `GET /v1/service-accounts/${id}/tokens`,
    { method: 'POST', path: `/v1/service-accounts/${id}/tokens`, body: { name: 'intruder', expires_at: future() } },
    `DELETE /v1/service-accounts/${id}`,
  ],
  listPath: '/v1/service-accounts',
});

registerIsolationProbe({
  group: 'service-account-tokens',
  async create(api, ctx) {
    const account = await createServiceAccount(api, ctx);
    const token = await created(await api.post(`/v1/service-accounts/${account}/tokens`, { name: 'iso', expires_at: future() }), 'a service-account token');
    return `${account}/${token.id}`;
  },
  paths: (id) => {
    const [account, token] = id.split('/');
    return [`GET /v1/service-accounts/${account}/tokens`, `DELETE /v1/service-accounts/${account}/tokens/${token}`];
  },
  async intact(api, id) {
    const [account, token] = id.split('/');
    const tokens = await listAll(api, `/v1/service-accounts/${account}/tokens`);
    assert.is(tokens.find((t) => t.id === token)?.status, 'active', 'the token is still active');
  },
});

registerIsolationProbe({
  group: 'invitations',
  async create(api, ctx) {
    return (await created(await api.post('/v1/invitations', { email: `iso-inv-${ctx.unique}@example.com`, role: 'viewer' }), 'an invitation')).id;
  },
  paths: (id) => [`DELETE /v1/invitations/${id}`],
  listPath: '/v1/invitations',
  async intact(api, id) {
    const invitations = await listAll(api, '/v1/invitations');
    assert.is(invitations.find((i) => i.id === id)?.status, 'pending', 'the invitation is still pending');
  },
});

registerIsolationProbe({
  group: 'members',
  async create(api, ctx) {
    const email = `iso-member-${ctx.unique}@example.com`;
    const invitation = await created(await api.post('/v1/invitations', { email, role: 'member' }), 'an invitation');
    const token = new URL(invitation.url).searchParams.get('token')!;
    const accepted = await ctx.anonymous.post('/v1/invitations/accept', { invitation_token: token, subject_token: await ctx.subjectTokenFor(email) });
    assert.is(accepted.status, 200, `accepting ${email}: ${describe(accepted)}`);
    const members = await listAll(api, '/v1/members');
    const member = members.find((m) => m.email === email);
    assert.ok(member, `${email} is listed as a member after accepting`);
    return member!.user_id as string;
  },
  paths: (id) => [{ method: 'PATCH', path: `/v1/members/${id}`, body: { role: 'viewer' } }, `DELETE /v1/members/${id}`],
  listPath: '/v1/members',
  listKey: 'user_id',
  async intact(api, id) {
    const members = await listAll(api, '/v1/members');
    assert.is(members.find((m) => m.user_id === id)?.role, 'member', 'the member keeps its role');
  },
});

registerIsolationProbe({
  group: 'jobs',
  async create(api, ctx) {
    // Inviting someone enqueues a mail__send job in the inviting workspace.
    await created(await api.post('/v1/invitations', { email: `iso-job-${ctx.unique}@example.com`, role: 'viewer' }), 'an invitation');
    const jobs = await api.get('/v1/jobs?kind=mail__send&limit=1');
    assert.is(jobs.status, 200, describe(jobs));
    assert.ok(jobs.body.data[0], 'the invitation enqueued a mail__send job');
    return jobs.body.data[0].id;
  },
  paths: (id) => [`GET /v1/jobs/${id}`, `POST /v1/jobs/${id}/cancel`],
  listPath: '/v1/jobs',
  async intact(api, id) {
    const job = await api.get(`/v1/jobs/${id}`);
    assert.is.not(job.body.status, 'cancelled', 'the job was not cancelled');
  },
});

registerIsolationProbe({
  group: 'audit-events',
  async create(api, ctx) {
    await createServiceAccount(api, ctx);
    const events = await api.get('/v1/audit-events?action=service_account.created&limit=1');
    assert.is(events.status, 200, describe(events));
    assert.ok(events.body.data[0], 'creating a service account wrote an audit event');
    return events.body.data[0].id;
  },
  // Audit events have no per-id route; the list is the only way to read them.
  paths: () => [],
  listPath: '/v1/audit-events',
});

// Issue 4: issues, the review queue, config versions, the event feed and sources.

async function ingestOne(api: Client, ctx: ProbeContext, record: Record<string, unknown>): Promise<string> {
  const res = await api.post(
    '/v1/ingest/events',
    { external_id: `iso-${ctx.unique}`, title: 'Isolation probe', source: 'iso', ...record },
    { headers: { 'idempotency-key': `iso-${ctx.unique}` } },
  );
  assert.is(res.status, 202, `ingesting: ${describe(res)}`);
  return res.body.issue_id;
}

registerIsolationProbe({
  group: 'issues',
  // Without a narrative: its root cause is answered (abstained) without an engine run.
  create: async (api) => (await created(await api.post('/v1/issues', { title: 'Isolation probe', severity: 'low' }), 'an issue')).id,
  paths: (id) => [
    `GET /v1/issues/${id}`,
    `GET /v1/issues/${id}/events`,
    `GET /v1/issues/${id}/root-cause`,
    { method: 'PATCH', path: `/v1/issues/${id}`, body: { title: 'taken over' } },
    `POST /v1/issues/${id}/close`,
    // Issue 31: its grouping, and people's corrections of it.
    `GET /v1/issues/${id}/grouping`,
    { method: 'POST', path: `/v1/issues/${id}/move`, body: { pattern_id: null } },
    { method: 'POST', path: `/v1/issues/${id}/keep-apart`, body: { issue_id: randomUUID() } },
  ],
  listPath: '/v1/issues',
  async intact(api, id) {
    const res = await api.get(`/v1/issues/${id}`);
    assert.equal([res.body.title, res.body.status], ['Isolation probe', 'open']);
  },
});

registerIsolationProbe({
  group: 'grouping-decisions',
  // Issue 31: keeping two plain issues apart is a decision without any engine run.
  async create(api) {
    const issue = async () => (await created(await api.post('/v1/issues', { title: 'Isolation probe', severity: 'low' }), 'an issue')).id;
    const [a, b] = [await issue(), await issue()];
    return (await created(await api.post(`/v1/issues/${a}/keep-apart`, { issue_id: b }), 'a grouping decision')).id;
  },
  paths: (id) => [`GET /v1/grouping-decisions/${id}`, { method: 'POST', path: `/v1/grouping-decisions/${id}/undo` }],
  listPath: '/v1/grouping-decisions',
  async intact(api, id) {
    assert.is((await api.get(`/v1/grouping-decisions/${id}`)).body.status, 'active');
  },
});

registerIsolationProbe({
  group: 'review-queue',
  async create(api, ctx) {
    const issueId = await ingestOne(api, ctx, {});
    const items = await api.get(`/v1/review-queue?issue_id=${issueId}`);
    assert.is(items.status, 200, describe(items));
    return items.body.data[0].id;
  },
  paths: (id) => [
    `GET /v1/review-queue/${id}`,
    { method: 'POST', path: `/v1/review-queue/${id}/resolve`, body: { decision: { narrative: 'taken over' } } },
    { method: 'POST', path: `/v1/review-queue/${id}/dismiss`, body: {} },
  ],
  listPath: '/v1/review-queue',
  async intact(api, id) {
    assert.is((await api.get(`/v1/review-queue/${id}`)).body.status, 'open');
  },
});

registerIsolationProbe({
  group: 'config-versions',
  async create(api, ctx) {
    const rubric = (await api.get('/v1/configs/rubric')).body.active.document;
    const document = { ...rubric, signals: [...rubric.signals, { term: `iso ${ctx.unique}`, weight: 0.1 }] };
    const res = await api.post('/v1/configs/rubric/versions', document, { headers: { 'idempotency-key': `iso-cfg-${ctx.unique}` } });
    assert.is(res.status, 201, `creating a config version: ${describe(res)}`);
    return res.body.id;
  },
  // Activation is under /v1/configs/ and needs an Idempotency-Key, so it is covered by configs.test.ts.
  paths: (id) => [`GET /v1/configs/rubric/versions/${id}`],
});

registerIsolationProbe({
  group: 'workspace-feed',
  async create(api, ctx) {
    await ingestOne(api, ctx, { narrative: 'an event for the feed' });
    const feed = await listAll(api, '/v1/workspaces/current/events');
    return String(feed.at(-1)!.id);
  },
  paths: () => [],
  listPath: '/v1/workspaces/current/events',
});

registerIsolationProbe({
  group: 'sources',
  async create(api, ctx) {
    const source = `iso-source-${ctx.unique}`;
    await ingestOne(api, ctx, { source, narrative: 'a source of its own' });
    return source;
  },
  paths: () => [],
  listPath: '/v1/sources',
  listKey: 'source',
});

// Issue 5: engine runs.

registerIsolationProbe({
  group: 'engine-runs',
  async create(api, ctx) {
    const res = await api.post('/v1/engine/runs', {}, { headers: { 'idempotency-key': `iso-engine-${ctx.unique}` } });
    assert.is(res.status, 202, `triggering an engine run: ${describe(res)}`);
    return res.body.run_id;
  },
  paths: (id) => [`GET /v1/engine/runs/${id}`, `POST /v1/engine/runs/${id}/replay`],
  listPath: '/v1/engine/runs',
});

// Issue 6: a pattern's hazard, financials, counterfactuals and root causes; alerts; predictions and
// backtests; recommendations and their verification. Their resources come from an engine run over
// issues with occurrence times (test/helpers/forecastFixture.ts), once per workspace; the app needs a
// worker.

const engineResults = new WeakMap<Client, Promise<{ runId: string; patternId: string; alertId: string; predictionId: string; recommendationId: string }>>();

function engineResultsOf(api: Client) {
  let results = engineResults.get(api);
  if (!results) {
    results = (async () => {
      const { records } = await forecastFixture(Date.now());
      const ingested = await api.post('/v1/ingest/batch', { records }, { headers: { 'idempotency-key': randomUUID() } });
      assert.is(ingested.status, 202, `ingesting: ${describe(ingested)}`);
      const started = await api.post('/v1/engine/runs', {}, { headers: { 'idempotency-key': randomUUID() } });
      assert.is(started.status, 202, `triggering an engine run: ${describe(started)}`);
      const runId = started.body.run_id;
      for (let i = 0; (await api.get(`/v1/engine/runs/${runId}`)).body.status !== 'succeeded'; i++) {
        if (i > 600) throw new Error(`engine run ${runId} did not succeed`);
        await new Promise((r) => setTimeout(r, 100));
      }
      const alert = (await api.get('/v1/alerts?limit=1')).body.data[0];
      const prediction = (await api.get(`/v1/predictions?pattern_id=${alert.pattern_id}`)).body.data[0];
      const recommendation = (await api.get(`/v1/recommendations?pattern_id=${alert.pattern_id}`)).body.data[0];
      assert.ok(alert && prediction && recommendation?.status === 'proposed', 'the run alerted, predicted and recommended a fix for a pattern');
      return { runId, patternId: alert.pattern_id, alertId: alert.id, predictionId: prediction.id, recommendationId: recommendation.id };
    })();
    engineResults.set(api, results);
  }
  return results;
}

registerIsolationProbe({
  group: 'pattern-results',
  create: async (api) => (await engineResultsOf(api)).patternId,
  paths: (id) => [
    `GET /v1/patterns/${id}/hazard`,
    `GET /v1/patterns/${id}/financials`,
    `GET /v1/patterns/${id}/counterfactuals?reduction=0.5`,
    `GET /v1/patterns/${id}/root-causes`,
  ],
  listPath: '/v1/patterns',
});

registerIsolationProbe({
  group: 'alerts',
  create: async (api) => (await engineResultsOf(api)).alertId,
  paths: (id) => [`GET /v1/alerts/${id}`],
  listPath: '/v1/alerts',
});

registerIsolationProbe({
  group: 'predictions',
  create: async (api) => (await engineResultsOf(api)).predictionId,
  paths: (id) => [`GET /v1/predictions/${id}`],
  listPath: '/v1/predictions',
});

registerIsolationProbe({
  group: 'backtests',
  create: async (api) => (await engineResultsOf(api)).runId,
  paths: () => [],
  listPath: '/v1/predictions/backtests',
  listKey: 'run_id',
});

registerIsolationProbe({
  group: 'recommendations',
  async create(api) {
    const { recommendationId } = await engineResultsOf(api);
    const current = await api.get(`/v1/recommendations/${recommendationId}`);
    if (current.body.status !== 'implemented') {
      const res = await api.post(`/v1/recommendations/${recommendationId}/implemented`, {
        implemented_at: new Date(Date.now() - 100 * 86_400_000).toISOString(),
      });
      assert.is(res.status, 200, `recording the fix: ${describe(res)}`);
    }
    return recommendationId;
  },
  paths: (id) => [
    `GET /v1/recommendations/${id}`,
    `GET /v1/recommendations/${id}/verification`,
    { method: 'POST', path: `/v1/recommendations/${id}/implemented`, body: { implemented_at: new Date().toISOString() } },
  ],
  listPath: '/v1/recommendations',
  async intact(api, id) {
    const res = await api.get(`/v1/recommendations/${id}`);
    assert.ok(Date.parse(res.body.implemented_at) < Date.now() - 99 * 86_400_000, 'the fix date is the owner’s');
  },
});

registerIsolationProbe({
  group: 'reports',
  async create(api) {
    const { patternId } = await engineResultsOf(api);
    const res = await api.post('/v1/reports/jobs', { kind: 'pattern_brief', pattern_id: patternId });
    assert.is(res.status, 202, `requesting a report: ${describe(res)}`);
    return res.body.id;
  },
  paths: (id) => [`GET /v1/reports/jobs/${id}`],
});

registerIsolationProbe({
  group: 'report-runs',
  create: async (api) => (await engineResultsOf(api)).runId,
  // Another workspace's run (and so its patterns) cannot be reported on.
  paths: (id) => [{ method: 'POST', path: '/v1/reports/jobs', body: { kind: 'workspace_risk', run_id: id } }],
});

registerIsolationProbe({
  group: 'exports',
  async create(api) {
    const res = await api.post('/v1/exports', { resource: 'issues', format: 'csv' });
    assert.is(res.status, 202, `requesting an export: ${describe(res)}`);
    return res.body.id;
  },
  paths: (id) => [`GET /v1/exports/${id}`],
});

registerIsolationProbe({
  group: 'api-keys',
  async create(api, ctx) {
    return (await created(await api.post('/v1/api-keys', { note: `iso-key-${ctx.unique}` }), 'an API key')).id;
  },
  paths: (id) => [
    `GET /v1/api-keys/${id}`,
    { method: 'PATCH', path: `/v1/api-keys/${id}`, body: { expires_at: new Date(Date.now() - 1000).toISOString() } },
    `DELETE /v1/api-keys/${id}`,
  ],
  listPath: '/v1/api-keys',
  async intact(api, id) {
    const res = await api.get(`/v1/api-keys/${id}`);
    assert.equal([res.body.status, res.body.expires_at], ['active', null], 'the key is still active and without expiry');
  },
});

registerIsolationProbe({
  group: 'domains',
  async create(api, ctx) {
    return (await created(await api.post('/v1/domains', { domain: `iso-${ctx.unique}.example` }), 'a domain claim')).id;
  },
  paths: (id) => [{ method: 'POST', path: `/v1/domains/${id}/verify` }, `DELETE /v1/domains/${id}`],
  listPath: '/v1/domains',
  async intact(api, id) {
    const list = await listAll(api, '/v1/domains');
    assert.ok(
      list.some((d) => d.id === id),
      'the claim is still there',
    );
  },
});
