/** A table whose rows each have buttons (edit, remove, end, revoke): the columns, then the row's actions, each named for a screen reader. */
import type { ComponentChildren } from 'preact';

export interface Column<T> {
  label: string;
  cell: (row: T) => ComponentChildren;
  /** Left out at a phone's width. */
  wideOnly?: boolean;
  mono?: boolean;
}

export interface RowAction<T> {
  label: string;
  /** What the button says to a screen reader: `Remove corp`, not just `Remove`. */
  name: (row: T) => string;
  danger?: boolean;
  onClick: (row: T) => void;
}

export function ActionTable<T>(props: {
  caption: string;
  columns: Column<T>[];
  rows: T[];
  keyOf: (row: T) => string;
  actions: RowAction<T>[];
  busy?: boolean;
}) {
  const classOf = (column: Column<T>) => [column.mono && 'mono', column.wideOnly && 'wide-only'].filter(Boolean).join(' ') || undefined;
  return (
    <div class="table-wrap">
      <table>
        <caption class="visually-hidden">{props.caption}</caption>
        <thead>
          <tr>
            {props.columns.map((column) => (
              <th scope="col" key={column.label} class={column.wideOnly ? 'wide-only' : undefined}>
                {column.label}
              </th>
            ))}
            <th scope="col">
              <span class="visually-hidden">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {props.rows.map((row) => (
            <tr key={props.keyOf(row)}>
              {props.columns.map((column) => (
                <td key={column.label} class={classOf(column)}>
                  {column.cell(row)}
                </td>
              ))}
              <td>
                <div class="actions">
                  {props.actions.map((action) => (
                    <button
                      type="button"
                      key={action.label}
                      class={action.danger ? 'danger' : undefined}
                      aria-label={`${action.label.replace(/…$/, '')} ${action.name(row)}`}
                      disabled={props.busy}
                      onClick={() => action.onClick(row)}
                    >
                      {action.label}
                    </button>
                  ))}
                </div>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
