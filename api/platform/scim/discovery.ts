/** SCIM discovery (RFC 7643 sections 5-7): ServiceProviderConfig, ResourceTypes and Schemas. */
import { GROUP_SCHEMA, USER_SCHEMA } from '../../../domain/scim/documents.ts';
import { ENTERPRISE_USER_SCHEMA, SVC_GROUP_SCHEMA } from '../../../domain/scim/patch.ts';
import { LIST_SCHEMA } from './resources.ts';

const attr = (name: string, type: string, extra: Record<string, unknown> = {}) => ({
  name,
  type,
  multiValued: false,
  required: false,
  caseExact: false,
  mutability: 'readWrite',
  returned: 'default',
  uniqueness: 'none',
  ...extra,
});

const schemas = (base: string) => [
  {
    schemas: ['urn:ietf:params:scim:schemas:core:2.0:Schema'],
    id: USER_SCHEMA,
    name: 'User',
    description: 'A workspace member provisioned by the identity provider',
    attributes: [
      attr('userName', 'string', { required: true, uniqueness: 'server' }),
      attr('externalId', 'string', { caseExact: true }),
      attr('name', 'complex', { subAttributes: [attr('givenName', 'string'), attr('familyName', 'string'), attr('formatted', 'string')] }),
      attr('displayName', 'string'),
      attr('active', 'boolean'),
      attr('emails', 'complex', { multiValued: true, subAttributes: [attr('value', 'string'), attr('type', 'string'), attr('primary', 'boolean')] }),
      attr('groups', 'complex', {
        multiValued: true,
        mutability: 'readOnly',
        subAttributes: [attr('value', 'string'), attr('display', 'string'), attr('$ref', 'reference')],
      }),
    ],
    meta: { resourceType: 'Schema', location: `${base}/Schemas/${USER_SCHEMA}` },
  },
  {
    schemas: ['urn:ietf:params:scim:schemas:core:2.0:Schema'],
    id: GROUP_SCHEMA,
    name: 'Group',
    description: 'A group whose members hold its workspace role',
    attributes: [
      attr('displayName', 'string', { required: true, uniqueness: 'server' }),
      attr('externalId', 'string', { caseExact: true }),
      attr('members', 'complex', { multiValued: true, subAttributes: [attr('value', 'string'), attr('display', 'string'), attr('$ref', 'reference')] }),
    ],
    meta: { resourceType: 'Schema', location: `${base}/Schemas/${GROUP_SCHEMA}` },
  },
  {
    schemas: ['urn:ietf:params:scim:schemas:core:2.0:Schema'],
    id: SVC_GROUP_SCHEMA,
    name: 'svc group role',
    description: 'The workspace role of a group: admin, member or viewer (default: read from displayName, else member)',
    attributes: [attr('role', 'string', { canonicalValues: ['admin', 'member', 'viewer'] })],
    meta: { resourceType: 'Schema', location: `${base}/Schemas/${SVC_GROUP_SCHEMA}` },
  },
];

const resourceTypes = (base: string) => [
  {
    schemas: ['urn:ietf:params:scim:schemas:core:2.0:ResourceType'],
    id: 'User',
    name: 'User',
    endpoint: '/Users',
    schema: USER_SCHEMA,
    schemaExtensions: [{ schema: ENTERPRISE_USER_SCHEMA, required: false }],
    meta: { resourceType: 'ResourceType', location: `${base}/ResourceTypes/User` },
  },
  {
    schemas: ['urn:ietf:params:scim:schemas:core:2.0:ResourceType'],
    id: 'Group',
    name: 'Group',
    endpoint: '/Groups',
    schema: GROUP_SCHEMA,
    schemaExtensions: [{ schema: SVC_GROUP_SCHEMA, required: false }],
    meta: { resourceType: 'ResourceType', location: `${base}/ResourceTypes/Group` },
  },
];

const listOf = <T>(items: T[]) => ({ schemas: [LIST_SCHEMA], totalResults: items.length, startIndex: 1, itemsPerPage: items.length, Resources: items });

export const discoveryDocuments = {
  ServiceProviderConfig: (base: string) => ({
    schemas: ['urn:ietf:params:scim:schemas:core:2.0:ServiceProviderConfig'],
    documentationUri: `${base.replace(/\/scim\/v2\/[^/]+$/, '')}/docs`,
    patch: { supported: true },
    bulk: { supported: false, maxOperations: 0, maxPayloadSize: 0 },
    filter: { supported: true, maxResults: 200 },
    changePassword: { supported: false },
    sort: { supported: false },
    etag: { supported: false },
    authenticationSchemes: [{ type: 'oauthbearertoken', name: 'SCIM bearer token', description: 'A token created at POST /v1/scim/tokens', primary: true }],
    meta: { resourceType: 'ServiceProviderConfig', location: `${base}/ServiceProviderConfig` },
  }),
  Schemas: (base: string) => listOf(schemas(base)),
  ResourceTypes: (base: string) => listOf(resourceTypes(base)),
};
