/**
 * An application's notifiers (docs/api.md#push-notifications): the list, one deleted after a
 * confirmation, and a new one from its key file, read in the browser: an APNs `.p8` token key
 * with its key id, team id and bundle id, or an FCM service-account JSON. The server checks the
 * key and never shows it again.
 */
import { dateTime, t } from '../i18n';
import type { MessageKey } from '../messages';
import { useState } from 'preact/hooks';
import { request, type Entity } from '../api';
import { TextField } from '../access/parts';
import type { Loaded } from '../load';
import { Confirm, Problem, Table, useAction, Waiting } from '../parts';

type Provider = 'apple' | 'google';

const providerOf = (notifier: Entity) =>
  notifier.provider === 'apple' ? `Apple APNs, ${String(notifier.topic ?? '')}` : notifier.provider === 'google' ? 'Google FCM' : String(notifier.provider);

function NotifierForm(props: { org: string; app: string; onCreated: () => void }) {
  const [provider, setProvider] = useState<Provider>('apple');
  const [name, setName] = useState('');
  const [environment, setEnvironment] = useState('development');
  const [file, setFile] = useState<File>();
  const [apple, setApple] = useState({ keyId: '', teamId: '', topic: '' });
  const [round, setRound] = useState(0);
  const create = useAction();
  const submit = (event: Event) => {
    event.preventDefault();
    void create.run(async () => {
      if (file === undefined) throw new Error(provider === 'apple' ? t('notifiers.choose_p8') : t('notifiers.choose_json'));
      const key = await file.text();
      const credentials = provider === 'apple' ? { p8: key, ...apple } : { credentials: key };
      await request('post', '/{orgId}/{appId}/notifiers', {
        params: { orgId: props.org, appId: props.app },
        body: { name: name.trim(), provider, environment, ...credentials },
      });
      setName('');
      setFile(undefined);
      setApple({ keyId: '', teamId: '', topic: '' });
      // A new file input: its chosen file cannot be cleared otherwise.
      setRound((value) => value + 1);
      props.onCreated();
    });
  };
  const appleField = (field: keyof typeof apple, label: MessageKey) => (
    <TextField id={`notifier-${field}`} label={t(label)} value={apple[field]} onInput={(value) => setApple({ ...apple, [field]: value })} code />
  );
  return (
    <form class="panel" onSubmit={submit} aria-labelledby="new-notifier-title">
      <h2 id="new-notifier-title">{t('notifiers.new')}</h2>
      <TextField id="notifier-name" label={t('notifiers.name_hint')} value={name} onInput={setName} code />
      <fieldset class="field">
        <legend>{t('notifiers.provider')}</legend>
        <label class="check">
          <input type="radio" name="provider" value="apple" checked={provider === 'apple'} onChange={() => setProvider('apple')} /> {t('notifiers.apple')}
        </label>
        <label class="check">
          <input type="radio" name="provider" value="google" checked={provider === 'google'} onChange={() => setProvider('google')} /> {t('notifiers.google')}
        </label>
      </fieldset>
      <div class="field">
        <label for="notifier-environment">{provider === 'apple' ? t('notifiers.apns_environment') : t('notifiers.environment')}</label>
        <select id="notifier-environment" value={environment} onChange={(event) => setEnvironment(event.currentTarget.value)}>
          <option value="development">{provider === 'apple' ? t('notifiers.sandbox') : t('notifiers.development')}</option>
          <option value="production">{t('notifiers.production')}</option>
        </select>
      </div>
      <div class="field">
        <label for="notifier-file">{provider === 'apple' ? t('notifiers.p8_file') : t('notifiers.json_file')}</label>
        <input
          key={round}
          id="notifier-file"
          type="file"
          required
          accept={provider === 'apple' ? '.p8' : '.json,application/json'}
          onChange={(event) => setFile(event.currentTarget.files?.[0])}
        />
      </div>
      {provider === 'apple' && (
        <>
          {appleField('keyId', 'notifiers.key_id')}
          {appleField('teamId', 'notifiers.team_id')}
          {appleField('topic', 'notifiers.topic')}
        </>
      )}
      <Problem error={create.error} />
      <button type="submit" disabled={create.busy}>
        {t('notifiers.create')}
      </button>
    </form>
  );
}

export function Notifiers(props: { org: string; app: string; notifiers: Loaded<Entity[]> }) {
  const { org, app, notifiers } = props;
  const [deleting, setDeleting] = useState<Entity>();
  const remove = useAction();
  const confirmDelete = () =>
    void remove.run(async () => {
      await request('delete', '/{orgId}/{appId}/notifiers/{id}', { params: { orgId: org, appId: app, id: deleting!.uuid } });
      setDeleting(undefined);
      notifiers.reload();
    });
  return (
    <>
      <h2 class="section">{t('notifiers.title')}</h2>
      <Waiting loading={notifiers.loading && notifiers.value === undefined} />
      <Problem error={notifiers.error} />
      {notifiers.value?.length === 0 && <p>{t('notifiers.none')}</p>}
      {notifiers.value !== undefined && notifiers.value.length > 0 && (
        <Table
          caption={t('notifiers.title')}
          hiddenCaption
          rows={notifiers.value}
          keyOf={(notifier) => notifier.uuid}
          columns={[
            { label: t('notifiers.name'), value: (notifier) => <span class="mono">{String(notifier.name)}</span> },
            { label: t('notifiers.provider'), value: providerOf },
            { label: t('notifiers.environment'), value: (notifier) => String(notifier.environment) },
            { label: t('notifiers.created'), value: (notifier) => dateTime(notifier.created), wideOnly: true },
            {
              label: t('table.actions'),
              hiddenLabel: true,
              value: (notifier) => (
                <button
                  type="button"
                  class="danger"
                  aria-label={t('notifiers.delete_named', { name: String(notifier.name) })}
                  onClick={() => setDeleting(notifier)}
                >
                  {t('common.delete_ellipsis')}
                </button>
              ),
            },
          ]}
        />
      )}
      <NotifierForm org={org} app={app} onCreated={notifiers.reload} />
      <Confirm
        open={deleting !== undefined}
        title={t('notifiers.delete_title', { name: String(deleting?.name ?? '') })}
        action={t('common.delete')}
        onCancel={() => setDeleting(undefined)}
        onConfirm={confirmDelete}
      >
        <p>{t('notifiers.delete_text')}</p>
        <Problem error={remove.error} />
      </Confirm>
    </>
  );
}
