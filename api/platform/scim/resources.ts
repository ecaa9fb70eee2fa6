/**
 * SCIM Users and Groups as the API shows them (RFC 7643 resources with meta.location) and the
 * attributes a list filter may name. What a client may send and the writes are
 * domain/scim/documents.ts and usecases/scim/{users,groups}.ts.
 */
import type { Queryable } from '../../../lib/db.ts';
import { GROUP_SCHEMA, USER_SCHEMA } from '../../../domain/scim/documents.ts';
import { ENTERPRISE_USER_SCHEMA, SVC_GROUP_SCHEMA } from '../../../domain/scim/patch.ts';
import * as scim from '../../../sql/scim.ts';
import type { FilterAttribute } from './filter.ts';

export const LIST_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:ListResponse';
export const PATCH_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';

const EMAIL_SUB_ATTRIBUTES = ['value', 'type', 'primary'] as const;
export const userFilterAttributes: Record<string, FilterAttribute> = {
  id: { kind: 'column', sql: 'id::text', caseExact: true },
  userName: { kind: 'column', sql: 'user_name', caseExact: false },
  externalId: { kind: 'column', sql: 'external_id', caseExact: true },
  displayName: { kind: 'column', sql: 'display_name', caseExact: false },
  active: { kind: 'column', sql: 'active::text', caseExact: false },
  'emails.value': { kind: 'jsonArray', column: 'emails', key: 'value', caseExact: false, subAttributes: EMAIL_SUB_ATTRIBUTES },
  'emails.type': { kind: 'jsonArray', column: 'emails', key: 'type', caseExact: false, subAttributes: EMAIL_SUB_ATTRIBUTES },
  emails: { kind: 'jsonArray', column: 'emails', key: 'value', caseExact: false, subAttributes: EMAIL_SUB_ATTRIBUTES },
  'name.givenName': { kind: 'column', sql: 'given_name', caseExact: false },
  'name.familyName': { kind: 'column', sql: 'family_name', caseExact: false },
};

export const groupFilterAttributes: Record<string, FilterAttribute> = {
  id: { kind: 'column', sql: 'id::text', caseExact: true },
  displayName: { kind: 'column', sql: 'display_name', caseExact: false },
  externalId: { kind: 'column', sql: 'external_id', caseExact: true },
};

export function toScimUser(row: scim.ScimUserRow, groups: Array<{ id: string; display_name: string }>, base: string) {
  const document = row.extra;
  const schemas = [
    USER_SCHEMA,
    ...(Object.keys(document).some((k) => k.toLowerCase() === ENTERPRISE_USER_SCHEMA.toLowerCase()) ? [ENTERPRISE_USER_SCHEMA] : []),
  ];
  return {
    schemas,
    id: row.id,
    ...document,
    userName: row.user_name,
    ...(row.external_id !== null ? { externalId: row.external_id } : {}),
    active: row.active,
    emails: row.emails,
    groups: groups.map((g) => ({ value: g.id, display: g.display_name, $ref: `${base}/Groups/${g.id}` })),
    meta: { resourceType: 'User', created: row.created_at.toISOString(), lastModified: row.updated_at.toISOString(), location: `${base}/Users/${row.id}` },
  };
}

export async function renderUsers(db: Queryable, rows: scim.ScimUserRow[], base: string) {
  const memberships = rows.length
    ? await scim.groupsOfScimUsers(
        db,
        rows.map((r) => r.id),
      )
    : [];
  return rows.map((row) =>
    toScimUser(
      row,
      memberships.filter((m) => m.scim_user_id === row.id),
      base,
    ),
  );
}

export function toScimGroup(row: scim.ScimGroupRow, members: Array<{ id: string; user_name: string }> | null, base: string) {
  return {
    schemas: [GROUP_SCHEMA, SVC_GROUP_SCHEMA],
    id: row.id,
    displayName: row.display_name,
    ...(row.external_id !== null ? { externalId: row.external_id } : {}),
    ...(members ? { members: members.map((m) => ({ value: m.id, display: m.user_name, $ref: `${base}/Users/${m.id}` })) } : {}),
    [SVC_GROUP_SCHEMA]: { role: row.role },
    meta: { resourceType: 'Group', created: row.created_at.toISOString(), lastModified: row.updated_at.toISOString(), location: `${base}/Groups/${row.id}` },
  };
}
