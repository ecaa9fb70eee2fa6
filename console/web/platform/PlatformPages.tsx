/**
 * The pages the platform's e-mails and notifications link to (`<APP_URL>/platform/...`). Platform
 * workspaces are used through the bearer-token /v1 API (an organisation's own tools or app), not
 * through these consoles, and the console's proxy reaches only the product API: so each page says
 * what the link is about and gives the exact /v1 request that reads or acts on it. See
 * docs/decisions.md, "The tenant console and the links the product sends".
 */
import { useState } from 'preact/hooks';
import type { Params } from '../app/router.ts';

function CopyLine({ label, text }: { label: string; text: string }) {
  const [copied, setCopied] = useState(false);
  return (
    <div class="copy-line">
      <p class="copy-line__label">{label}</p>
      <pre>
        <code>{text}</code>
      </pre>
      <button
        type="button"
        class="secondary"
        onClick={() =>
          navigator.clipboard?.writeText(text).then(
            () => setCopied(true),
            () => setCopied(false),
          )
        }
      >
        {copied ? 'Copied' : 'Copy'}
      </button>
      <span class="visually-hidden" role="status">
        {copied ? 'Copied to the clipboard' : ''}
      </span>
    </div>
  );
}

function AboutPlatform() {
  return (
    <p>
      The svc platform is used through its API (paths under <code>/v1</code>, with an access token), from your organisation's own tools. Ask your workspace
      administrator where your organisation reads it. The consoles on this site are for staff onboarding clients and for client workspaces (
      <a href="/sign-in">sign in to a client workspace</a>).
    </p>
  );
}

/** `/platform/accept-invite?token=…`: a platform member invitation. */
export function PlatformAcceptInvite({ query }: { query: URLSearchParams }) {
  const token = query.get('token');
  return (
    <section class="card">
      <h1>Your invitation to a platform workspace</h1>
      {token ? (
        <>
          <p>
            You were invited to join a workspace on the svc platform. You accept it by signing in with your organisation's identity provider in the tool your
            organisation uses for svc, which sends this invitation token with your sign-in. The invitation works once and for 7 days.
          </p>
          <CopyLine label="Your invitation token" text={token} />
          <CopyLine
            label="The request that accepts it (subject_token: the token your identity provider issued you)"
            text={`POST /v1/invitations/accept\n{"invitation_token": "${token}", "subject_token": "<your identity token>"}`}
          />
        </>
      ) : (
        <p role="alert">This invitation link has no token. Open the link from the e-mail again, or ask for a new invitation.</p>
      )}
      <AboutPlatform />
    </section>
  );
}

const SUBJECTS: Record<string, { title: string; what: string; path: (id: string) => string }> = {
  issues: { title: 'An issue in your platform workspace', what: 'the issue', path: (id) => `/v1/issues/${id}` },
  patterns: { title: 'A pattern in your platform workspace', what: 'the pattern, its hazard and forecasts', path: (id) => `/v1/patterns/${id}` },
  alerts: { title: 'A crest alert in your platform workspace', what: 'the alert', path: (id) => `/v1/alerts/${id}` },
  recommendations: { title: 'A fix recommendation in your platform workspace', what: 'the recommendation', path: (id) => `/v1/recommendations/${id}` },
};

/** `/platform/{issues|patterns|alerts|recommendations}/{id}`: what a notification was about. */
export function PlatformSubject({ params }: { params: Params }) {
  const subject = SUBJECTS[params.kind];
  if (!subject) return <PlatformHome />;
  return (
    <section class="card">
      <h1>{subject.title}</h1>
      <p>
        This link comes from a notification of the svc platform. It names {subject.what} with the id <code>{params.id}</code>.
      </p>
      <CopyLine label="The request that reads it" text={`GET ${subject.path(params.id)}`} />
      <AboutPlatform />
    </section>
  );
}

/** `/platform/members`: a member was invited (the member_invited notification). */
export function PlatformMembers() {
  return (
    <section class="card">
      <h1>Members of your platform workspace</h1>
      <p>This link comes from a notification that someone was invited to your svc platform workspace.</p>
      <CopyLine label="The requests that list members and invitations" text={'GET /v1/members\nGET /v1/invitations'} />
      <AboutPlatform />
    </section>
  );
}

/** `/platform`: the weekly digest's link. */
export function PlatformHome() {
  return (
    <section class="card">
      <h1>Your svc platform workspace</h1>
      <p>This link comes from an svc platform e-mail such as the weekly digest.</p>
      <CopyLine label="Where to start: the workspace's sections and counts" text={'GET /v1/shell/nav'} />
      <AboutPlatform />
    </section>
  );
}
