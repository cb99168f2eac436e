/** Pieces the users, groups and roles screens share: a text field, a list whose items remove, a one-field form that adds. */
import { t } from '../i18n';
import type { ComponentChildren } from 'preact';
import { Problem } from '../parts';

export function TextField(props: {
  id: string;
  label: string;
  value: string;
  onInput: (text: string) => void;
  placeholder?: string;
  code?: boolean;
  optional?: boolean;
}) {
  return (
    <div class="field">
      <label for={props.id}>{props.label}</label>
      <input
        id={props.id}
        class={props.code ? 'mono' : undefined}
        required={!props.optional}
        value={props.value}
        placeholder={props.placeholder}
        autocomplete="off"
        spellcheck={!props.code}
        onInput={(event) => props.onInput(event.currentTarget.value)}
      />
    </div>
  );
}

export interface Item {
  key: string;
  /** What the item is called to a screen reader: its Remove button says "Remove {name}". */
  name: string;
  content: ComponentChildren;
}

export function RemovableList(props: { items?: readonly Item[]; busy: boolean; onRemove: (key: string) => void }) {
  return (
    <ul class="rules">
      {props.items?.map((item) => (
        <li key={item.key}>
          {item.content}
          <button
            type="button"
            class="danger"
            aria-label={t('common.remove_named', { name: item.name })}
            disabled={props.busy}
            onClick={() => props.onRemove(item.key)}
          >
            {t('common.remove')}
          </button>
        </li>
      ))}
    </ul>
  );
}

/** A form of one field that adds something; its error shows under the field. */
export function AddForm(props: { field: Parameters<typeof TextField>[0]; action: string; busy: boolean; error?: Error; onSubmit: () => void }) {
  return (
    <form
      onSubmit={(event) => {
        event.preventDefault();
        props.onSubmit();
      }}
    >
      <TextField {...props.field} />
      <Problem error={props.error} />
      <button type="submit" disabled={props.busy}>
        {props.action}
      </button>
    </form>
  );
}
