/**
 * The permission rules a role, group or user holds (docs/api.md#permissions): list, add
 * (`get,put:/dogs/*`), remove; and the tester that asks the server whether a user may make a request.
 */
import { t } from '../i18n';
import { useState } from 'preact/hooks';
import { request, type Envelope } from '../api';
import { useLoad } from '../load';
import { Problem, useAction, Waiting } from '../parts';
import { AddForm, RemovableList, TextField } from './parts';
import type { AccessCollection } from './sections';

/** The rules of a …/permissions answer, or the tester's answer: both are the envelope's `data`. */
function dataOf<T>(envelope: Envelope): T {
  return (envelope as Envelope & { data: T }).data;
}

export function PermissionsPanel(props: { org: string; app: string; collection: AccessCollection; id: string }) {
  const params = { orgId: props.org, appId: props.app, collection: props.collection, entityId: props.id, relation: 'permissions' };
  const rules = useLoad(async () => dataOf<string[]>(await request('get', '/{orgId}/{appId}/{collection}/{entityId}/{relation}', { params })), [props.id]);
  const [draft, setDraft] = useState('');
  const change = useAction();
  const add = () =>
    void change.run(async () => {
      await request('post', '/{orgId}/{appId}/{collection}/{entityId}/{relation}', { params, body: { permission: draft.trim() } });
      setDraft('');
      rules.reload();
    });
  const remove = (rule: string) =>
    void change.run(async () => {
      await request('delete', '/{orgId}/{appId}/{collection}/{entityId}/{relation}', { params, query: { permission: rule } });
      rules.reload();
    });
  return (
    <section class="panel" aria-labelledby="permissions-title">
      <h2 id="permissions-title">{t('permissions.title')}</h2>
      <Waiting loading={rules.loading && rules.value === undefined} />
      <Problem error={rules.error} />
      {rules.value?.length === 0 && <p>{t('permissions.none')}</p>}
      <RemovableList items={rules.value?.map((rule) => ({ key: rule, name: rule, content: <code>{rule}</code> }))} busy={change.busy} onRemove={remove} />
      <AddForm
        field={{ id: 'new-permission', label: t('permissions.label'), value: draft, onInput: setDraft, placeholder: 'get,put:/dogs/*', code: true }}
        action={t('permissions.add')}
        busy={change.busy}
        error={change.error}
        onSubmit={add}
      />
    </section>
  );
}

interface PermissionCheck {
  username?: string;
  verb: string;
  path: string;
  permitted: boolean;
  rule?: string;
  disabled: boolean;
  permissions: string[];
}

const VERBS = ['get', 'put', 'post', 'delete'] as const;

/** "Can user U do VERB on PATH?", answered by `GET …/users/{user}/permitted` (docs/api.md#permissions). */
export function PermissionTester(props: { org: string; app: string; user?: string }) {
  const [user, setUser] = useState(props.user ?? '');
  const [verb, setVerb] = useState<string>('get');
  const [path, setPath] = useState('');
  const [answer, setAnswer] = useState<PermissionCheck>();
  const check = useAction();
  const submit = (event: Event) => {
    event.preventDefault();
    void check.run(async () => {
      setAnswer(undefined);
      const envelope = await request('get', '/{orgId}/{appId}/users/{entityId}/permitted', {
        params: { orgId: props.org, appId: props.app, entityId: user.trim() },
        query: { verb, path: path.trim() },
      });
      setAnswer(dataOf<PermissionCheck>(envelope));
    });
  };
  return (
    <form class="panel" onSubmit={submit} aria-labelledby="tester-title">
      <h2 id="tester-title">{t('tester.title')}</h2>
      <p class="muted">{t('tester.intro')}</p>
      <div class="tester">
        {props.user === undefined && <TextField id="tester-user" label={t('tester.user')} value={user} onInput={setUser} />}
        <div class="field">
          <label for="tester-verb">{t('tester.verb')}</label>
          <select id="tester-verb" value={verb} onChange={(event) => setVerb(event.currentTarget.value)}>
            {VERBS.map((name) => (
              <option key={name} value={name}>
                {name.toUpperCase()}
              </option>
            ))}
          </select>
        </div>
        <TextField id="tester-path" label={t('tester.path')} value={path} onInput={setPath} placeholder="/dogs/fido" code />
      </div>
      <button type="submit" disabled={check.busy}>
        {t('tester.test')}
      </button>
      <Problem error={check.error} />
      <div role="status" class="verdict">
        {answer && <Verdict answer={answer} />}
      </div>
    </form>
  );
}

function Verdict(props: { answer: PermissionCheck }) {
  const { answer } = props;
  const request = `${answer.verb.toUpperCase()} ${answer.path}`;
  return (
    <>
      {answer.permitted ? (
        <p class="allowed">
          <strong>{t('verdict.allowed')}</strong> {t('verdict.may', { user: answer.username ?? '', request })} <code>{answer.rule}</code>.
        </p>
      ) : (
        <p class="denied">
          <strong>{t('verdict.denied')}</strong> {t('verdict.may_not', { user: answer.username ?? '', request })}
          {answer.disabled ? t('verdict.disabled') : t('verdict.no_rule')}
        </p>
      )}
      <details>
        <summary>{t('verdict.every', { user: answer.username ?? '' })}</summary>
        <ul>
          {answer.permissions.map((rule) => (
            <li key={rule}>
              <code>{rule}</code>
            </li>
          ))}
        </ul>
      </details>
    </>
  );
}
