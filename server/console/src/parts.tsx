/** Pieces every screen uses: its heading, an error, a wait, a JSON editor, a confirmation, a table. */
import { t } from './i18n';
import type { ComponentChildren } from 'preact';
import { useEffect, useId, useRef, useState } from 'preact/hooks';

/**
 * The screen's title. It takes the focus when the screen opens, so a keyboard or screen-reader
 * user starts reading at the new screen, not at the link they followed.
 */
export function Heading(props: { children: ComponentChildren }) {
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => heading.current?.focus(), []);
  return (
    <h1 ref={heading} tabIndex={-1}>
      {props.children}
    </h1>
  );
}

export function Problem(props: { error?: Error; id?: string }) {
  if (props.error === undefined) return null;
  return (
    <p class="problem" role="alert" id={props.id}>
      {props.error.message}
    </p>
  );
}

export function Waiting(props: { loading: boolean }) {
  return props.loading ? (
    <p class="waiting" role="status">
      {t('common.loading')}
    </p>
  ) : null;
}

export type JsonObject = Record<string, unknown>;

/** The text as a JSON object (or array of objects, when `many`), or an error that says what is wrong. */
export function parseJson(text: string, many = false): JsonObject | JsonObject[] {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new Error(t('json.not_json', { reason: (error as Error).message }), { cause: error });
  }
  const isObject = (item: unknown) => typeof item === 'object' && item !== null && !Array.isArray(item);
  if (isObject(value)) return value as JsonObject;
  if (many && Array.isArray(value) && value.length > 0 && value.every(isObject)) return value as JsonObject[];
  throw new Error(many ? t('json.objects') : t('json.object'));
}

/** A labelled textarea for JSON; `problem` is shown under it and tied to it for screen readers. */
export function JsonField(props: { id: string; label: string; value: string; onInput: (text: string) => void; problem?: Error; rows?: number }) {
  const problemId = `${props.id}-problem`;
  return (
    <div class="field">
      <label for={props.id}>{props.label}</label>
      <textarea
        id={props.id}
        class="json"
        rows={props.rows ?? 8}
        spellcheck={false}
        value={props.value}
        aria-invalid={props.problem !== undefined}
        aria-describedby={props.problem ? problemId : undefined}
        onInput={(event) => props.onInput(event.currentTarget.value)}
      />
      <Problem error={props.problem} id={problemId} />
    </div>
  );
}

/** A modal question (the browser's <dialog>: focus kept inside, Escape cancels). */
export function Confirm(props: { open: boolean; title: string; children: ComponentChildren; action: string; onCancel: () => void; onConfirm: () => void }) {
  const dialog = useRef<HTMLDialogElement>(null);
  // A screen may have more than one.
  const titleId = useId();
  useEffect(() => {
    const element = dialog.current;
    if (element === null) return;
    if (props.open && !element.open) element.showModal();
    if (!props.open && element.open) element.close();
  }, [props.open]);
  return (
    <dialog ref={dialog} aria-labelledby={titleId} onClose={props.onCancel}>
      <h2 id={titleId}>{props.title}</h2>
      {props.children}
      <div class="actions">
        <button type="button" onClick={props.onCancel} autofocus>
          {t('common.cancel')}
        </button>
        <button type="button" class="danger" onClick={props.onConfirm}>
          {props.action}
        </button>
      </div>
    </dialog>
  );
}

/** Runs a change; while it runs, `busy`; when it fails, its error. */
export function useAction(): { busy: boolean; error?: Error; run: (change: () => Promise<void>) => Promise<void>; clear: () => void } {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<Error>();
  const run = async (change: () => Promise<void>) => {
    setBusy(true);
    setError(undefined);
    try {
      await change();
    } catch (failure) {
      setError(failure instanceof Error ? failure : new Error(String(failure)));
    } finally {
      setBusy(false);
    }
  };
  return { busy, error, run, clear: () => setError(undefined) };
}

/**
 * A secret the server showed this once: the value, a copy button, and a plain warning. It lives in
 * the screen's memory only, so a reload or another screen forgets it.
 */
export function OnceSecret(props: { label: string; value: string; children?: ComponentChildren }) {
  const [copied, setCopied] = useState(false);
  const title = useRef<HTMLHeadingElement>(null);
  // Where the keyboard and the screen reader go next: the one thing to do before leaving.
  useEffect(() => title.current?.focus(), [props.value]);
  const copy = () => void navigator.clipboard.writeText(props.value).then(() => setCopied(true));
  return (
    <section class="panel secret" aria-labelledby="secret-title">
      <h2 id="secret-title" ref={title} tabIndex={-1}>
        {props.label}
      </h2>
      <p>
        <strong>{t('secret.copy_now')}</strong>
      </p>
      {props.children}
      <div class="inline">
        <code class="mono" id="secret-value">
          {props.value}
        </code>
        <button type="button" onClick={copy}>
          {t('secret.copy')}
        </button>
      </div>
      {copied && (
        <p class="saved" role="status">
          {t('secret.copied')}
        </p>
      )}
    </section>
  );
}

/** An item to remove after a confirmation: `ask` opens the question for it, `confirm` removes it, `cancel` forgets it (and the error). */
export function useRemoval<T>(remove: (item: T) => Promise<void>) {
  const [item, setItem] = useState<T>();
  const action = useAction();
  return {
    item,
    error: action.error,
    ask: (chosen: T) => setItem(chosen),
    confirm: () =>
      void action.run(async () => {
        if (item === undefined) return;
        await remove(item);
        setItem(undefined);
      }),
    cancel: () => {
      setItem(undefined);
      action.clear();
    },
  };
}

export interface Column<T> {
  label: string;
  value: (row: T) => ComponentChildren;
  /** Left out at a phone's width. */
  wideOnly?: boolean;
  /** Said to screen readers only (a column of buttons). */
  hiddenLabel?: boolean;
  /** In a monospace font (ids, keys). */
  mono?: boolean;
}

/**
 * Rows in columns, in a wrapper that scrolls sideways at a phone's width. The wrapper takes the
 * focus, so a table without links or buttons still scrolls from the keyboard, and is a region
 * named by the caption.
 */
export function Table<T>(props: { caption: string; hiddenCaption?: boolean; columns: readonly Column<T>[]; rows: readonly T[]; keyOf: (row: T) => string }) {
  const wide = (column: Column<T>) => (column.wideOnly ? 'wide-only' : undefined);
  const cell = (column: Column<T>) => [column.mono && 'mono', column.wideOnly && 'wide-only'].filter(Boolean).join(' ') || undefined;
  return (
    <div class="table-wrap" tabIndex={0} role="region" aria-label={props.caption}>
      <table>
        <caption class={props.hiddenCaption ? 'visually-hidden' : undefined}>{props.caption}</caption>
        <thead>
          <tr>
            {props.columns.map((column) => (
              <th scope="col" key={column.label} class={wide(column)}>
                {column.hiddenLabel ? <span class="visually-hidden">{column.label}</span> : column.label}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {props.rows.map((row) => (
            <tr key={props.keyOf(row)}>
              {props.columns.map((column) => (
                <td key={column.label} class={cell(column)}>
                  {column.value(row)}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
