/** One application's collections with their counts, and a new collection made by its first entity. */
import { t } from '../i18n';
import { entitiesOf, request } from '../api';
import { AppNav } from '../app-nav';
import { CreateEntities } from '../create-entities';
import { useLoad } from '../load';
import { Heading, Problem, Waiting } from '../parts';
import { Link, navigate, pathOf } from '../router';

export function Collections(props: { org: string; app: string }) {
  const { org, app } = props;
  const root = useLoad(async () => entitiesOf(await request('get', '/{orgId}/{appId}', { params: { orgId: org, appId: app } }))[0], [org, app]);
  const collections = Object.values(root.value?.metadata?.collections ?? {}).sort((a, b) => a.name.localeCompare(b.name));
  return (
    <>
      <Heading>
        {app} <span class="muted">{t('common.in', { place: org })}</span>
      </Heading>
      <AppNav org={org} app={app} current="collections" />
      <Waiting loading={root.loading && root.value === undefined} />
      <Problem error={root.error} />
      {root.value && (
        <div class="table-wrap">
          <table>
            <caption>{t('collections.caption')}</caption>
            <thead>
              <tr>
                <th scope="col">{t('collections.collection')}</th>
                <th scope="col" class="number">
                  {t('collections.entities')}
                </th>
              </tr>
            </thead>
            <tbody>
              {collections.map((collection) => (
                <tr key={collection.name}>
                  <td>
                    <Link to={pathOf('orgs', org, 'apps', app, 'collections', collection.name)}>{collection.name}</Link>
                  </td>
                  <td class="number">{collection.count}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <CreateEntities org={org} app={app} onCreated={(collection) => navigate(pathOf('orgs', org, 'apps', app, 'collections', collection))} />
    </>
  );
}
