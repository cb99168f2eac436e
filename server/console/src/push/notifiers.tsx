/**
 * An application's notifiers (docs/api.md#push-notifications): the list, one deleted after a
 * confirmation, and a new one from its key file, read in the browser: an APNs `.p8` token key
 * with its key id, team id and bundle id, or an FCM service-account JSON. The server checks the
 * key and never shows it again.
 */
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
      if (file === undefined) throw new Error(provider === 'apple' ? 'choose the .p8 key file' : 'choose the service-account JSON file');
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
  const appleField = (field: keyof typeof apple, label: string) => (
    <TextField id={`notifier-${field}`} label={label} value={apple[field]} onInput={(value) => setApple({ ...apple, [field]: value })} code />
  );
  return (
    <form class="panel" onSubmit={submit} aria-labelledby="new-notifier-title">
      <h2 id="new-notifier-title">New notifier</h2>
      <TextField id="notifier-name" label="Name (letters, digits, _ or -; devices hold their token as NAME.notifier.id)" value={name} onInput={setName} code />
      <fieldset class="field">
        <legend>Provider</legend>
        <label class="check">
          <input type="radio" name="provider" value="apple" checked={provider === 'apple'} onChange={() => setProvider('apple')} /> Apple (APNs, a .p8 token
          key)
        </label>
        <label class="check">
          <input type="radio" name="provider" value="google" checked={provider === 'google'} onChange={() => setProvider('google')} /> Google (FCM, a
          service-account JSON)
        </label>
      </fieldset>
      <div class="field">
        <label for="notifier-environment">{provider === 'apple' ? 'APNs environment' : 'Environment'}</label>
        <select id="notifier-environment" value={environment} onChange={(event) => setEnvironment(event.currentTarget.value)}>
          <option value="development">{provider === 'apple' ? 'sandbox (development)' : 'development'}</option>
          <option value="production">production</option>
        </select>
      </div>
      <div class="field">
        <label for="notifier-file">{provider === 'apple' ? 'Token key (.p8 file)' : 'Service account (.json file)'}</label>
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
          {appleField('keyId', 'Key id')}
          {appleField('teamId', 'Team id')}
          {appleField('topic', 'Bundle id (the topic)')}
        </>
      )}
      <Problem error={create.error} />
      <button type="submit" disabled={create.busy}>
        Create notifier
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
      <h2 class="section">Notifiers</h2>
      <Waiting loading={notifiers.loading && notifiers.value === undefined} />
      <Problem error={notifiers.error} />
      {notifiers.value?.length === 0 && <p>This application has no notifier yet.</p>}
      {notifiers.value !== undefined && notifiers.value.length > 0 && (
        <Table
          caption="Notifiers"
          hiddenCaption
          rows={notifiers.value}
          keyOf={(notifier) => notifier.uuid}
          columns={[
            { label: 'Name', value: (notifier) => <span class="mono">{String(notifier.name)}</span> },
            { label: 'Provider', value: providerOf },
            { label: 'Environment', value: (notifier) => String(notifier.environment) },
            { label: 'Created', value: (notifier) => new Date(notifier.created).toLocaleString(), wideOnly: true },
            {
              label: 'Actions',
              hiddenLabel: true,
              value: (notifier) => (
                <button type="button" class="danger" aria-label={`Delete ${String(notifier.name)}…`} onClick={() => setDeleting(notifier)}>
                  Delete…
                </button>
              ),
            },
          ]}
        />
      )}
      <NotifierForm org={org} app={app} onCreated={notifiers.reload} />
      <Confirm
        open={deleting !== undefined}
        title={`Delete the notifier ${String(deleting?.name ?? '')}?`}
        action="Delete"
        onCancel={() => setDeleting(undefined)}
        onConfirm={confirmDelete}
      >
        <p>Its key is deleted with it, and nothing more is sent through it. Devices keep their tokens.</p>
        <Problem error={remove.error} />
      </Confirm>
    </>
  );
}
