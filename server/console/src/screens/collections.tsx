/** One application's collections with their counts, and a new collection made by its first entity. */
import { AppSections } from '../access/sections';
import { entitiesOf, request } from '../api';
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
        {app} <span class="muted">in {org}</span>
      </Heading>
      <AppSections org={org} app={app} />
      <Waiting loading={root.loading && root.value === undefined} />
      <Problem error={root.error} />
      {root.value && (
        <div class="table-wrap">
          <table>
            <caption>Collections</caption>
            <thead>
              <tr>
                <th scope="col">Collection</th>
                <th scope="col" class="number">
                  Entities
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
