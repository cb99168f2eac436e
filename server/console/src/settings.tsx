/**
 * Settings that are on or off, each a switch that stores itself at once: an organization's and an
 * application's `secondFactorRequired` (docs/account.md#second-factor-required), an application's
 * `openClientRegistration` and an OAuth client's `require_signed_request_object` (docs/api.md#clients).
 * A switch shows what the server stores, and after a change what the server answered; a refusal
 * is shown under the switch it refuses.
 */
import { t } from './i18n';
import type { MessageKey } from './messages';
import { useState } from 'preact/hooks';
import { Problem, useAction } from './parts';

export interface Setting {
  /** The property the API reads and answers. */
  name: string;
  label: MessageKey;
  hint: MessageKey;
}

type Stored = Record<string, unknown>;

function SettingSwitch(props: { setting: Setting; stored: Stored; save: (name: string, on: boolean) => Promise<Stored>; onSaved: (stored: Stored) => void }) {
  const { setting } = props;
  const on = props.stored[setting.name] === true;
  const [saved, setSaved] = useState<boolean>();
  const change = useAction();
  const id = `setting-${setting.name}`;
  const toggle = (wanted: boolean) =>
    void change.run(async () => {
      setSaved(undefined);
      const answer = await props.save(setting.name, wanted);
      props.onSaved(answer);
      setSaved(answer[setting.name] === true);
    });
  return (
    <div class="field">
      <label class="check" for={id}>
        <input
          id={id}
          type="checkbox"
          role="switch"
          checked={on}
          disabled={change.busy}
          aria-describedby={`${id}-hint${change.error ? ` ${id}-problem` : ''}`}
          aria-invalid={change.error !== undefined}
          onChange={(event) => toggle(event.currentTarget.checked)}
        />
        {t(setting.label)}
      </label>
      <p class="muted" id={`${id}-hint`}>
        {t(setting.hint)}
      </p>
      <Problem error={change.error} id={`${id}-problem`} />
      {saved !== undefined && (
        <p class="saved" role="status">
          {t(saved ? 'settings.saved_on' : 'settings.saved_off', { setting: t(setting.label) })}
        </p>
      )}
    </div>
  );
}

/**
 * The switches of one owner. `stored` is the owner as the API answers it; `save` sends one
 * setting and returns the owner as the API answers it after the change.
 */
export function SettingsPanel(props: { title: string; settings: readonly Setting[]; stored: Stored; save: (name: string, on: boolean) => Promise<Stored> }) {
  const [stored, setStored] = useState(props.stored);
  return (
    <section class="panel" aria-labelledby="settings-title">
      <h2 id="settings-title">{props.title}</h2>
      {props.settings.map((setting) => (
        <SettingSwitch key={setting.name} setting={setting} stored={stored} save={props.save} onSaved={setStored} />
      ))}
    </section>
  );
}
