/**
 * One collection's entities: a `ql` query (docs/api.md#queries-and-paging) whose syntax error is
 * shown where it is, pages by cursor, and a form to create entities.
 */
import { useState } from 'preact/hooks';
import { ApiError, entitiesOf, request, type Entity } from '../api';
import { Heading, Problem, Waiting } from '../parts';
import { CreateEntities } from '../create-entities';
import { Pager, usePages } from '../paging';
import { Link, pathOf } from '../router';

const PAGE_SIZE = '20';

/** Where a `query_parse` error says the problem is: "… at position 21 …", counted from 1. */
function positionOf(error: Error | undefined): number | undefined {
  if (!(error instanceof ApiError) || error.error !== 'query_parse') return undefined;
  const match = /at position (\d+)/.exec(error.message);
  return match === null ? undefined : Number(match[1]);
}

/** The query with a caret under the character the server stopped at. */
function QueryProblem(props: { ql: string; error: Error }) {
  const position = positionOf(props.error);
  return (
    <div class="problem" role="alert" id="ql-problem">
      <p>{props.error.message}</p>
      {position !== undefined && (
        <pre class="caret" aria-hidden="true">
          {props.ql}
          {'\n'}
          {' '.repeat(Math.max(0, position - 1))}^
        </pre>
      )}
    </div>
  );
}

function EntityTable(props: { entities: Entity[]; base: string[] }) {
  return (
    <div class="table-wrap">
      <table>
        <caption class="visually-hidden">Entities</caption>
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col" class="wide-only">
              UUID
            </th>
            <th scope="col">Modified</th>
          </tr>
        </thead>
        <tbody>
          {props.entities.map((entity) => (
            <tr key={entity.uuid}>
              <td>
                <Link to={pathOf(...props.base, entity.uuid)}>{entity.name ?? '(no name)'}</Link>
              </td>
              <td class="mono wide-only">{entity.uuid}</td>
              <td>{new Date(entity.modified).toLocaleString()}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

export function Entities(props: { org: string; app: string; collection: string }) {
  const { org, app, collection } = props;
  const [draft, setDraft] = useState('');
  const [ql, setQl] = useState('');
  const page = usePages(
    (cursor) => request('get', '/{orgId}/{appId}/{collection}', { params: { orgId: org, appId: app, collection }, query: { ql, cursor, limit: PAGE_SIZE } }),
    [org, app, collection, ql],
  );
  const run = (event: Event) => {
    event.preventDefault();
    setQl(draft.trim());
    page.first();
  };
  const queryError = page.error !== undefined && positionOf(page.error) !== undefined ? page.error : undefined;
  const entities = page.value ? entitiesOf(page.value) : [];
  return (
    <>
      <Heading>
        {collection} <span class="muted">in {app}</span>
      </Heading>
      <form class="query" role="search" onSubmit={run}>
        <label for="ql">Query (ql)</label>
        <div class="inline">
          <input
            id="ql"
            class="mono"
            value={draft}
            placeholder="select * where name = 'rex' order by created desc"
            aria-invalid={queryError !== undefined}
            aria-describedby={queryError ? 'ql-problem' : undefined}
            onInput={(event) => setDraft(event.currentTarget.value)}
            autocomplete="off"
            spellcheck={false}
          />
          <button type="submit">Run</button>
        </div>
      </form>
      {queryError ? <QueryProblem ql={ql} error={queryError} /> : <Problem error={page.error} />}
      <Waiting loading={page.loading} />
      {page.value && entities.length === 0 && <p>No entity matches.</p>}
      {entities.length > 0 && <EntityTable entities={entities} base={['orgs', org, 'apps', app, 'collections', collection]} />}
      <Pager pages={page} />
      <CreateEntities org={org} app={app} collection={collection} onCreated={page.reload} />
    </>
  );
}
