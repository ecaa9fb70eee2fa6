/**
 * The SCIM User and Group documents (RFC 7643) as svc reads them: what a client may send, the
 * columns derived from it (the stored document keeps what the client sent), the e-mail address a
 * provisioned account carries, and a group's workspace role. Pure; invalid documents are ScimErrors.
 */
import { invalidValue, ScimError } from './errors.ts';
import { keyOf, scimBoolean, SVC_GROUP_SCHEMA } from './patch.ts';

export const USER_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:User';
export const GROUP_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:Group';

export type ScimDocument = Record<string, unknown>;
type Doc = ScimDocument;
const isObject = (value: unknown): value is Doc => typeof value === 'object' && value !== null && !Array.isArray(value);
const optionalString = (value: unknown, attribute: string): string | null => {
  if (value === undefined || value === null || value === '') return null;
  if (typeof value !== 'string') throw invalidValue(`${attribute} must be a string`);
  return value;
};
/** A string attribute the document must carry (trimmed, not empty). */
function requiredString(value: unknown, attribute: string): string {
  const text = optionalString(value, attribute)?.trim();
  if (!text) throw invalidValue(`${attribute} is required`);
  return text;
}
const READ_ONLY = ['id', 'meta', 'groups', 'password', 'schemas'];

export interface ScimEmail {
  value: string;
  type?: string;
  primary?: boolean;
}

/** A User document's columns, and the document to store. */
export interface ScimUserFields {
  userName: string;
  externalId: string | null;
  active: boolean;
  displayName: string | null;
  givenName: string | null;
  familyName: string | null;
  emails: ScimEmail[];
  document: Record<string, unknown>;
}

/** Validates a User document and derives its columns; the stored document keeps what the client sent. */
export function userFields(input: unknown): ScimUserFields {
  if (!isObject(input)) throw new ScimError(400, 'The body must be a SCIM User object', 'invalidSyntax');
  const document: Doc = {};
  for (const [key, value] of Object.entries(input)) if (!READ_ONLY.includes(key.toLowerCase()) && value !== undefined) document[key] = value;
  const get = (name: string) => document[keyOf(document, name)];
  const userName = requiredString(get('userName'), 'userName');
  const rawEmails = get('emails') ?? [];
  if (!Array.isArray(rawEmails)) throw invalidValue('emails must be an array');
  const emails = rawEmails.map((e, i) => {
    if (!isObject(e) || typeof e.value !== 'string' || !e.value.includes('@')) throw invalidValue(`emails[${i}].value must be an e-mail address`);
    return {
      value: e.value.trim(),
      ...(typeof e.type === 'string' ? { type: e.type } : {}),
      ...(e.primary !== undefined ? { primary: scimBoolean(e.primary, 'emails.primary') } : {}),
    };
  });
  const active = get('active') === undefined || get('active') === null ? true : scimBoolean(get('active'), 'active');
  const name = get('name');
  if (name !== undefined && name !== null && !isObject(name)) throw invalidValue('name must be an object');
  for (const key of Object.keys(document)) {
    const lower = key.toLowerCase();
    if (lower === 'active') document[key] = active;
    if (lower === 'emails') document[key] = emails;
    if (lower === 'username') document[key] = userName;
  }
  return {
    userName,
    externalId: optionalString(get('externalId'), 'externalId'),
    active,
    displayName: optionalString(get('displayName'), 'displayName'),
    givenName: isObject(name) ? optionalString(name.givenName, 'name.givenName') : null,
    familyName: isObject(name) ? optionalString(name.familyName, 'name.familyName') : null,
    emails,
    document: { ...document, active },
  };
}

/** The address the `users` row carries: the primary e-mail, else the first, else an e-mail userName. */
export function emailOf(f: ScimUserFields): string {
  const email = f.emails.find((e) => e.primary)?.value ?? f.emails[0]?.value ?? (f.userName.includes('@') ? f.userName : null);
  if (!email) throw invalidValue('An e-mail address is required: in emails or as the userName');
  return email.toLowerCase();
}

export const displayNameOf = (f: ScimUserFields) => f.displayName ?? ([f.givenName, f.familyName].filter(Boolean).join(' ') || f.userName);

export const scimGroupRoles = ['admin', 'member', 'viewer'] as const;
/** A group's workspace role: the svc extension's `role`, else read from the name ("Admins", "Viewers"), else member. */
function groupRole(displayName: string, extension: unknown): (typeof scimGroupRoles)[number] {
  if (isObject(extension) && extension.role !== undefined) {
    if (!scimGroupRoles.includes(extension.role as (typeof scimGroupRoles)[number]))
      throw invalidValue(`${SVC_GROUP_SCHEMA}:role must be one of ${scimGroupRoles.join(', ')}`);
    return extension.role as (typeof scimGroupRoles)[number];
  }
  if (/admin/i.test(displayName)) return 'admin';
  if (/viewer|read.?only/i.test(displayName)) return 'viewer';
  return 'member';
}

export interface ScimGroupFields {
  displayName: string;
  externalId: string | null;
  role: (typeof scimGroupRoles)[number];
  members: string[];
}

/** Validates a Group document and derives its columns, role and member ids. */
export function groupFields(input: unknown): ScimGroupFields {
  if (!isObject(input)) throw new ScimError(400, 'The body must be a SCIM Group object', 'invalidSyntax');
  const get = (name: string) => input[keyOf(input, name)];
  const displayName = requiredString(get('displayName'), 'displayName');
  const members = get('members') ?? [];
  if (!Array.isArray(members)) throw invalidValue('members must be an array');
  const ids = members.map((m, i) => {
    if (!isObject(m) || typeof m.value !== 'string') throw invalidValue(`members[${i}].value must be a User id`);
    return m.value;
  });
  return {
    displayName,
    externalId: optionalString(get('externalId'), 'externalId'),
    role: groupRole(displayName, get(SVC_GROUP_SCHEMA)),
    members: [...new Set(ids)],
  };
}
