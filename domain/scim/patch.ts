/**
 * SCIM PATCH (RFC 7644 section 3.5.2) over a resource's JSON document, tolerant of what Okta and
 * Microsoft Entra actually send: `op` in any case (`Replace`, `Add`), a path-less `replace` whose
 * value object holds the attributes (keys may themselves be paths), `members[value eq "…"]` and
 * `emails[type eq "work"].value` value paths, removal of members listed in `value`, and booleans as
 * the strings "True"/"False". Sub-filters are evaluated with `scim2-parse-filter`.
 */
import { filter as compileFilter, parse } from 'scim2-parse-filter';
import { ScimError } from './errors.ts';

export interface PatchOperation {
  op: string;
  path?: string;
  value?: unknown;
}
type Doc = Record<string, unknown>;

export const ENTERPRISE_USER_SCHEMA = 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User';
export const SVC_GROUP_SCHEMA = 'urn:svc:params:scim:schemas:extension:2.0:Group';
const EXTENSION_SCHEMAS = [ENTERPRISE_USER_SCHEMA, SVC_GROUP_SCHEMA].map((s) => s.toLowerCase());

const invalidPath = (detail: string) => new ScimError(400, detail, 'invalidPath');
const isObject = (value: unknown): value is Doc => typeof value === 'object' && value !== null && !Array.isArray(value);

/** The key of `name` in `doc`, matched case-insensitively (SCIM attribute names are case-insensitive). */
/** The key of a document's attribute, matched without regard to case (RFC 7643 section 2.1); `name` itself when absent. */
export const keyOf = (doc: Doc, name: string) => Object.keys(doc).find((k) => k.toLowerCase() === name.toLowerCase()) ?? name;

interface ParsedPath {
  /** Schema-extension container (`urn:…:enterprise:2.0:User`), when the path is qualified by one. */
  container: string | null;
  attribute: string;
  filter: string | null;
  sub: string | null;
}

export function parsePath(path: string, coreSchema: string): ParsedPath {
  let rest = path.trim();
  let container: string | null = null;
  if (rest.toLowerCase().startsWith('urn:')) {
    const bracket = rest.indexOf('[');
    const head = bracket >= 0 ? rest.slice(0, bracket) : rest;
    const colon = head.lastIndexOf(':');
    const urn = head.slice(0, colon);
    rest = rest.slice(colon + 1);
    if (urn.toLowerCase() !== coreSchema.toLowerCase()) container = urn;
  }
  const match = /^([A-Za-z$][\w$-]*)(?:\[(.+)\])?(?:\.([A-Za-z$][\w$-]*))?$/.exec(rest);
  if (!match) throw invalidPath(`'${path}' is not a supported attribute path`);
  const [, attribute, filterText, subAttribute] = match;
  // `name.givenName` is a sub-attribute path without a filter.
  return { container, attribute, filter: filterText ?? null, sub: subAttribute ?? null };
}

function matcher(filterText: string): (element: unknown) => boolean {
  try {
    const test = compileFilter(parse(filterText));
    return (element) => isObject(element) && test(element);
  } catch (err) {
    throw new ScimError(400, `The path filter '${filterText}' is not valid: ${(err as Error).message}`, 'invalidFilter');
  }
}

/** `type eq "work"` → {type: "work"}: the element a replace through a filter creates when none matches. */
function elementFromFilter(filterText: string): Doc | null {
  const node = parse(filterText);
  return node.op === 'eq' ? { [node.attrPath]: node.compValue } : null;
}

const sameValue = (a: unknown, b: unknown) => isObject(a) && isObject(b) && a.value !== undefined && String(a.value) === String(b.value);

function addValues(existing: unknown, value: unknown): unknown {
  if (!Array.isArray(existing)) return isObject(existing) && isObject(value) ? { ...existing, ...value } : value;
  const additions = Array.isArray(value) ? value : [value];
  return [...existing, ...additions.filter((item) => !existing.some((e) => sameValue(e, item)))];
}

