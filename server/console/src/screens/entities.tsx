/**
 * One collection's entities: a `ql` query (docs/api.md#queries-and-paging) whose syntax error is
 * shown where it is, sorted by a column (an `order by` added to the query), pages of 20, 100 or
 * 1,000 by cursor, and a form to create entities.
 */
import { useLayoutEffect, useState } from 'preact/hooks';
import { ApiError, entitiesOf, request, type Entity } from '../api';
import { Heading, Problem, Waiting } from '../parts';
import { CreateEntities } from '../create-entities';
import { Pager, usePages } from '../paging';
import { Link, pathOf } from '../router';
import { dateTime, locale, t } from '../i18n';
import type { MessageKey } from '../messages';
import { orderOf, withOrder, type Direction, type Sort } from '../ql';

// The API reads at most 1,000 entities a page (docs/api.md#queries-and-paging).
const PAGE_SIZES = ['20', '100', '1000'] as const;
type PageSize = (typeof PAGE_SIZES)[number];

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

const COLUMNS: [property: string, label: MessageKey, wide?: boolean][] = [
  ['name', 'entities.name'],
  ['uuid', 'entities.uuid', true],
  ['modified', 'entities.modified'],
];

/** A column's header: a button that sorts by it, ascending first, then the other way; aria-sort says how the rows are. */
function SortHeader(props: { property: string; label: string; sort?: Sort; wide?: boolean; onSort: (sort: Sort) => void }) {
  const direction = props.sort?.property === props.property ? props.sort.direction : undefined;
  const next: Direction = direction === 'asc' ? 'desc' : 'asc';
  return (
    <th
      scope="col"
      class={props.wide ? 'wide-only' : undefined}
      aria-sort={direction === undefined ? 'none' : direction === 'asc' ? 'ascending' : 'descending'}
    >
      <button type="button" class="sort" onClick={() => props.onSort({ property: props.property, direction: next })}>
        {props.label}
        <span aria-hidden="true" class="arrow">
          {direction === 'asc' ? '▲' : direction === 'desc' ? '▼' : '↕'}
        </span>
      </button>
    </th>
  );
}

/**
 * The rows. How long they take is recorded with the User Timing API (`idp-console:rows` from the
 * render to the DOM, `idp-console:rows-painted` to the next frame), as the browser's developer
 * tools show it; docs/benchmarks.md has the figure for 1,000 rows.
 */
function EntityTable(props: { entities: Entity[]; base: string[]; sort?: Sort; onSort: (sort: Sort) => void }) {
  const started = performance.now();
  useLayoutEffect(() => {
    const detail = { rows: props.entities.length };
    performance.measure('idp-console:rows', { start: started, detail });
    requestAnimationFrame(() => setTimeout(() => performance.measure('idp-console:rows-painted', { start: started, detail })));
  }, [props.entities]);
  return (
    <div class="table-wrap">
      <table>
        <caption class="visually-hidden">{t('entities.caption')}</caption>
        <thead>
          <tr>
            {COLUMNS.map(([property, label, wide]) => (
              <SortHeader key={property} property={property} label={t(label)} wide={wide} sort={props.sort} onSort={props.onSort} />
            ))}
          </tr>
        </thead>
        <tbody>
          {props.entities.map((entity) => (
            <tr key={entity.uuid}>
              <td>
                <Link to={pathOf(...props.base, entity.uuid)}>{entity.name ?? t('entities.no_name')}</Link>
              </td>
              <td class="mono wide-only">{entity.uuid}</td>
              <td>{dateTime(entity.modified)}</td>
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
  const [limit, setLimit] = useState<PageSize>('20');
  const page = usePages(
    (cursor) => request('get', '/{orgId}/{appId}/{collection}', { params: { orgId: org, appId: app, collection }, query: { ql, cursor, limit } }),
    [org, app, collection, ql, limit],
  );
  const query = (next: string) => {
    setDraft(next);
    setQl(next);
    page.first();
  };
  const run = (event: Event) => {
    event.preventDefault();
    query(draft.trim());
  };
  const queryError = page.error !== undefined && positionOf(page.error) !== undefined ? page.error : undefined;
  const entities = page.value ? entitiesOf(page.value) : [];
  return (
    <>
      <Heading>
        {collection} <span class="muted">{t('common.in', { place: app })}</span>
      </Heading>
      <form class="query" role="search" onSubmit={run}>
        <label for="ql">{t('entities.query')}</label>
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
          <button type="submit">{t('entities.run')}</button>
        </div>
      </form>
      <div class="page-size">
        <label for="page-size">{t('entities.page_size')}</label>
        <select
          id="page-size"
          value={limit}
          onChange={(event) => {
            setLimit(event.currentTarget.value as PageSize);
            page.first();
          }}
        >
          {PAGE_SIZES.map((size) => (
            <option key={size} value={size}>
              {Number(size).toLocaleString(locale())}
            </option>
          ))}
        </select>
      </div>
      {queryError ? <QueryProblem ql={ql} error={queryError} /> : <Problem error={page.error} />}
      <Waiting loading={page.loading} />
      {page.value && entities.length === 0 && <p>{t('entities.none')}</p>}
      {entities.length > 0 && (
        <EntityTable
          entities={entities}
          base={['orgs', org, 'apps', app, 'collections', collection]}
          sort={orderOf(ql)}
          onSort={(sort) => query(withOrder(ql, sort))}
        />
      )}
      <Pager pages={page} />
      <CreateEntities org={org} app={app} collection={collection} onCreated={page.reload} />
    </>
  );
}
