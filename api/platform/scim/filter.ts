/**
 * SCIM filters (RFC 7644 section 3.4.2.2), parsed by `scim2-parse-filter` and translated to SQL over
 * the attributes a resource type exposes for filtering. Supported: `eq`, `ne`, `co`, `sw`, `ew`,
 * `pr`, `and`, `or`, `not`, and value filters over a multi-valued attribute's elements such as
 * `emails[type eq "work" and value eq "a@b.c"]`. Microsoft Entra's documented
 * `emails[type eq "work"].value eq "a@b.c"` parses as `emails[type eq "work"] and emails.value eq
 * "a@b.c"`. Anything else is 400 `invalidFilter`.
 */
import { parse, type Filter } from 'scim2-parse-filter';
import { ScimError } from '../../../domain/scim/errors.ts';

/** A scalar column, or a multi-valued attribute stored as a JSON array of objects (`key`: the sub-attribute `emails.value` means). */
export type FilterAttribute =
  | { kind: 'column'; sql: string; caseExact: boolean }
  | { kind: 'jsonArray'; column: string; key: string; caseExact: boolean; subAttributes: readonly string[] };

const invalidFilter = (detail: string) => new ScimError(400, detail, 'invalidFilter');

/** How an attribute path reads in the current scope: the resource's columns, or one element of a JSON array. */
type Scope = { kind: 'resource'; attributes: Record<string, FilterAttribute> } | { kind: 'element'; parent: string; subAttributes: readonly string[] };

/** `where` SQL (placeholders numbered after `firstParam - 1`) and its parameters. */
export function filterToSql(text: string, attributes: Record<string, FilterAttribute>, firstParam = 2): { sql: string; params: unknown[] } {
  let ast: Filter;
  try {
    ast = parse(text);
  } catch (err) {
    throw invalidFilter(`The filter is not valid SCIM filter syntax: ${(err as Error).message}`);
  }
  const params: unknown[] = [];
  const param = (value: unknown) => {
    params.push(value);
    return `$${firstParam + params.length - 1}`;
  };
  const lookup = (path: string): FilterAttribute => {
    const key = Object.keys(attributes).find((name) => name.toLowerCase() === path.toLowerCase());
    if (!key) throw invalidFilter(`Filtering on '${path}' is not supported (supported: ${Object.keys(attributes).join(', ')})`);
    return attributes[key];
  };
  const compare = (expr: string, caseExact: boolean, op: string, value: unknown): string => {
    if (op === 'pr') return `(${expr} is not null and ${expr} <> '')`;
    if (typeof value !== 'string' && typeof value !== 'boolean' && typeof value !== 'number')
      throw invalidFilter(`'${op}' needs a string, number or boolean value`);
    const left = caseExact ? expr : `lower(${expr})`;
    const right = caseExact ? param(String(value)) : `lower(${param(String(value))})`;
    switch (op) {
      case 'eq':
        return `${left} = ${right}`;
      case 'ne':
        return `${left} is distinct from ${right}`;
      case 'co':
        return `strpos(${left}, ${right}) > 0`;
      case 'sw':
        return `starts_with(${left}, ${right})`;
      case 'ew':
        return `right(${left}, length(${right})) = ${right}`;
      default:
        throw invalidFilter(`The operator '${op}' is not supported`);
    }
  };
  const elements = (column: string, condition: string) => `exists (select 1 from jsonb_array_elements(${column}) as e where ${condition})`;
  /** A comparison on one attribute path in `scope`. */
  const condition = (scope: Scope, path: string, op: string, value: unknown): string => {
    if (scope.kind === 'element') {
      const sub = scope.subAttributes.find((name) => name.toLowerCase() === path.toLowerCase());
      if (!sub) throw invalidFilter(`'${scope.parent}' has no sub-attribute '${path}' to filter on (supported: ${scope.subAttributes.join(', ')})`);
      return compare(`(e ->> '${sub}')`, false, op, value);
    }
    const attribute = lookup(path);
    if (attribute.kind === 'column') return compare(attribute.sql, attribute.caseExact, op, value);
    return elements(attribute.column, compare(`(e ->> '${attribute.key}')`, attribute.caseExact, op, value));
  };
  const walk = (node: Filter, scope: Scope): string => {
    switch (node.op) {
      case 'and':
      case 'or':
        return `(${node.filters.map((f) => walk(f, scope)).join(` ${node.op} `)})`;
      case 'not':
        return `not (${walk(node.filter, scope)})`;
      case '[]': {
        if (scope.kind === 'element') throw invalidFilter('Value filters cannot be nested');
        const attribute = lookup(node.attrPath);
        if (attribute.kind !== 'jsonArray') throw invalidFilter(`'${node.attrPath}' is not multi-valued: it takes no [ ] filter`);
        return elements(attribute.column, walk(node.valFilter, { kind: 'element', parent: node.attrPath, subAttributes: attribute.subAttributes }));
      }
      case 'pr':
        return condition(scope, node.attrPath, 'pr', null);
      default:
        return condition(scope, node.attrPath, node.op, node.compValue);
    }
  };
  return { sql: walk(ast, { kind: 'resource', attributes }), params };
}