function applyOne(doc: Doc, op: 'add' | 'replace' | 'remove', path: string, value: unknown, coreSchema: string): void {
  const parsed = parsePath(path, coreSchema);
  let target = doc;
  if (parsed.container) {
    const key = keyOf(doc, parsed.container);
    if (!isObject(doc[key])) doc[key] = {};
    target = doc[key] as Doc;
  }
  const key = keyOf(target, parsed.attribute);

  if (parsed.filter) {
    const list = target[key];
    const matches = matcher(parsed.filter);
    if (op === 'remove') {
      if (!Array.isArray(list)) return;
      if (parsed.sub) for (const element of list.filter(matches)) delete (element as Doc)[keyOf(element as Doc, parsed.sub)];
      else target[key] = list.filter((element) => !matches(element));
      return;
    }
    const elements = Array.isArray(list) ? list : [];
    const hits = elements.filter(matches);
    if (!hits.length) {
      const created = elementFromFilter(parsed.filter);
      if (!created) throw new ScimError(400, `No value matches '${path}'`, 'noTarget');
      const element = parsed.sub ? { ...created, [parsed.sub]: value } : { ...created, ...(isObject(value) ? value : { value }) };
      target[key] = [...elements, element];
      return;
    }
    for (const hit of hits as Doc[]) {
      if (parsed.sub) hit[keyOf(hit, parsed.sub)] = value;
      else if (isObject(value)) Object.assign(hit, value);
    }
    return;
  }

  if (parsed.sub) {
    if (!isObject(target[key])) target[key] = {};
    const parent = target[key] as Doc;
    const subKey = keyOf(parent, parsed.sub);
    if (op === 'remove') delete parent[subKey];
    else parent[subKey] = value;
    return;
  }
  if (op === 'remove') {
    // Entra removes group members by listing them in `value`.
    if (value !== undefined && Array.isArray(target[key])) {
      const removals = Array.isArray(value) ? value : [value];
      target[key] = (target[key] as unknown[]).filter((e) => !removals.some((r) => sameValue(e, r)));
    } else {
      delete target[key];
    }
    return;
  }
  if (op === 'add') target[key] = addValues(target[key], value);
  else target[key] = isObject(target[key]) && isObject(value) ? { ...(target[key] as Doc), ...value } : value;
}

/** Applies the operations to a copy of `doc` and returns it. */
export function applyPatch(doc: Doc, operations: PatchOperation[], coreSchema: string): Doc {
  const next = structuredClone(doc);
  for (const operation of operations) {
    const op = String(operation.op ?? '').toLowerCase();
    if (op !== 'add' && op !== 'replace' && op !== 'remove')
      throw new ScimError(400, `'${operation.op}' is not a PATCH operation (add, remove, replace)`, 'invalidSyntax');
    if (operation.path === undefined || operation.path === null || operation.path === '') {
      if (op === 'remove') throw new ScimError(400, 'remove needs a path', 'noTarget');
      if (!isObject(operation.value)) throw new ScimError(400, `A ${op} without a path needs an object value`, 'invalidValue');
      for (const [attribute, value] of Object.entries(operation.value)) {
        // A whole extension object (`"urn:…:enterprise:2.0:User": {…}`) merges into that extension.
        if (EXTENSION_SCHEMAS.includes(attribute.toLowerCase()) && isObject(value)) {
          const key = keyOf(next, attribute);
          next[key] = { ...(isObject(next[key]) ? (next[key] as Doc) : {}), ...value };
        } else {
          applyOne(next, op, attribute, value, coreSchema);
        }
      }
      continue;
    }
    if (typeof operation.path !== 'string') throw invalidPath('path must be a string');
    if (op !== 'remove' && operation.value === undefined) throw new ScimError(400, `${op} needs a value`, 'invalidValue');
    applyOne(next, op, operation.path, operation.value, coreSchema);
  }
  return next;
}

/** SCIM booleans arrive as JSON booleans or (Entra) the strings "True"/"False". */
export function scimBoolean(value: unknown, attribute: string): boolean {
  if (typeof value === 'boolean') return value;
  if (typeof value === 'string' && /^(true|false)$/i.test(value.trim())) return value.trim().toLowerCase() === 'true';
  throw new ScimError(400, `${attribute} must be a boolean`, 'invalidValue');
}
