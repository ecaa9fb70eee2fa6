/**
 * SCIM filters (RFC 7644 section 3.4.2.2), parsed by `scim2-parse-filter` and translated to SQL over
 * the attributes a resource type exposes for filtering. Supported: `eq`, `ne`, `co`, `sw`, `ew`,
 * `pr`, `and`, `or`, `not`, and value paths such as `emails[value eq "a@b.c"]`. Anything else is 400
 * `invalidFilter`.
 */
import { parse, type Filter } from 'scim2-parse-filter';
import { ScimError } from './errors.ts';

/** How one filterable attribute reads in SQL: a scalar column, or a value inside a JSON array. */
export type FilterAttribute = { kind: 'column'; sql: string; caseExact: boolean } | { kind: 'jsonArray'; column: string; key: string; caseExact: boolean };

const invalidFilter = (detail: string) => new ScimError(400, detail, 'invalidFilter');

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
  const attributeCondition = (attribute: FilterAttribute, op: string, value: unknown): string => {
    if (attribute.kind === 'column') return compare(attribute.sql, attribute.caseExact, op, value);
    return `exists (select 1 from jsonb_array_elements(${attribute.column}) as e where ${compare(`(e ->> '${attribute.key}')`, attribute.caseExact, op, value)})`;
  };
  const walk = (node: Filter): string => {
    switch (node.op) {
      case 'and':
      case 'or':
        return `(${node.filters.map(walk).join(` ${node.op} `)})`;
      case 'not':
        return `not (${walk(node.filter)})`;
      case '[]': {
        // emails[value eq "x"]: the sub-filter applies to the sub-attributes of `emails`.
        const inner = node.valFilter as Filter & { attrPath?: string };
        if (!inner.attrPath || inner.op === '[]') throw invalidFilter('Only one comparison is supported inside [ ]');
        return walk({ ...inner, attrPath: `${node.attrPath}.${inner.attrPath}` } as Filter);
      }
      case 'pr':
        return attributeCondition(lookup(node.attrPath), 'pr', null);
      default:
        return attributeCondition(lookup(node.attrPath), node.op, node.compValue);
    }
  };
  return { sql: walk(ast), params };
}
