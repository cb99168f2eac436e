/**
 * The form that creates entities from JSON (an object, or an array of objects): in the collection
 * given, or in the one it names, which its first entities create (docs/api.md#entities).
 */
import { t } from './i18n';
import { useState } from 'preact/hooks';
import { entitiesOf, request } from './api';
import { JsonField, parseJson, useAction } from './parts';

const TEMPLATE = '{\n  "name": ""\n}';

export function CreateEntities(props: { org: string; app: string; collection?: string; onCreated: (collection: string) => void }) {
  const named = props.collection === undefined;
  const [name, setName] = useState('');
  const [json, setJson] = useState(TEMPLATE);
  const create = useAction();
  const submit = (event: Event) => {
    event.preventDefault();
    void create.run(async () => {
      const body = parseJson(json, true);
      const collection = props.collection ?? name.trim();
      const answer = await request('post', '/{orgId}/{appId}/{collection}', { params: { orgId: props.org, appId: props.app, collection }, body });
      setJson(TEMPLATE);
      // The server names the collection (a type `dog` makes `dogs`).
      props.onCreated(entitiesOf(answer)[0].metadata?.path?.split('/')[1] ?? collection);
    });
  };
  return (
    <form class="panel" onSubmit={submit}>
      <h2>{named ? t('create.new_collection') : t('create.new_entity')}</h2>
      {named && (
        <>
          <p class="muted">{t('create.collection_hint')}</p>
          <div class="field">
            <label for="collection-name">{t('create.collection')}</label>
            <input id="collection-name" required value={name} placeholder="dogs" onInput={(event) => setName(event.currentTarget.value)} autocomplete="off" />
          </div>
        </>
      )}
      <JsonField
        id={named ? 'collection-first' : 'new-entity'}
        label={named ? t('create.first_entity') : t('create.entity')}
        value={json}
        onInput={setJson}
        rows={5}
        problem={create.error}
      />
      <button type="submit" disabled={create.busy}>
        {named ? t('create.create_collection') : t('create.create')}
      </button>
    </form>
  );
}
