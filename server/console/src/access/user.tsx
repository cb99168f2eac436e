/**
 * What an administrator does to one app user besides editing it: set a new password
 * (docs/api.md#users), deactivate or activate (docs/api.md#account-state), see and remove second
 * factors (docs/api.md#second-factors), end sessions and revoke consents (access/sign-ins.tsx), and
 * see the groups and roles the user is in.
 */
import { t } from '../i18n';
import { useState } from 'preact/hooks';
import { entitiesOf, request, type Entity } from '../api';
import { useLoad } from '../load';
import { Confirm, Problem, useAction, Waiting } from '../parts';
import { Link, pathOf } from '../router';
import { RemovableList } from './parts';
import { ConsentsPanel, SessionsPanel } from './sign-ins';

interface Factor {
  id: string;
  type: string;
  status: string;
  name?: string | null;
  last_used?: number | null;
}

interface UserProps {
  org: string;
  app: string;
  user: Entity;
  onChange: () => void;
}

function PasswordPanel(props: UserProps) {
  const [password, setPassword] = useState('');
  const [done, setDone] = useState(false);
  const save = useAction();
  const submit = (event: Event) => {
    event.preventDefault();
    setDone(false);
    void save.run(async () => {
      const params = { orgId: props.org, appId: props.app, collection: 'users', entityId: props.user.uuid, relation: 'password' };
      await request('post', '/{orgId}/{appId}/{collection}/{entityId}/{relation}', { params, body: { newpassword: password } });
      setPassword('');
      setDone(true);
    });
  };
  return (
    <form class="panel" onSubmit={submit} aria-labelledby="password-title">
      <h2 id="password-title">{t('user.password_title')}</h2>
      <div class="field">
        <label for="new-password">{t('user.new_password')}</label>
        <input
          id="new-password"
          type="password"
          required
          autocomplete="new-password"
          value={password}
          onInput={(event) => setPassword(event.currentTarget.value)}
        />
      </div>
      <Problem error={save.error} />
      {done && (
        <p class="saved" role="status">
          {t('user.password_set')}
        </p>
      )}
      <button type="submit" disabled={save.busy}>
        {t('user.set_password')}
      </button>
    </form>
  );
}

function StatePanel(props: UserProps) {
  const disabled = props.user.disabled === true;
  const change = useAction();
  const toggle = () =>
    void change.run(async () => {
      const params = { orgId: props.org, appId: props.app, entityId: props.user.uuid };
      await request('put', disabled ? '/{orgId}/{appId}/users/{entityId}/activate' : '/{orgId}/{appId}/users/{entityId}/deactivate', { params });
      props.onChange();
    });
  return (
    <section class="panel" aria-labelledby="state-title">
      <h2 id="state-title">{t('user.state_title')}</h2>
      <p>{disabled ? t('user.deactivated') : t('user.active')}</p>
      <Problem error={change.error} />
      <button type="button" class={disabled ? undefined : 'danger'} disabled={change.busy} onClick={toggle}>
        {disabled ? t('user.activate') : t('user.deactivate')}
      </button>
    </section>
  );
}

function FactorsPanel(props: UserProps) {
  const params = { orgId: props.org, appId: props.app, entityId: props.user.uuid };
  const factors = useLoad(
    async () => entitiesOf(await request('get', '/{orgId}/{appId}/users/{entityId}/factors', { params })) as unknown as Factor[],
    [props.user.uuid],
  );
  const [confirming, setConfirming] = useState(false);
  const change = useAction();
  const remove = (ids: string[]) =>
    void change.run(async () => {
      for (const factorId of ids) await request('delete', '/{orgId}/{appId}/users/{entityId}/factors/{factorId}', { params: { ...params, factorId } });
      setConfirming(false);
      factors.reload();
    });
  const list = factors.value ?? [];
  return (
    <section class="panel" aria-labelledby="factors-title">
      <h2 id="factors-title">{t('user.factors_title')}</h2>
      <Waiting loading={factors.loading && factors.value === undefined} />
      <Problem error={factors.error} />
      {factors.value?.length === 0 && <p>{t('user.no_factor')}</p>}
      <RemovableList
        items={list.map((factor) => ({
          key: factor.id,
          name: factor.name ?? factor.type,
          content: (
            <span>
              {factor.name ?? factor.type}{' '}
              <span class="muted">
                ({factor.type}, {factor.status})
              </span>
            </span>
          ),
        }))}
        busy={change.busy}
        onRemove={(id) => remove([id])}
      />
      {list.length > 0 && (
        <button type="button" class="danger" onClick={() => setConfirming(true)}>
          {t('user.reset_factors_ellipsis')}
        </button>
      )}
      <Problem error={change.error} />
      <Confirm
        open={confirming}
        title={t('user.reset_title')}
        action={t('user.reset_factors')}
        onCancel={() => setConfirming(false)}
        onConfirm={() => remove(list.map((factor) => factor.id))}
      >
        <p>{t('user.reset_text')}</p>
      </Confirm>
    </section>
  );
}

/** The groups and roles the user is in, each a link to its screen. */
function MembershipPanel(props: UserProps) {
  const load = (relation: 'groups' | 'roles') => async () =>
    entitiesOf(
      await request('get', '/{orgId}/{appId}/{collection}/{entityId}/{relation}', {
        params: { orgId: props.org, appId: props.app, collection: 'users', entityId: props.user.uuid, relation },
      }),
    );
  const groups = useLoad(load('groups'), [props.user.uuid]);
  const roles = useLoad(load('roles'), [props.user.uuid]);
  const links = (relation: 'groups' | 'roles', entities: Entity[] | undefined) =>
    entities?.length === 0 ? (
      <span class="muted">{t('user.none')}</span>
    ) : (
      entities?.map((entity, index) => (
        <span key={entity.uuid}>
          {index > 0 && ', '}
          <Link to={pathOf('orgs', props.org, 'apps', props.app, relation, entity.uuid)}>{String(entity.path ?? entity.name ?? entity.uuid)}</Link>
        </span>
      ))
    );
  return (
    <section class="panel" aria-labelledby="membership-title">
      <h2 id="membership-title">{t('user.membership_title')}</h2>
      <Problem error={groups.error ?? roles.error} />
      <p>
        {t('user.groups')} {links('groups', groups.value)}
      </p>
      <p>
        {t('user.roles')} {links('roles', roles.value)}
      </p>
      <p class="muted">{t('user.membership_hint')}</p>
    </section>
  );
}

export function UserPanels(props: UserProps) {
  return (
    <>
      <StatePanel {...props} />
      <PasswordPanel {...props} />
      <FactorsPanel {...props} />
      <SessionsPanel owner={{ org: props.org, app: props.app, userId: props.user.uuid }} />
      <ConsentsPanel owner={{ org: props.org, app: props.app, userId: props.user.uuid }} />
      <MembershipPanel {...props} />
    </>
  );
}
