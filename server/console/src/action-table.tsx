/** A table whose rows each have buttons (edit, remove, end, revoke): the columns, then the row's actions, each named for a screen reader. */
import { t } from './i18n';
import type { ComponentChildren } from 'preact';
import { Table, type Column as TableColumn } from './parts';

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
  const columns: TableColumn<T>[] = [
    ...props.columns.map((column) => ({ label: column.label, value: column.cell, wideOnly: column.wideOnly, mono: column.mono })),
    {
      label: t('table.actions'),
      hiddenLabel: true,
      value: (row: T) => (
        <div class="actions">
          {props.actions.map((action) => (
            <button
              type="button"
              key={action.label}
              class={action.danger ? 'danger' : undefined}
              aria-label={t('table.action_named', { action: action.label.replace(/…$/, ''), name: action.name(row) })}
              disabled={props.busy}
              onClick={() => action.onClick(row)}
            >
              {action.label}
            </button>
          ))}
        </div>
      ),
    },
  ];
  return <Table caption={props.caption} hiddenCaption columns={columns} rows={props.rows} keyOf={props.keyOf} />;
}
