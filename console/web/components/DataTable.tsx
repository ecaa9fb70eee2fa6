import type { ComponentChildren } from 'preact';
import { MoreRows, useRowWindow } from './MoreRows.tsx';

export interface Column<T> {
  header: string;
  cell: (row: T) => ComponentChildren;
  /** Narrow screens hide the less important columns. */
  optional?: boolean;
}

/**
 * A captioned table that scrolls sideways inside its own box on a narrow screen. A long one renders
 * its rows a window at a time (MoreRows.tsx); a new `rows` array (a new filter) starts again at the top.
 */
export function DataTable<T>({
  caption,
  columns,
  rows,
  rowKey,
  empty,
}: {
  caption: string;
  columns: Column<T>[];
  rows: T[];
  rowKey: (row: T) => string;
  empty: string;
}) {
  const { shown, more } = useRowWindow(rows.length, rows.length);
  if (rows.length === 0) return <p class="empty">{empty}</p>;
  return (
    <div class="table-wrap">
      <table>
        <caption class="visually-hidden">{caption}</caption>
        <thead>
          <tr>
            {columns.map((c) => (
              <th key={c.header} scope="col" class={c.optional ? 'optional' : undefined}>
                {c.header}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.slice(0, shown).map((row) => (
            <tr key={rowKey(row)}>
              {columns.map((c) => (
                <td key={c.header} class={c.optional ? 'optional' : undefined}>
                  {c.cell(row)}
                </td>
              ))}
            </tr>
          ))}
          <MoreRows shown={shown} total={rows.length} colSpan={columns.length} more={more} noun="rows" />
        </tbody>
      </table>
    </div>
  );
}
