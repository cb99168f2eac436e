/** One organization's applications, and a form to create another. */
import { locale, t } from '../i18n';
import { useState } from 'preact/hooks';
import { entitiesOf, request } from '../api';
import { OrgNav } from '../app-nav';
import { useLoad } from '../load';
import { Heading, Problem, useAction, Waiting } from '../parts';
import { Link, navigate, pathOf } from '../router';

interface ApplicationEntity {
  uuid: string;
  applicationName: string;
  created: number;
}

export function Applications(props: { org: string }) {
  const { org } = props;
  const apps = useLoad(
    async () => entitiesOf(await request('get', '/management/orgs/{orgId}/apps', { params: { orgId: org } })) as unknown as ApplicationEntity[],
    [org],
  );
  const [name, setName] = useState('');
  const create = useAction();
  const submit = (event: Event) => {
    event.preventDefault();
    void create.run(async () => {
      const answer = await request('post', '/management/orgs/{orgId}/apps', { params: { orgId: org }, body: { name: name.trim() } });
      const [created] = entitiesOf(answer) as unknown as ApplicationEntity[];
      navigate(pathOf('orgs', org, 'apps', created.applicationName));
    });
  };
  return (
    <>
      <Heading>{t('apps.title', { org })}</Heading>
      <OrgNav org={org} current="apps" />
      <Waiting loading={apps.loading && apps.value === undefined} />
      <Problem error={apps.error} />
      {apps.value?.length === 0 && <p>{t('apps.none')}</p>}
      <ul class="cards">
        {apps.value?.map((app) => (
          <li key={app.uuid}>
            <Link to={pathOf('orgs', org, 'apps', app.applicationName)}>{app.applicationName}</Link>
            <span class="muted"> {t('apps.created', { date: new Date(app.created).toLocaleDateString(locale()) })}</span>
          </li>
        ))}
      </ul>
      <form class="panel" onSubmit={submit}>
        <h2>{t('apps.new')}</h2>
        <div class="field">
          <label for="app-name">{t('apps.name')}</label>
          <input id="app-name" required value={name} onInput={(event) => setName(event.currentTarget.value)} autocomplete="off" />
        </div>
        <Problem error={create.error} />
        <button type="submit" disabled={create.busy}>
          {t('apps.create')}
        </button>
      </form>
    </>
  );
}
